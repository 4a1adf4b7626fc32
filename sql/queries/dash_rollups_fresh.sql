-- Grain: one row: whether the rollups count every game and seat of the warehouse (an import
-- since the last `big2 build` makes them stale).
-- Parameters: none.
select (select sum(n_games) from rollup_games) = (select count(*) from games)
    and (select sum(n_seats) from rollup_player_days) = (select count(*) from seats)
    as fresh
