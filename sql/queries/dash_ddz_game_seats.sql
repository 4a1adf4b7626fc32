-- Grain: one row per seat of the Dou Dizhu game $game_id (stg_ddz_seats), in seat order.
-- Parameters: $game_id.
select * from stg_ddz_seats where game_id = $game_id order by seat
