-- Grain: one row per match (a game without a match is its own), the most recent $limit: games,
-- period, players, the last game; the match cells summed from rollup_games.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $limit; $match_id and $player_id are null on this path.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
keyed as (select coalesce(match_id, '(no match) ' || game_id) as match, * from fg),
summed as (
    select r.match_id as match, any_value(r.ruleset) as ruleset,
        sum(r.n_games)::bigint as games,
        arg_min(r.first_started_at, (r.first_ts, r.first_started_at))
            filter (where r.first_ts is not null) as started,
        arg_max(r.last_started_at, (r.last_ts, r.last_started_at))
            filter (where r.last_ts is not null) as ended,
        max(r.last_ts) as ended_ts,
        arg_max(r.last_game_id, (r.last_game_number, r.last_game_id))
            filter (where r.last_game_number is not null) as last_game
    from rollup_games r
    where r.match_id is not null and
        ($ruleset is null or r.ruleset = $ruleset)
        and ($date_from is null or r.day >= $date_from::date)
        and ($date_to is null or r.day <= $date_to::date)
    group by 1
    union all
    select match, ruleset, 1::bigint, started_at, started_at, started_ts,
        case when game_number is not null then game_id end
    from keyed where match_id is null
),
recent as (select * from summed order by ended_ts desc nulls last, match limit $limit),
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
