-- Grain: one row per Dou Dizhu player as in dash_ddz_standings (the filtered games), with the
-- what-if score, rank and title if every one of those games had been scored under the Dou
-- Dizhu ruleset JSON $whatif (ddz_score_seats: its stake, spring_doubles and multiplier_cap;
-- the facts played stay), and the rank change (own rank − what-if rank: up is positive).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $whatif,
-- $limit.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
totals as (
    select
        sc.player_id,
        count(*) filter (where sc.is_scored) as games,
        count(*) filter (where sc.is_winner) as wins,
        sum(sc.score) as score
    from ddz_game_scores sc
    semi join fg using (game_id)
    group by sc.player_id
),
whatif as (
    select w.player_id, sum(w.score) as whatif_score
    from ddz_score_seats(whatif := $whatif, games := 'fg') w
    group by w.player_id
),
ranked as (
    select
        t.*,
        w.whatif_score,
        rank() over (order by t.score desc) as rank,
        rank() over (order by w.whatif_score desc) as whatif_rank
    from totals t join whatif w using (player_id)
)
select
    r.rank,
    r.whatif_rank,
    r.rank - r.whatif_rank as rank_change,
    r.player_id,
    r.games,
    r.wins,
    100.0 * r.wins / nullif(r.games, 0) as win_pct,
    r.score,
    r.whatif_score,
    dash_title(r.score) as title,
    dash_title(r.whatif_score) as whatif_title
from ranked r
order by r.rank, r.player_id
limit $limit
