-- Grain: one row per file with E_ENCODING rejects still open (mart_reject_status): how many,
-- and the raw text of the first three (by line, then action), which the Import health page
-- reads to tell what encoding the file is in and the command that writes its UTF-8 copy
-- (pipeline.logs.encodings.raw_guess, as `big2 ingest` tells it from the file's lines).
-- Parameters: none.
select
    file,
    count(*) as n_encoding,
    list_slice(list(raw order by line, action_index nulls first), 1, 3) as raws
from mart_reject_status
where code = 'E_ENCODING' and not is_resolved
group by file
order by file
