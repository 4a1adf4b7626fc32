-- Grain: one row per error code: rejected records.
-- Parameters: none.
select code, count(*) as rejects from rejects group by 1 order by 2 desc, 1
