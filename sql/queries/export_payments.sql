-- Grain: one row per payment of the money game $game_id (key payer_seat, receiver_seat): who
-- paid whom, before the bankroll cap (mart_payments). None for penalty points or a redeal.
-- Parameter: $game_id.
select payer_seat, receiver_seat, amount
from mart_payments
where game_id = $game_id
order by payer_seat, priority
