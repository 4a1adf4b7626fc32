-- Grain: one row per rejected record (key batch_id, file, line, code), from `rejects`.
select
    batch_id,
    file,
    line,
    game_id,
    action_index,
    code,
    message,
    raw
from rejects
