-- Grain: one row per rejected record (with its raw text, and when resolved the game, import and
-- file that resolved it: mart_reject_status), optionally of one code, file and/or status; the
-- first $limit in reject_no order (reject_no numbers every reject, whatever the filters).
-- Parameters: $code, $file, $resolved (true: the resolved ones, false: the open ones; null =
-- all), $limit.
with numbered as (
    select
        row_number() over (order by batch_id, file, line, code) as reject_no,
        *
    from mart_reject_status
)

select
    reject_no, batch_id, file, line, game_id, action_index, code, message, raw,
    is_resolved, resolved_by, resolved_game_id, resolved_batch_id, resolved_at,
    resolved_file, resolved_line
from numbered
where ($code is null or code = $code)
    and ($file is null or file = $file)
    and ($resolved is null or is_resolved = $resolved)
order by reject_no
limit $limit
