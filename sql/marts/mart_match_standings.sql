-- Grain: one row per seat per game (key game_id, seat): the running totals and standings of
-- the match after this game (spec 1.8). result is the game's score after the bankroll cap
-- (money: net, higher is better; penalty_points: −points); running_points is the penalty-point
-- total (lowest wins the match); standing ranks the match's players after the game
-- (1 = leading; ties share a rank).
with results as (
    select
        s.game_id,
        s.seat,
        s.player_id,
        s.match_key,
        s.game_number,
        s.settlement,
        s.points,
        coalesce(b.net_capped, s.net) as net,
        case when s.settlement = 'penalty_points' then s.score
             else coalesce(b.net_capped, s.net) end as result,
        b.balance_after,
        coalesce(b.has_left, false) as has_left
    from mart_game_scores as s
    left join mart_bankroll as b on b.game_id = s.game_id and b.seat = s.seat
),

running as (
    select
        *,
        sum(result) over w as running_score,
        sum(points) over w as running_points,
        sum(net) over w as running_net,
        count(*) over w as n_games
    from results
    window w as (
        partition by match_key, player_id order by game_number, game_id
        rows between unbounded preceding and current row
    )
)

select
    *,
    rank() over (partition by match_key, game_id order by running_score desc) as standing
from running
