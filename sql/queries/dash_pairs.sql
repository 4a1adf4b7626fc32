-- Grain: one row per ordered pair of players (collusion_ranking, over every game), by rank, the
-- first $limit; only the pairs $player is in when given.
-- Parameters: $player (null = all), $limit.
select * from collusion_ranking
where $player is null or player_id = $player or partner_id = $player
order by rank limit $limit
