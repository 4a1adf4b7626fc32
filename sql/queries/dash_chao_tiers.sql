-- Grain: one row per 炒 tier (multiplier 1 = no 炒): $player's losses in the filtered games.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player.
with fg as (select * from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)
)
select coalesce(nullif(m.tier_name, ''), '×' || m.multiplier) as tier, m.multiplier,
    count(*) as losses
from mart_game_scores m
where m.player_id = $player and m.is_loser
    -- a semi-join: only the games' ids are read (a join with fg took 0.5 s at 1M games of a
    -- player in every game, this 0.25 s)
    and m.game_id in (select game_id from fg)
group by 1, 2 order by 2, 1
