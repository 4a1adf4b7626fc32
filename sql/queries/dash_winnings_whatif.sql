-- Grain: one row per player and game as in dash_winnings, the cumulative score under the what-if
-- ruleset JSON $whatif (score_seats, no bankroll cap) instead of the games' own rules.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $whatif, $max_players, $max_points.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
top as (select s.player_id from fg join seats s using (game_id) group by 1 order by (s.player_id = $player_id) desc nulls last, count(*) desc, 1 limit $max_players),
fg_games as (
    -- the filtered games with stg_games' columns: only they are rescored
    select * from stg_games semi join fg using (game_id)
),
per_game as (
    select m.player_id, fg.started_at, fg.started_ts as ts, m.match_key, m.game_id,
        m.score as result,
        coalesce(l.cards_vs_expected, 0) as luck
    from score_seats(whatif := $whatif, games := 'fg_games') m join fg using (game_id)
    left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
    where m.player_id in (select player_id from top)
)
select * from dash_winnings_line(per_game, $max_points)
order by player, game_no
