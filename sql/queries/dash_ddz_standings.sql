-- Grain: one row per Dou Dizhu player of the filtered games (ddz_game_scores): games played
-- out, wins, as landlord and as farmer (games, wins, win %), score (money, every game by its
-- own ruleset), the rank-ladder title for it (dash_title, as ddz_player_standings) and the
-- rank by score; the first $limit by rank, then id.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $limit.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
totals as (
    select
        sc.player_id,
        count(*) filter (where sc.is_scored) as games,
        count(*) filter (where sc.is_winner) as wins,
        count(*) filter (where sc.is_landlord) as landlord_games,
        count(*) filter (where sc.is_landlord and sc.is_winner) as landlord_wins,
        count(*) filter (where sc.is_scored and not sc.is_landlord) as farmer_games,
        count(*) filter (where sc.is_scored and not sc.is_landlord and sc.is_winner)
            as farmer_wins,
        sum(sc.score) as score
    from ddz_game_scores sc
    semi join fg using (game_id)
    group by sc.player_id
)
select * from dash_ddz_board(totals)
order by rank, player_id
limit $limit
