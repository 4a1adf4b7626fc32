-- Grain: one row per game per reward day it touches (key game_id, reward_day): the minutes
-- of the game in that play-time reward day (spec 1.8, seed 002), under the game's own ruleset;
-- mart_playtime_rewards sums them per player and day. A game's playing time runs from its first
-- to its last timed action (spec Decision); a game across the refresh is split at it, and one
-- ending exactly at the refresh adds no 0-minute part to the next day. A game without action
-- times is one 0-minute part (is_timed false) on the day of started_at; neither: not here.
-- Its rows of a game come from that game alone: an incremental build adds the new games'
-- (docs/sql.md, "Incremental builds").
with rules as (
    select
        ruleset_id,
        (json_extract(params, '$.reward_minutes'))::integer[] as reward_minutes,
        (json_extract_string(params, '$.reward_claims_per_day'))::integer as claims_per_day,
        (json_extract_string(params, '$.reward_day_starts') || ':00')::interval as day_starts,
        json_extract_string(params, '$.reward_timezone') as tz
    from stg_rulesets
),

game_times as (
    select game_id, min(ts) as first_ts, max(ts) as last_ts
    from stg_actions
    where ts is not null
    group by game_id
),

games as (
    select
        g.game_id,
        r.reward_minutes,
        r.claims_per_day,
        r.day_starts,
        r.tz,
        t.first_ts,
        t.last_ts,
        coalesce(t.first_ts, g.started_ts) as day_ts
    from stg_games as g
    join rules as r using (ruleset_id)
    left join game_times as t using (game_id)
    where coalesce(t.first_ts, g.started_ts) is not null
),

-- the reward days a game touches: the local date of (time − day start) in the ruleset's zone
spans as (
    select
        *,
        (timezone(tz, day_ts) - day_starts)::date as first_day,
        (timezone(tz, coalesce(last_ts, day_ts)) - day_starts)::date as last_day
    from games
),

days as (
    select
        s.*,
        d.reward_day::date as reward_day,
        timezone(s.tz, d.reward_day + s.day_starts) as day_start_ts,
        timezone(s.tz, d.reward_day + s.day_starts + interval 1 day) as day_end_ts
    from spans as s,
        unnest(generate_series(s.first_day::timestamp, s.last_day::timestamp, interval 1 day))
            as d (reward_day)
),

parts as (
    select
        game_id,
        reward_day,
        first_day,
        reward_minutes,
        claims_per_day,
        first_ts is not null as is_timed,
        -- (least() and greatest() skip NULLs: an untimed game is 0 minutes explicitly)
        case
            when first_ts is null then 0.0
            else (epoch(least(last_ts, day_end_ts)) - epoch(greatest(first_ts, day_start_ts))) / 60.0
        end as minutes
    from days
)

select game_id, reward_day, reward_minutes, claims_per_day, is_timed, minutes
from parts
-- a game ending exactly at the refresh adds no 0-minute part to the next day
where minutes > 0 or reward_day = first_day
