-- Grain: one row per 炒 loss (multiplier 2 or more) of $player in the filtered games, newest
-- first, the newest $limit (mart_game_scores).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player, $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select m.game_id, fg.started_at, ruleset_label(m.own_ruleset_id) as ruleset, m.cards_left, m.tier_name,
    m.multiplier, m.penalty, m.net, m.points
from mart_game_scores m join fg using (game_id)
where m.player_id = $player and m.is_loser and m.multiplier >= 2
order by fg.started_ts desc nulls last, m.game_id
limit $limit
