-- Grain: one row per hand strength of $player's hands spoken with in the auctions of the Dou
-- Dizhu games of $ruleset (null = all): dash_ddz_bidding's rows from the ddz_bidding mart's
-- sums per player, ruleset and strength, which the dashboards read when no filter but the
-- ruleset is set and the marts count every Dou Dizhu game (dash_ddz_marts_fresh): 2.9 s ->
-- 0.004 s at 1M games, where the detailed query reads every seat's dealt hand. Everyone's bid
-- rate as there: each ruleset's weighted by the player's hands of that strength under it.
-- Parameters: $ruleset, $player.
with hands as (
    select * from ddz_bidding where $ruleset is null or ruleset = $ruleset
),
everyone as (
    select ruleset, hand_strength, sum(n_bids) / sum(n_hands) as all_bid_rate
    from hands group by all
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
from hands h join everyone e using (ruleset, hand_strength)
where h.player_id = $player
group by h.hand_strength
order by h.hand_strength
