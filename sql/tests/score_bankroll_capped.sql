-- bankroll: nobody pays more than their balance, balances never go negative, money is conserved
select game_id, seat, balance_before, balance_after, paid_total
from mart_bankroll
where paid_total > greatest(balance_before, 0) + 1e-6
   or balance_after < -1e-6
union all
select game_id, null, sum(balance_before), sum(balance_after), null
from mart_bankroll
group by game_id
having abs(sum(balance_before) - sum(balance_after)) > 1e-6
