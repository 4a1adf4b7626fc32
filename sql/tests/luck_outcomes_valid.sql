-- luck_outcomes: one row per seat per game with a known deal; expectations within [0, cards dealt]
select game_id, seat, 'duplicate' as problem
from luck_outcomes
group by all
having count(*) > 1
union all
select game_id, seat, 'expectation out of range'
from luck_outcomes
where expected_cards_left < 0 or expected_cards_left > 17
union all
-- the money / points line (luck_money): every scored seat has one, and a least-squares line
-- with an intercept leaves residuals summing to zero within each fit
select game_id, seat, 'no money line'
from luck_outcomes
where score is not null and expected_score is null
union all
select ruleset_id, null, 'money residuals do not sum to zero'
from luck_outcomes
where score is not null
group by ruleset_id, players
having abs(sum(score_vs_expected)) > 1e-6 * greatest(1, sum(abs(score)))
