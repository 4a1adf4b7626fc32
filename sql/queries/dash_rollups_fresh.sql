-- Grain: one row: whether the rollups count every Big Two game and seat of the warehouse (an
-- import since the last `big2 build` makes them stale; Dou Dizhu games are not in them).
-- A game's seats are its `players` (`big2 verify` checks it: E_SEAT_ROWS), so both counts
-- read the games alone (the seats semi-joined to them took 0.2 s at 1M games, 0.04 s so).
-- Parameters: none.
with big2 as (select players from games where coalesce(game_kind, 'big2') = 'big2')
select (select sum(n_games) from rollup_games) = (select count(*) from big2)
    and (select sum(n_seats) from rollup_player_days) = (select sum(players) from big2)
    as fresh
