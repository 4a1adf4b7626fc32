-- Grain: one row per seat per Dou Dizhu game (key game_id, seat): every game scored by its own
-- ruleset (spec 2.5: bid × stake × 2^(bombs + rockets), ×2 for a spring when spring_doubles,
-- capped at multiplier_cap; each farmer pays or is paid the amount, the landlord the rest:
-- zero-sum). The logic is the ddz_score_seats() macro, so the what-if rescoring runs the very
-- same SQL. A void deal (荒牌) is kept with is_scored = false and zeros.
select * from ddz_score_seats()
