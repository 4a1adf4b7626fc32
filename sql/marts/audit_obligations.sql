-- 頂大 (must-block) audit: one row per obligation, i.e. per action whose actor's next seat
-- (下家) held one card (spec 1.6). Grain: one row per (game_id, action_index).
--
-- required   lead:   any non-single, or the highest single;  follow: the highest single
-- block      met / violated / unknown (partial information: the hand is not in the log)
-- must_block      the game's ruleset parameter: liability / enforced / off
-- is_next_out     the next player went out on their very next turn after this action
-- is_bao          this violation made the actor liable for 包牌 (the engine's decision,
--                 games.bao_seat: none when must_block = off, so the audit is information only);
--                 when the next player was locked out of a trick, several obligations can
--                 precede their winning turn: the last one is the one that let them out
-- is_bao_possible partial information: unknown block and the next player then went out
with obligations as (
    select
        game_id, action_index, trick, is_lead, seat, next_seat, obligation, highest_single_text,
        top_before_text, action_type, kind, cards_text, block, block_reason
    from stg_actions
    where obligation is not null
),

-- per game, the winner's previous own action before the winning play: an obligation toward
-- the winner lying after that index was followed directly by the winning turn
winning as (
    select
        a.game_id,
        any_value(g.winner) as winner_seat,
        coalesce(max(a.action_index) filter (where not a.wins_game), -1) as prev_own_index
    from stg_actions as a
    join stg_games as g on g.game_id = a.game_id and a.seat = g.winner
    where a.game_id in (select game_id from obligations)
    group by a.game_id
),

joined as (
    select
        o.game_id,
        g.ruleset,
        r.must_block,
        g.match_id,
        g.started_at,
        o.action_index,
        o.trick,
        o.is_lead,
        o.seat,
        s.player_id,
        o.next_seat,
        n.player_id as next_player_id,
        o.obligation,
        case o.obligation
            when 'lead_non_single_or_highest_single' then
                'non-single or highest single (' || coalesce(o.highest_single_text, 'hand not in the log') || ')'
            else 'highest single (' || coalesce(o.highest_single_text, 'hand not in the log') || ')'
        end as required,
        o.highest_single_text,
        o.top_before_text,
        o.action_type,
        o.kind,
        case when o.action_type = 'pass' then 'pass' else o.kind || ' ' || o.cards_text end as played,
        o.block,
        o.block_reason,
        coalesce(w.winner_seat = o.next_seat and o.action_index > w.prev_own_index, false)
            as is_next_out,
        g.bao_seat,
        g.bao_unknown_seat
    from obligations as o
    join stg_games as g on g.game_id = o.game_id
    left join stg_rulesets as r on r.ruleset_id = g.ruleset_id
    join stg_seats as s on s.game_id = o.game_id and s.seat = o.seat
    join stg_seats as n on n.game_id = o.game_id and n.seat = o.next_seat
    left join winning as w on w.game_id = o.game_id
),

last_out as (
    -- per game, the last obligation followed directly by the next player going out
    select game_id, max(action_index) as last_out_index
    from joined
    where is_next_out
    group by game_id
),

last_before_out as (
    select
        j.*,
        j.is_next_out and j.action_index = l.last_out_index as is_last_before_out
    from joined as j
    left join last_out as l on l.game_id = j.game_id
)

select
    * exclude (bao_seat, bao_unknown_seat, is_last_before_out),
    block = 'violated' as is_violated,
    block = 'unknown' as is_unknown,
    coalesce(block = 'violated' and is_last_before_out and bao_seat = seat, false) as is_bao,
    coalesce(block = 'unknown' and is_last_before_out and bao_unknown_seat = seat, false)
        as is_bao_possible
from last_before_out
