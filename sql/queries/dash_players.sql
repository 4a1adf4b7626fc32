-- Grain: one row per player of the filtered games, most seats first, the first $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select s.player_id from fg join seats s using (game_id)
group by 1 order by count(*) desc, 1 limit $limit
