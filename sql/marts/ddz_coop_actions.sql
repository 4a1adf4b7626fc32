-- Farmer cooperation audit (Dou Dizhu, 004's strategy note), the evidence. Grain: one row per
-- farmer's turn following a play while holding a beating play (beating_play_existed; full
-- information), grain (game_id, action_index). signal:
--   partner   the play on the table is the other farmer's (top_seat, 3 players):
--             is_event = the farmer played over it (beat its partner)
--   feed      the play on the table is the landlord's and the landlord holds 1 or 2 cards:
--             is_event = the farmer passed ("feeding the landlord")
--   baseline  the landlord's play, the landlord holding 3 or more: is_event = passed (the
--             farmer's own pass rate, the yardstick of ddz_coop_players)
-- step = action_index + 1 (the replayer's numbering); table = the play beaten or let through;
-- hand = the farmer's hand before the action; played = what it did.
with turns as (
    select
        a.game_id,
        a.action_index,
        a.step,
        a.trick,
        a.seat,
        a.landlord,
        a.top_seat,
        a.landlord_cards_left,
        a.action_type,
        a.top_kind,
        a.top_before_text,
        a.hand_before_text,
        a.kind,
        a.cards_text,
        case
            when a.top_seat <> a.landlord then 'partner'
            when a.landlord_cards_left <= 2 then 'feed'
            else 'baseline'
        end as signal
    from stg_ddz_actions as a
    where a.phase = 'play'
      and not a.is_lead
      and a.beating_play_existed
      and a.seat <> a.landlord
)

select
    t.game_id,
    t.action_index,
    t.step,
    t.trick,
    g.ruleset,
    g.match_key,
    g.started_ts,
    t.seat,
    s.player_id,
    t.landlord,
    t.top_seat,
    t.signal,
    case when t.signal = 'partner' then t.action_type = 'play' else t.action_type = 'pass' end
        as is_event,
    t.landlord_cards_left,
    t.top_kind || ' ' || t.top_before_text as table_play,
    t.hand_before_text as hand,
    case when t.action_type = 'pass' then 'pass' else t.kind || ' ' || t.cards_text end as played
from turns as t
join stg_ddz_games as g on g.game_id = t.game_id
join stg_ddz_seats as s on s.game_id = t.game_id and s.seat = t.seat
