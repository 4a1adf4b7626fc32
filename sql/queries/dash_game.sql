-- Grain: one row: the games row of the Big Two game $game_id (Dou Dizhu: dash_ddz_game).
-- Parameters: $game_id.
select * from games where game_id = $game_id and coalesce(game_kind, 'big2') = 'big2'
