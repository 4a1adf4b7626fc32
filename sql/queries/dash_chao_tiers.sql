-- Grain: one row per 炒 tier (multiplier 1 = no 炒): $player's losses in the filtered games.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $player.
with fg as (select g.* from games g where
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
)
select coalesce(nullif(m.tier_name, ''), '×' || m.multiplier) as tier, m.multiplier,
    count(*) as losses
from mart_game_scores m join fg using (game_id)
where m.player_id = $player and m.is_loser
group by 1, 2 order by 2, 1
