-- Grain: one row per payment per game (key game_id, payer_seat, receiver_seat): who owes whom in
-- a money game (winner_takes_all, place), before the bankroll cap. priority orders a payer's
-- receivers for the cap (spec 1.8 Decision): the game's winner first, then fewest cards left,
-- then seat. cum_before: what the payer owes receivers of higher priority.
-- winner_takes_all: each loser (under 包牌: the violator, for everyone) pays (p + bonus) × stake.
-- place: i pays j (p_i − p_j) × stake when p_i > p_j, each loser pays the bonus to the winner,
-- and under 包牌 the violator pays each other loser the net loss it is spared.
-- The logic is the score_payments() macro (sql/macros/score_payments.sql), so what-if
-- rescoring (rescore_matches, rescore_players) pays and caps by the very same SQL.
select * from score_payments('mart_game_scores')
