-- Grain: one row: the presets (without overrides) and the settlements of the rulesets table, the
-- leaderboard's what-if choices (lists, sorted).
-- Parameters: none.
select
    (select list(preset order by preset) from rulesets where overrides = json_object()::varchar) as presets,
    (select list(s order by s) from (select distinct params->>'settlement' as s from rulesets)
     where s is not null) as settlements
