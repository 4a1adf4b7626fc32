-- report_games(p_match, p_day, p_tz, p_player): one row per game of a report's selection
-- (key game_id), for `big2 report` and the dashboards' Report page (sql/queries/report_*.sql).
-- p_match: a match (stg_games.match_key: the log's match_id, else the game id); p_day: a date
-- in the time zone p_tz (an IANA name, NULL = UTC), by the game's started_at (games without a
-- start time belong to no day); p_player: only the games where this player_id sat. A NULL
-- argument selects everything.
create or replace macro report_games(p_match, p_day, p_tz, p_player) as table
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
    g.winner,
    g.claim,
    g.bao_seat,
    g.full_info,
    g.n_tricks
from stg_games as g
where (p_match is null or g.match_key = p_match)
  and (p_day is null or timezone(coalesce(p_tz, 'UTC'), g.started_ts)::date = p_day::date)
  and (p_player is null or g.game_id in (select game_id from stg_seats where player_id = p_player))
