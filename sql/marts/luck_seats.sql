-- Grain: one row per seat per game with a known deal (key game_id, seat): luck_hands' row with
-- the game's match (match_key), its own ruleset (fit_key: preset and overrides, within which
-- luck_outcomes fits the money line) and the seat's result in the game's unit (score:
-- mart_match_standings.result, money after the bankroll cap or −points; NULL when the game
-- has no standing). luck_outcomes fits its lines over these rows. A match's rows come from
-- that match's games alone (the bankroll runs through a match): an incremental build computes
-- them again for the matches of the new games (docs/sql.md, "Incremental builds").
select h.*, g.match_key, g.ruleset_id as fit_key, m.result as score
from luck_hands as h
join stg_games as g using (game_id)
left join mart_match_standings as m on m.game_id = h.game_id and m.seat = h.seat
