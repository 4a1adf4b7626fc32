-- Luck-adjusted result: one row per seat per game with a known deal.
--   expected_cards_left   least-squares line of cards left (0 for the winner) on the opening-hand
--                         strength (luck_hands.strength), fitted per (ruleset, players) over the
--                         whole warehouse, clamped to [0, cards dealt]
--   cards_vs_expected     expected_cards_left - cards_left: positive = did better than the cards
--                         promised (the Big Two counterpart of poker's all-in EV line)
--   score, expected_score, score_vs_expected (and score_fit_*): the same line in the game's
--                         own unit, money after the bankroll cap or −points (luck_money over
--                         mart_match_standings.result, fitted per game ruleset and players)
with hands as (
    select * from luck_hands
),

own_results as (
    -- the seat's result in the game's unit, and the game's own ruleset (preset + overrides)
    select m.game_id, m.seat, g.ruleset_id as fit_key, m.result
    from mart_match_standings as m
    join stg_games as g on g.game_id = m.game_id
),

money as (
    select * from luck_money('luck_hands', 'own_results')
),

fits as (
    select
        ruleset,
        players,
        regr_slope(cards_left, strength) as slope,
        regr_intercept(cards_left, strength) as intercept,
        regr_r2(cards_left, strength) as r2,
        count(*) as n_fit
    from hands
    group by ruleset, players
)

select
    h.game_id,
    h.seat,
    h.player_id,
    h.ruleset,
    h.players,
    h.strength,
    h.cards_left,
    h.is_winner,
    greatest(0, least(h.n_cards, f.intercept + f.slope * h.strength)) as expected_cards_left,
    greatest(0, least(h.n_cards, f.intercept + f.slope * h.strength)) - h.cards_left
        as cards_vs_expected,
    f.slope as fit_slope,
    f.intercept as fit_intercept,
    f.r2 as fit_r2,
    mo.fit_key as ruleset_id,
    mo.score,
    mo.expected_score,
    mo.score_vs_expected,
    mo.score_fit_slope,
    mo.score_fit_intercept,
    mo.score_fit_r2
from hands as h
join fits as f using (ruleset, players)
left join money as mo on mo.game_id = h.game_id and mo.seat = h.seat
