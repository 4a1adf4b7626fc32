-- Grain: one row per Dou Dizhu player of the filtered games, most seats first, the first $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days) ($player_id null), $limit.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
)
-- the seats table joined to fg, which holds Dou Dizhu games only (stg_ddz_seats would
-- semi-join every seat to the Dou Dizhu games once more: 0.47 s against 0.28 s at 1M games)
select s.player_id from fg join seats s using (game_id)
group by 1 order by count(*) desc, 1 limit $limit
