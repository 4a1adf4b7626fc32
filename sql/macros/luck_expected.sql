-- luck_expected(intercept, slope, mean_score, strength) → what a hand of this strength scores
-- on a money line of luck_fit: intercept + slope · strength, or the mean score when strength
-- did not vary within the fit (no slope).
create or replace macro luck_expected(intercept, slope, mean_score, strength) as
    coalesce(intercept + slope * strength, mean_score)
