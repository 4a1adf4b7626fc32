-- ddz_ruleset_fields(params json) → struct: every Dou Dizhu parameter of one ruleset, typed.
-- params is DdzRuleset.to_dict() as JSON plus kitty_size and set_aside_size, as written by
-- pipeline.sqlbuild.ddz_ruleset_params (the `ddz_rulesets` table, and a what-if ruleset of
-- `big2 rescore --as ddz`). multiplier_cap "none" (no 封顶) is NULL.
create or replace macro ddz_ruleset_fields(params) as struct_pack(
    players := (json_extract_string(params, '$.players'))::integer,
    bidding := json_extract_string(params, '$.bidding'),
    bid_reentry := (json_extract_string(params, '$.bid_reentry'))::boolean,
    hand_size := (json_extract_string(params, '$.hand_size'))::integer,
    kitty_size := (json_extract_string(params, '$.kitty_size'))::integer,
    set_aside_size := (json_extract_string(params, '$.set_aside_size'))::integer,
    four_with_two := (json_extract_string(params, '$.four_with_two'))::boolean,
    spring_doubles := (json_extract_string(params, '$.spring_doubles'))::boolean,
    multiplier_cap := nullif(json_extract_string(params, '$.multiplier_cap'), 'none')::integer,
    stake := (json_extract_string(params, '$.stake'))::double
)
