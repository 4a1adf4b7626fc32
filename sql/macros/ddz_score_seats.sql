-- ddz_score_seats(whatif := null, games := 'stg_ddz_games'): Dou Dizhu scoring (spec 2.5), one
-- row per seat per game.
-- whatif: NULL scores every game by its own ruleset (stg_ddz_rulesets via
-- stg_ddz_games.ruleset_id); a Dou Dizhu ruleset as JSON (pipeline.sqlbuild.ddz_ruleset_json)
-- scores every game as if played under that ruleset's stake, spring_doubles and
-- multiplier_cap instead (what-if rescoring, no re-import; the facts bid, bombs, rockets,
-- spring, landlord_won stay those played). The arithmetic is the ddz_score() macro.
-- score is money (bid × stake × multiplier, per farmer; the landlord ±2× or ±1×), zero-sum.
-- games: the name of the table, view or CTE whose games are scored, with stg_ddz_games'
-- columns (as score_seats' games: a filter's games, scored alone).
create or replace macro ddz_score_seats(whatif := null, games := 'stg_ddz_games') as table
with whatif_rules as (
    select '(what-if)' as ruleset_id, unnest(ddz_ruleset_fields(whatif::json))
    where whatif is not null
),

rules as (
    -- the rulesets in play: the games' own, or the what-if one
    select * exclude (preset, overrides, params) from stg_ddz_rulesets where whatif is null
    union all by name
    select * from whatif_rules
),

scored_games as (
    select
        g.*,
        g.ruleset_id as own_ruleset_id,
        r.stake,
        r.spring_doubles,
        r.multiplier_cap,
        ddz_score(
            g.bid, g.bombs, g.rockets, g.spring, g.landlord_won, g.players,
            r.stake, r.spring_doubles, r.multiplier_cap
        ) as s
    from query_table(games) as g
    join rules as r
        on r.ruleset_id = case when whatif is null then g.ruleset_id else '(what-if)' end
)

select
    g.game_id,
    s.seat,
    s.player_id,
    s.name,
    g.match_key,
    g.game_number,
    g.started_ts,
    g.ruleset,
    g.own_ruleset_id,
    case when whatif is null then g.own_ruleset_id else '(what-if)' end as ruleset_id,
    g.players,
    g.outcome,
    g.is_scored,
    s.role,
    s.seat = g.landlord as is_landlord,
    s.is_winner,
    g.landlord,
    g.bid,
    g.bombs,
    g.rockets,
    g.spring,
    g.landlord_won,
    g.stake,
    g.spring_doubles,
    g.multiplier_cap,
    g.s.multiplier_raw,
    g.s.multiplier,
    g.s.amount,
    case when s.seat = g.landlord then g.s.landlord_score else g.s.farmer_score end as score
from stg_ddz_seats as s
join scored_games as g on g.game_id = s.game_id
