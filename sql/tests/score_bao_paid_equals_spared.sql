-- 包牌: the violator pays exactly what the other losers were spared; nobody else pays or is spared
select game_id,
       sum(bao_paid) as paid,
       sum(bao_spared) as spared,
       count(*) filter (where bao_paid > 0 and not is_bao_payer) as wrong_payers,
       count(*) filter (where bao_spared > 0 and (is_bao_payer or not is_loser)) as wrong_spared
from mart_game_scores
group by game_id
having abs(sum(bao_paid) - sum(bao_spared)) > 1e-6 or wrong_payers > 0 or wrong_spared > 0
