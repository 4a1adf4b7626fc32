-- Grain: one row per game of the selection (key game_id), in play order: the winner, the
-- largest loss and who took it (the game's swing), 炒 and 包牌 flags; `big2 report` lists them
-- and takes the biggest games (largest swing) from here; of losers on the same score, the last
-- seat is named.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql).
select
    g.game_id,
    g.match_key,
    g.game_number,
    g.started_local,
    g.outcome,
    any_value(case when s.settlement = 'penalty_points' then 'penalty points' else 'money' end)
        as unit,
    any_value(coalesce(s.name, s.player_id)) filter (where s.is_winner) as winner,
    max(s.score) as winner_score,
    arg_min(coalesce(s.name, s.player_id), (s.score, -s.seat)) as biggest_loser,
    min(s.score) as biggest_loss,
    max(s.score) - min(s.score) as swing,
    max(s.multiplier) as max_multiplier,
    bool_or(s.is_bao_payer) as has_bao
from report_games($match_key, $day, $tz, $player_id) as g
join mart_game_scores as s on s.game_id = g.game_id
group by g.game_id, g.match_key, g.game_number, g.started_local, g.outcome, g.started_ts
order by g.started_ts nulls last, g.match_key, g.game_number, g.game_id
