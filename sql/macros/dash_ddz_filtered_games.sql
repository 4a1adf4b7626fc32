-- dash_ddz_filtered_games(p_ruleset, p_match, p_player, p_from, p_to): one row per Dou Dizhu game
-- (key game_id, every column of stg_ddz_games) that the dashboards' sidebar filters select, for
-- the dash_ddz_*.sql queries (sql/queries), which bind the filters to it as parameters (as
-- dash_filtered_games does for Big Two). A NULL argument selects everything.
-- p_ruleset: the games' ruleset; p_match: the log's match_id; p_from, p_to: the first and last
-- UTC day of the start time (games without one belong to no day); p_player: games where this
-- player sat.
create or replace macro dash_ddz_filtered_games(p_ruleset, p_match, p_player, p_from, p_to) as table
select g.*
from stg_ddz_games as g
where ruleset_chosen(g.ruleset, g.overrides, p_ruleset)
  and (p_match is null or g.match_id = p_match)
  -- the period's ends as instants (UTC midnight), converted once, not every game's start
  and (p_from is null or g.started_ts >= timezone('UTC', p_from::date::timestamp))
  and (p_to is null or g.started_ts < timezone('UTC', (p_to::date + 1)::timestamp))
  and (p_player is null
       or g.game_id in (select s.game_id from stg_ddz_seats as s where s.player_id = p_player))
