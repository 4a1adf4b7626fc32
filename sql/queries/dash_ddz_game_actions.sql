-- Grain: one row per action of the Dou Dizhu game $game_id (stg_ddz_actions: the auction, then
-- the play), in order.
-- Parameters: $game_id.
select * from stg_ddz_actions where game_id = $game_id order by action_index
