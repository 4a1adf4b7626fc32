-- Grain: one row per match (none, or one) whose match id is $match_key and is not a game id
-- of its own: its number of games and its first and last game (by game number, then id), what
-- `big2 export` names when it is given a match id (pipeline/report.py). Parameters: $match_key.
with match_games as (
    select game_id, game_number from stg_games where match_key = $match_key and game_id <> $match_key
    union all
    select game_id, game_number from stg_ddz_games
    where match_key = $match_key and game_id <> $match_key
)

select
    count(*) as n_games,
    arg_min(game_id, (coalesce(game_number, 0), game_id)) as first_game_id,
    arg_max(game_id, (coalesce(game_number, 0), game_id)) as last_game_id
from match_games
having count(*) > 0
