-- Grain: one row per (role, dimension, value) of the played-out Dou Dizhu games of a ruleset and
-- a period (rollup_ddz_player_days), as dash_ddz_win_rates: dimension 'bid' = the game's
-- winning bid, 'hand_strength' = the seat's hand strength at bidding (full information only);
-- games, wins, win % of the seats of that role; of one player ($player) or everyone (null).
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player.
with seats as (
    select r.role, r.bid, r.hand_strength, r.n_games, r.n_wins
    from rollup_ddz_player_days r
    where r.role is not null  -- played out
      and ($player is null or r.player_id = $player)
      and ($ruleset is null or r.ruleset = $ruleset)
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
),
cells as (
    select role, 'bid' as dimension, bid::integer as value, n_games, n_wins from seats
    union all
    select role, 'hand_strength', hand_strength, n_games, n_wins from seats
    where hand_strength is not null
)
select role, dimension, value, sum(n_games)::bigint as games, sum(n_wins)::bigint as wins,
    100.0 * sum(n_wins) / sum(n_games) as win_pct
from cells
group by all
order by dimension, role, value
