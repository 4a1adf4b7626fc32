-- Grain: one row per match (a game without a match is its own) of the filtered games, the most
-- recent $limit: games, period, players, the last game.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
keyed as (select coalesce(match_id, '(no match) ' || game_id) as match, * from fg),
recent as (
    select match, any_value(ruleset) as ruleset, count(*) as games,
        -- the first and last start as logged, chosen by the time (not the text: logs with
        -- other UTC offsets); ties broken by the text and the id, as rollup_games does
        arg_min(started_at, (started_ts, started_at)) filter (where started_ts is not null)
            as started,
        arg_max(started_at, (started_ts, started_at)) filter (where started_ts is not null)
            as ended,
        max(started_ts) as ended_ts,
        arg_max(game_id, (game_number, game_id)) filter (where game_number is not null)
            as last_game
    from keyed group by 1
    order by ended_ts desc nulls last, 1
    limit $limit
),
who as (
    select k.match, string_agg(distinct s.player_id, ', ' order by s.player_id) as players
    from keyed k join seats s using (game_id)
    where k.match in (select match from recent)
    group by 1
)
select r.match, r.ruleset, r.games, r.started as started_at, r.ended as ended_at, w.players,
    r.last_game
from recent r left join who w using (match)
order by r.ended_ts desc nulls last, r.match
