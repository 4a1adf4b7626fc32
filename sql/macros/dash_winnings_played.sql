-- dash_winnings_played(fg, top): one row per player of `top` and game of `fg` (the names of two
-- CTEs of the caller: the filtered games, and the players to chart), as dash_winnings_line reads
-- it: the start as logged and as a time (started_ts), match, score after the bankroll cap
-- (mart_match_standings.result) and the luck (luck_outcomes.cards_vs_expected, 0 when the game
-- has none).
create or replace macro dash_winnings_played(fg, top) as table
    select m.player_id, f.started_at, f.started_ts as ts, m.match_key, m.game_id, m.result,
        coalesce(l.cards_vs_expected, 0) as luck
    from mart_match_standings m join query_table(fg) f using (game_id)
    left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
    where m.player_id in (select player_id from query_table(top))
