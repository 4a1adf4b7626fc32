-- Grain: one row per file and error code: rejected records.
-- Parameters: none.
select file, code, count(*) as rejects from rejects group by 1, 2 order by 1, 3 desc
