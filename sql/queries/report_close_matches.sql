-- Grain: one row per match (at most 3, by key) whose key is close to $match_key, which names no
-- match: a key that starts with it (an id cut short) or differs from it in case only; what
-- `big2 report --match` suggests for an unknown match (pipeline/report.py). Parameters:
-- $match_key.
select distinct match_key
from (
    select match_key from stg_games
    union all
    select match_key from stg_ddz_games
)
where starts_with(match_key, $match_key) or lower(match_key) = lower($match_key)
order by match_key
limit 3
