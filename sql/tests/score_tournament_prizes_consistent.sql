-- Seed 002's tables agree with its rules: the 積分賽 shares sum to 1 and each room's prizes are
-- 70 % / 30 % of its pot; 晉級賽 prizes never rise with a worse place, and the best prize of a
-- round is below the next round's. Rows returned are inconsistencies.
select 'points shares' as problem, null as detail
from tournament_prizes where tournament_kind = 'points'
having abs(sum(pot_share) - 1) > 1e-9
union all
select 'room prizes', room
from tournament_fees
where tournament_kind = 'points'
    and (first_prize != pot * 0.7 or second_prize != pot * 0.3)
union all
select 'knockout order', round::varchar || '/' || place::varchar
from tournament_prizes as a
where tournament_kind = 'knockout' and exists (
    select 1 from tournament_prizes as b
    where b.tournament_kind = 'knockout'
        and ((b.round = a.round and b.place > a.place and b.prize > a.prize)
            or (b.round = a.round + 1 and b.place = 1 and b.prize <= a.prize))
)
