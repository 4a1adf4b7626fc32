-- Dashboard rollup, grain: one row per ruleset and player (key ruleset, player_id): the
-- player's seats, scored games, wins and score (after the bankroll cap) under that ruleset,
-- summed from rollup_player_days, with the standings under a ruleset filter: rank among the
-- ruleset's players with a scored game (rank() by score, highest first; NULL without one) and
-- the rank-ladder title of that score. Stored in (ruleset, rank) order, so that one ruleset's
-- standings read few blocks.
with totals as (
    select
        ruleset,
        player_id,
        sum(n_seats)::bigint as n_seats,
        sum(n_standings)::bigint as n_standings,
        sum(n_games)::bigint as n_games,
        sum(n_wins)::bigint as n_wins,
        sum(score) as score
    from rollup_player_days
    group by all
),

ranked as (
    select
        ruleset,
        player_id,
        rank() over (partition by ruleset order by score desc) as rank
    from totals
    where n_standings > 0
)

select
    t.ruleset,
    t.player_id,
    t.n_seats,
    t.n_standings,
    t.n_games,
    t.n_wins,
    t.score,
    r.rank,
    case when t.n_standings > 0 then (
        select max_by(l.title, l.min_score)
        from rank_ladder as l
        where l.min_score <= greatest(t.score, 0)
    ) end as title
from totals as t
left join ranked as r using (ruleset, player_id)
order by t.ruleset, r.rank nulls last, t.player_id
