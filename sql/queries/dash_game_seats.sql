-- Grain: one row per seat of $game_id.
-- Parameters: $game_id.
select * from seats where game_id = $game_id order by seat
