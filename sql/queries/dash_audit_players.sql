-- Grain: one row per player and ruleset: the 頂大 record as built (audit_players), most violations
-- first, the first $limit.
-- Parameters: $ruleset, $player (null = all), $limit.
select player_id as player, ruleset, n_obligations as obligations, n_met as met,
    n_violations as violated, n_unknown as unknown,
    round(100.0 * n_violations / nullif(n_known, 0), 1) as violation_pct,
    n_violations_next_out as violated_then_out, n_bao as bao,
    n_bao_possible as bao_possible, coalesce(bao_paid, 0) as bao_paid
from audit_players
where ($ruleset is null or ruleset = $ruleset) and ($player is null or player_id = $player)
order by violated desc, violation_pct desc nulls last, player, ruleset
limit $limit
