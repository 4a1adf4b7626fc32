-- Grain: one row per match (a game without a match is its own) of the filtered games, the most
-- recent $limit: games, period, players, the last game.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $limit.
with fg as (select g.* from games g where coalesce(g.game_kind, 'big2') = 'big2' and
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
),
keyed as (select coalesce(match_id, '(no match) ' || game_id) as match, * from fg),
recent as (
    select match, any_value(ruleset) as ruleset, count(*) as games,
        min(started_at) as started, max(started_at) as ended,
        arg_max(game_id, game_number) as last_game
    from keyed group by 1
    order by max(started_at) desc nulls last, 1
    limit $limit
),
who as (
    select k.match, string_agg(distinct s.player_id, ', ' order by s.player_id) as players
    from keyed k join seats s using (game_id)
    where k.match in (select match from recent)
    group by 1
)
select r.match, r.ruleset, r.games, r.started, r.ended, w.players, r.last_game
from recent r left join who w using (match)
order by r.ended desc nulls last, r.match
