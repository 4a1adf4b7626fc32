-- report_ddz_games(p_match, p_day, p_tz, p_player): one row per Dou Dizhu game of a report's
-- selection (key game_id), for `big2 report` (sql/queries/report_ddz_*.sql); the same
-- arguments as report_games (sql/macros/report_games.sql), over stg_ddz_games / stg_ddz_seats.
create or replace macro report_ddz_games(p_match, p_day, p_tz, p_player) as table
select
    g.game_id,
    g.match_key,
    g.game_number,
    g.started_at,
    g.started_ts,
    timezone(coalesce(p_tz, 'UTC'), g.started_ts) as started_local,
    g.ruleset_id,
    g.players,
    g.outcome,
    g.is_scored,
    g.landlord,
    g.bid,
    g.bombs,
    g.rockets,
    g.spring,
    g.landlord_won
from stg_ddz_games as g
where (p_match is null or g.match_key = p_match)
  and (p_day is null or timezone(coalesce(p_tz, 'UTC'), g.started_ts)::date = p_day::date)
  and (
      p_player is null
      or g.game_id in (select game_id from stg_ddz_seats where player_id = p_player)
  )
