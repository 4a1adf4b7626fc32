-- Grain: one row per player per reward day (key player_id, reward_day): the time played at the
-- table that day and the play-time reward claims it allows (spec 1.8, seed 002: at most
-- reward_claims_per_day claims, the day refreshing at reward_day_starts in reward_timezone).
-- A game's playing time runs from its first to its last timed action (spec Decision), under
-- each game's own ruleset; a game across the refresh is split at it. Games without action
-- times earn nothing (n_games_untimed, on the day of started_at; neither: not here).
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
        reward_minutes,
        claims_per_day,
        first_ts is not null as is_timed,
        -- (least() and greatest() skip NULLs: an untimed game is 0 minutes explicitly)
        case
            when first_ts is null then 0.0
            else (epoch(least(last_ts, day_end_ts)) - epoch(greatest(first_ts, day_start_ts))) / 60.0
        end as minutes
    from days
),

-- a game ending exactly at the refresh adds no 0-minute game to the next day
kept as (
    select p.*
    from parts as p
    join spans as s using (game_id)
    where p.minutes > 0 or p.reward_day = s.first_day
),

per_scheme as (
    -- the claims a reward scheme (a threshold list) allows from the minutes played under it
    select
        s.player_id,
        k.reward_day,
        k.reward_minutes,
        count(*) filter (where k.is_timed) as n_games,
        count(*) filter (where not k.is_timed) as n_games_untimed,
        sum(k.minutes) as minutes_played,
        min(k.claims_per_day) as claims_per_day
    from kept as k
    join stg_seats as s using (game_id)
    group by s.player_id, k.reward_day, k.reward_minutes
),

claims as (
    select
        *,
        len(reward_minutes) as n_thresholds,
        case
            when len(reward_minutes) = 0 then 0
            else
                len(list_filter(reward_minutes, lambda x: x <= minutes_played))
                + case
                    when minutes_played >= reward_minutes[-1]
                        then floor(
                            (minutes_played - reward_minutes[-1])
                            / (reward_minutes[-1] - coalesce(reward_minutes[-2], 0))
                        )::integer
                    else 0
                end
        end as n_claims_reached
    from per_scheme
)

select
    player_id,
    reward_day,
    sum(n_games)::integer as n_games,
    sum(n_games_untimed)::integer as n_games_untimed,
    round(sum(minutes_played), 3) as minutes_played,
    sum(n_claims_reached)::integer as n_claims_reached,
    min(claims_per_day) as claims_per_day,
    least(sum(n_claims_reached), min(claims_per_day))::integer as n_claims,
    count(*)::integer as n_reward_schemes
from claims
group by player_id, reward_day
order by player_id, reward_day
