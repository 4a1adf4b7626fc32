-- Grain: one row per Dou Dizhu ruleset (key ruleset_id = preset || ' ' || overrides JSON):
-- every Dou Dizhu preset, and every preset + overrides a stored Dou Dizhu game uses. Source:
-- the `ddz_rulesets` table that `big2 build` writes from DdzRuleset.to_dict() (the preset TOML
-- files of pipeline/doudizhu/presets, the engine's), typed by the ddz_ruleset_fields() macro,
-- which also types a what-if ruleset (ddz_score_seats). multiplier_cap NULL = no 封顶.
with typed as (
    select
        ruleset_id,
        preset,
        overrides,
        params,
        ddz_ruleset_fields(params) as f
    from ddz_rulesets
)

select
    ruleset_id,
    preset,
    overrides,
    params,
    unnest(f)
from typed
