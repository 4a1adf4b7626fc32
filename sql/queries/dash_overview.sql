-- Grain: one row: the headline counts of the filtered Big Two games (games, players, matches, period,
-- partial-information games, games with 包牌) and the import health (batches, rejects).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days).
with fg as (
    select g.* from games g where coalesce(g.game_kind, 'big2') = 'big2'
      and ($ruleset is null or g.ruleset = $ruleset)
      and ($match_id is null or g.match_id = $match_id)
      and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
      and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
      and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
)
select
    (select count(*) from fg) as n_games,
    (select count(distinct s.player_id) from seats s join fg using (game_id)) as n_players,
    (select count(distinct match_id) from fg) as n_matches,
    (select min(try_cast(started_at as timestamptz)) from fg) as first_game,
    (select max(try_cast(started_at as timestamptz)) from fg) as last_game,
    (select count(*) from fg where not full_info) as n_partial,
    (select count(*) from fg where bao_seat is not null) as n_bao,
    (select count(*) from batches) as n_batches,
    (select count(*) from rejects) as n_rejects,
    (select max(committed_at) from batches) as last_import
