-- Grain: one row: the sidebar's choices from the Dou Dizhu rollups (rollup_ddz_games,
-- rollup_ddz_player_days), as dash_ddz_filter_options: the rulesets, the $limit most recent
-- matches and most active players (lists), how many of each there are, the first and last UTC
-- day.
-- Parameters: $limit.
with matches as (
    select match_id, count(*) over () as n from rollup_ddz_games
    where match_id is not null
    group by 1 order by max(last_ts) desc nulls last, 1 limit $limit
),
players as (
    select player_id, count(*) over () as n from rollup_ddz_player_days
    group by 1 order by sum(n_seats) desc, 1 limit $limit
)
select
    (select list(distinct ruleset order by ruleset) from rollup_ddz_games) as rulesets,
    (select list(match_id order by match_id) from matches) as matches,
    (select max(n) from matches) as n_matches,
    (select list(player_id order by player_id) from players) as players,
    (select max(n) from players) as n_players,
    (select timezone('UTC', min(first_ts))::date from rollup_ddz_games) as first,
    (select timezone('UTC', max(last_ts))::date from rollup_ddz_games) as last
