-- Strategy stats, base grain: one row per seat per game (= per player per game) with every
-- stat's actions (n_*) and opportunities, and the filter columns a dashboard binds:
-- ruleset, period (month of started_at, UTC), match_id. Sum the n_* columns over any filter,
-- then divide (docs/stats.md defines each stat as actions ÷ opportunities).
-- Games known only by their result (stg_games.info_level = result: score sheets) are left out:
-- they have no plays, and a stat never counts them as zeros.
with games as (
    select
        game_id, ruleset, match_id, game_number, players, winner, first_leader, outcome, info_level,
        try_cast(started_at as timestamptz) as started_ts
    from stg_games
),

-- the direction of play of a game (+1: next seat = seat + 1), from its first action
directions as (
    select
        a.game_id,
        case when a.next_seat = (a.seat + 1) % g.players then 1 else -1 end as step
    from stg_actions as a
    join games as g using (game_id)
    where a.action_index = 0
),

-- batches written before actions.think_seconds: the same gap, from the previous action's ts by
-- a join on action_index - 1 (no rows when every batch stores it: an action with a ts but no
-- think_seconds is then a first action, or one after an action without a ts)
unstored_think as (
    select a.game_id, a.seat, a.action_index, epoch(a.ts) as t
    from stg_actions as a
    where a.think_seconds is null and a.ts is not null and a.action_index > 0
      and a.action_type in ('play', 'pass')
),

actions as (
    -- each string comparison once per action (the counts below test flags: much cheaper than
    -- comparing strings once per count); think: seconds since the previous action of the game
    -- (any kind), on each play or pass (NULL when either has no timestamp), stored at import
    -- (actions.think_seconds)
    select
        a.game_id, a.seat, a.is_lead, a.cards_mask,
        a.beating_play_existed, a.obligation, a.hand_before_mask,
        a.last_call = 'missing' as is_call_missed,
        a.action_type = 'play' as is_play,
        a.action_type = 'pass' as is_pass,
        a.action_type in ('play', 'pass') as is_decision,
        a.kind = 'single' as is_single,
        a.kind = 'pair' as is_pair,
        a.kind = 'triple' as is_triple,
        a.kind is not null and a.kind not in ('single', 'pair', 'triple') as is_other_kind,
        bit_count(a.cards_mask) = 5 as is_five,
        case when a.kind = 'single' then cast(floor(log2(a.cards_mask)) as integer) end as card_id,
        case when bit_count(a.top_before_mask) = 1
            then cast(floor(log2(a.top_before_mask)) as integer) end as top_card_id,
        case when a.action_type in ('play', 'pass') then a.think_seconds end as think
    from stg_actions as a
    union all by name
    -- the think time of unstored_think, as extra rows that only carry it (every flag NULL: they
    -- count in no other column); in the same aggregate, so no extra join per seat. The hash
    -- table is built on unstored_think's side (the right one: pipeline.sqlbuild.MART_SETTINGS
    -- keeps the joins as written), which is empty when every batch stores think_seconds, and
    -- DuckDB then skips the probe's scan of every action (built on stg_actions' side it cost
    -- ~6 CPU-s at 1M games for no row)
    select u.game_id, u.seat, u.t - epoch(p.ts) as think
    from stg_actions as p
    join unstored_think as u on p.game_id = u.game_id and p.action_index = u.action_index - 1
),

per_seat_actions as (
    -- count_if, not count(*) filter: the same counts (NULL, not 0, where no row of a seat has
    -- the flag known: the select below reads them through coalesce), 0.89× the mart's time at
    -- 1M games (docs/benchmarks.md)
    select
        game_id,
        seat,
        -- leads (opportunity: every trick the seat led)
        count_if(is_lead and is_play)::bigint as n_leads,
        count_if(is_lead and is_single)::bigint as n_lead_single,
        count_if(is_lead and is_pair)::bigint as n_lead_pair,
        count_if(is_lead and is_triple)::bigint as n_lead_triple,
        count_if(is_lead and is_five)::bigint as n_lead_five,
        count_if(is_lead and is_other_kind and not is_five)::bigint as n_lead_other,
        -- plays (opportunity: the game)
        count_if(is_play)::bigint as n_plays,
        count_if(is_play and is_five)::bigint as n_five_card_plays,
        -- following turns (opportunity: a turn on a trick already opened, a play or a pass;
        -- the leader follows too when play comes back round to it)
        count_if(not is_lead and is_decision)::bigint as n_follow_turns,
        count_if(is_pass)::bigint as n_passes,
        count_if(is_pass and beating_play_existed)::bigint as n_voluntary_passes,
        count_if(is_pass and not beating_play_existed)::bigint as n_forced_passes,
        count_if(not is_lead and is_decision and beating_play_existed)::bigint as n_could_beat,
        -- a single 2 played on a single, not under a 頂大 obligation (which asks for the
        -- highest single), while a card of higher rank than the top but below 2 was in hand
        -- (card ids 4·(top rank + 1) .. 47)
        count_if(not is_lead and card_id >= 48 and top_card_id is not null
                         and obligation is null and hand_before_mask is not null)::bigint
            as n_two_single_follows,
        count_if(not is_lead and card_id >= 48 and top_card_id is not null
                 and obligation is null and hand_before_mask & ((1::bigint << 48) - (1::bigint << (4 * (top_card_id // 4 + 1)))) <> 0)::bigint
            as n_two_wasted,
        -- the last-card call (docs/stats.md): plays that left the seat one card without the
        -- call after them (recorded only under last_card_call = required)
        count_if(is_call_missed)::bigint as n_last_call_missed,
        -- think time (docs/stats.md): decisions with a think time, and their sum
        count(think) as n_timed_decisions,
        sum(think) as sum_decision_seconds
    from actions
    group by game_id, seat
),

game_tricks as (
    -- per game, counted per seat in one pass over the tricks (seats 0-3: every seat of 2-4
    -- players) instead of joining every trick to every seat; index [seat + 1]
    select
        game_id,
        count(*) as n_tricks,
        count(leader) as n_led,
        [count(*) filter (where winner = 0), count(*) filter (where winner = 1),
         count(*) filter (where winner = 2), count(*) filter (where winner = 3)] as n_won,
        [count(*) filter (where leader = 0), count(*) filter (where leader = 1),
         count(*) filter (where leader = 2), count(*) filter (where leader = 3)] as n_led_by,
        [count(*) filter (where winner = 0 and leader <> 0),
         count(*) filter (where winner = 1 and leader <> 1),
         count(*) filter (where winner = 2 and leader <> 2),
         count(*) filter (where winner = 3 and leader <> 3)] as n_regained
    from stg_tricks
    group by game_id
),

wide_tricks as (
    -- games of 5 or more seats (spec 1.3; rare): seats 4 and up counted by a join of their
    -- tricks to their seats, the seats 0-3 above stay as they are
    select
        t.game_id,
        s.seat,
        count(*) filter (where t.winner = s.seat) as n_won,
        count(*) filter (where t.leader = s.seat) as n_led_by,
        count(*) filter (where t.winner = s.seat and t.leader <> s.seat) as n_regained
    from stg_tricks as t
    join (select game_id from games where players > 4) as w using (game_id)
    join stg_seats as s on s.game_id = t.game_id and s.seat > 3
    group by all
)

select
    g.game_id,
    g.ruleset,
    g.match_id,
    -- the month in UTC (date_trunc of a timestamptz truncates in the session's TimeZone: the
    -- build machine's zone, which put a game of 31 January 20:00 UTC in February in Hong Kong)
    timezone('UTC', date_trunc('month', timezone('UTC', g.started_ts))) as period,
    g.started_ts,
    g.players,
    s.seat,
    s.player_id,
    s.is_winner,
    1 as n_games,
    case when s.is_winner then 1 else 0 end as n_wins,
    case when g.winner is not null and not s.is_winner then 1 else 0 end as n_losses,
    case when g.winner is not null and not s.is_winner then s.cards_left end as cards_left_when_losing,
    -- 炒: the loser's multiplier under the game's own tier table (mart_game_scores), and the
    -- bands of cards left that both shipped tier tables use
    case when sc.is_loser and sc.multiplier = 2 then 1 else 0 end as n_chao_2,
    case when sc.is_loser and sc.multiplier = 3 then 1 else 0 end as n_chao_3,
    case when sc.is_loser and sc.multiplier >= 4 then 1 else 0 end as n_chao_4,
    sc.score,
    case when not s.is_winner and s.cards_left between 8 and 9 then 1 else 0 end as n_left_8_9,
    case when not s.is_winner and s.cards_left between 10 and 12 then 1 else 0 end as n_left_10_12,
    case when not s.is_winner and s.cards_left = 13 then 1 else 0 end as n_left_13,
    -- seat order: 0 = the first leader, 1 = the next seat in play order, …
    ((s.seat - g.first_leader) * coalesce(d.step, 1) + g.players) % g.players as position,
    coalesce(a.n_leads, 0) as n_leads,
    coalesce(a.n_lead_single, 0) as n_lead_single,
    coalesce(a.n_lead_pair, 0) as n_lead_pair,
    coalesce(a.n_lead_triple, 0) as n_lead_triple,
    coalesce(a.n_lead_five, 0) as n_lead_five,
    coalesce(a.n_lead_other, 0) as n_lead_other,
    coalesce(a.n_plays, 0) as n_plays,
    coalesce(a.n_five_card_plays, 0) as n_five_card_plays,
    coalesce(a.n_follow_turns, 0) as n_follow_turns,
    coalesce(a.n_passes, 0) as n_passes,
    coalesce(a.n_voluntary_passes, 0) as n_voluntary_passes,
    coalesce(a.n_forced_passes, 0) as n_forced_passes,
    coalesce(a.n_could_beat, 0) as n_could_beat,
    coalesce(a.n_two_single_follows, 0) as n_two_single_follows,
    coalesce(a.n_two_wasted, 0) as n_two_wasted,
    coalesce(t.n_tricks, 0) as n_tricks,
    coalesce(t.n_won[s.seat + 1], wt.n_won, 0) as n_tricks_won,
    coalesce(t.n_led - coalesce(t.n_led_by[s.seat + 1], wt.n_led_by), 0) as n_tricks_led_by_others,
    coalesce(t.n_regained[s.seat + 1], wt.n_regained, 0) as n_control_regained,
    -- 2s: dealt, and still held at the end (losers; NULL with partial information)
    bit_count(s.deal_mask & 4222124650659840) as n_twos_dealt,
    bit_count(s.final_hand_mask & 4222124650659840) as n_twos_left,
    coalesce(a.n_timed_decisions, 0) as n_timed_decisions,
    a.sum_decision_seconds,
    coalesce(a.n_last_call_missed, 0) as n_last_call_missed
from stg_seats as s
join games as g using (game_id)
left join directions as d using (game_id)
left join per_seat_actions as a on a.game_id = s.game_id and a.seat = s.seat
left join game_tricks as t on t.game_id = s.game_id
left join wide_tricks as wt on wt.game_id = s.game_id and wt.seat = s.seat
left join mart_game_scores as sc on sc.game_id = s.game_id and sc.seat = s.seat
where g.outcome <> 'redeal'
  -- play-level stats need the plays: games known only by their result are left out, not zeros
  and g.info_level <> 'result'
