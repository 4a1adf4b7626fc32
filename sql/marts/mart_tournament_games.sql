-- Grain: one row per scored game of a tournament (key game_id), for games whose log carries a
-- tournament_id (spec 1.8, seed 002): the tournament's kind, the game's round and its place in
-- the tournament's order, read by mart_tournament_problems and mart_tournament_standings.
-- Round: tournament_round, else game_number. Order (game_index): round, then started_at (a
-- game without one after those with one), then game_id. Kind: the first kind logged in that
-- order, else 'points' (積分賽); a game logging another kind is E_TOURNEY_KIND_MIXED.
with seats as (
    select
        s.tournament_id,
        s.tournament_kind as logged_kind,
        s.game_id,
        coalesce(s.tournament_round, s.game_number) as round,
        try_cast(g.started_at as timestamptz) as started_at,
        s.player_id
    from mart_game_scores as s
    join stg_games as g on g.game_id = s.game_id
    where s.tournament_id is not null and s.is_scored
),

games as (
    select
        tournament_id,
        game_id,
        any_value(logged_kind) as logged_kind,
        any_value(round) as round,
        any_value(started_at) as started_at,
        list_sort(list(player_id)) as players
    from seats
    group by tournament_id, game_id
),

numbered as (
    select
        *,
        row_number() over (
            partition by tournament_id
            order by round, started_at nulls last, game_id
        ) as game_index
    from games
),

kinds as (
    select
        tournament_id,
        arg_min(logged_kind, game_index) filter (where logged_kind is not null) as first_kind
    from numbered
    group by tournament_id
)

select
    n.tournament_id,
    coalesce(k.first_kind, 'points') as tournament_kind,
    n.logged_kind,
    n.game_id,
    n.round,
    n.started_at,
    n.game_index,
    n.players
from numbered as n
join kinds as k on k.tournament_id = n.tournament_id
