-- Grain: one row per 頂大 obligation (audit_obligations) of the filtered games, optionally only
-- failed ones, of one obliged player, toward one next player; newest first, the newest $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player, $next (null = all), $only_failed, $limit.
select m.game_id, m.action_index, m.started_at, m.ruleset, m.trick, m.player_id as player,
    m.next_player_id as next_player, m.obligation, m.required, m.played, m.block,
    m.block_reason, m.is_next_out as next_went_out, m.is_bao as bao
from audit_obligations m
where
    ($ruleset is null or m.ruleset = ruleset_preset($ruleset))
    and ($match_id is null or m.match_id = $match_id)
    and ($date_from is null or timezone('UTC', try_cast(m.started_at as timestamptz)) >= $date_from::date)
    and ($date_to is null or timezone('UTC', try_cast(m.started_at as timestamptz)) < $date_to::date + 1)
    and (($player_id is null and $seat is null and $opponent is null and $n_players is null and $outcome is null and $chao_tier is null
            and ruleset_overrides($ruleset) is null)
            or m.game_id in (select game_id from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)))
    and ($player is null or m.player_id = $player)
    and ($next is null or m.next_player_id = $next)
    and (not $only_failed or m.block in ('violated', 'unknown'))
order by try_cast(m.started_at as timestamptz) desc nulls last, m.game_id, m.action_index
limit $limit
