-- Grain: one row per farmer of the played-out Dou Dizhu game $game_id (ddz_game_scores): who
-- paid whom (spec 2.5: each farmer pays the landlord the amount when the landlord wins, the
-- landlord pays each farmer when it loses). None for a void deal. Parameter: $game_id.
with f as (select * from ddz_game_scores where game_id = $game_id and not is_landlord),
l as (select * from ddz_game_scores where game_id = $game_id and is_landlord)
select
    case when l.is_winner then f.player_id else l.player_id end as payer,
    case when l.is_winner then l.player_id else f.player_id end as receiver,
    f.amount
from f cross join l
where f.is_scored and f.amount > 0
order by f.seat
