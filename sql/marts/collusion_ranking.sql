-- Collusion ranking: one row per ordered pair (player_id = A, partner_id = B) where A was
-- obliged to block B (B was A's next seat on one card at least once), ranked most suspicious
-- first.
--
-- p_combined   Fisher's method over the pair's signals (collusion_evidence: non_block,
--              soft_pass, soft_feed; tests on disjoint actions): X = -2 Σ ln p, chi-square
--              with 2k degrees of freedom, P(X' >= X) = e^(-X/2) Σ_{i<k} (X/2)^i / i!
-- q_value      Benjamini-Hochberg over all pairs (false discovery rate): flag when q < 0.01
-- p_bonferroni min(1, p_combined × number of pairs) (family-wise)
-- verdict      'strong' (q < 0.01), 'moderate' (q < 0.05), 'weak' (q < 0.20), else 'none'
with evidence as (
    select * from collusion_evidence
),

pairs as (
    select
        player_id,
        partner_id,
        max(n_cell_actions) filter (where signal = 'non_block') as n_violations_toward,
        max(n_cell_opportunities) filter (where signal = 'non_block') as n_obligations_toward,
        max(cell_rate) filter (where signal = 'non_block') as violation_rate_toward,
        max(base_rate) filter (where signal = 'non_block') as violation_rate_baseline,
        max(baseline) filter (where signal = 'non_block') as violation_baseline,
        max(p_value) filter (where signal = 'non_block') as p_non_block,
        max(cell_rate) filter (where signal = 'soft_pass') as soft_pass_rate_toward,
        max(base_rate) filter (where signal = 'soft_pass') as soft_pass_rate_baseline,
        max(p_value) filter (where signal = 'soft_pass') as p_soft_pass,
        max(cell_rate) filter (where signal = 'soft_feed') as soft_feed_rate_toward,
        max(base_rate) filter (where signal = 'soft_feed') as soft_feed_rate_baseline,
        max(p_value) filter (where signal = 'soft_feed') as p_soft_feed,
        -- Fisher's method: the clamp keeps ln finite for p values below double precision
        -2 * sum(ln(greatest(p_value, 1e-300))) filter (where p_value is not null) as chi2,
        count(p_value) as n_signals
    from evidence
    group by player_id, partner_id
    having count(*) filter (where signal = 'non_block') > 0
),

combined as (
    select
        *,
        case
            when n_signals = 0 then 1.0
            else least(1.0, exp(-chi2 / 2) * (
                1
                + case when n_signals >= 2 then chi2 / 2 else 0 end
                + case when n_signals >= 3 then (chi2 / 2) ^ 2 / 2 else 0 end))
        end as p_combined
    from pairs
),

ranked as (
    select
        *,
        row_number() over (order by p_combined, player_id, partner_id) as rank,
        count(*) over () as n_pairs
    from combined
),

adjusted as (
    select
        *,
        least(1.0, min(p_combined * n_pairs / rank) over (
            order by rank desc rows between unbounded preceding and current row
        )) as q_value,
        least(1.0, p_combined * n_pairs) as p_bonferroni
    from ranked
)

select
    rank,
    player_id,
    partner_id,
    case
        when q_value < 0.01 then 'strong'
        when q_value < 0.05 then 'moderate'
        when q_value < 0.20 then 'weak'
        else 'none'
    end as verdict,
    p_combined,
    q_value,
    p_bonferroni,
    n_pairs,
    n_signals,
    n_obligations_toward,
    n_violations_toward,
    violation_rate_toward,
    violation_rate_baseline,
    violation_baseline,
    p_non_block,
    soft_pass_rate_toward,
    soft_pass_rate_baseline,
    p_soft_pass,
    soft_feed_rate_toward,
    soft_feed_rate_baseline,
    p_soft_feed
from adjusted
