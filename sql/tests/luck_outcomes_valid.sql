-- luck_outcomes: one row per seat per game with a known deal; expectations within [0, cards dealt]
select game_id, seat, 'duplicate' as problem
from luck_outcomes
group by all
having count(*) > 1
union all
select game_id, seat, 'expectation out of range'
from luck_outcomes
where expected_cards_left < 0 or expected_cards_left > 17
