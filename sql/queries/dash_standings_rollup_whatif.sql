-- Grain: one row per player as in dash_standings_rollup, with the what-if score, rank and title
-- under the ruleset JSON $whatif (score_seats, no bankroll cap).
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $whatif, $player, $limit.
with fg as (
    select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
own as (
    select r.player_id, sum(r.n_games)::bigint as games, sum(r.n_wins)::bigint as wins,
        sum(r.score) as score
    from rollup_player_days r where
        ($ruleset is null or r.ruleset = $ruleset)
        and ($date_from is null or r.day >= $date_from::date)
        and ($date_to is null or r.day <= $date_to::date)
    group by 1 having sum(r.n_standings) > 0
),
fg_games as (
    -- the filtered games with stg_games' columns: only they are rescored
    select * from stg_games semi join fg using (game_id)
),
wi as (
    select m.player_id, sum(m.score) as whatif_score
    from score_seats(whatif := $whatif, games := 'fg_games') m group by 1
)
select * from dash_board(own, wi)
where $player is null or player = $player
order by rank, player
limit $limit
