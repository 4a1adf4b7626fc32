-- Dou Dizhu grains: one ddz_game_scores / ddz_match_standings / ddz_stats_player_games row per
-- seat of a game (every seat of every Dou Dizhu game scored), one ddz_coop_actions row per action
select 'ddz_game_scores' as mart, game_id, seat, count(*) as n
from ddz_game_scores group by game_id, seat having count(*) <> 1
union all
select 'ddz_match_standings', game_id, seat, count(*)
from ddz_match_standings group by game_id, seat having count(*) <> 1
union all
select 'ddz_stats_player_games', game_id, seat, count(*)
from ddz_stats_player_games group by game_id, seat having count(*) <> 1
union all
select 'ddz_coop_actions', game_id, action_index, count(*)
from ddz_coop_actions group by game_id, action_index having count(*) <> 1
union all
select 'missing', s.game_id, s.seat, 0
from stg_ddz_seats as s
anti join ddz_game_scores as m on m.game_id = s.game_id and m.seat = s.seat
