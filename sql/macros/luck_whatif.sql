-- luck_whatif(whatif) → one row per seat per game with a known deal: the luck-adjusted result
-- in money / points as if every game had been played under the what-if ruleset (JSON, see
-- score_seats; after its bankroll cap: whatif_results), one line fitted per table size, beside
-- the cards version (luck_outcomes: the cards do not depend on the scoring rules).
create or replace macro luck_whatif(whatif) as table
with whatif_res as materialized (
    select game_id, seat, '(what-if)' as fit_key, result
    from whatif_results(whatif)
),

money as (
    select * from luck_money('luck_hands', 'whatif_res')
)

select
    o.game_id,
    o.seat,
    o.player_id,
    o.ruleset,
    o.players,
    o.strength,
    o.cards_left,
    o.expected_cards_left,
    o.cards_vs_expected,
    m.score,
    m.expected_score,
    m.score_vs_expected,
    m.score_fit_slope,
    m.score_fit_intercept,
    m.score_fit_r2
from luck_outcomes as o
join money as m on m.game_id = o.game_id and m.seat = o.seat
