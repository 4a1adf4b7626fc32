-- Grain: one row per player (key player_id, by id) who sat in a game of the selection of
-- everyone: what `big2 report --player` names when the player played none of its games
-- (pipeline/report.py). Parameters: $match_key, $day, $tz (see sql/macros/report_games.sql).
select distinct s.player_id
from report_games($match_key, $day, $tz, null) as g
join stg_seats as s on s.game_id = g.game_id
union
select distinct s.player_id
from report_ddz_games($match_key, $day, $tz, null) as g
join stg_ddz_seats as s on s.game_id = g.game_id
order by player_id
