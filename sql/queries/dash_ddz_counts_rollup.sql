-- Grain: one row: the headline counts of the Dou Dizhu games of a ruleset and a period, from the
-- rollups (rollup_ddz_games, rollup_ddz_player_days): games, played out, void deals (荒牌),
-- players, matches (a game that names no match is one of its own), springs and anti-springs,
-- the period.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only).
with rg as (
    select * from rollup_ddz_games r
    where ($ruleset is null or r.ruleset = $ruleset)
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
)
select
    (select coalesce(sum(n_games), 0)::bigint from rg) as n_games,
    (select coalesce(sum(n_played_out), 0)::bigint from rg) as n_played_out,
    (select coalesce(sum(n_games - n_played_out), 0)::bigint from rg) as n_void,
    (select count(distinct r.player_id) from rollup_ddz_player_days r
     where ($ruleset is null or r.ruleset = $ruleset)
       and ($date_from is null or r.day >= $date_from::date)
       and ($date_to is null or r.day <= $date_to::date)) as n_players,
    (select (count(distinct match_id) + coalesce(sum(n_games) filter (where match_id is null), 0))::bigint
     from rg) as n_matches,
    (select coalesce(sum(n_springs), 0)::bigint from rg) as n_springs,
    (select coalesce(sum(n_anti_springs), 0)::bigint from rg) as n_anti_springs,
    (select min(first_ts) from rg) as first_game,
    (select max(last_ts) from rg) as last_game
