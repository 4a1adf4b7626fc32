-- Dashboard rollup, grain: one row per Dou Dizhu player, ruleset, UTC day, role, the game's bid
-- and the seat's hand strength (key player_id, ruleset, day, role, bid, hand_strength; day NULL
-- = no readable start time; role and bid NULL = the player's void deals (荒牌) that day,
-- hand_strength NULL = a hand not known (partial information) or a void deal): the seats, and
-- of the played-out ones (ddz_stats_player_games) the games, wins, score and every strategy
-- stat's actions and opportunities summed (the void deals' rows: their auctions' counts), so that the Dou Dizhu standings, players, player
-- stats and win rates sum a few rows per player instead of every seat. Exact under a ruleset or
-- period filter (whole UTC days); a match or player filter needs the games themselves.
with played as (
    select
        player_id,
        ruleset,
        timezone('UTC', started_ts)::date as day,
        role,
        bid,
        hand_strength,
        count(*) as n_seats,
        count(*) as n_games,
        count(*) filter (where is_winner) as n_wins,
        count(*) filter (where is_asked) as n_asked,
        count(*) filter (where has_bid) as n_bids,
        count(*) filter (where is_strong_asked) as n_strong_asked,
        count(*) filter (where is_strong_passed) as n_strong_passed,
        count(*) filter (where is_weak_asked) as n_weak_asked,
        count(*) filter (where is_weak_bid) as n_weak_bids,
        count(*) filter (where has_rocket_dealt) as n_rockets_dealt,
        count(*) filter (where is_spring_won) as n_springs_won,
        count(*) filter (where is_anti_spring_won) as n_anti_springs_won,
        sum(score) as score,
        sum(sum_decision_seconds) as sum_decision_seconds,
        -- n_bombs_dealt … n_feeds, n_timed_decisions
        sum(columns('^n_'))::bigint
    from ddz_stats_player_games
    group by all
),

-- the void deals: seats with no role, no play and a score of 0, and their auctions (every seat
-- that spoke passed), which the bidding stats count (docs/stats.md): ddz_void_auctions('ddz_game_scores')
void as (
    select
        player_id,
        ruleset,
        timezone('UTC', started_ts)::date as day,
        count(*) as n_seats,
        0::bigint as n_games,
        0::bigint as n_wins,
        sum(columns('^n_'))::bigint,  -- n_asked … n_weak_bids
        sum(score) as score
    from ddz_void_auctions('ddz_game_scores')
    group by all
)

select * from played
union all by name
select * from void
