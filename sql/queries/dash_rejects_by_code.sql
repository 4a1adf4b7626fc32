-- Grain: one row per error code: its rejected records still open, and those resolved since (a
-- later import stored their game: mart_reject_status); the most open first.
-- Parameters: none.
select
    code,
    count(*) filter (where not is_resolved) as open,
    count(*) filter (where is_resolved) as resolved
from mart_reject_status
group by 1
order by 2 desc, 3 desc, 1
