-- Grain: one row per flagged game per problem (key game_id, code): a scored game whose log
-- contradicts its tournament (spec 1.8, seed 002). Warnings, not rejects: the game stays
-- stored and scored; the standings mark the tournament's prizes provisional (docs/scoring.md,
-- Decision; codes in docs/errors.md). Games arrive in any order and across imports, so the
-- check runs here, over every stored game, at each build.
-- A game's round is tournament_round, else game_number; games of a tournament are ordered by
-- round, then started_at (a game without one after those with one), then game_id.
-- E_TOURNEY_NOT_QUALIFIED (晉級賽): a seat whose previous game in the tournament it did not win.
-- E_TOURNEY_ROUND_ORDER: 晉級賽, a seat's previous game (a win) in the same round, two or more
--   rounds back, or started later; 積分賽, a round number used twice, or a game started
--   before a game of an earlier round.
-- E_TOURNEY_TOO_MANY_GAMES: a 積分賽 game after its fifth, a game of round 6 or above.
-- E_TOURNEY_PLAYERS_CHANGED (積分賽): a game whose players are not the first game's.
with seats as (
    select
        s.tournament_id,
        coalesce(s.tournament_kind, 'points') as tournament_kind,
        s.game_id,
        coalesce(s.tournament_round, s.game_number) as round,
        try_cast(g.started_at as timestamptz) as started_at,
        s.player_id,
        s.is_winner
    from mart_game_scores as s
    join stg_games as g on g.game_id = s.game_id
    where s.tournament_id is not null and s.is_scored
),

games as (
    -- one row per game, numbered in its tournament
    select
        tournament_id,
        tournament_kind,
        game_id,
        round,
        started_at,
        list_sort(list(player_id)) as players,
        row_number() over (
            partition by tournament_id
            order by round, started_at nulls last, game_id
        ) as game_index
    from seats
    group by tournament_id, tournament_kind, game_id, round, started_at
),

points_games as (
    select
        *,
        first_value(players) over (
            partition by tournament_id order by game_index
        ) as first_players,
        first_value(game_id) over (
            partition by tournament_id order by game_index
        ) as first_game_id,
        first_value(game_id) over (
            partition by tournament_id, round order by game_index
        ) as round_first_game_id,
        max(started_at) over (
            partition by tournament_id order by round
            range between unbounded preceding and 1 preceding
        ) as earlier_rounds_last_start
    from games
    where tournament_kind = 'points'
),

appearances as (
    -- 晉級賽: each seat with its previous game in the tournament
    select
        *,
        lag(game_id) over w as prev_game_id,
        lag(round) over w as prev_round,
        lag(is_winner) over w as prev_won,
        lag(started_at) over w as prev_started_at
    from seats
    where tournament_kind = 'knockout'
    window w as (
        partition by tournament_id, player_id
        order by round, started_at nulls last, game_id
    )
),

findings as (
    select
        tournament_id, tournament_kind, game_id, round, player_id,
        'E_TOURNEY_NOT_QUALIFIED' as code,
        format('{} did not win {} (round {})', player_id, prev_game_id, prev_round) as detail
    from appearances
    where prev_game_id is not null and not prev_won
    union all
    select
        tournament_id, tournament_kind, game_id, round, player_id,
        'E_TOURNEY_ROUND_ORDER',
        case
            when prev_round = round
                then format('{} already won round {} in {}', player_id, round, prev_game_id)
            when prev_round < round - 1
                then format(
                    '{} won round {} in {}, then played round {} without round {}',
                    player_id, prev_round, prev_game_id, round, prev_round + 1
                )
            else format(
                '{} played round {} before round {} ({}, started later)',
                player_id, round, prev_round, prev_game_id
            )
        end
    from appearances
    where prev_won
        and (prev_round = round or prev_round < round - 1 or prev_started_at > started_at)
    union all
    select
        tournament_id, tournament_kind, game_id, round, null,
        'E_TOURNEY_ROUND_ORDER',
        case
            when round_first_game_id != game_id
                then format('round {} is also game {}', round, round_first_game_id)
            else format('round {} started before a game of an earlier round', round)
        end
    from points_games
    where round_first_game_id != game_id or started_at < earlier_rounds_last_start
    union all
    select
        tournament_id, tournament_kind, game_id, round, null,
        'E_TOURNEY_TOO_MANY_GAMES',
        case
            when tournament_kind = 'points' and game_index > 5
                then format('game {} of a 積分賽 of five (round {})', game_index, round)
            else format('round {}: a tournament has five rounds', round)
        end
    from games
    where round > 5 or (tournament_kind = 'points' and game_index > 5)
    union all
    select
        tournament_id, tournament_kind, game_id, round, null,
        'E_TOURNEY_PLAYERS_CHANGED',
        format('players {} are not those of the first game {} ({})',
            players, first_game_id, first_players)
    from points_games
    where players != first_players
)

select
    tournament_id,
    tournament_kind,
    game_id,
    round,
    code,
    list_sort(list(player_id) filter (where player_id is not null)) as player_ids,
    string_agg(detail, '; ' order by detail) as detail
from findings
group by tournament_id, tournament_kind, game_id, round, code
