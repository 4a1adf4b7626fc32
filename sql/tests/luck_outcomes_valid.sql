-- luck_outcomes: one row per seat per game with a known deal; expectations within [0, cards dealt];
-- every standing of a game dealt in full (not a redeal) has a result and its row, with that result
-- as score (what dash_winnings_played reads those games' seats from)
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
union all
select m.game_id, m.seat, 'a standing of a game dealt in full without its luck row'
from mart_match_standings as m
join stg_games as g using (game_id)
left join luck_outcomes as l on l.game_id = m.game_id and l.seat = m.seat
where g.full_info and g.outcome <> 'redeal'
  and (m.result is null or l.game_id is null or l.score is distinct from m.result
       or l.match_key is distinct from m.match_key)
