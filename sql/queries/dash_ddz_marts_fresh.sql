-- Grain: one row: whether the Dou Dizhu marts and rollups count every Dou Dizhu game and seat of
-- the warehouse (an import since the last `big2 build` makes them stale: the detailed queries
-- answer then). The rollups are summed from the marts in the same build. A game's seats are
-- its `players` (`big2 verify` checks it: E_SEAT_ROWS), so both counts read the games alone.
-- Parameters: none.
with ddz as (select players from games where game_kind = 'doudizhu')
select (select coalesce(sum(n_games), 0) from rollup_ddz_games) = (select count(*) from ddz)
    and (select coalesce(sum(n_seats), 0) from rollup_ddz_player_days)
        = (select coalesce(sum(players), 0) from ddz)
    as fresh
