-- Dashboard rollup, grain: one row per player, ruleset and UTC day (key player_id, ruleset,
-- day; day NULL = no readable start time): the player's seats that day and, from
-- mart_match_standings, the scored games, wins and score (result: after the bankroll cap,
-- penalty_points games as −points), so that standings, the players of the filtered games and
-- the winnings graph's most active players sum a few rows per player instead of every seat.
-- Exact under a ruleset or period filter (whole UTC days); a match or player filter needs the
-- games themselves.
with seat_games as (
    select
        s.player_id,
        g.ruleset,
        timezone('UTC', g.started_ts)::date as day,
        g.outcome,
        g.winner = s.seat as is_winner,
        m.game_id is not null as has_standing,
        m.result
    from stg_seats as s
    join stg_games as g using (game_id)
    left join mart_match_standings as m on m.game_id = s.game_id and m.seat = s.seat
)

select
    player_id,
    ruleset,
    day,
    count(*) as n_seats,
    count(*) filter (where has_standing) as n_standings,
    count(*) filter (where has_standing and outcome <> 'redeal') as n_games,
    count(*) filter (where has_standing and outcome <> 'redeal' and is_winner) as n_wins,
    sum(result) as score
from seat_games
group by all
