-- Grain: one row: the games row of $game_id.
-- Parameters: $game_id.
select * from games where game_id = $game_id
