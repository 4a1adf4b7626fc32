-- mart_playtime_rewards: one row per (player_id, reward_day); claims never above the daily
-- maximum nor above what the minutes reached; minutes and counts never negative; a day without
-- a timed game has no minutes and no claims.
select 'grain' as problem, player_id, reward_day
from mart_playtime_rewards
group by player_id, reward_day
having count(*) <> 1
union all
select 'claims above the daily maximum', player_id, reward_day
from mart_playtime_rewards
where n_claims > claims_per_day or n_claims > n_claims_reached or n_claims < 0
union all
select 'negative minutes or counts', player_id, reward_day
from mart_playtime_rewards
where minutes_played < 0 or n_games < 0 or n_games_untimed < 0 or n_games + n_games_untimed = 0
union all
select 'time without a timed game', player_id, reward_day
from mart_playtime_rewards
where n_games = 0 and (minutes_played > 0 or n_claims > 0)
