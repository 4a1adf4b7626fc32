-- Grain: one row per player of the selection's Dou Dizhu games (key player_id): games and
-- wins (a win is the winning side's: the landlord alone, or both farmers), as landlord and as
-- farmer, the bombs and rockets the player played, the net money (ddz_game_scores.score) and
-- the place by it. Parameters: $match_key, $day, $tz, $player_id (see
-- sql/macros/report_ddz_games.sql).
with games as (
    select * from report_ddz_games($match_key, $day, $tz, $player_id)
),

bombs as (
    select a.game_id, a.seat, count(*) as n_bombs
    from stg_ddz_actions as a
    where a.action_type = 'play' and a.kind in ('bomb', 'rocket')
      and a.game_id in (select game_id from games)
    group by a.game_id, a.seat
),

seats as (
    select s.*, coalesce(b.n_bombs, 0) as n_bombs
    from ddz_game_scores as s
    join games as g on g.game_id = s.game_id
    left join bombs as b on b.game_id = s.game_id and b.seat = s.seat
)

select
    'money' as unit,
    player_id,
    coalesce(max(name), player_id) as name,
    count(*) as n_games,
    count(*) filter (where is_winner and is_scored) as n_wins,
    count(*) filter (where role = 'landlord') as n_landlord,
    count(*) filter (where role = 'landlord' and is_winner) as n_landlord_wins,
    count(*) filter (where role = 'farmer') as n_farmer,
    count(*) filter (where role = 'farmer' and is_winner) as n_farmer_wins,
    sum(n_bombs)::bigint as n_bombs,
    sum(score) as score,
    rank() over (order by sum(score) desc) as place
from seats
group by player_id
order by place, player_id
