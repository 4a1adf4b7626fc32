-- the pairwise payments add up to each seat's net (money games, before the cap)
with flows as (
    select game_id, payer_seat as seat, -amount as amount from mart_payments
    union all
    select game_id, receiver_seat, amount from mart_payments
),

by_seat as (
    select game_id, seat, sum(amount) as amount from flows group by all
)

select s.game_id, s.seat, s.net, coalesce(f.amount, 0) as paid_in
from mart_game_scores as s
left join by_seat as f on f.game_id = s.game_id and f.seat = s.seat
where s.is_scored and s.settlement <> 'penalty_points'
  and abs(s.net - coalesce(f.amount, 0)) > 1e-6
