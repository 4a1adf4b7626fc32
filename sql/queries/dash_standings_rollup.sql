-- Grain: one row per player ($player: only that player's row; the first $limit by rank) over a
-- ruleset and a period: games, wins, score after the bankroll cap (rollup_player_days), rank and
-- rank-ladder title; all_wins / all_games over every player.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player, $limit.
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
wi as (select null::varchar as player_id, null::double as whatif_score where false)
select * from dash_board(own, wi)
where $player is null or player = $player
order by rank, player
limit $limit
