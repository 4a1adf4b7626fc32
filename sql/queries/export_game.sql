-- Grain: one row (the game $game_id, key game_id), or none for an unknown id: what
-- `big2 export` writes at the head of a hand history and of a re-importable log line
-- (docs/log-format.md). Parameter: $game_id.
select
    g.game_id,
    g.game_kind,
    g.ruleset,
    g.overrides,
    g.match_id,
    g.game_number,
    g.table_id,
    g.tournament_id,
    g.tournament_kind,
    g.tournament_round,
    g.started_at,
    g.players,
    g.outcome,
    g.winner,
    g.claim,
    g.first_leader,
    g.n_tricks,
    g.n_actions,
    g.bao_seat,
    g.bao_unknown_seat,
    g.full_info,
    g.info_level,
    g.source_file,
    g.source_line
from stg_games as g
where g.game_id = $game_id
