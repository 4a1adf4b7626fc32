-- dash_rates(gaps, gap_minutes): one row per player of `gaps`, the name of a CTE of the caller
-- with one row per played game of a player (player_id, result, t: the start time, gap: the
-- minutes to the player's next game start among the same games, NULL when there is none):
-- games, score, score per game; hours at the table and score per hour. A game's time is its gap
-- when that is above 0 and at most gap_minutes (the player went on playing), else the typical
-- game: the median of those gaps over `gaps`. A game without a start time, or with no typical
-- game to stand for it, has no time: hours and score per hour count the timed games only (NULL
-- when none is). The one tail of sql/queries/dash_player_rates*.sql.
create or replace macro dash_rates(gaps, gap_minutes) as table
    with typical as (
        select median(gap) as minutes from query_table(gaps)
        where gap > 0 and gap <= gap_minutes
    ),
    timed as (
        select g.player_id, g.result, case when g.t is null then null
            when g.gap > 0 and g.gap <= gap_minutes then g.gap
            else (select minutes from typical) end as minutes
        from query_table(gaps) g
    )
    select player_id as player, count(*) as games, sum(result) as score,
        sum(result) / count(*) as score_per_game,
        count(minutes) as timed_games,
        sum(minutes) / 60.0 as hours,
        sum(result) filter (where minutes is not null) / nullif(sum(minutes) / 60.0, 0)
            as score_per_hour
    from timed group by 1
