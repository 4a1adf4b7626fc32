-- dash_winnings_played(fg, top): one row per player of `top` and game of `fg` (the names of two
-- CTEs of the caller: the filtered games, and the players to chart), as dash_winnings_line reads
-- it: the start as logged and as a time (started_ts), match, score after the bankroll cap
-- (mart_match_standings.result) and the luck (luck_outcomes.cards_vs_expected, 0 when the game
-- has none); and the game's ruleset (rollup_winnings charts each ruleset's players apart).
create or replace macro dash_winnings_played(fg, top) as table
    with games as (
        select game_id, ruleset, started_at, started_ts,
            full_info and outcome <> 'redeal' as dealt
        from query_table(fg)
    )
    -- a game dealt in full: each seat with a standing has its luck row, which holds the
    -- standing's result (luck_seats.score; sql/tests/luck_outcomes_valid.sql), so the seats
    -- are read from the luck rows, not joined to them (at 1M games of 4 players a join of 4M
    -- standings to 4M luck rows was half the graph's time: 5.0-7.0 against 2.2-2.3 CPU-s)
    select l.player_id, f.started_at, f.started_ts as ts, l.match_key, l.game_id, f.ruleset,
        l.score as result, l.cards_vs_expected as luck
    from luck_outcomes l join games f on f.game_id = l.game_id and f.dealt
    where l.score is not null and l.player_id in (select player_id from query_table(top))
    union all
    -- the others: their standings, the luck of the seats with a known hand (0 without one)
    select m.player_id, f.started_at, f.started_ts as ts, m.match_key, m.game_id, f.ruleset,
        m.result, coalesce(l.cards_vs_expected, 0) as luck
    from mart_match_standings m join games f on f.game_id = m.game_id and not f.dealt
    left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
    where m.player_id in (select player_id from query_table(top))
