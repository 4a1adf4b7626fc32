-- Dou Dizhu: every game's scores sum to zero, each farmer's is ±amount, the landlord's
-- ∓amount × (players − 1), a void deal scores 0
select game_id, sum(score) as total, count(*) as n_seats
from ddz_game_scores
group by game_id
having abs(sum(score)) > 1e-6
union all
select game_id, score, seat
from ddz_game_scores
where abs(score) <> case when not is_scored then 0
                         when is_landlord then amount * (players - 1)
                         else amount end
