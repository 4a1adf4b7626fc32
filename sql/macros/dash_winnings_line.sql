-- dash_winnings_line(per_game, max_points): the winnings chart's rows from `per_game`, the name
-- of a CTE of the caller with one row per player and game (player_id, started_at, match_key,
-- game_id, result, luck): per player, the game number in start order (started_at as a time, so
-- logs with other UTC offsets count in order), the cumulative score and the cumulative luck
-- (cards vs expected), thinned to about max_points points a player (the first and last game
-- kept). The one tail of the five sql/queries/dash_winnings*.sql queries.
create or replace macro dash_winnings_line(per_game, max_points) as table
    with cum as (
        select player_id, started_at, match_key,
            row_number() over w as game_no,
            count(*) over (partition by player_id) as n,
            sum(result) over w as cumulative_score,
            sum(luck) over w as cumulative_cards_vs_expected
        from query_table(per_game)
        window w as (
            partition by player_id order by try_cast(started_at as timestamptz) nulls last, game_id
        )
    )
    select player_id as player, game_no, started_at, match_key as match, cumulative_score,
        round(cumulative_cards_vs_expected, 2) as cumulative_cards_vs_expected
    from cum
    where game_no % greatest(1, n // max_points) = 0 or game_no = n or game_no = 1
