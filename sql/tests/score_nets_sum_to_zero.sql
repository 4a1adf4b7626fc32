-- place and winner-takes-all nets sum to zero per game (before the bankroll cap)
select game_id, sum(net) as total
from mart_game_scores
where settlement in ('place', 'winner_takes_all')
group by game_id
having abs(sum(net)) > 1e-6
