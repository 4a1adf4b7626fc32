-- Grain: one row per file and error code: rejected records open and resolved
-- (mart_reject_status).
-- Parameters: none.
select
    file,
    code,
    count(*) filter (where not is_resolved) as open,
    count(*) filter (where is_resolved) as resolved
from mart_reject_status
group by 1, 2
order by 1, 3 desc, 4 desc, 2
