-- collusion_evidence: one row per (player, partner, signal); counts consistent; p in [0, 1]
select player_id, partner_id, signal, 'duplicate' as problem
from collusion_evidence
group by all
having count(*) > 1
union all
select player_id, partner_id, signal, 'counts'
from collusion_evidence
where n_cell_actions > n_cell_opportunities or n_base_actions > n_base_opportunities
   or not p_value between 0 and 1
