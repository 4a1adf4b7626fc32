-- collusion_ranking: one row per ordered pair, ranks 1..n, probabilities in [0, 1], q >= p
select player_id, partner_id, 'duplicate pair' as problem
from collusion_ranking
group by all
having count(*) > 1
union all
select player_id, partner_id, 'bad probability'
from collusion_ranking
where not (p_combined between 0 and 1 and q_value between 0 and 1 and q_value >= p_combined
           and p_bonferroni >= p_combined)
union all
select 'rank', 'rank', 'ranks are not 1..n'
where (select max(rank) from collusion_ranking) <> (select count(*) from collusion_ranking)
