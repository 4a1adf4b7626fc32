-- Grain: one row per collusion signal of the ordered pair ($a obliged to block $b): its 2×2
-- table and Fisher p-value (collusion_evidence).
-- Parameters: $a, $b.
select signal, baseline, n_cell_actions, n_cell_opportunities, cell_rate,
    n_base_actions, n_base_opportunities, base_rate, p_value
from collusion_evidence
where player_id = $a and partner_id = $b
order by p_value
