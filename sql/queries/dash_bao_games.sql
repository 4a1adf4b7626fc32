-- Grain: one row per 包牌 paid in the filtered games (mart_game_scores): who paid, how much,
-- newest first, the newest $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select m.game_id, fg.started_at, ruleset_label(m.own_ruleset_id) as ruleset, m.player_id as payer,
    m.bao_paid, m.settlement
from mart_game_scores m join fg using (game_id)
where m.is_bao_payer
order by fg.started_ts desc nulls last, m.game_id
limit $limit
