-- Grain: one row per player (the $max_players most active) and scored game in start order,
-- thinned to about $max_points rows per player: cumulative score (own rules, after the bankroll
-- cap) and the luck-adjusted line (luck_outcomes.cards_vs_expected); every game.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days) (all null here), $max_players, $max_points.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
top as (select player_id from mart_player_standings order by n_games desc, player_id limit $max_players),
per_game as (select * from dash_winnings_played(fg, top))
select * from dash_winnings_line(per_game, $max_points)
order by player, game_no
