-- Grain: one row per player per tournament (key tournament_id, player_id), for scored games
-- whose log carries a tournament_id (spec 1.8, seed 002; Decisions in docs/scoring.md).
-- Place in a game: the winner 1st, then fewest cards left; losers tied on cards left share
-- their places (each gets the mean of those places' prizes or shares).
-- Kind and round of each game: mart_tournament_games (no kind logged: 積分賽).
-- 積分賽 (tournament_kind 'points'): points instead of chips, so the
-- uncapped score (no bankroll) summed over the tournament's games, from 0; ranked by it;
-- pot_share 0.7 / 0.3 (tournament_prizes), shared by ties.
-- 晉級賽 (knockout): the winner of each game goes on; a player's prize is tournament_prizes'
-- prize for the place in the last round they played; ranked by last round, then place
-- there, then score.
-- Complete: a 晉級賽 with a game in each of rounds 1-5, a 積分賽 with five games; prizes are
-- provisional (is_provisional) while incomplete or while mart_tournament_problems flags a game.
with games as (
    -- kind and round of the tournament's games: mart_tournament_games
    select
        s.game_id,
        t.tournament_id,
        t.tournament_kind,
        s.player_id,
        t.round,
        s.is_winner,
        s.cards_left,
        s.seat,
        s.score
    from mart_game_scores as s
    join mart_tournament_games as t on t.game_id = s.game_id
),

placed as (
    -- place at the table: position is unique, place is shared by a tie on cards left
    select
        *,
        row_number() over (partition by game_id order by is_winner desc, cards_left, seat)
            as position,
        rank() over (partition by game_id order by is_winner desc, cards_left) as place
    from games
),

tournaments as (
    -- one row per tournament: rounds played, completeness, flagged games
    select
        g.tournament_id,
        g.tournament_kind,
        count(distinct g.round) as n_rounds_played,
        case
            when g.tournament_kind = 'knockout'
                then count(distinct g.round) filter (where g.round between 1 and 5) = 5
            else count(distinct g.game_id) >= 5
        end as is_complete,
        coalesce(any_value(p.n_problem_games), 0) as n_problem_games
    from games as g
    left join (
        select tournament_id, count(distinct game_id) as n_problem_games
        from mart_tournament_problems
        group by tournament_id
    ) as p on p.tournament_id = g.tournament_id
    group by g.tournament_id, g.tournament_kind
),

round_prizes as (
    -- 晉級賽 prize of this place in this round (ties: the mean over their positions)
    select
        p.*,
        avg(coalesce(t.prize, 0)) over (partition by p.game_id, p.place) as round_prize
    from placed as p
    left join tournament_prizes as t
        on t.tournament_kind = 'knockout' and t.round = p.round and t.place = p.position
),

totals as (
    select
        tournament_id,
        tournament_kind,
        player_id,
        count(*) as n_games,
        count(*) filter (where is_winner) as n_wins,
        min(round) as first_round,
        max(round) as last_round,
        arg_max(place, round) as last_place,
        arg_max(round_prize, round) as last_round_prize,
        sum(score) as total_score
    from round_prizes
    group by all
),

ranked as (
    select
        *,
        rank() over (partition by tournament_id order by order_key) as standing,
        row_number() over (partition by tournament_id order by order_key, player_id)
            as position
    from (
        select
            *,
            -- knockout: later last round, then better place there; then higher score
            struct_pack(
                r := -(case when tournament_kind = 'knockout' then last_round else 0 end),
                p := case when tournament_kind = 'knockout' then last_place else 0 end,
                s := -total_score
            ) as order_key
        from totals
    )
),

shared as (
    select
        r.*,
        avg(coalesce(t.pot_share, 0)) over (partition by r.tournament_id, r.standing)
            as points_share
    from ranked as r
    left join tournament_prizes as t
        on t.tournament_kind = 'points' and t.place = r.position
)

select
    tournament_id,
    tournament_kind,
    player_id,
    n_games,
    n_wins,
    first_round,
    last_round,
    last_place,
    total_score,
    standing,
    case when tournament_kind = 'points' then points_share end as prize_share,
    case when tournament_kind = 'knockout' then last_round_prize end as prize,
    n_rounds_played,
    is_complete,
    n_problem_games,
    not is_complete or n_problem_games > 0 as is_provisional
from shared
join tournaments using (tournament_id, tournament_kind)
