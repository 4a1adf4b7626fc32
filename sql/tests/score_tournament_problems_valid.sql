-- mart_tournament_problems: one row per (game_id, code); every code is one of the five named
-- in docs/errors.md; every flagged game is a scored tournament game; and the standings agree:
-- n_problem_games counts the tournament's flagged games, is_provisional = incomplete or flagged.
-- Rows returned are violations.
select 'duplicate' as problem, game_id as detail
from mart_tournament_problems
group by game_id, code
having count(*) > 1
union all
select 'unknown code', code
from mart_tournament_problems
where code not in (
    'E_TOURNEY_NOT_QUALIFIED', 'E_TOURNEY_ROUND_ORDER', 'E_TOURNEY_TOO_MANY_GAMES',
    'E_TOURNEY_PLAYERS_CHANGED', 'E_TOURNEY_KIND_MIXED'
)
union all
select 'not a tournament game', p.game_id
from mart_tournament_problems as p
where not exists (
    select 1 from mart_game_scores as s
    where s.game_id = p.game_id and s.tournament_id = p.tournament_id and s.is_scored
)
union all
select 'problem count', s.tournament_id
from mart_tournament_standings as s
where s.n_problem_games != (
    select count(distinct p.game_id) from mart_tournament_problems as p
    where p.tournament_id = s.tournament_id
)
    or s.is_provisional != (not s.is_complete or s.n_problem_games > 0)
