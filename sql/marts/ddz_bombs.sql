-- Dou Dizhu bombs held versus played. Grain: one row per (ruleset, role, n_held), n_held =
-- the bombs and rockets in the hand the seat played with (its deal, plus the kitty for the
-- landlord; full information), over played-out games.
--   use_rate  bombs and rockets played ÷ held (a bomb broken up, or kept, is not played)
--   win_rate  games won ÷ games
with seats as (
    select
        ruleset,
        role,
        n_bombs_held + n_rockets_held as n_held,
        n_bombs_played + n_rockets_played as n_played,
        is_winner
    from ddz_stats_player_games
    where n_bombs_held is not null
)

select
    ruleset,
    role,
    n_held,
    count(*) as n_games,
    sum(n_held)::bigint as n_bombs_held,
    sum(n_played)::bigint as n_bombs_played,
    count(*) filter (where is_winner) as n_wins,
    sum(n_played) / nullif(sum(n_held), 0) as use_rate,
    count(*) filter (where is_winner) / count(*) as win_rate
from seats
group by all
