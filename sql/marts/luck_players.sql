-- Luck-adjusted results per player: one row per (player_id, ruleset).
--   avg_strength           opening-hand strength ÷ games (how good the cards were)
--   avg_cards_left         cards left ÷ games
--   avg_expected           expected cards left ÷ games
--   cards_vs_expected      (expected - actual cards left) ÷ games: > 0 plays above the cards
--   se_cards_vs_expected   its standard error (sample standard deviation ÷ √games)
--   avg_score, avg_expected_score, score_vs_expected, se_score_vs_expected: the same in the
--                          games' unit (money after the bankroll cap, or −points; luck_outcomes)
select
    player_id,
    ruleset,
    count(*) as n_games,
    avg(strength) as avg_strength,
    avg(cards_left) as avg_cards_left,
    avg(expected_cards_left) as avg_expected,
    avg(cards_vs_expected) as cards_vs_expected,
    stddev_samp(cards_vs_expected) / sqrt(count(*)) as se_cards_vs_expected,
    avg(score) as avg_score,
    avg(expected_score) as avg_expected_score,
    avg(score_vs_expected) as score_vs_expected,
    stddev_samp(score_vs_expected) / sqrt(count(*)) as se_score_vs_expected
from luck_outcomes
group by player_id, ruleset
