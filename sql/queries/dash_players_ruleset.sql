-- Grain: one row per player of one ruleset, most seats first (rollup_player_rulesets), the first
-- $limit.
-- Parameters: $ruleset, $limit.
select player_id from rollup_player_rulesets where ruleset = $ruleset
order by n_seats desc, player_id limit $limit
