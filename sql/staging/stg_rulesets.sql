-- Grain: one row per ruleset (key ruleset_id = preset || ' ' || overrides JSON): every preset,
-- and every preset + overrides a stored game uses. Source: the `rulesets` table that
-- `big2 build` writes from Ruleset.to_dict() (the same preset TOML files the engine reads),
-- typed by the ruleset_fields() macro, which also types a what-if ruleset (score_seats).
with typed as (
    select
        ruleset_id,
        preset,
        overrides,
        params,
        ruleset_fields(params) as f
    from rulesets
)
select
    ruleset_id,
    preset,
    overrides,
    params,
    unnest(f)
from typed
