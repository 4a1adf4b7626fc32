-- Grain: one row per 炒 loss (multiplier 2 or more) of $player in the filtered games, newest
-- first (mart_game_scores).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $player.
with fg as (select g.* from games g where
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
)
select m.game_id, fg.started_at, m.own_ruleset_id as ruleset, m.cards_left, m.tier_name,
    m.multiplier, m.penalty, m.net, m.points
from mart_game_scores m join fg using (game_id)
where m.player_id = $player and m.is_loser and m.multiplier >= 2
order by fg.started_at desc nulls last, m.game_id
