-- dash_ddz_board(totals): the Dou Dizhu leaderboard's rows from `totals`, the name of a CTE of
-- the caller with one row per player (player_id, games, wins, landlord_games, landlord_wins,
-- farmer_games, farmer_wins, score): the rank by score, the win % of each record, the
-- rank-ladder title (dash_title). The one tail of dash_ddz_standings and its rollup twin.
create or replace macro dash_ddz_board(totals) as table
    select
        rank() over (order by t.score desc) as rank,
        t.player_id,
        t.games,
        t.wins,
        100.0 * t.wins / nullif(t.games, 0) as win_pct,
        t.landlord_games,
        t.landlord_wins,
        100.0 * t.landlord_wins / nullif(t.landlord_games, 0) as landlord_win_pct,
        t.farmer_games,
        t.farmer_wins,
        100.0 * t.farmer_wins / nullif(t.farmer_games, 0) as farmer_win_pct,
        t.score,
        dash_title(t.score) as title
    from query_table(totals) t
