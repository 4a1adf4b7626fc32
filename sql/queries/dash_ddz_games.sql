-- Grain: one row per filtered Dou Dizhu game (stg_ddz_games), the newest $limit first: players,
-- landlord, bid, bombs and rockets, spring, outcome.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $limit.
with fg as (
    select g.* from stg_ddz_games g
    where ($ruleset is null or g.ruleset = $ruleset)
      and ($match_id is null or g.match_id = $match_id)
      and ($date_from is null or timezone('UTC', g.started_ts) >= $date_from::date)
      and ($date_to is null or timezone('UTC', g.started_ts) < $date_to::date + 1)
      and ($player_id is null
           or g.game_id in (select game_id from stg_ddz_seats where player_id = $player_id))
)
select g.game_id, g.match_id, g.game_number, g.ruleset, g.started_at, g.players, g.outcome,
    l.player_id as landlord, g.bid, g.bombs, g.rockets, g.spring, g.landlord_won, g.n_actions,
    g.full_info
from fg g left join stg_ddz_seats l on l.game_id = g.game_id and l.seat = g.landlord
order by g.started_ts desc nulls last, g.game_id
limit $limit
