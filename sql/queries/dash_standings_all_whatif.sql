-- Grain: one row per player as in dash_standings_all, with the what-if score, rank and title had
-- every game been played under the ruleset JSON $whatif (rescore_players).
-- Parameters: $whatif, $player, $limit.
with board as (
    with own as (
        select overall_rank as rank, player_id, n_games as games, n_wins as wins,
            total_score as score, title
        from mart_player_standings
    ),
    wi as (select player_id, whatif_score, whatif_rank, whatif_title from rescore_players($whatif::json))
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
