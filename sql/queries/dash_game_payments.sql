-- Grain: one row per payment of the money game $game_id (key payer_seat, receiver_seat): who paid
-- whom, before the bankroll cap (mart_payments), with the players. None for penalty points or a
-- redeal. Parameter: $game_id.
select p.payer_seat, a.player_id as payer, p.receiver_seat, b.player_id as receiver, p.amount
from mart_payments p
join seats a on a.game_id = p.game_id and a.seat = p.payer_seat
join seats b on b.game_id = p.game_id and b.seat = p.receiver_seat
where p.game_id = $game_id
order by p.payer_seat, p.priority
