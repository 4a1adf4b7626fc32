-- grain: one mart_game_scores row per seat of every stored game, and one standings row each
select 'mart_game_scores' as mart, game_id, seat, count(*) as n
from mart_game_scores group by game_id, seat having count(*) <> 1
union all
select 'mart_match_standings', game_id, seat, count(*)
from mart_match_standings group by game_id, seat having count(*) <> 1
union all
select 'missing', g.game_id, s.seat, 0
from stg_seats as s
join stg_games as g using (game_id)
anti join mart_game_scores as m on m.game_id = s.game_id and m.seat = s.seat
