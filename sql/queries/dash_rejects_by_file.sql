-- Grain: one row per file: rejected records open and resolved (mart_reject_status), and the
-- distinct codes of the open ones; the most open first.
-- Parameters: none.
select
    file,
    count(*) filter (where not is_resolved) as open,
    count(*) filter (where is_resolved) as resolved,
    count(distinct code) filter (where not is_resolved) as open_codes
from mart_reject_status
group by 1
order by 2 desc, 3 desc, 1
