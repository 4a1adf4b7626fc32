-- Grain: one row per seat per game (key game_id, seat), from the warehouse table `seats`.
-- Keeps every source column under its own name; adds is_holding_spade_two (the final hand holds
-- ♠2, card id 51; NULL with partial information).
-- Big Two games only: the rows of games whose game_kind is another game's are left out
-- (stg_ddz_* read those).
select
    game_id,
    seat::tinyint as seat,
    player_id,
    name,
    balance::double as balance,
    deal_mask,
    deal_text,
    final_hand_mask,
    final_hand_text,
    cards_left::tinyint as cards_left,
    is_winner,
    (final_hand_mask >> 51) & 1 = 1 as is_holding_spade_two
from seats
anti join (select game_id from games where game_kind <> 'big2') as other_games using (game_id)
