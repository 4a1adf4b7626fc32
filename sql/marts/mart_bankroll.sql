-- Grain: one row per seat per game of a bankroll match (key game_id, seat): the balance before
-- and after the game with the cap of spec 1.8 (nobody pays more than their balance; a busted
-- payer's money goes to the winner first, then to the others by fewest cards left, each at
-- most what it is owed). Balances start from the first game's seats.balance (else the
-- ruleset's bankroll_start) and carry from game to game in game_number order. has_left: the
-- player was at 0 before this game (left the table).
-- The logic is the score_bankroll() macro (sql/macros/score_bankroll.sql), so what-if
-- rescoring applies the cap by the very same SQL.
select * from score_bankroll('mart_game_scores', 'mart_payments')
