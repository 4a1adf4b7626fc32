-- Grain: one row per stored game (key game_id), from the warehouse table `games`.
-- Keeps every source column under its own name (the audit and stats marts read them as is)
-- and adds: match_key (the match, or the game itself when the log names no match),
-- ruleset_id (joins stg_rulesets: the preset plus its overrides) and started_ts.
-- info_level: full (the deal) | partial (the plays) | result (a score sheet's line: no actions,
-- no hands; play-level marts leave these games out); from full_info for batches written before it.
-- Big Two games only (game_kind 'big2', or NULL from old batches): Dou Dizhu games are
-- stg_ddz_games.
with source as (
    -- games; the columns added later (tournament_kind, tournament_round, info_level) read as
    -- NULL from batches written before them
    select * from games
    union all by name
    select
        null::varchar as tournament_kind,
        null::integer as tournament_round,
        null::varchar as info_level
    where false
)

select
    batch_id,
    game_id,
    content_hash,
    game_kind,
    ruleset,
    overrides,
    match_id,
    coalesce(game_number, 1)::integer as game_number,
    table_id,
    tournament_id,
    started_at,
    players::tinyint as players,
    outcome,
    winner::tinyint as winner,
    claim,
    first_leader::tinyint as first_leader,
    n_tricks,
    n_actions,
    bao_seat::tinyint as bao_seat,
    bao_unknown_seat::tinyint as bao_unknown_seat,
    full_info,
    source_file,
    source_line,
    tournament_kind,
    tournament_round,
    coalesce(info_level, case when full_info then 'full' else 'partial' end) as info_level,
    coalesce(match_id, game_id) as match_key,
    ruleset || ' ' || overrides as ruleset_id,
    try_cast(started_at as timestamptz) as started_ts
from source
where coalesce(game_kind, 'big2') = 'big2'
