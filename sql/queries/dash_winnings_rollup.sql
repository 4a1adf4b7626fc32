-- Grain: one row per player and game as in dash_winnings, the players from rollup_player_days.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days) (no match or player), $max_players, $max_points.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
top as (select r.player_id from rollup_player_days r where
        ($ruleset is null or r.ruleset = $ruleset)
        and ($date_from is null or r.day >= $date_from::date)
        and ($date_to is null or r.day <= $date_to::date)
    group by 1 order by sum(r.n_seats) desc, 1 limit $max_players),
per_game as (select * from dash_winnings_played(fg, top))
select * from dash_winnings_line(per_game, $max_points)
order by player, game_no
