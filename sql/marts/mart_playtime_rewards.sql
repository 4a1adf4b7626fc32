-- Grain: one row per player per reward day (key player_id, reward_day): the time played at the
-- table that day and the play-time reward claims it allows (spec 1.8, seed 002: at most
-- reward_claims_per_day claims, the day refreshing at reward_day_starts in reward_timezone),
-- from each game's minutes in the day (mart_game_playtime: first to last timed action, split at
-- the refresh, under the game's own ruleset). Games without action times earn nothing
-- (n_games_untimed, on the day of started_at). A day's rows come from that day's games alone:
-- an incremental build computes again the reward days the new games touch.
with per_scheme as (
    -- the claims a reward scheme (a threshold list) allows from the minutes played under it
    select
        s.player_id,
        k.reward_day,
        k.reward_minutes,
        count(*) filter (where k.is_timed) as n_games,
        count(*) filter (where not k.is_timed) as n_games_untimed,
        sum(k.minutes) as minutes_played,
        min(k.claims_per_day) as claims_per_day
    from mart_game_playtime as k
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
