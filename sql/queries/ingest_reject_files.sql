-- Grain: one row per file with rejects of one import batch: how many of them are E_ENCODING and
-- the lines of the first three (and the lines of their action rows at fault, for CSV games),
-- which `big2 ingest` reads back to tell what encoding the file is in (pipeline/cli/ingest.py,
-- pipeline/logs/encodings.py).
-- Parameters: $batch_id; $files (file names, or NULL): when given, the rejects stored for those
-- files by any batch instead, as in ingest_reject_examples.
select
    file,
    count(*) filter (where code = 'E_ENCODING') as n_encoding,
    list_slice(
        list(line order by line, action_index nulls first)
            filter (where code = 'E_ENCODING' and line is not null),
        1,
        3
    ) as lines,
    list_slice(
        list(line + action_index order by line, action_index)
            filter (where code = 'E_ENCODING' and action_index is not null),
        1,
        3
    ) as action_lines
from rejects
where case when $files is null then batch_id = $batch_id else list_contains($files, file) end
group by file
order by file
