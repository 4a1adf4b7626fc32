-- Grain: one row per 炒 event of the selection (key game_id, seat): a loser whose penalty was
-- multiplied (multiplier above 1: 雙炒 ×2, 三炒 ×3, 四炒 ×4; every loser of an instant win is ×3).
-- penalty is in the row's unit: the penalty p (spec 1.7) in penalty points, p × the game's
-- effective stake in money (at stake 1 the two are the same number).
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql).
select
    g.game_id,
    g.match_key,
    g.game_number,
    g.started_local,
    s.player_id,
    coalesce(s.name, s.player_id) as name,
    s.cards_left,
    s.multiplier,
    s.tier_name,
    -- in the game's unit: penalty points, or money (the penalty at the game's stake, as it is paid)
    case when s.settlement = 'penalty_points' then s.penalty else s.penalty * s.stake_effective end
        as penalty,
    s.score,
    case when s.settlement = 'penalty_points' then 'penalty points' else 'money' end as unit
from report_games($match_key, $day, $tz, $player_id) as g
join mart_game_scores as s on s.game_id = g.game_id
where s.multiplier > 1
order by g.started_ts nulls last, g.match_key, g.game_number, g.game_id, s.seat
