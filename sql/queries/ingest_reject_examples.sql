-- Grain: one row per reject code of one import batch: its first example by file and line, for
-- the summary `big2 ingest` prints (pipeline/cli/ingest.py).
-- Parameters: $batch_id; $files (file names, or NULL): when given, the rejects stored for those
-- files by any batch instead (an import that met rejects stored before stores them no more).
select
    code,
    file,
    line
from rejects
where case when $files is null then batch_id = $batch_id else list_contains($files, file) end
qualify row_number() over (partition by code order by file, line nulls last) = 1
order by code
