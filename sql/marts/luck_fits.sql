-- Grain: one row per luck line (key fit_key, players): the game ruleset (fit_key: preset and
-- overrides) and table size whose seats luck_outcomes reads it for. fit_*: the least-squares
-- line of cards left on the opening-hand strength, fitted per (ruleset, players) over every
-- hand of luck_seats; score_fit_*: the line of the seat's result in the game's unit (money
-- after the bankroll cap or −points) on the strength, fitted per (fit_key, players) over the
-- seats with a result (luck_fit; mean_score stands for it when strength does not vary). Both
-- change with every game added: each build fits them again (a few rows), while luck_outcomes
-- is a view over luck_seats and these lines, not rows stored again.
with keys as (
    select distinct fit_key, ruleset, players from luck_seats
),

cards as (
    select
        ruleset,
        players,
        regr_slope(cards_left, strength) as fit_slope,
        regr_intercept(cards_left, strength) as fit_intercept,
        regr_r2(cards_left, strength) as fit_r2
    from luck_seats
    group by ruleset, players
),

scored as (
    select fit_key, players, strength, score from luck_seats where score is not null
),

money as (
    select * from luck_fit(scored)
)

select
    k.fit_key,
    k.ruleset,
    k.players,
    c.fit_slope,
    c.fit_intercept,
    c.fit_r2,
    m.slope as score_fit_slope,
    m.intercept as score_fit_intercept,
    m.r2 as score_fit_r2,
    m.mean_score
from keys as k
join cards as c using (ruleset, players)
left join money as m using (fit_key, players)
