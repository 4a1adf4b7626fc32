-- Grain: one row per seat per Dou Dizhu game (key game_id, seat), from the warehouse table
-- `seats`. The shared columns, role and max_bid, and the dealt hand (deal_mask: without the
-- kitty, the hand each seat bid with) read by ddz_hand(): n_bombs_dealt, has_rocket_dealt,
-- n_twos_dealt, n_jokers_dealt and hand_strength (docs/stats.md, "Dou Dizhu"; NULL with
-- partial information).
with source as (
    -- seats; the Dou Dizhu columns read as NULL from batches written before them
    select * from seats
    union all by name
    select null::varchar as role, null::tinyint as max_bid
    where false
),

ddz as (
    select s.*, ddz_hand(s.deal_mask) as hand
    from source as s
    semi join (select game_id from games where game_kind = 'doudizhu') as g using (game_id)
)

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
    role,
    max_bid::tinyint as max_bid,
    hand.n_bombs as n_bombs_dealt,
    hand.has_rocket as has_rocket_dealt,
    hand.n_twos as n_twos_dealt,
    hand.n_jokers as n_jokers_dealt,
    hand.strength as hand_strength
from ddz
