-- ddz_bidding_rows(sums, player): the Dou Dizhu player page's bidding discipline, one row per
-- hand strength of `player`'s hands spoken with (dash_ddz_bidding over the filtered games,
-- dash_ddz_bidding_mart over the ddz_bidding mart): `sums` names a CTE of the caller with
-- ddz_bidding's sums, one row per (player_id, ruleset, hand_strength): n_hands, n_bids,
-- sum_bid, n_top_bids, n_landlord, n_landlord_wins. The player's hands, bid rate, average bid,
-- top-bid rate, as landlord and its win %, beside everyone's bid rate with that strength under
-- the same rulesets: each ruleset's rate weighted by the player's hands of that strength under
-- it (3- and 2-player games bid differently).
create or replace macro ddz_bidding_rows(sums, player) as table
with everyone as (
    select ruleset, hand_strength, sum(n_bids) / sum(n_hands) as all_bid_rate
    from query_table(sums)
    group by all
)
select
    h.hand_strength,
    sum(h.n_hands)::bigint as hands,
    sum(h.n_bids) / sum(h.n_hands) as bid_rate,
    sum(h.sum_bid) / sum(h.n_hands) as avg_bid,
    sum(h.n_top_bids) / sum(h.n_hands) as top_bid_rate,
    sum(h.n_hands * e.all_bid_rate) / sum(h.n_hands) as all_bid_rate,
    sum(h.n_landlord)::bigint as landlord_games,
    100.0 * sum(h.n_landlord_wins) / nullif(sum(h.n_landlord), 0) as landlord_win_pct
from query_table(sums) as h
join everyone as e using (ruleset, hand_strength)
where h.player_id = player
group by h.hand_strength
order by h.hand_strength;
