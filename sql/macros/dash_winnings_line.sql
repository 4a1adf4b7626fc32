-- dash_winnings_line(per_game, max_points): the winnings chart's rows from `per_game`, the name
-- of a CTE of the caller with one row per player and game (player_id, started_at, ts: the start
-- as a time, the filtered games' started_ts, match_key, game_id, result, luck): per player, the
-- game number in start order (ts, so logs with other UTC offsets count in order; then game_id),
-- the cumulative score and the cumulative luck (cards vs expected), at about max_points points a
-- player. The one tail of the five sql/queries/dash_winnings*.sql queries.
-- A player with at most max_points games has every game a point. A player with more has the
-- time from their first start to their last cut into max_points slices: a point at each
-- slice's last game (its game number and totals those of that game, as if every game were
-- numbered: the games of a slice are summed, the slices run in time order) and at the first
-- game; the games without a start time come last, in game_id order, cut into max_points
-- slices of their own. Numbering every game of a player with 1M games was a window over all
-- of them (~3 s at 4 players × 1M games, against ~0.5 s for the slices' sums).
create or replace macro dash_winnings_line(per_game, max_points) as table
    with games as (
        select * from query_table(per_game)
    ),
    players as (
        select player_id, count(*) as n, count(ts) as n_timed, min(ts) as t0,
            (epoch(max(ts)) - epoch(min(ts))) / max_points as slice
        from games
        group by player_id
    ),
    few as (
        select g.player_id, g.started_at, g.match_key,
            row_number() over w as game_no,
            sum(g.result) over w as cumulative_score,
            sum(g.luck) over w as cumulative_luck
        from games as g
        semi join players as p on p.player_id = g.player_id and p.n <= max_points
        window w as (partition by g.player_id order by g.ts nulls last, g.game_id)
    ),
    many_games as (
        -- slices 0..max_points by the start time (0 for every game when they all start at once)
        select g.*,
            coalesce(floor((epoch(g.ts) - epoch(p.t0)) / nullif(p.slice, 0)), 0) as slice_no
        from games as g
        join players as p on p.player_id = g.player_id and p.n > max_points
        where g.ts is not null
        union all by name
        -- the games without a start time after them, in game_id order, in max_points slices
        -- (numbered in a window: only these games)
        select g.*,
            max_points + 1 + floor(
                (row_number() over (partition by g.player_id order by g.game_id) - 1)
                * max_points / (p.n - p.n_timed)
            ) as slice_no
        from games as g
        join players as p on p.player_id = g.player_id and p.n > max_points
        where g.ts is null
    ),
    slices as (
        select player_id, slice_no, count(*) as n_games, sum(result) as score, sum(luck) as luck,
            arg_max(started_at, (ts, game_id)) as started_at,
            arg_max(match_key, (ts, game_id)) as match_key,
            arg_min(struct_pack(started_at, match_key, result, luck), (ts, game_id)) as first_game
        from many_games
        group by player_id, slice_no
    ),
    many as (
        select player_id, started_at, match_key,
            (sum(n_games) over w)::bigint as game_no,
            sum(score) over w as cumulative_score,
            sum(luck) over w as cumulative_luck
        from slices
        window w as (
            partition by player_id order by slice_no
            rows between unbounded preceding and current row
        )
        union
        -- the first game: the first slice's
        select player_id, f.started_at, f.match_key, 1, f.result, f.luck
        from (select player_id, arg_min(first_game, slice_no) as f from slices group by player_id)
    )
    select player_id as player, game_no, started_at, match_key as match, cumulative_score,
        round(cumulative_luck, 2) as cumulative_cards_vs_expected
    from (select * from few union all select * from many)
