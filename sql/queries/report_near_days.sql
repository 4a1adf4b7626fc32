-- Grain: one row: the last day before $day and the first day after it on which a game started,
-- in the time zone $tz (NULL = UTC), either NULL when there is none: what `big2 report --day`
-- names when no game started on $day (pipeline/report.py). Parameters: $day, $tz.
with days as (
    select timezone(coalesce($tz, 'UTC'), started_ts)::date as day from stg_games
    union all
    select timezone(coalesce($tz, 'UTC'), started_ts)::date as day from stg_ddz_games
)

select
    max(day) filter (where day < $day::date) as day_before,
    min(day) filter (where day > $day::date) as day_after
from days
