-- ddz_weighted(rate, weight, fallback): an aggregate over the rows of one side's rulesets: the
-- mean of `rate` weighted by `weight`, over the rows where the rate is known; by `fallback`
-- when no such row has any weight (NULL when it has none either).
create or replace macro ddz_weighted(rate, weight, fallback) as coalesce(
    sum(rate * weight) / nullif(sum(weight) filter (where rate is not null), 0),
    sum(rate * fallback) / nullif(sum(fallback) filter (where rate is not null), 0)
);

-- ddz_yardstick(sums): the Dou Dizhu player page's strategy stats (dash_ddz_player_stats and its
-- rollup twin): `sums` names a CTE of the caller with one row per side (who = 'player' or
-- 'others') and ruleset, the strategy stats' counts (n_games … n_feeds, score: the void deals'
-- auctions in n_asked … n_weak_bids). One row per side:
--   player  its counts summed over the rulesets, and its rates (ddz_stat_rates);
--   others  the yardstick: every other seat's rate under each ruleset, weighted by the player's
--           own opportunities for that stat under it (its auctions for the bid rate, its games
--           as landlord for the landlord win rate …; its games when it has none), so that a
--           player of 3-player (ddz) and 2-player (ddz-2p) games is compared with the others of
--           the same mix: their rates differ by the number of players. Under one ruleset it is
--           the other seats' own rate. Their counts summed over the rulesets.
create or replace macro ddz_yardstick(sums) as table
with per_ruleset as (
    select * from ddz_stat_rates(sums)
),
mine as (
    select * from per_ruleset where who = 'player'
),
sides as (
    select
        who,
        sum(columns('^n_'))::bigint,
        sum(score) as score
    from query_table(sums)
    group by who
),
pooled as (
    select * from ddz_stat_rates(sides) where who = 'player'
),
yardstick as (
    select
        'others' as who,
        ddz_weighted(o.win_rate, p.n_games, p.n_games) as win_rate,
        ddz_weighted(o.landlord_share, p.n_games, p.n_games) as landlord_share,
        ddz_weighted(o.landlord_win_rate, p.n_landlord, p.n_games) as landlord_win_rate,
        ddz_weighted(o.farmer_win_rate, p.n_farmer, p.n_games) as farmer_win_rate,
        ddz_weighted(o.bid_rate, p.n_asked, p.n_games) as bid_rate,
        ddz_weighted(o.strong_pass_rate, p.n_strong_asked, p.n_games) as strong_pass_rate,
        ddz_weighted(o.weak_bid_rate, p.n_weak_asked, p.n_games) as weak_bid_rate,
        ddz_weighted(o.bomb_use_rate, p.n_bombs_held, p.n_games) as bomb_use_rate,
        ddz_weighted(o.voluntary_pass_rate, p.n_could_beat, p.n_games) as voluntary_pass_rate,
        ddz_weighted(o.partner_beat_rate, p.n_partner_follows, p.n_games) as partner_beat_rate,
        ddz_weighted(o.feed_rate, p.n_feed_opportunities, p.n_games) as feed_rate
    from per_ruleset o
    join mine p using (ruleset)
    where o.who = 'others'
)
select * from pooled
union all by name
select y.*, s.* exclude (who)
from yardstick y
join sides s on s.who = 'others'
