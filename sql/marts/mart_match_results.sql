-- Grain: one row per player per match (key match_key, player_id): the final standing of the
-- match (after its last game), the player's final bankroll balance, and whether they left at 0.
with last_games as (
    select
        *,
        row_number() over (partition by match_key, player_id
                           order by game_number desc, game_id desc) as nth_from_last
    from mart_match_standings
),

busted as (
    select match_key, player_id, bool_or(balance_after <= 0) as has_left_at_zero
    from mart_match_standings
    group by all
)

select
    l.match_key,
    l.player_id,
    l.settlement,
    l.n_games,
    l.running_score as total_score,
    l.running_points as total_points,
    l.running_net as total_net,
    l.balance_after as final_balance,
    coalesce(b.has_left_at_zero, false) as has_left_at_zero,
    rank() over (partition by l.match_key order by l.running_score desc) as standing
from last_games as l
left join busted as b on b.match_key = l.match_key and b.player_id = l.player_id
where l.nth_from_last = 1
