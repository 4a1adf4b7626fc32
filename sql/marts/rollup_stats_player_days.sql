-- Dashboard rollup, grain: one row per player, ruleset and UTC day (key player_id, ruleset,
-- day; day NULL = no readable start time): the score and every n_* count (actions and
-- opportunities) of stats_player_games summed, so that the leak finder under a period filter
-- sums a few rows per player instead of every seat. Exact under a ruleset or period filter
-- (whole UTC days); a match filter needs stats_player_games itself.
select
    player_id,
    ruleset,
    timezone('UTC', started_ts)::date as day,
    sum(score) as score,
    sum(columns('^n_'))::bigint
from stats_player_games
group by all
