-- dash_filtered_games(p_ruleset, p_match, p_player, p_from, p_to, p_seat, p_opponent, p_players,
-- p_outcome, p_tier): one row per Big Two game of the warehouse (key game_id, every column of
-- `games` and started_ts, the start as a time as in stg_games: order by it, not by the text of
-- started_at; game_kind 'big2', or NULL from batches written before Dou Dizhu)
-- that the dashboards' sidebar filters select, for the dash_*.sql queries (sql/queries), which
-- bind the filters to it as parameters. A NULL argument selects everything.
-- p_ruleset: the games' ruleset; p_match: the log's match_id; p_from, p_to: the first and last
-- UTC day of the start time (games without one belong to no day); p_player: games where this
-- player sat, in seat p_seat when given (p_seat alone: no player, no seat filter); p_opponent:
-- games where this player sat too (with p_player when given); p_players: the number of seats;
-- p_outcome: games.outcome (played_out, redeal …); p_tier: games where a loser (p_player when
-- given) was caught at this 炒 multiplier (mart_game_scores.multiplier: 1 none, 2 雙炒, 3 三炒,
-- 4 四炒 or more).
create or replace macro dash_filtered_games(p_ruleset, p_match, p_player, p_from, p_to, p_seat,
    p_opponent, p_players, p_outcome, p_tier) as table
select g.*, try_cast(g.started_at as timestamptz) as started_ts
from games as g
where coalesce(g.game_kind, 'big2') = 'big2'
  and ruleset_chosen(g.ruleset, g.overrides, p_ruleset)
  and (p_match is null or g.match_id = p_match)
  -- the period's ends as instants (UTC midnight), converted once, not every game's start
  and (p_from is null
       or try_cast(g.started_at as timestamptz) >= timezone('UTC', p_from::date::timestamp))
  and (p_to is null
       or try_cast(g.started_at as timestamptz) < timezone('UTC', (p_to::date + 1)::timestamp))
  and (p_player is null or g.game_id in (
        select s.game_id from seats as s
        where s.player_id = p_player and (p_seat is null or s.seat = p_seat)))
  and (p_opponent is null or g.game_id in (
        select s.game_id from seats as s where s.player_id = p_opponent))
  and (p_players is null or g.players = p_players)
  and (p_outcome is null or g.outcome = p_outcome)
  and (p_tier is null or g.game_id in (
        select m.game_id from mart_game_scores as m
        where m.is_loser and least(m.multiplier, 4) = p_tier
          and (p_player is null or m.player_id = p_player)))
