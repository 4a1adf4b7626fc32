-- Dou Dizhu strategy stats per player. Grain: one row per (player_id, ruleset), over every
-- played-out game (ddz_stats_player_games summed), the bidding stats (n_asked … n_weak_bids)
-- over every auction, the void deals' (荒牌) too: passing a hand is a decision (a player whose
-- only deals under a ruleset were void has a row: no game, its auctions). Each rate is
-- actions ÷ opportunities (docs/stats.md, "Dou Dizhu"):
--   win_rate             games won ÷ games
--   landlord_share       games as landlord ÷ games
--   landlord_win_rate    wins as landlord ÷ games as landlord
--   farmer_win_rate      wins as farmer ÷ games as farmer
--   bid_rate             auctions with a bid (or a call) ÷ auctions the seat spoke in
--   strong_pass_rate     strong hands (hand_strength >= 4) passed ÷ strong hands it spoke with
--   weak_bid_rate        weak hands (hand_strength <= 1) bid ÷ weak hands it spoke with
--   bomb_use_rate        bombs and rockets played ÷ bombs and rockets held (hand played with)
--   voluntary_pass_rate  passes holding a beating play ÷ following turns holding one
--   partner_beat_rate    plays over the partner's play ÷ turns following it holding a beating play
--   feed_rate            passes ÷ turns following the landlord's play, landlord on 1-2 cards,
--                        holding a beating play ("feeding the landlord", ddz_coop_players)
--   spring_rate          springs (春天) ÷ games as landlord
--   anti_spring_rate     anti-springs (反春) ÷ games as farmer
--   score_per_game       score (money) ÷ games
--   seconds_per_decision seconds since the previous action ÷ timed plays and passes
with void as (
    -- the void deals' auctions (every seat that spoke passed), counted as ddz_stats_player_games
    -- counts a played-out game's (ddz_auction)
    select player_id, ruleset, sum(columns('^n_'))::bigint
    from ddz_void_auctions('ddz_game_scores')
    group by all
),

played as (
    select
        player_id,
        ruleset,
        count(*) as n_games,
        count(*) filter (where is_winner) as n_wins,
        count(*) filter (where is_landlord) as n_landlord,
        count(*) filter (where is_landlord and is_winner) as n_landlord_wins,
        count(*) filter (where not is_landlord) as n_farmer,
        count(*) filter (where not is_landlord and is_winner) as n_farmer_wins,
        count(*) filter (where is_asked) as n_asked,
        count(*) filter (where has_bid) as n_bids,
        count(*) filter (where is_strong_asked) as n_strong_asked,
        count(*) filter (where is_strong_passed) as n_strong_passed,
        count(*) filter (where is_weak_asked) as n_weak_asked,
        count(*) filter (where is_weak_bid) as n_weak_bids,
        sum(n_bombs_held + n_rockets_held)::bigint as n_bombs_held,
        sum(n_bombs_played + n_rockets_played)::bigint as n_bombs_played,
        sum(n_could_beat)::bigint as n_could_beat,
        sum(n_voluntary_passes)::bigint as n_voluntary_passes,
        sum(n_partner_follows)::bigint as n_partner_follows,
        sum(n_partner_beats)::bigint as n_partner_beats,
        sum(n_feed_opportunities)::bigint as n_feed_opportunities,
        sum(n_feeds)::bigint as n_feeds,
        count(*) filter (where is_spring_won) as n_springs,
        count(*) filter (where is_anti_spring_won) as n_anti_springs,
        sum(score) as sum_score,
        sum(n_timed_decisions)::bigint as n_timed_decisions,
        sum(sum_decision_seconds) as sum_decision_seconds
    from ddz_stats_player_games
    group by player_id, ruleset
),

every as (
    -- the played-out games' counts of every (player, ruleset) with an auction: a player whose
    -- only deals under a ruleset were void has its row too, with no game (zero counts, a score
    -- of 0: a void deal scores 0) and its auctions (added below)
    select
        k.player_id,
        k.ruleset,
        coalesce(columns(p.* exclude (player_id, ruleset, sum_decision_seconds)), 0),
        p.sum_decision_seconds
    from (select player_id, ruleset from played union select player_id, ruleset from void) as k
    left join played as p using (player_id, ruleset)
),

sums as (
    select p.* replace (
        p.n_asked + coalesce(v.n_asked, 0) as n_asked,
        p.n_bids + coalesce(v.n_bids, 0) as n_bids,
        p.n_strong_asked + coalesce(v.n_strong_asked, 0) as n_strong_asked,
        p.n_strong_passed + coalesce(v.n_strong_passed, 0) as n_strong_passed,
        p.n_weak_asked + coalesce(v.n_weak_asked, 0) as n_weak_asked,
        p.n_weak_bids + coalesce(v.n_weak_bids, 0) as n_weak_bids
    )
    from every as p
    left join void as v using (player_id, ruleset)
)

select
    *,
    n_springs / nullif(n_landlord, 0) as spring_rate,
    n_anti_springs / nullif(n_farmer, 0) as anti_spring_rate,
    sum_score / nullif(n_games, 0) as score_per_game,
    sum_decision_seconds / nullif(n_timed_decisions, 0) as seconds_per_decision
from ddz_stat_rates(sums)
