-- Grain: one row per player as in dash_standings, with the what-if score, rank and title under
-- the ruleset JSON $whatif (score_seats, no bankroll cap).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $whatif, $player, $limit.
with fg as (
    select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
own as (
    select m.player_id, count(*) filter (where fg.outcome <> 'redeal') as games,
        count(*) filter (where fg.outcome <> 'redeal' and fg.winner = m.seat) as wins,
        sum(m.result) as score
    from mart_match_standings m join fg using (game_id)
    group by 1
),
fg_games as (
    -- the filtered games with stg_games' columns: only they are rescored
    select * from stg_games semi join fg using (game_id)
),
wi as (
    select m.player_id, sum(m.score) as whatif_score
    from score_seats(whatif := $whatif, games := 'fg_games') m group by 1
)
select * from dash_board(own, wi)
where $player is null or player = $player
order by rank, player
limit $limit
