-- Grain: one row per seat of the Dou Dizhu game $game_id (key seat), in seat order: the
-- players, the deal (without the kitty), the role and highest bid, what each seat held at the
-- end, and the score under the game's own rules (ddz_game_scores: multiplier, amount per
-- farmer, money). Parameter: $game_id.
select
    s.seat,
    s.player_id,
    s.name,
    s.balance,
    s.deal_mask,
    s.deal_text,
    s.final_hand_text,
    s.cards_left,
    s.is_winner,
    s.role,
    s.max_bid,
    m.multiplier,
    m.amount,
    m.score
from stg_ddz_seats as s
left join ddz_game_scores as m on m.game_id = s.game_id and m.seat = s.seat
where s.game_id = $game_id
order by s.seat
