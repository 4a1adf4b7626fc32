-- Grain: one row per reject code of one import batch: its first example by file and line, for
-- the summary `big2 ingest` prints (pipeline/cli/ingest.py).
-- Parameters: $batch_id.
select
    code,
    file,
    line
from rejects
where batch_id = $batch_id
qualify row_number() over (partition by code order by file, line nulls last) = 1
order by code
