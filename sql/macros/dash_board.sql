-- dash_board(own, wi): the Big Two leaderboard's rows, one per player of `own`, the name of a
-- CTE of the caller with (player_id, games, wins, score); `wi` names one with (player_id,
-- whatif_score), empty when there is no what-if. Rank by score, win %, rank-ladder title
-- (dash_title), the what-if's score, rank and title, the rank change (own rank − what-if rank:
-- up is positive), and all_wins / all_games over every player. The one tail of the four
-- sql/queries/dash_standings*.sql boards that rank their own totals.
create or replace macro dash_board(own, wi) as table
    with ranked as (
        select o.*, w.whatif_score,
            rank() over (order by o.score desc) as rank,
            case when w.whatif_score is not null
            then rank() over (order by w.whatif_score desc nulls last) end
            as whatif_rank
        from query_table(own) o left join query_table(wi) w using (player_id)
    )
    select rank, player_id as player, games, wins,
        round(100.0 * wins / nullif(games, 0), 1) as win_pct,
        score, dash_title(score) as title,
        whatif_score, whatif_rank,
        dash_title(whatif_score) as whatif_title,
        rank - whatif_rank as rank_change,
        sum(wins) over () as all_wins, sum(games) over () as all_games
    from ranked
