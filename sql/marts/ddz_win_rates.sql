-- Dou Dizhu win rates of each role. Grain: one row per (ruleset, role, dimension, value):
--   dimension 'bid'            value = the game's winning bid (1-3; 1 for 叫地主)
--   dimension 'hand_strength'  value = the seat's hand strength at bidding (ddz_hand(), the
--                              dealt hand without the kitty; full information only)
-- win_rate = n_wins ÷ n_games (games played out by a seat of that role).
with seats as (
    select ruleset, role, bid, hand_strength, is_winner from ddz_stats_player_games
),

cells as (
    select ruleset, role, 'bid' as dimension, bid::integer as value, is_winner
    from seats
    union all
    select ruleset, role, 'hand_strength', hand_strength, is_winner
    from seats
    where hand_strength is not null
)

select
    ruleset,
    role,
    dimension,
    value,
    count(*) as n_games,
    count(*) filter (where is_winner) as n_wins,
    count(*) filter (where is_winner) / count(*) as win_rate
from cells
group by all
