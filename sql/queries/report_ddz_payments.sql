-- Grain: one row per (payer, receiver) pair of players over the selection's Dou Dizhu games
-- (key payer_id, receiver_id): what the payer paid the receiver in all, and in how many games.
-- Each farmer settles with the landlord alone (spec 2.5): a farmer's negative score is paid to
-- the landlord, a positive one is paid by the landlord; a void deal pays nothing.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_ddz_games.sql); with a
-- player, only the pairs that player is in.
with games as (
    select * from report_ddz_games($match_key, $day, $tz, $player_id)
),

payments as (
    select
        f.game_id,
        case when f.score < 0 then f.player_id else l.player_id end as payer_id,
        case when f.score < 0 then l.player_id else f.player_id end as receiver_id,
        abs(f.score) as amount
    from ddz_game_scores as f
    join games as g on g.game_id = f.game_id
    join ddz_game_scores as l on l.game_id = f.game_id and l.role = 'landlord'
    where f.role = 'farmer' and f.score <> 0
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
