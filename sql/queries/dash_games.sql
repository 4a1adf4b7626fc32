-- Grain: one row per filtered game, the newest $limit first, with the winner's player id;
-- ruleset: the game's own (ruleset_label: the preset, with its overrides when it has any).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
newest as (select * from fg order by started_ts desc nulls last, game_id limit $limit)
select g.game_id, g.match_id, g.game_number,
    ruleset_label(g.ruleset || ' ' || g.overrides) as ruleset, g.started_at, g.players,
    g.outcome, w.player_id as winner, g.n_tricks, g.n_actions, g.full_info
from newest g left join seats w on w.game_id = g.game_id and w.seat = g.winner
order by g.started_ts desc nulls last, g.game_id
