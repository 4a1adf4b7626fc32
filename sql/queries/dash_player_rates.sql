-- Grain: one row per player ($player: only that player's row; the first $limit by games) over
-- the filtered games: games and score (after the bankroll cap, mart_match_standings.result),
-- score per game; hours at the table from the games' start times and score per hour.
-- A game's time is the time to the player's next game start when that is at most $gap_minutes
-- later (the player went on playing), else the typical game (sql/macros/dash_rates.sql).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player, $gap_minutes, $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
played as (
    select m.player_id, m.result, fg.started_ts as t
    from mart_match_standings m join fg using (game_id)
    where fg.outcome <> 'redeal'
),
gaps as (
    -- ordered by the start time alone: the games of a player that start at the same time get
    -- the same times whatever their order (all but the last a gap of 0, so the typical game;
    -- the last the gap to the next start), and a tie-break on game_id made the sort 1.7× as
    -- slow (at 1M games the query took 3.9 s, 2.3 s without it); the gap in whole
    -- microseconds (epoch_us), not as the interval between the times: 0.65× the window's time
    select *, (lead(epoch_us(t)) over (partition by player_id order by t) - epoch_us(t)) / 60e6
        as gap
    from played
)
select * from dash_rates(gaps, $gap_minutes)
where $player is null or player = $player
order by games desc, player
limit $limit
