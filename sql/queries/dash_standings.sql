-- Grain: one row per player ($player: only that player's row; the first $limit by rank) over the
-- filtered games: games, wins, score after the bankroll cap (mart_match_standings.result), rank
-- and rank-ladder title; all_wins / all_games over every player.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player, $limit.
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
wi as (select null::varchar as player_id, null::double as whatif_score where false)
select * from dash_board(own, wi)
where $player is null or player = $player
order by rank, player
limit $limit
