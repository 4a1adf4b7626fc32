-- Seat order effect: one row per (ruleset, players, position), position = steps after the
-- first leader in play order (0 = the first leader).
--   win_rate = games won from the position ÷ games played from it
with by_position as (
    select
        ruleset,
        players,
        position,
        sum(n_games)::bigint as n_games,
        sum(n_wins)::bigint as n_wins,
        sum(cards_left_when_losing)::bigint as n_cards_left_losing,
        sum(n_losses)::bigint as n_losses
    from stats_player_games
    group by ruleset, players, position
)

select
    *,
    n_wins / nullif(n_games, 0) as win_rate,
    n_cards_left_losing / nullif(n_losses, 0) as avg_cards_left_losing
from by_position
