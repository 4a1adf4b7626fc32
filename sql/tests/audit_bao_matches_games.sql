-- 包牌: every game with a bao_seat has exactly one is_bao row, by that seat; no other game has one
-- (result-only games, info_level = result, have no actions: their 包牌 seat is the sheet's)
with marked as (
    select game_id, count(*) as n, min(seat) as seat
    from audit_obligations
    where is_bao
    group by game_id
)
select g.game_id, g.bao_seat, m.n, m.seat
from stg_games as g
full join marked as m using (game_id)
where (g.bao_seat is not null or m.n is not null)
  and g.info_level is distinct from 'result'
  and (m.n is distinct from 1 or m.seat is distinct from g.bao_seat)
