-- Grain: one row per action of the Dou Dizhu game $game_id (key action_index), in play order:
-- the auction (bid value, call / no_call), then the plays and passes with the multiplier so far
-- (2^(bombs + rockets)); what a hand history prints and a log line's `actions` hold. ts_epoch:
-- the action's time as Unix seconds. Parameter: $game_id.
select
    a.action_index,
    a.seat,
    a.action_type,
    a.phase,
    a.bid,
    a.cards_mask,
    a.cards_text,
    a.kind,
    a.trick,
    a.is_lead,
    a.cards_left,
    a.wins_game,
    a.ends_auction,
    a.landlord,
    a.multiplier,
    epoch_ms(a.ts) / 1000.0 as ts_epoch
from stg_ddz_actions as a
where a.game_id = $game_id
order by a.action_index
