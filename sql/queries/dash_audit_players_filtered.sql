-- Grain: one row per player and ruleset: the 頂大 record over the filtered games
-- (audit_obligations) with 包牌 paid (mart_game_scores.bao_paid), most violations first, the first
-- $limit.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player (null = all), $limit.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
),
paid as (
    select m.player_id, fg.ruleset, sum(m.bao_paid) as bao_paid
    from mart_game_scores m join fg using (game_id) where m.is_bao_payer group by 1, 2
),
audit as (
    select m.player_id, m.ruleset,
        count(*) as obligations,
        count(*) filter (where m.block = 'met') as met,
        count(*) filter (where m.is_violated) as violated,
        count(*) filter (where m.is_unknown) as unknown,
        round(100.0 * count(*) filter (where m.is_violated)
            / nullif(count(*) filter (where not m.is_unknown), 0), 1) as violation_pct,
        count(*) filter (where m.is_violated and m.is_next_out) as violated_then_out,
        count(*) filter (where m.is_bao) as bao,
        count(*) filter (where m.is_bao_possible) as bao_possible
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
    group by 1, 2
)
select a.player_id as player, a.ruleset, a.* exclude (player_id, ruleset),
    coalesce(p.bao_paid, 0) as bao_paid
from audit a left join paid p using (player_id, ruleset)
order by violated desc, violation_pct desc nulls last, player, ruleset
limit $limit
