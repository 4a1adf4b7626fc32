-- whatif_results(whatif): one row per seat per game: every game scored as if played under the
-- what-if ruleset (JSON, see score_seats), with the bankroll cap of spec 1.8 when the what-if
-- has `bankroll` on: payments (score_payments) and balances walked game by game in match order
-- (score_bankroll) exactly as mart_payments / mart_bankroll do for the games' own rules.
-- result is what mart_match_standings calls result: money after the cap (net_capped, else
-- net), or −points under penalty_points. Balances start from seats.balance, else the what-if's
-- bankroll_start.
create or replace macro whatif_results(whatif) as table
with whatif_scores as materialized (
    select * from score_seats(whatif := whatif)
),

capped_scores as (
    -- the seats of the games the cap walks (score_bankroll reads no other game's payments):
    -- none when the what-if has no bankroll. Gating the payments with `where exists (…
    -- is_bankroll)` instead still computed every game's payments first (at 1M games 5.6M
    -- rows and a window over them: ~60 % of `big2 rescore`'s CPU)
    select * from whatif_scores where is_bankroll
),

whatif_payments as materialized (
    select * from score_payments('capped_scores')
),

whatif_bankroll as (
    select * from score_bankroll('whatif_scores', 'whatif_payments')
)

select
    s.*,
    b.balance_before,
    b.balance_after,
    b.net_capped,
    coalesce(b.has_left, false) as has_left,
    case when s.settlement = 'penalty_points' then s.score
         else coalesce(b.net_capped, s.net) end as result
from whatif_scores as s
left join whatif_bankroll as b on b.game_id = s.game_id and b.seat = s.seat
