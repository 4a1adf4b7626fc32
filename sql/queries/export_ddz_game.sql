-- Grain: one row (the Dou Dizhu game $game_id, key game_id), or none for an unknown id or a
-- Big Two game (export_game): what `big2 export` writes at the head of a Dou Dizhu hand history
-- and of a re-importable log line (docs/log-format.md, Dou Dizhu): the deal's kitty, set-aside
-- and face-up cards, the auction's first bidder, the landlord, the bid and the result facts.
-- Parameter: $game_id.
select
    g.game_id,
    g.game_kind,
    g.ruleset,
    g.overrides,
    g.match_id,
    g.game_number,
    g.table_id,
    g.tournament_id,
    g.started_at,
    g.players,
    g.outcome,
    g.winner,
    g.n_tricks,
    g.n_actions,
    g.full_info,
    g.info_level,
    g.source_file,
    g.source_line,
    g.landlord,
    g.bid,
    g.bombs,
    g.rockets,
    g.spring,
    g.landlord_won,
    g.first_bidder,
    g.kitty_mask,
    g.kitty_text,
    g.set_aside_mask,
    g.set_aside_text,
    g.face_up_card,
    g.face_up_card_text,
    g.is_scored
from stg_ddz_games as g
where g.game_id = $game_id
