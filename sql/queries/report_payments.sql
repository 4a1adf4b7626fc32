-- Grain: one row per (payer, receiver) pair of players over the selection's money games
-- (key payer_id, receiver_id): what the payer paid the receiver in all, before the bankroll cap
-- (mart_payments), and in how many games. Penalty-point games have no payments.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql); with a
-- player, only the pairs that player is in.
with games as (
    select * from report_games($match_key, $day, $tz, $player_id)
),

payments as (
    select p.game_id, pay.player_id as payer_id, rec.player_id as receiver_id, p.amount
    from mart_payments as p
    join games as g on g.game_id = p.game_id
    join mart_game_scores as pay on pay.game_id = p.game_id and pay.seat = p.payer_seat
    join mart_game_scores as rec on rec.game_id = p.game_id and rec.seat = p.receiver_seat
)

select
    payer_id,
    receiver_id,
    sum(amount) as amount,
    count(distinct game_id) as n_games
from payments
where $player_id is null or $player_id in (payer_id, receiver_id)
group by payer_id, receiver_id
order by amount desc, payer_id, receiver_id
