-- Grain: one row per Dou Dizhu player of the games of a ruleset and period, most seats first
-- (rollup_ddz_player_days), the first $limit.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $limit.
select r.player_id from rollup_ddz_player_days r where
    ($ruleset is null or r.ruleset = $ruleset)
    and ($date_from is null or r.day >= $date_from::date)
    and ($date_to is null or r.day <= $date_to::date)
group by 1 order by sum(r.n_seats) desc, 1 limit $limit
