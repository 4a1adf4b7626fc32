-- Grain: one row: the sidebar's choices from the Dou Dizhu games and their seats:
-- the rulesets, the $limit most recent matches and most active players (lists), how many of
-- each there are, the first and last UTC day.
-- Parameters: $limit.
with gk as (
    -- each start parsed once, the period's ends converted once (the earliest instant is the
    -- earliest UTC time: 0.69 -> 0.40 s at 1M games)
    select game_id, ruleset, match_id, try_cast(started_at as timestamptz) as started_ts
    from games where game_kind = 'doudizhu'
),
matches as (
    select match_id, count(*) over () as n from gk
    where match_id is not null
    group by 1 order by max(started_ts) desc nulls last, 1 limit $limit
),
players as (
    select player_id, count(*) over () as n from seats semi join gk using (game_id)
    group by 1 order by count(*) desc, 1 limit $limit
)
select
    (select list(distinct ruleset order by ruleset) from gk) as rulesets,
    (select list(match_id order by match_id) from matches) as matches,
    (select max(n) from matches) as n_matches,
    (select list(player_id order by player_id) from players) as players,
    (select max(n) from players) as n_players,
    (select timezone('UTC', min(started_ts))::date from gk) as first,
    (select timezone('UTC', max(started_ts))::date from gk) as last
