-- Dashboard rollup, grain: one row per scope, charted player and point of the leaderboard's
-- winnings graph (key ruleset, player, game_no), as dash_winnings_all (no filter) and
-- dash_winnings_ruleset (a ruleset filter alone) give them with the page's defaults: the scope
-- is every Big Two game (ruleset NULL) or one ruleset's games; its players the 12 most active
-- (dashboards.data.WINNINGS_PLAYERS: every game's by mart_player_standings.n_games, a
-- ruleset's by rollup_player_rulesets.n_seats, then by player_id); about 400 points a player
-- (data.WINNINGS_POINTS, dash_winnings_line's thinning). Read instead of thinning every game of
-- the charted players on each render (~2.5 s at 1M four-player games). Stored in scope and
-- player order.
with fg as (
    select *
    from dash_filtered_games(null, null, null, null, null, null, null, null, null, null)
),

top_all as (
    select player_id
    from mart_player_standings
    order by n_games desc, player_id
    limit 12
),

top_ruleset as (
    select ruleset, player_id
    from rollup_player_rulesets
    qualify row_number() over (partition by ruleset order by n_seats desc, player_id) <= 12
),

charted as (
    select player_id from top_all
    union
    select player_id from top_ruleset
),

played as materialized (
    select * from dash_winnings_played(fg, charted)
),

-- each game's rows once per scope that charts its player, with the scope and the player as
-- one key, which dash_winnings_line numbers and thins as a player: the ruleset ('' for every
-- game), a unit separator (chr(31), in no preset name), the player
scoped as materialized (
    select chr(31) || p.player_id as player_id, p.* exclude (player_id)
    from played as p
    where p.player_id in (select player_id from top_all)
    union all
    select p.ruleset || chr(31) || p.player_id as player_id, p.* exclude (player_id)
    from played as p
    semi join top_ruleset as t on t.ruleset = p.ruleset and t.player_id = p.player_id
)

select
    nullif(split_part(player, chr(31), 1), '') as ruleset,
    player[strpos(player, chr(31)) + 1:] as player,
    game_no,
    started_at,
    match,
    cumulative_score,
    cumulative_cards_vs_expected
from dash_winnings_line(scoped, 400)
order by ruleset nulls first, player, game_no
