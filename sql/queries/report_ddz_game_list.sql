-- Grain: one row per Dou Dizhu game of the selection (key game_id), in play order: the
-- landlord and the winning bid, bombs, rockets, spring, the multiplier (after spring and cap)
-- and the amount per farmer, who won, the landlord's score and the game's swing (largest win
-- minus largest loss); `big2 report` lists them and takes the biggest games from here.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_ddz_games.sql).
select
    g.game_id,
    g.match_key,
    g.game_number,
    g.started_local,
    g.started_ts,
    g.outcome,
    g.players,
    g.bid,
    g.bombs,
    g.rockets,
    g.spring,
    g.landlord_won,
    any_value(coalesce(s.name, s.player_id)) filter (where s.role = 'landlord') as landlord,
    any_value(s.score) filter (where s.role = 'landlord') as landlord_score,
    any_value(s.multiplier) as multiplier,
    any_value(s.amount) as amount,
    max(s.score) - min(s.score) as swing
from report_ddz_games($match_key, $day, $tz, $player_id) as g
join ddz_game_scores as s on s.game_id = g.game_id
group by all
order by g.started_ts nulls last, g.match_key, g.game_number, g.game_id
