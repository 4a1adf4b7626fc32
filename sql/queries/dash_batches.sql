-- Grain: one row per import batch, newest first.
-- Parameters: none.
select batch_id, committed_at,
    (counts->>'stored')::bigint as stored,
    (counts->>'duplicates')::bigint as duplicates,
    (counts->>'conflicts')::bigint as conflicts,
    (counts->>'rejects')::bigint as rejects,
    meta->>'inputs' as inputs
from batches order by batch_id desc
