-- Grain: one row: the headline counts of the filtered Dou Dizhu games (stg_ddz_games): games,
-- played out, void deals (荒牌), players, matches, springs and anti-springs, the period.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days).
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
)
select
    (select count(*) from fg) as n_games,
    (select count(*) from fg where is_scored) as n_played_out,
    (select count(*) from fg where not is_scored) as n_void,
    -- the seats table: fg holds Dou Dizhu games only (as dash_ddz_players)
    (select count(distinct s.player_id) from seats s join fg using (game_id)) as n_players,
    (select count(distinct match_key) from fg) as n_matches,
    (select count(*) from fg where spring = 'spring') as n_springs,
    (select count(*) from fg where spring = 'anti_spring') as n_anti_springs,
    (select min(started_ts) from fg) as first_game,
    (select max(started_ts) from fg) as last_game
