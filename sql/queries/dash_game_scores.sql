-- Grain: one row per seat of $game_id: its score under the game's own rules (mart_game_scores).
-- Parameters: $game_id.
select * from mart_game_scores where game_id = $game_id order by seat
