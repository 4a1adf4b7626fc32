-- Grain: one row per player, most games first (mart_player_standings), the first $limit.
-- Parameters: $limit.
select player_id from mart_player_standings order by n_games desc, player_id limit $limit
