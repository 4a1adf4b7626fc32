-- Grain: one row per action of $game_id, in order.
-- Parameters: $game_id.
select * from actions where game_id = $game_id order by action_index
