-- Grain: one row per player per tournament (key tournament_id, player_id), for games whose log
-- carries a tournament_id. 積分賽 (tournament_kind 'points', or no kind logged): total score
-- over the tournament's games (points instead of chips), ranked; the pot splits 70 % to the
-- first and 30 % to the second (prize_share). 晉級賽 (knockout): games won and the last
-- round reached; prizes per round and place are not modelled (no prize table in the logs).
with games as (
    select
        s.tournament_id,
        coalesce(s.tournament_kind, 'points') as tournament_kind,
        s.player_id,
        s.tournament_round,
        s.is_winner,
        m.result
    from mart_game_scores as s
    join mart_match_standings as m on m.game_id = s.game_id and m.seat = s.seat
    where s.tournament_id is not null and s.is_scored
),

totals as (
    select
        tournament_id,
        tournament_kind,
        player_id,
        count(*) as n_games,
        count(*) filter (where is_winner) as n_wins,
        max(tournament_round) as last_round,
        sum(result) as total_score
    from games
    group by all
),

ranked as (
    select
        *,
        rank() over (
            partition by tournament_id
            order by
                case when tournament_kind = 'knockout' then last_round end desc nulls last,
                case when tournament_kind = 'knockout' then n_wins end desc nulls last,
                total_score desc
        ) as standing
    from totals
)

select
    *,
    case when tournament_kind = 'points' then
        case standing when 1 then 0.7 when 2 then 0.3 else 0.0 end
    end as prize_share
from ranked
