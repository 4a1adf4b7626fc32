-- rescore_matches(whatif): one row per player per match: the final total and standing under the
-- games' own rules (mart_match_results, bankroll cap included) beside the total and standing
-- if every game had been played under the what-if ruleset (JSON, see score_seats). With
-- `bankroll` on in the what-if, the cap of spec 1.8 applies game by game in match order, by
-- the same SQL as scoring (score_payments, score_bankroll; whatif_results). Scores are
-- higher-is-better (money, or −points under penalty_points).
create or replace macro rescore_matches(whatif) as table
with whatif_totals as (
    select match_key, player_id, sum(result) as whatif_score, max(settlement) as whatif_settlement
    from whatif_results(whatif)
    group by all
),

whatif_ranked as (
    select
        *,
        rank() over (partition by match_key order by whatif_score desc) as whatif_standing
    from whatif_totals
)

select
    o.match_key,
    o.player_id,
    o.settlement as own_settlement,
    o.total_score as own_score,
    o.standing as own_standing,
    w.whatif_settlement,
    w.whatif_score,
    w.whatif_standing,
    w.whatif_standing - o.standing as standing_change
from mart_match_results as o
join whatif_ranked as w on w.match_key = o.match_key and w.player_id = o.player_id
