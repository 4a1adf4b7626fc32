-- Grain: one row per player and point of the winnings graph, as dash_winnings_all (no filter,
-- $ruleset NULL) or dash_winnings_ruleset ($ruleset alone) give them with the page's defaults
-- (12 players, about 400 points a player), read from rollup_winnings.
-- Parameters: $ruleset (NULL: every game).
select player, game_no, started_at, match, cumulative_score, cumulative_cards_vs_expected
from rollup_winnings
where ruleset is not distinct from $ruleset
order by player, game_no
