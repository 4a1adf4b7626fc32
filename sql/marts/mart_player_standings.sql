-- Grain: one row per player (key player_id): games, wins, cumulative score over every game
-- (after the bankroll cap; penalty_points games count −points) and the rank-ladder title of
-- spec 1.8 (003) for it: the highest title whose threshold the score reaches (待业 below
-- 1000, also for a negative score). Thresholds come from the `rank_ladder` table that
-- `big2 build` writes from pipeline.big2.rules.RANK_LADDER (主席 at the default ruleset's
-- rank_ladder_top). Note: scores under different stakes and settlements are simply added.
with totals as (
    select
        s.player_id,
        count(*) filter (where g.is_scored) as n_games,
        count(*) filter (where g.is_winner) as n_wins,
        sum(s.result) as total_score,
        sum(s.points) as total_points,
        sum(s.net) as total_net
    from mart_match_standings as s
    join mart_game_scores as g on g.game_id = s.game_id and g.seat = s.seat
    group by s.player_id
),

titled as (
    select
        t.player_id,
        max_by(r.title, r.min_score) as title,
        max(r.level) as title_level
    from totals as t
    join rank_ladder as r on r.min_score <= greatest(t.total_score, 0)
    group by t.player_id
)

select
    t.*,
    ti.title,
    ti.title_level,
    rank() over (order by t.total_score desc) as overall_rank
from totals as t
join titled as ti using (player_id)
