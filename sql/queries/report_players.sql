-- Grain: one row per player per unit of the selection (key unit, player_id): who played, how
-- many games and wins, the result in the game's unit (money: net before and after the bankroll
-- cap; penalty points: points, lowest wins), 炒 (losses at a multiplier above 1) and 包牌 paid.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql).
with games as (
    select * from report_games($match_key, $day, $tz, $player_id)
),

seats as (
    select
        s.*,
        case when s.settlement = 'penalty_points' then 'penalty points' else 'money' end as unit,
        m.result
    from mart_game_scores as s
    join games as g on g.game_id = s.game_id
    left join mart_match_standings as m on m.game_id = s.game_id and m.seat = s.seat
)

select
    unit,
    player_id,
    coalesce(max(name), player_id) as name,
    count(*) as n_games,
    count(*) filter (where is_winner and is_scored) as n_wins,
    sum(net) as net,
    sum(result) filter (where unit = 'money') as net_after_cap,
    sum(points) as points,
    sum(score) as score,
    count(*) filter (where multiplier > 1) as n_chao,
    count(*) filter (where is_bao_payer) as n_bao,
    sum(bao_paid) as bao_paid,
    rank() over (partition by unit order by sum(score) desc) as place
from seats
group by unit, player_id
order by unit, place, player_id
