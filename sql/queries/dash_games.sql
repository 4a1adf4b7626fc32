-- Grain: one row per filtered game, the newest $limit first, with the winner's player id.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $limit.
with fg as (select g.* from games g where coalesce(g.game_kind, 'big2') = 'big2' and
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
),
newest as (select * from fg order by started_at desc nulls last, game_id limit $limit)
select g.game_id, g.match_id, g.game_number, g.ruleset, g.started_at, g.players,
    g.outcome, w.player_id as winner, g.n_tricks, g.n_actions, g.full_info
from newest g left join seats w on w.game_id = g.game_id and w.seat = g.winner
order by g.started_at desc nulls last, g.game_id
