-- Grain: one row: whether the rollups count every Big Two game and seat of the warehouse (an
-- import since the last `big2 build` makes them stale; Dou Dizhu games are not in them).
-- Parameters: none.
with big2 as (select game_id from games where coalesce(game_kind, 'big2') = 'big2')
select (select sum(n_games) from rollup_games) = (select count(*) from big2)
    and (select sum(n_seats) from rollup_player_days)
        = (select count(*) from seats semi join big2 using (game_id))
    as fresh
