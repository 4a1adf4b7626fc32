-- Grain: one row per match holding the game $game_id under a match id of its own (none, or
-- one): what `big2 report --match` names when it is given the id of a game of a match
-- (pipeline/report.py). Parameters: $game_id.
select match_key from stg_games where game_id = $game_id and match_key <> game_id
union all
select match_key from stg_ddz_games where game_id = $game_id and match_key <> game_id
limit 1
