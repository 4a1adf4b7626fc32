-- every game's ruleset is in stg_rulesets (each game is scored by its own rules)
select g.game_id, g.ruleset_id
from stg_games as g
anti join stg_rulesets as r on r.ruleset_id = g.ruleset_id
