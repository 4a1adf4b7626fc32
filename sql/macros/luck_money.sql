-- luck_money(hands, results) → one row per seat per game with a known deal: the luck-adjusted
-- result in the game's own unit (money, or −points under penalty_points), beside the cards
-- version of luck_outcomes (docs/stats.md).
--   hands    a relation with luck_hands' columns (game_id, seat, players, strength)
--   results  a relation (game_id, seat, fit_key, result): the seat's score in the game's unit
--            (after the bankroll cap) and the ruleset its line is fitted within
--   expected_score     least-squares line of result on the opening-hand strength, fitted per
--                      (fit_key, players): what such cards score on average under those rules
--                      (luck_fit, luck_expected)
--   score_vs_expected  result - expected_score: positive = won more than the cards promised
-- luck_whatif runs it over a what-if ruleset; luck_outcomes has the same line over the games'
-- own rules (fit_key = the game's ruleset: preset plus overrides, so one stake and one
-- settlement a line) from luck_fits.
create or replace macro luck_money(hands, results) as table
with scored as (
    select h.game_id, h.seat, h.players, h.strength, r.fit_key, r.result as score
    from query_table(hands) as h
    join query_table(results) as r on r.game_id = h.game_id and r.seat = h.seat
),

fits as (
    select * from luck_fit(scored)
)

select
    s.game_id,
    s.seat,
    s.fit_key,
    s.score,
    luck_expected(f.intercept, f.slope, f.mean_score, s.strength) as expected_score,
    s.score - luck_expected(f.intercept, f.slope, f.mean_score, s.strength) as score_vs_expected,
    f.slope as score_fit_slope,
    f.intercept as score_fit_intercept,
    f.r2 as score_fit_r2
from scored as s
join fits as f on f.fit_key = s.fit_key and f.players = s.players
