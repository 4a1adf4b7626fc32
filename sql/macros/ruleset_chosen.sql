-- The sidebar's ruleset filter (docs/dashboards.md, "The ruleset filter"): its value `choice` is
-- a preset name ('hk', every game of the preset, whatever overrides it) or a ruleset id (a
-- variant: the preset, a space, the overrides JSON as `games.overrides` holds it, 'hk {}' the
-- preset alone, 'hk {"settlement": "chao"}'; exactly those games). A preset name holds no
-- space; NULL chooses everything.
-- ruleset_preset(choice) → text: the preset of the choice ('hk {"players": 3}' → 'hk').
create or replace macro ruleset_preset(choice) as split_part(choice, ' ', 1);

-- ruleset_overrides(choice) → text: the overrides JSON of a variant ('hk {}' → '{}'), NULL for
-- a preset name (or NULL): the marts and rollups keyed by the preset answer the choice then.
create or replace macro ruleset_overrides(choice) as
    case when position(' ' in choice) > 0 then substr(choice, position(' ' in choice) + 1) end;

-- ruleset_chosen(preset, overrides, choice) → boolean: whether a game of this preset
-- (`games.ruleset`) and overrides (`games.overrides`) is one the choice keeps.
create or replace macro ruleset_chosen(preset, overrides, choice) as
    choice is null
    or (preset = ruleset_preset(choice)
        and (ruleset_overrides(choice) is null or overrides = ruleset_overrides(choice)));
