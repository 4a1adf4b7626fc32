-- Grain: one row per Dou Dizhu player of the filtered games, most seats first, the first $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days) ($player_id null), $limit.
with fg as (
    select g.* from stg_ddz_games g
    where ($ruleset is null or g.ruleset = $ruleset)
      and ($match_id is null or g.match_id = $match_id)
      and ($date_from is null or timezone('UTC', g.started_ts) >= $date_from::date)
      and ($date_to is null or timezone('UTC', g.started_ts) < $date_to::date + 1)
      and ($player_id is null
           or g.game_id in (select game_id from stg_ddz_seats where player_id = $player_id))
)
select s.player_id from fg join stg_ddz_seats s using (game_id)
group by 1 order by count(*) desc, 1 limit $limit
