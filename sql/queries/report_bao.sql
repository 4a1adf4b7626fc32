-- Grain: one row per 包牌 game of the selection (key game_id): the violator who paid for the
-- other losers (spec 1.6), what they paid, the winner their 頂大 failure let out, and the
-- obligation broken (audit_obligations.is_bao: required, played, why).
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql).
select
    g.game_id,
    g.match_key,
    g.game_number,
    g.started_local,
    v.player_id as violator_id,
    coalesce(v.name, v.player_id) as violator,
    w.player_id as winner_id,
    coalesce(w.name, w.player_id) as winner,
    v.bao_paid,
    case when v.settlement = 'penalty_points' then 'penalty points' else 'money' end as unit,
    o.action_index + 1 as step,
    o.required,
    o.played,
    o.block_reason
from report_games($match_key, $day, $tz, $player_id) as g
join mart_game_scores as v on v.game_id = g.game_id and v.is_bao_payer
join mart_game_scores as w on w.game_id = g.game_id and w.is_winner
left join audit_obligations as o on o.game_id = g.game_id and o.is_bao
order by g.started_ts nulls last, g.match_key, g.game_number, g.game_id
