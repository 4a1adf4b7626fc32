-- Dashboard rollup, grain: one row per Dou Dizhu ruleset, match and UTC day (key ruleset,
-- match_id, day; match_id NULL = the games that name no match, each a match of its own as
-- stg_ddz_games.match_key reads it; day NULL = no readable start time): the games of that cell
-- counted (played out, springs and anti-springs) and the range of their start times, so that
-- the Dou Dizhu pages' headline counts and the sidebar's filter options read a few rows per
-- match instead of every game. Exact under a ruleset or period filter (whole UTC days); a
-- match or player filter needs the games themselves.
select
    ruleset,
    match_id,
    timezone('UTC', started_ts)::date as day,
    count(*) as n_games,
    count(*) filter (where is_scored) as n_played_out,
    count(*) filter (where spring = 'spring') as n_springs,
    count(*) filter (where spring = 'anti_spring') as n_anti_springs,
    min(started_ts) as first_ts,
    max(started_ts) as last_ts
from stg_ddz_games
group by all
