-- Dou Dizhu strategy stats, the base table. Grain: one row per seat per played-out game
-- (key game_id, seat) with every stat's actions and opportunities (n_*), the seat's role, bid
-- and dealt hand, and the filter columns (ruleset, match_key, started_ts). Sum the n_* columns
-- over any filter, then divide (docs/stats.md, "Dou Dizhu": each stat is actions ÷ opportunities).
-- Void deals (荒牌) are left out (no role, no play); with partial information the hand-based
-- counts are NULL / 0 (hand_strength NULL, beating_play_existed unknown).
-- Thresholds (Decision, docs/stats.md): a strong hand has hand_strength >= 4, a weak one <= 1
-- (ddz_auction(), which the void deals' auctions are counted with too: rollup_ddz_player_days,
-- ddz_stats_players, the player page).
-- The partner and feed counts are those of the cooperation audit (ddz_coop_actions).
with seats as (
    select
        sc.game_id,
        sc.seat,
        sc.player_id,
        sc.ruleset,
        sc.match_key,
        sc.started_ts,
        sc.role,
        sc.is_landlord,
        sc.is_winner,
        sc.bid,
        sc.spring,
        sc.score,
        st.max_bid,
        st.hand_strength,
        st.n_bombs_dealt,
        st.has_rocket_dealt,
        st.n_twos_dealt,
        st.n_jokers_dealt,
        -- the hand the seat played with: the landlord's takes the kitty
        ddz_hand(case when sc.is_landlord then st.deal_mask | g.kitty_mask else st.deal_mask end)
            as held
    from ddz_game_scores as sc
    join stg_ddz_seats as st on st.game_id = sc.game_id and st.seat = sc.seat
    join stg_ddz_games as g on g.game_id = sc.game_id
    where sc.is_scored
),

plays as (
    -- per seat, the play phase
    select
        game_id,
        seat,
        count(*) filter (where kind = 'bomb') as n_bombs_played,
        count(*) filter (where kind = 'rocket') as n_rockets_played,
        count(*) filter (where not is_lead and beating_play_existed) as n_could_beat,
        count(*) filter (where not is_lead and beating_play_existed and action_type = 'pass')
            as n_voluntary_passes,
        count(think_seconds) as n_timed_decisions,
        sum(think_seconds) as sum_decision_seconds
    from stg_ddz_actions
    where phase = 'play'
    group by game_id, seat
),

coop as (
    -- per farmer, the cooperation audit's turns (ddz_coop_actions: one definition of each signal)
    select
        game_id,
        seat,
        count(*) filter (where signal = 'partner') as n_partner_follows,
        count(*) filter (where signal = 'partner' and is_event) as n_partner_beats,
        count(*) filter (where signal = 'feed') as n_feed_opportunities,
        count(*) filter (where signal = 'feed' and is_event) as n_feeds
    from ddz_coop_actions
    group by game_id, seat
)

select
    s.* exclude (held),
    ddz_auction(s.max_bid, s.hand_strength).is_asked as is_asked,
    ddz_auction(s.max_bid, s.hand_strength).has_bid as has_bid,
    s.held.n_bombs as n_bombs_held,
    s.held.has_rocket::integer as n_rockets_held,
    coalesce(p.n_bombs_played, 0) as n_bombs_played,
    coalesce(p.n_rockets_played, 0) as n_rockets_played,
    ddz_auction(s.max_bid, s.hand_strength).is_strong_asked as is_strong_asked,
    ddz_auction(s.max_bid, s.hand_strength).is_strong_passed as is_strong_passed,
    ddz_auction(s.max_bid, s.hand_strength).is_weak_asked as is_weak_asked,
    ddz_auction(s.max_bid, s.hand_strength).is_weak_bid as is_weak_bid,
    coalesce(s.is_landlord and s.spring = 'spring', false) as is_spring_won,
    coalesce(not s.is_landlord and s.spring = 'anti_spring', false) as is_anti_spring_won,
    coalesce(p.n_could_beat, 0) as n_could_beat,
    coalesce(p.n_voluntary_passes, 0) as n_voluntary_passes,
    coalesce(c.n_partner_follows, 0) as n_partner_follows,
    coalesce(c.n_partner_beats, 0) as n_partner_beats,
    coalesce(c.n_feed_opportunities, 0) as n_feed_opportunities,
    coalesce(c.n_feeds, 0) as n_feeds,
    coalesce(p.n_timed_decisions, 0) as n_timed_decisions,
    p.sum_decision_seconds
from seats as s
left join plays as p on p.game_id = s.game_id and p.seat = s.seat
left join coop as c on c.game_id = s.game_id and c.seat = s.seat
