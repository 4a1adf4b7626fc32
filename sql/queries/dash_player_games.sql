-- Grain: one row per filtered game $player sat in, newest first, the newest $limit; ruleset:
-- the game's own (ruleset_label: the preset, with its overrides when it has any).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player, $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select fg.game_id, fg.match_id, ruleset_label(fg.ruleset || ' ' || fg.overrides) as ruleset,
    fg.started_at, s.seat, s.is_winner, s.cards_left,
    coalesce(fg.bao_seat = s.seat, false) as paid_bao
from fg join seats s using (game_id)
where s.player_id = $player
order by fg.started_ts desc nulls last, fg.game_id
limit $limit
