-- Grain: one row per flagged game per problem (key game_id, code): a scored game whose log
-- contradicts its tournament (spec 1.8, seed 002). Warnings, not rejects: the game stays
-- stored and scored; the standings mark the tournament's prizes provisional (docs/scoring.md,
-- Decision; codes in docs/errors.md). Games arrive in any order and across imports, so the
-- check runs here, over every stored game, at each build.
-- Rounds, order and kind: mart_tournament_games.
-- E_TOURNEY_NOT_QUALIFIED (晉級賽): a seat whose previous game in the tournament it did not win.
-- E_TOURNEY_ROUND_ORDER: 晉級賽, a seat's previous game (a win) in the same round, two or more
--   rounds back, or started later; 積分賽, a round number used twice, or a game started
--   before a game of an earlier round.
-- E_TOURNEY_TOO_MANY_GAMES: a 積分賽 game after its fifth, a game of round 6 or above.
-- E_TOURNEY_PLAYERS_CHANGED (積分賽): a game whose players are not the first game's.
-- E_TOURNEY_KIND_MIXED: a game logging another tournament_kind than the tournament's first.
with seats as (
    select
        t.tournament_id,
        t.tournament_kind,
        t.game_id,
        t.round,
        t.started_at,
        s.player_id,
        s.is_winner
    from mart_game_scores as s
    join mart_tournament_games as t on t.game_id = s.game_id
),

games as (
    select * from mart_tournament_games
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
    union all
    select
        tournament_id, tournament_kind, game_id, round, null,
        'E_TOURNEY_KIND_MIXED',
        format('tournament_kind {} in a {} tournament', logged_kind, tournament_kind)
    from games
    where logged_kind != tournament_kind
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
