-- Grain: one row per rejected record (key batch_id, file, line, code), as stg_rejects, with
-- whether a later import has since stored its game: is_resolved, and the game, import and file
-- that did (resolved_*). Published as a view (sqlbuild.VIEW_MARTS): computed on each read from
-- the rejects, games and batches as committed, so an import with --no-build shows at once.
-- Nothing is deleted: a resolved reject stays in `rejects`, as history.
-- A reject is resolved by a game stored by an import (batch) after the reject's own, never
-- by one stored before it or with it (another copy of the record, or another game under the
-- same id: nothing says the rejected record is in the warehouse), matched (resolved_by):
--   game_id: the reject names its game id (it could be read) and a game of that id is stored;
--   line:    the reject names no game id (an undecodable line, bad JSON before the id, a line
--            too long, a score sheet's line) and a game is stored from the same line of the
--            same file (mended in place), or of its UTF-8 copy `utf8/<name>` beside it (the copy
--            `big2 ingest`'s encoding hint writes: iconv keeps the lines where they were);
--   file:    a header that kept the whole file from being read (E_CSV_HEADER, E_SHEET_HEADER,
--            E_CSV_GAMES_FILE) and a game is stored from that file or its UTF-8 copy.
-- Never resolved by a stored game (docs/errors.md): E_CONFLICT and E_CSV_DUPLICATE_GAME (their
-- game id IS stored: another game under it), E_CSV_COLUMN (a column ignored while the games
-- were imported), E_TOO_MANY_REJECTS (a count of rejects not stored one by one).
-- When several games qualify, the latest stored (batch, then file, then line) is named.
with rejects as (
    select * from stg_rejects
),

stored as (
    select
        g.game_id,
        g.batch_id,
        b.committed_at,
        g.source_file,
        g.source_line,
        -- the file a UTF-8 copy `<folder>/utf8/<name>` was converted from: `<folder>/<name>`
        regexp_replace(g.source_file, '([/\\])utf8[/\\]([^/\\]+)$', '\1\2') as original_file,
        -- what a resolved reject names of the game
        {'game_id': g.game_id, 'batch_id': g.batch_id, 'committed_at': b.committed_at,
         'source_file': g.source_file, 'source_line': g.source_line} as game
    from games as g
    left join batches as b using (batch_id)
),

reject_files as (
    select distinct file from rejects
),

places as (
    -- each stored game under its file, and under the file its UTF-8 copy came from (only the
    -- files with rejects: a warehouse of 1M games has few of them)
    select source_file as file, * from stored
    where source_file in (select file from reject_files)
    union all
    select original_file as file, * from stored
    where original_file != source_file and original_file in (select file from reject_files)
),

latest_by_line as (
    select
        file,
        source_line as line,
        arg_max(game, (batch_id, source_file, source_line)) as game
    from places
    group by file, source_line
),

latest_by_file as (
    select
        file,
        arg_max(game, (batch_id, source_file, source_line)) as game
    from places
    group by file
),

matched as (
    select
        r.*,
        case
            when r.code in ('E_CONFLICT', 'E_CSV_DUPLICATE_GAME', 'E_CSV_COLUMN',
                'E_TOO_MANY_REJECTS') then null
            when r.code in ('E_CSV_HEADER', 'E_SHEET_HEADER', 'E_CSV_GAMES_FILE')
                then if(f.game.batch_id > r.batch_id, 'file', null)
            when r.game_id is not null
                then if(s.batch_id > r.batch_id, 'game_id', null)
            else if(l.game.batch_id > r.batch_id, 'line', null)
        end as resolved_by,
        case resolved_by
            when 'game_id' then s.game
            when 'line' then l.game
            when 'file' then f.game
        end as game
    from rejects as r
    left join stored as s on s.game_id = r.game_id
    left join latest_by_line as l on l.file = r.file and l.line = r.line
    left join latest_by_file as f on f.file = r.file
)

select
    * exclude (resolved_by, game),  -- the reject's columns, as stg_rejects
    resolved_by is not null as is_resolved,
    resolved_by,
    game.game_id as resolved_game_id,
    game.batch_id as resolved_batch_id,
    game.committed_at as resolved_at,
    game.source_file as resolved_file,
    game.source_line as resolved_line
from matched
