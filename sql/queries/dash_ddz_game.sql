-- Grain: one row: the Dou Dizhu game $game_id (stg_ddz_games) with its ruleset's parameters
-- (stg_ddz_rulesets: bidding, stake, spring_doubles, multiplier_cap, kitty_size).
-- Parameters: $game_id.
select g.*, r.bidding, r.stake, r.spring_doubles, r.multiplier_cap, r.kitty_size
from stg_ddz_games g left join stg_ddz_rulesets r using (ruleset_id)
where g.game_id = $game_id
