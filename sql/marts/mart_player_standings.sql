-- Grain: one row per player (key player_id): games, wins, cumulative score over every game
-- (after the bankroll cap; penalty_points games count −points) and the rank-ladder title of
-- spec 1.8 (003) for it: the highest title whose threshold the score reaches (待业 below
-- 1000, also for a negative score). Thresholds come from the `rank_ladder` table that
-- `big2 build` writes from pipeline.big2.rules.RANK_LADDER (主席 at the default ruleset's
-- rank_ladder_top). Note: scores under different stakes and settlements are simply added.
with totals as (
    -- the standings' and the scores' sums per player apart, then joined (a row per player):
    -- no join of every standing to its score (4M × 4M at 1M games: 0.35-0.40 s, against
    -- 0.03-0.04 s so); the two marts hold the same seats, one row each
    select s.player_id, g.n_games, g.n_wins, s.total_score, s.total_points, s.total_net
    from (
        select
            player_id,
            sum(result) as total_score,
            sum(points) as total_points,
            sum(net) as total_net
        from mart_match_standings
        group by player_id
    ) as s
    join (
        select
            player_id,
            count(*) filter (where is_scored) as n_games,
            count(*) filter (where is_winner) as n_wins
        from mart_game_scores
        group by player_id
    ) as g on g.player_id is not distinct from s.player_id
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
