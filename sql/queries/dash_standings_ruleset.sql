-- Grain: one row per player of one ruleset ($player: only that player's row; the first $limit by
-- rank): rank and title within the ruleset as built (rollup_player_rulesets).
-- Parameters: $ruleset, $player, $limit.
with board as (
    select rank, player_id as player, n_games as games, n_wins as wins,
        round(100.0 * n_wins / nullif(n_games, 0), 1) as win_pct, score, title,
        null::double as whatif_score, null::bigint as whatif_rank,
        null::varchar as whatif_title, null::bigint as rank_change,
        sum(n_wins) over () as all_wins, sum(n_games) over () as all_games
    from rollup_player_rulesets
    where ruleset = $ruleset and n_standings > 0
)
select * from board
where $player is null or player = $player
order by rank, player
limit $limit
