-- Grain: one row per seat of the game $game_id (key seat), in seat order: the players, the
-- deal, what each seat held at the end, and the score under the game's own rules
-- (mart_game_scores: 炒 multiplier, penalty, 包牌, net money or penalty points).
-- Parameter: $game_id.
select
    s.seat,
    s.player_id,
    s.name,
    s.balance,
    s.deal_mask,
    s.deal_text,
    s.final_hand_text,
    s.cards_left,
    s.is_winner,
    m.settlement,
    case when m.settlement = 'penalty_points' then 'penalty points' else 'money' end as unit,
    m.multiplier,
    m.tier_name,
    m.penalty,
    m.is_bao_payer,
    m.bao_paid,
    m.bao_spared,
    m.net,
    m.points,
    m.score
from stg_seats as s
left join mart_game_scores as m on m.game_id = s.game_id and m.seat = s.seat
where s.game_id = $game_id
order by s.seat
