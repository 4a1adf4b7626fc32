-- Grain: one row per game (at most 3, by id) whose id is close to $game_id, which names no game:
-- an id that starts with it (a Dou Dizhu deal's `-d1` left off, an id cut short) or that differs
-- from it in case only; what `big2 export` suggests for an unknown id (pipeline/report.py).
-- Parameters: $game_id.
select game_id
from games
where starts_with(game_id, $game_id) or lower(game_id) = lower($game_id)
order by game_id
limit 3
