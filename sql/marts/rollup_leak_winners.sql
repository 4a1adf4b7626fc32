-- Dashboard rollup, grain: one row per ruleset (key ruleset), and one with ruleset NULL for
-- every ruleset together: the players whose score there is positive (stats_players.sum_score,
-- summed over the rulesets for the NULL row) counted in n_players, and every n_* count of
-- stats_players summed over them: the leak finder's "winners" under a ruleset filter or none,
-- less the player looked at when that player is one of them.
with everyone as (
    select
        player_id,
        sum(sum_score) as sum_score,
        sum(columns('^n_'))::bigint
    from stats_players
    group by player_id
)

select
    ruleset,
    count(*) as n_players,
    sum(columns('^n_'))::bigint
from stats_players
where sum_score > 0
group by ruleset

union all by name

select
    null::varchar as ruleset,
    count(*) as n_players,
    sum(columns('^n_'))::bigint
from everyone
where sum_score > 0
