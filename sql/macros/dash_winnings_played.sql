-- dash_winnings_played(fg, top): one row per player of `top` and game of `fg` (the names of two
-- CTEs of the caller: the filtered games, and the players to chart), as dash_winnings_line reads
-- it: the start as logged and as a time (started_ts), match, score after the bankroll cap
-- (mart_match_standings.result) and the luck (luck_outcomes.cards_vs_expected, 0 when the game
-- has none).
create or replace macro dash_winnings_played(fg, top) as table
    -- the players' seats first (materialized: else the join to the games came first, every
    -- seat of the warehouse joined to its game before the players were picked: 1.25 against
    -- 0.75 CPU-s for the top 12 of 1,000 players at 1M games)
    with mine as materialized (
        select m.* from mart_match_standings m semi join query_table(top) t using (player_id)
    )
    select m.player_id, f.started_at, f.started_ts as ts, m.match_key, m.game_id, m.result,
        coalesce(l.cards_vs_expected, 0) as luck
    from mine m join query_table(fg) f using (game_id)
    left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
