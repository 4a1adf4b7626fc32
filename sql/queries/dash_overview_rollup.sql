-- Grain: one row: the headline counts of the games of a ruleset and a period, from the rollups
-- (rollup_games, rollup_player_days), and the import health (batches, rejects). Matches: a game
-- that names no match is one of its own, as dash_recent_matches_rollup lists it.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only).
with rg as (
    select * from rollup_games r
    where ($ruleset is null or r.ruleset = $ruleset)
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
)
select
    (select coalesce(sum(n_games), 0)::bigint from rg) as n_games,
    (select count(distinct r.player_id) from rollup_player_days r
     where ($ruleset is null or r.ruleset = $ruleset)
       and ($date_from is null or r.day >= $date_from::date)
       and ($date_to is null or r.day <= $date_to::date)) as n_players,
    (select (count(distinct match_id) + coalesce(sum(n_games) filter (where match_id is null), 0))::bigint
     from rg) as n_matches,
    (select min(first_ts) from rg) as first_game,
    (select max(last_ts) from rg) as last_game,
    (select coalesce(sum(n_partial), 0)::bigint from rg) as n_partial,
    (select coalesce(sum(n_bao), 0)::bigint from rg) as n_bao,
    (select count(*) from batches) as n_batches,
    -- rejects still open, and those a later import resolved (mart_reject_status)
    (select count(*) from mart_reject_status where not is_resolved) as n_rejects,
    (select count(*) from mart_reject_status where is_resolved) as n_resolved_rejects,
    (select max(committed_at) from batches) as last_import
