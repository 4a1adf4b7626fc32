-- Grain: one row: the Dou Dizhu presets (without overrides) of the ddz_rulesets table, the Dou
-- Dizhu leaderboard's what-if choices (a list, sorted).
-- Parameters: none.
select list(preset order by preset) as presets
from ddz_rulesets
where overrides = json_object()::varchar
