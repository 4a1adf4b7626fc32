-- Grain: one row per stored game of the id an E_CONFLICT reject names (one, or none when the
-- id is not stored): where the stored copy was read, its batch and its content hash's prefix
-- (the one the reject's message quotes).
-- Parameters: $game_id.
select g.game_id, g.game_kind, g.source_file, g.source_line, g.batch_id, b.committed_at,
    left(g.content_hash, 16) as content_hash
from games as g
left join batches as b using (batch_id)
where g.game_id = $game_id
