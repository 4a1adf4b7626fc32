-- Grain: one row per player per match (key match_key, player_id): the final standing of the
-- match (after its last game), the player's final bankroll balance, and whether they left at 0.
with last_games as (
    -- per player and match: the running totals after the last game (highest game_number,
    -- then game_id), by one aggregate instead of numbering every row
    select
        match_key,
        player_id,
        arg_max(
            struct_pack(
                settlement := settlement,
                n_games := n_games,
                running_score := running_score,
                running_points := running_points,
                running_net := running_net,
                balance_after := balance_after
            ),
            struct_pack(game_number := game_number, game_id := game_id)
        ) as l,
        bool_or(balance_after <= 0) as has_left_at_zero
    from mart_match_standings
    group by match_key, player_id
)

select
    match_key,
    player_id,
    l.settlement,
    l.n_games,
    l.running_score as total_score,
    l.running_points as total_points,
    l.running_net as total_net,
    l.balance_after as final_balance,
    coalesce(has_left_at_zero, false) as has_left_at_zero,
    rank() over (partition by match_key order by l.running_score desc) as standing
from last_games
