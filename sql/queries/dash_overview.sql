-- Grain: one row: the headline counts of the filtered Big Two games (games, players, matches, period,
-- partial-information games, games with 包牌) and the import health (batches, rejects). Matches:
-- a game that names no match is one of its own, as dash_recent_matches lists it.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days).
with fg as (
    select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select
    (select count(*) from fg) as n_games,
    (select count(distinct s.player_id) from seats s join fg using (game_id)) as n_players,
    (select count(distinct match_id) + count(*) filter (where match_id is null) from fg)
        as n_matches,
    (select min(started_ts) from fg) as first_game,
    (select max(started_ts) from fg) as last_game,
    (select count(*) from fg where not full_info) as n_partial,
    (select count(*) from fg where bao_seat is not null) as n_bao,
    (select count(*) from batches) as n_batches,
    -- rejects still open, and those a later import resolved (mart_reject_status)
    (select count(*) from mart_reject_status where not is_resolved) as n_rejects,
    (select count(*) from mart_reject_status where is_resolved) as n_resolved_rejects,
    (select max(committed_at) from batches) as last_import
