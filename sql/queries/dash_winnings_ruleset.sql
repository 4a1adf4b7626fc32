-- Grain: one row per player and game as in dash_winnings, the players of one ruleset
-- (rollup_player_rulesets) most seats first.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days) ($ruleset only), $max_players, $max_points.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
top as (select player_id from rollup_player_rulesets where ruleset = $ruleset order by n_seats desc, player_id limit $max_players),
per_game as (select * from dash_winnings_played(fg, top))
select * from dash_winnings_line(per_game, $max_points)
order by player, game_no
