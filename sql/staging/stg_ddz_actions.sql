-- Grain: one row per action per Dou Dizhu game (key game_id, action_index), from the
-- warehouse table `actions`: the auction (phase auction: bid / call / no_call) then the play
-- (phase play: play / pass). The shared columns and the Dou Dizhu ones (phase, bid, units,
-- top_kind, top_seat, landlord, multiplier, ends_auction); adds step (= action_index + 1, the
-- replayer's numbering) and landlord_cards_left (the landlord's cards after the action; NULL
-- in the auction before a landlord is named).
with source as (
    -- actions; the Dou Dizhu columns read as NULL from batches written before them
    select * from actions
    union all by name
    select
        null::double as think_seconds,
        null::varchar as phase,
        null::tinyint as bid,
        null::tinyint as units,
        null::varchar as top_kind,
        null::tinyint as top_seat,
        null::tinyint as landlord,
        null::integer as multiplier,
        null::boolean as ends_auction
    where false
)

select
    game_id,
    action_index,
    action_index + 1 as step,
    seat::tinyint as seat,
    action_type,
    phase,
    bid::tinyint as bid,
    cards_mask,
    cards_text,
    kind,
    rank_key,
    units::tinyint as units,
    trick,
    is_lead,
    top_before_mask,
    top_before_text,
    top_kind,
    top_seat::tinyint as top_seat,
    cards_left,
    hand_before_mask,
    hand_before_text,
    beating_play_existed,
    ends_trick,
    wins_game,
    landlord::tinyint as landlord,
    cards_left[landlord + 1] as landlord_cards_left,
    multiplier::integer as multiplier,
    ends_auction,
    unchecked,
    ts,
    think_seconds
from source
semi join (select game_id from games where game_kind = 'doudizhu') as g using (game_id)
