-- Grain: one row per seat per game (key game_id, seat): every game scored by its own ruleset
-- (spec 1.7: cards left, 炒 tier, ♠2 / first-leader doubling, card points, winner bonus,
-- penalty, 歡樂 multiplier, settlement, 包牌). The logic is the score_seats() macro
-- (sql/macros/score_seats.sql), so what-if rescoring runs the very same SQL.
-- Redeal games are kept with is_scored = false and zeros.
select * from score_seats()
