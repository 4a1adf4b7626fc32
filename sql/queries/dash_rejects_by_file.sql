-- Grain: one row per file: rejected records and distinct codes.
-- Parameters: none.
select file, count(*) as rejects, count(distinct code) as codes from rejects group by 1 order by 2 desc, 1
