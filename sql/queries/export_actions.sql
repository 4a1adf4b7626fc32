-- Grain: one row per action of the game $game_id (key action_index), in play order: what a
-- hand history prints and a log line's `actions` hold. ts_epoch: the action's time as Unix
-- seconds; unchecked: what partial information left unchecked (tells whether the first play
-- had to hold the lowest card); last_call: the last-card call after a play leaving one card.
-- Parameter: $game_id.
select
    a.action_index,
    a.seat,
    a.action_type,
    a.cards_mask,
    a.cards_text,
    a.kind,
    a.trick,
    a.is_lead,
    a.cards_left,
    a.obligation,
    a.block,
    a.block_reason,
    a.next_seat,
    a.ends_trick,
    a.wins_game,
    a.drawn,
    a.drawn_text,
    a.claim,
    a.unchecked,
    a.last_call,
    epoch_ms(a.ts) / 1000.0 as ts_epoch
from stg_actions as a
where a.game_id = $game_id
order by a.action_index
