-- Grain: one row: whether the Dou Dizhu marts count every Dou Dizhu game of the warehouse:
-- ddz_game_scores holds a row per seat of each (an import since the last `big2 build` makes
-- the marts stale: the detailed queries answer then). A game's seats are its `players`
-- (`big2 verify` checks it: E_SEAT_ROWS).
-- Parameters: none.
select (select count(*) from ddz_game_scores)
    = (select coalesce(sum(players), 0) from games where game_kind = 'doudizhu') as fresh
