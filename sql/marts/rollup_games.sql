-- Dashboard rollup, grain: one row per ruleset, match and UTC day (key ruleset, match_id,
-- day; match_id NULL = the games that name no match, day NULL = no readable start time): the
-- games of that cell counted, the range of their start times and the match's last game, so
-- that the overview's counts and the sidebar's filter options read a few rows per match
-- instead of every game. Exact under a ruleset, match or period filter (whole UTC days); a
-- player filter needs the games themselves. Reads the Big Two games of the warehouse table
-- `games` as stored (its game_number may be NULL, which stg_games reads as 1).
with games_dated as (
    select
        game_id,
        ruleset,
        match_id,
        game_number,
        started_at,
        try_cast(started_at as timestamptz) as started_ts,
        full_info,
        bao_seat
    from games
    where coalesce(game_kind, 'big2') = 'big2'  -- Dou Dizhu games: stg_ddz_games
)

select
    ruleset,
    match_id,
    timezone('UTC', started_ts)::date as day,
    count(*) as n_games,
    count(*) filter (where not full_info) as n_partial,
    count(*) filter (where bao_seat is not null) as n_bao,
    min(started_ts) as first_ts,
    max(started_ts) as last_ts,
    -- the first and last start as logged, chosen by the time (not the text: other UTC offsets);
    -- ties (the same instant, the same game number) broken by the text and the id, so that
    -- every build of the same games writes the same row
    arg_min(started_at, (started_ts, started_at)) filter (where started_ts is not null)
        as first_started_at,
    arg_max(started_at, (started_ts, started_at)) filter (where started_ts is not null)
        as last_started_at,
    arg_max(game_id, (game_number, game_id)) filter (where game_number is not null)
        as last_game_id,
    max(game_number) as last_game_number
from games_dated
group by all
