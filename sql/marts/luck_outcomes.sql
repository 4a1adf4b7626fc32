-- Luck-adjusted result: one row per seat per game with a known deal (its player and match as in
-- luck_seats).
--   expected_cards_left   least-squares line of cards left (0 for the winner) on the opening-hand
--                         strength (luck_hands.strength), fitted per (ruleset, players) over the
--                         whole warehouse, clamped to [0, cards dealt]
--   cards_vs_expected     expected_cards_left - cards_left: positive = did better than the cards
--                         promised (the Big Two counterpart of poker's all-in EV line)
--   score, expected_score, score_vs_expected (and score_fit_*): the same line in the game's
--                         own unit, money after the bankroll cap or −points (luck_seats.score,
--                         fitted per game ruleset and players; NULL for a seat without a
--                         standing)
-- A view (sqlbuild.VIEW_MARTS): both lines change with every game added, so a table would be
-- written again whole by each build; the view reads luck_seats and the few rows of luck_fits.
select
    h.game_id,
    h.seat,
    h.player_id,
    h.match_key,
    h.ruleset,
    h.players,
    h.strength,
    h.cards_left,
    h.is_winner,
    greatest(0, least(h.n_cards, f.fit_intercept + f.fit_slope * h.strength))
        as expected_cards_left,
    greatest(0, least(h.n_cards, f.fit_intercept + f.fit_slope * h.strength)) - h.cards_left
        as cards_vs_expected,
    f.fit_slope,
    f.fit_intercept,
    f.fit_r2,
    -- the money columns of a seat with a result only
    case when h.score is not null then h.fit_key end as ruleset_id,
    h.score,
    case when h.score is not null
        then luck_expected(f.score_fit_intercept, f.score_fit_slope, f.mean_score, h.strength)
    end as expected_score,
    h.score - luck_expected(f.score_fit_intercept, f.score_fit_slope, f.mean_score, h.strength)
        as score_vs_expected,
    case when h.score is not null then f.score_fit_slope end as score_fit_slope,
    case when h.score is not null then f.score_fit_intercept end as score_fit_intercept,
    case when h.score is not null then f.score_fit_r2 end as score_fit_r2
from luck_seats as h
join luck_fits as f using (fit_key, players)
