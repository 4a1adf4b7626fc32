-- score_payments(scores) → one row per payment per game (key game_id, payer_seat,
-- receiver_seat): who owes whom in a money game, before the bankroll cap, over the seat scores
-- named by ``scores`` (a table or CTE with score_seats()'s columns: 'mart_game_scores' for the
-- games' own rules, a CTE over score_seats(whatif := …) for a what-if). mart_payments is this
-- over mart_game_scores; the rules are in its header.
create or replace macro score_payments(scores) as table
with money as (
    select *
    from query_table(scores)
    where is_scored and settlement <> 'penalty_points'
),

winner_takes_all as (
    -- each loser's debt to the winner, paid by the 包牌 violator when there is one; a winner
    -- who takes on all losses pays each loser its penalty instead (the bonus is still owed)
    select
        l.game_id,
        coalesce(l.bao_seat, l.seat) as payer_seat,
        w.seat as receiver_seat,
        sum((l.penalty + l.winner_bonus_paid) * l.stake_effective) as amount
    from money as l
    join money as w on w.game_id = l.game_id and w.is_winner
    where l.settlement = 'winner_takes_all' and l.is_loser and l.bao_seat is distinct from w.seat
    group by all
    union all
    select l.game_id, w.seat, l.seat, l.penalty * l.stake_effective
    from money as l
    join money as w on w.game_id = l.game_id and w.is_winner
    where l.settlement = 'winner_takes_all' and l.is_loser and l.bao_seat = w.seat
    union all
    select l.game_id, l.seat, w.seat, l.winner_bonus_paid * l.stake_effective
    from money as l
    join money as w on w.game_id = l.game_id and w.is_winner
    where l.settlement = 'winner_takes_all' and l.is_loser and l.bao_seat = w.seat
      and l.winner_bonus_paid > 0
),

place_pairs as (
    -- place: the pairwise differences of the penalties
    select
        i.game_id,
        i.seat as payer_seat,
        j.seat as receiver_seat,
        (i.penalty - j.penalty) * i.stake_effective as amount
    from money as i
    join money as j on j.game_id = i.game_id and i.penalty > j.penalty
    where i.settlement = 'place'
),

place_bonus as (
    -- place: each loser pays the winner bonus to the winner
    select l.game_id, l.seat as payer_seat, w.seat as receiver_seat,
           l.winner_bonus_paid * l.stake_effective as amount
    from money as l
    join money as w on w.game_id = l.game_id and w.is_winner
    where l.settlement = 'place' and l.is_loser and l.winner_bonus_paid > 0
),

place_bao as (
    -- place under 包牌: the violator makes good each other loser's net loss
    select game_id, bao_seat as payer_seat, seat as receiver_seat, bao_spared as amount
    from money
    where settlement = 'place' and bao_spared > 0
),

payments as (
    select * from winner_takes_all
    union all
    select game_id, payer_seat, receiver_seat, sum(amount) as amount
    from (
        select * from place_pairs
        union all select * from place_bonus
        union all select * from place_bao
    )
    group by all
),

ordered as (
    -- the cap's order of receivers: winner first, then fewest cards left, then seat
    select p.*, r.is_winner, r.cards_left, r.seat
    from payments as p
    join money as r on r.game_id = p.game_id and r.seat = p.receiver_seat
    where p.amount > 0
)

-- priority and cum_before over one window (the seat makes the order total, so ordering by
-- priority is ordering by these keys): one partitioning and sort of the payments instead of
-- a second one by priority (mart_payments at 1M games 6.1-6.7 -> 5.5-5.9 s, the same rows)
select
    game_id,
    payer_seat,
    receiver_seat,
    amount,
    row_number() over w as priority,
    coalesce(sum(amount) over (w rows between unbounded preceding and 1 preceding), 0)
        as cum_before
from ordered
window w as (partition by game_id, payer_seat order by is_winner desc, cards_left, seat)
