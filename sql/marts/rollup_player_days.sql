-- Dashboard rollup, grain: one row per player, ruleset and UTC day (key player_id, ruleset,
-- day; day NULL = no readable start time): the player's seats that day and, from
-- mart_match_standings, the scored games, wins and score (result: after the bankroll cap,
-- penalty_points games as −points), so that standings, the players of the filtered games and
-- the winnings graph's most active players sum a few rows per player instead of every seat.
-- Exact under a ruleset or period filter (whole UTC days); a match or player filter needs the
-- games themselves.
with games as (
    select game_id, ruleset, timezone('UTC', started_ts)::date as day, outcome, winner
    from stg_games
),

-- the seats and the standings counted apart, per player, ruleset and day, then the two
-- counts joined (a row per player and day): no join of every seat to its standing (4M × 4M,
-- the mart took 1.8× as long with it); every standing is a seat's, of the same player
seat_days as (
    select s.player_id, g.ruleset, g.day, count(*) as n_seats
    from stg_seats as s
    join games as g using (game_id)
    group by all
),

standing_days as (
    select
        m.player_id,
        g.ruleset,
        g.day,
        count(*) as n_standings,
        count(*) filter (where g.outcome <> 'redeal') as n_games,
        count(*) filter (where g.outcome <> 'redeal' and g.winner = m.seat) as n_wins,
        sum(m.result) as score
    from mart_match_standings as m
    join games as g using (game_id)
    group by all
)

select
    s.player_id,
    s.ruleset,
    s.day,
    s.n_seats,
    coalesce(d.n_standings, 0) as n_standings,
    coalesce(d.n_games, 0) as n_games,
    coalesce(d.n_wins, 0) as n_wins,
    d.score
from seat_days as s
left join standing_days as d
    on d.player_id is not distinct from s.player_id
    and d.ruleset is not distinct from s.ruleset
    and d.day is not distinct from s.day
