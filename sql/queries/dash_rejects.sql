-- Grain: one row per rejected record (with its raw text), optionally of one code and/or file;
-- the first $limit in reject_no order.
-- Parameters: $code, $file (null = all), $limit.
select row_number() over (order by batch_id, file, line, code) as reject_no,
    batch_id, file, line, game_id, action_index, code, message, raw
from rejects
where ($code is null or code = $code) and ($file is null or file = $file)
order by reject_no
limit $limit
