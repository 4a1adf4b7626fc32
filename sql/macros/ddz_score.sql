-- ddz_score(bid, bombs, rockets, spring, landlord_won, players, stake, spring_doubles,
-- multiplier_cap) → struct: the scoring of one Dou Dizhu game (spec 2.5), the SQL twin of
-- pipeline.doudizhu.state.score (tests/doudizhu/test_marts_scoring.py holds them equal).
--   multiplier_raw  2^(bombs + rockets), ×2 for a spring or anti-spring when spring_doubles
--   multiplier      what the table pays: multiplier_raw capped at multiplier_cap (NULL: no cap)
--   amount          per farmer: bid × stake × multiplier
--   landlord_score  +amount × (players − 1) when the landlord won, −that when it lost
--   farmer_score    −amount when the landlord won, +amount when it lost (zero-sum)
-- A void deal (荒牌: landlord_won NULL) scores 0 with multiplier 1.
-- 004's example: ddz_score(3, 2, 1, null, true, 3, 1, false, null) → 8, 24 per farmer, 48.

-- +1 the landlord won, −1 it lost, 0 a void deal
create or replace macro ddz_sign(landlord_won) as
    case when landlord_won then 1 when not landlord_won then -1 else 0 end;

create or replace macro ddz_multiplier_raw(bombs, rockets, spring, spring_doubles) as
    (1::bigint << (coalesce(bombs, 0) + coalesce(rockets, 0))::integer)
    * (case when spring is not null and spring_doubles then 2 else 1 end);

-- 封顶: the multiplier a table pays
create or replace macro ddz_capped(multiplier, multiplier_cap) as
    case when multiplier_cap is null then multiplier else least(multiplier, multiplier_cap) end;

create or replace macro ddz_paid(bombs, rockets, spring, spring_doubles, multiplier_cap) as
    ddz_capped(ddz_multiplier_raw(bombs, rockets, spring, spring_doubles), multiplier_cap);

create or replace macro ddz_score(
    bid, bombs, rockets, spring, landlord_won, players, stake, spring_doubles, multiplier_cap
) as struct_pack(
    multiplier_raw := ddz_multiplier_raw(bombs, rockets, spring, spring_doubles),
    multiplier := ddz_paid(bombs, rockets, spring, spring_doubles, multiplier_cap),
    amount := (abs(ddz_sign(landlord_won)) * bid * stake
               * ddz_paid(bombs, rockets, spring, spring_doubles, multiplier_cap))::double,
    landlord_score := (ddz_sign(landlord_won) * (players - 1) * bid * stake
                       * ddz_paid(bombs, rockets, spring, spring_doubles, multiplier_cap))::double,
    farmer_score := (-ddz_sign(landlord_won) * bid * stake
                     * ddz_paid(bombs, rockets, spring, spring_doubles, multiplier_cap))::double
)
