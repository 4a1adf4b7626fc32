-- Dashboard rollup, grain: one row per played Big Two game of a player (the seats of
-- mart_match_standings whose game is not a redeal; key game_id, player_id): the player, the
-- game's ruleset, start time and UTC day (NULL: no readable start time), the result (after the
-- bankroll cap) and the start of the player's next game (NULL when none starts later), among all
-- of the player's games (next_t) and among those of the same ruleset (next_t_ruleset), so that
-- the score per hour (dash_player_rates_rollup) reads each game's time to the next instead of
-- sorting every player's games on each page. Exact under a ruleset or period filter (whole UTC
-- days: a next game after the period's last day is none); a match, player or other filter needs
-- the games themselves. Games that start at the same time are ordered by game_id, so that
-- every build writes the same rows: all but the last get the next start at the same time, as
-- in dash_player_rates, whose sums are the same whichever of them it takes first.
with played as (
    select m.game_id, m.player_id, m.result, g.ruleset, g.started_ts as t
    from mart_match_standings as m
    join stg_games as g using (game_id)
    where g.outcome <> 'redeal'
)

select
    game_id,
    player_id,
    ruleset,
    timezone('UTC', t)::date as day,
    t,
    result,
    lead(t) over (partition by player_id order by t, game_id) as next_t,
    lead(t) over (partition by player_id, ruleset order by t, game_id) as next_t_ruleset
from played
