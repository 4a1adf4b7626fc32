-- Grain: one row per 包牌 paid in the filtered games (mart_game_scores): who paid, how much,
-- newest first.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days).
with fg as (select g.* from games g where
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
)
select m.game_id, fg.started_at, m.own_ruleset_id as ruleset, m.player_id as payer,
    m.bao_paid, m.settlement
from mart_game_scores m join fg using (game_id)
where m.is_bao_payer
order by fg.started_at desc nulls last, m.game_id
