-- score_bankroll(scores, payments) → one row per seat per game of a bankroll match (key
-- game_id, seat): balances before and after each game under the cap of spec 1.8, walking each
-- match in game order, over the seat scores named by ``scores`` and their payments named by
-- ``payments`` (score_payments over the same scores). mart_bankroll is this over
-- mart_game_scores and mart_payments; the rules are in its header.
create or replace macro score_bankroll(scores, payments) as table
with recursive games as (
    -- the bankroll games, numbered within their match
    select
        game_id,
        match_key,
        row_number() over (partition by match_key order by game_number, game_id) as k
    from query_table(scores)
    where is_bankroll
    group by game_id, match_key, game_number
),

starts as (
    -- each match's starting balances by seat
    select
        g.match_key,
        list(s.start_balance order by s.seat) as balances
    from games as g
    join query_table(scores) as s on s.game_id = g.game_id
    where g.k = 1
    group by g.match_key
),

game_payments as (
    -- each game's payments as one list, in payer priority order
    select
        g.match_key,
        g.k,
        g.game_id,
        coalesce(
            list(
                struct_pack(
                    payer_seat := p.payer_seat,
                    receiver_seat := p.receiver_seat,
                    amount := p.amount,
                    cum_before := p.cum_before
                )
                order by p.payer_seat, p.priority
            ) filter (where p.game_id is not null),
            []
        ) as payments
    from games as g
    left join query_table(payments) as p on p.game_id = g.game_id
    group by all
),

walk as (
    -- game by game: balances before, the capped payments, balances after
    select
        p.match_key,
        p.k,
        p.game_id,
        s.balances as before,
        capped_payments(s.balances, p.payments) as paid
    from game_payments as p
    join starts as s on s.match_key = p.match_key
    where p.k = 1
    union all
    select
        p.match_key,
        p.k,
        p.game_id,
        balances_after(w.before, w.paid) as before,
        capped_payments(balances_after(w.before, w.paid), p.payments) as paid
    from walk as w
    join game_payments as p on p.match_key = w.match_key and p.k = w.k + 1
),

balances as (
    -- per game: balances before and after
    select
        match_key,
        game_id,
        before,
        balances_after(before, paid) as after,
        paid
    from walk
)

select
    b.game_id,
    s.seat,
    s.player_id,
    b.match_key,
    s.game_number,
    b.before[s.seat + 1] as balance_before,
    b.after[s.seat + 1] as balance_after,
    b.after[s.seat + 1] - b.before[s.seat + 1] as net_capped,
    s.net as net_uncapped,
    b.before[s.seat + 1] <= 0 as has_left,
    b.before[s.seat + 1] > 0 and b.after[s.seat + 1] <= 0 as is_busted,
    coalesce(
        list_sum(list_transform(b.paid, lambda p: case when p.payer_seat = s.seat then p.paid else 0 end)),
        0
    ) as paid_total
from balances as b
join query_table(scores) as s on s.game_id = b.game_id
