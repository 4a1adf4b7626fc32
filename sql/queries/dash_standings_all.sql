-- Grain: one row per player ($player: only that player's row; the first $limit by rank): the
-- standings as built (mart_player_standings) over every game, all_wins / all_games: the totals
-- over every player.
-- Parameters: $player, $limit.
with board as (
    with own as (
        select overall_rank as rank, player_id, n_games as games, n_wins as wins,
            total_score as score, title
        from mart_player_standings
    ),
    wi as (select null::varchar as player_id, null::double as whatif_score, null::bigint as whatif_rank, null::varchar as whatif_title where false)
    select own.rank, own.player_id as player, own.games, own.wins,
        round(100.0 * own.wins / nullif(own.games, 0), 1) as win_pct, own.score, own.title,
        wi.whatif_score, wi.whatif_rank, wi.whatif_title, own.rank - wi.whatif_rank as rank_change,
        sum(own.wins) over () as all_wins, sum(own.games) over () as all_games
    from own left join wi using (player_id)
)
select * from board
where $player is null or player = $player
order by rank, player
limit $limit
