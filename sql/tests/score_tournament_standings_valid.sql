-- mart_tournament_standings: one row per player per tournament; 積分賽 shares of a tournament
-- with two or more players sum to 1; a 晉級賽 pays its five-round first prize at most once and
-- never pays more than the sum of its games' prize rows. Rows returned are violations.
select 'duplicate' as problem, tournament_id
from mart_tournament_standings
group by tournament_id, player_id
having count(*) > 1
union all
select 'points shares', tournament_id
from mart_tournament_standings
where tournament_kind = 'points'
group by tournament_id
having count(*) > 1 and abs(sum(prize_share) - 1) > 1e-9
union all
select 'knockout champions', tournament_id
from mart_tournament_standings
where tournament_kind = 'knockout' and last_round = 5 and prize = 1500000
group by tournament_id
having count(*) > 1
union all
select 'knockout prizes', tournament_id
from mart_tournament_standings
where tournament_kind = 'knockout' and (prize < 0 or prize is null)
