-- Grain: one row per Dou Dizhu player (key player_id): games played out, wins, games as
-- landlord and their wins, cumulative score (money, ddz_game_scores.score, over every game and
-- ruleset: stakes are simply added), the rank-ladder title for it (spec 1.8, the rank_ladder
-- table, as mart_player_standings) and the overall rank by score.
with totals as (
    select
        player_id,
        count(*) filter (where is_scored) as n_games,
        count(*) filter (where is_winner) as n_wins,
        count(*) filter (where is_landlord) as n_landlord,
        count(*) filter (where is_landlord and is_winner) as n_landlord_wins,
        sum(score) as total_score
    from ddz_game_scores
    group by player_id
),

titled as (
    select t.player_id, max_by(r.title, r.min_score) as title
    from totals as t
    join rank_ladder as r on r.min_score <= greatest(t.total_score, 0)
    group by t.player_id
)

select
    t.*,
    ti.title,
    rank() over (order by t.total_score desc) as overall_rank
from totals as t
join titled as ti using (player_id)
