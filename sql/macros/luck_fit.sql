-- luck_fit(scored) → one row per (fit_key, players) of `scored` (the name of a relation or CTE
-- of the caller with fit_key, players, strength and score: a seat's result in the game's unit,
-- and the ruleset its line is fitted within): the least-squares line of score on the
-- opening-hand strength (slope, intercept, r2) and the mean score, which stands for the line
-- when strength does not vary; luck_expected(intercept, slope, mean_score, strength) reads
-- them. The one money fit of luck_money (luck_whatif) and luck_fits (luck_outcomes);
-- docs/stats.md.
create or replace macro luck_fit(scored) as table
select
    fit_key,
    players,
    regr_slope(score, strength) as slope,
    regr_intercept(score, strength) as intercept,
    regr_r2(score, strength) as r2,
    avg(score) as mean_score
from query_table(scored)
group by fit_key, players
