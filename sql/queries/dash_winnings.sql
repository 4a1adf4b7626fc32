-- Grain: one row per player (the $max_players most active, the filtered player first) and scored
-- game in start order, thinned to about $max_points rows per player: cumulative score (own
-- rules, after the bankroll cap) and the luck-adjusted line (luck_outcomes.cards_vs_expected, 0
-- when the deal is unknown).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $max_players, $max_points.
with fg as (select g.* from games g where coalesce(g.game_kind, 'big2') = 'big2' and
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
),
top as (select s.player_id from fg join seats s using (game_id) group by 1 order by (s.player_id = $player_id) desc nulls last, count(*) desc, 1 limit $max_players),
per_game as (
    select m.player_id, fg.started_at, m.game_id, m.result,
        coalesce(l.cards_vs_expected, 0) as luck
    from mart_match_standings m join fg using (game_id)
    left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
    where m.player_id in (select player_id from top)
),
cum as (
    select player_id,
        row_number() over w as game_no,
        count(*) over (partition by player_id) as n,
        sum(result) over w as cumulative_score,
        sum(luck) over w as cumulative_cards_vs_expected
    from per_game
    window w as (partition by player_id order by started_at nulls last, game_id)
)
select player_id as player, game_no, cumulative_score,
    round(cumulative_cards_vs_expected, 2) as cumulative_cards_vs_expected
from cum
where game_no % greatest(1, n // $max_points) = 0 or game_no = n or game_no = 1
order by player, game_no
