-- Grain: one row per Dou Dizhu player of the games of a ruleset and a period
-- (rollup_ddz_player_days), as dash_ddz_standings: games played out, wins, as landlord and as
-- farmer (games, wins, win %), score, the rank-ladder title and the rank by score; the first
-- $limit by rank, then id.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $limit.
with totals as (
    select
        r.player_id,
        sum(r.n_games)::bigint as games,
        sum(r.n_wins)::bigint as wins,
        coalesce(sum(r.n_games) filter (where r.role = 'landlord'), 0)::bigint as landlord_games,
        coalesce(sum(r.n_wins) filter (where r.role = 'landlord'), 0)::bigint as landlord_wins,
        coalesce(sum(r.n_games) filter (where r.role = 'farmer'), 0)::bigint as farmer_games,
        coalesce(sum(r.n_wins) filter (where r.role = 'farmer'), 0)::bigint as farmer_wins,
        sum(r.score) as score
    from rollup_ddz_player_days r
    where ($ruleset is null or r.ruleset = $ruleset)
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
    group by r.player_id
)
select * from dash_ddz_board(totals)
order by rank, player_id
limit $limit
