-- Grain: one row per player of the selection's Dou Dizhu games (key player_id): games and
-- wins (a win is the winning side's: the landlord alone, or both farmers), as landlord and as
-- farmer, the bombs and rockets the player played, the net money (ddz_game_scores.score) and
-- the place by it. Parameters: $match_key, $day, $tz, $player_id (see
-- sql/macros/report_ddz_games.sql).
-- The bombs and rockets come from ddz_stats_player_games (one row per seat of a scored game;
-- a void deal has no play): counting them from stg_ddz_actions scanned every action of the
-- warehouse, 1.2 s at 1M games even with no Dou Dizhu game in it.
with games as (
    select * from report_ddz_games($match_key, $day, $tz, $player_id)
),

seats as (
    select s.*, coalesce(b.n_bombs_played + b.n_rockets_played, 0) as n_bombs
    from ddz_game_scores as s
    join games as g on g.game_id = s.game_id
    left join ddz_stats_player_games as b on b.game_id = s.game_id and b.seat = s.seat
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
