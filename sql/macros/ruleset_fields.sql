-- ruleset_fields(params json) → struct: the scoring parameters of one ruleset, typed.
-- params is Ruleset.to_dict() as JSON plus the engine's tables that scoring needs
-- (huanle_table, huanle_min_plays, tier_names, mult_by_cards), as written by
-- pipeline.sqlbuild.ruleset_params. mult_by_cards[n + 1] is the 炒 multiplier of a loser left
-- with n cards (spec 1.7), from Ruleset.tier(n), so the tier rule has one implementation.
create or replace macro ruleset_fields(params) as struct_pack(
    settlement := json_extract_string(params, '$.settlement'),
    -- 包牌 under place settlement (spec 1.6); rulesets stored before the parameter: net_losses
    bao_place := coalesce(json_extract_string(params, '$.bao_place'), 'net_losses'),
    -- the last-card call's penalty (spec 1.6); rulesets stored before the parameter: none
    missed_call_penalty := coalesce(json_extract_string(params, '$.missed_call_penalty'), 'none'),
    stake := (json_extract_string(params, '$.stake'))::double,
    multiplier_tiers := (json_extract(params, '$.multiplier_tiers'))::integer[][],
    mult_by_cards := (json_extract(params, '$.mult_by_cards'))::integer[],
    tier_names := (json_extract(params, '$.tier_names'))::varchar[],
    spade_two_doubles := (json_extract_string(params, '$.spade_two_doubles'))::boolean,
    first_leader_seven_doubles := (json_extract_string(params, '$.first_leader_seven_doubles'))::boolean,
    card_points := (json_extract_string(params, '$.card_points'))::boolean,
    winner_bonus := (json_extract_string(params, '$.winner_bonus'))::integer,
    bonus_multipliers := json_extract_string(params, '$.bonus_multipliers'),
    huanle_table := json_extract(params, '$.huanle_table'),
    huanle_min_plays := (json_extract_string(params, '$.huanle_min_plays'))::integer,
    must_block := json_extract_string(params, '$.must_block'),
    dragon_instant_win := (json_extract_string(params, '$.dragon_instant_win'))::boolean,
    bankroll := (json_extract_string(params, '$.bankroll'))::boolean,
    bankroll_start := (json_extract_string(params, '$.bankroll_start'))::double,
    rank_ladder_top := (json_extract_string(params, '$.rank_ladder_top'))::bigint
)
