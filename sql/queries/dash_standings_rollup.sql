-- Grain: one row per player ($player: only that player's row; the first $limit by rank) over a
-- ruleset and a period: games, wins, score after the bankroll cap (rollup_player_days), rank and
-- rank-ladder title; all_wins / all_games over every player.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player, $limit.
with board as (with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
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
    wi as (select null::varchar as player_id, null::double as whatif_score where false),
    ranked as (
        select own.*, wi.whatif_score,
            rank() over (order by own.score desc) as rank,
            case when wi.whatif_score is not null
            then rank() over (order by wi.whatif_score desc nulls last) end
            as whatif_rank
        from own left join wi using (player_id)
    )
    select rank, player_id as player, games, wins,
        round(100.0 * wins / nullif(games, 0), 1) as win_pct,
        score, dash_title(score) as title,
        whatif_score, whatif_rank,
        dash_title(whatif_score) as whatif_title,
        rank - whatif_rank as rank_change,
        sum(wins) over () as all_wins, sum(games) over () as all_games
    from ranked
)
select * from board
where $player is null or player = $player
order by rank, player
limit $limit
