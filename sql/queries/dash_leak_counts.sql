-- Grain: one row per side, who = 'player' / 'winners' (at most two): the leak finder's counts of
-- $player and of the players with a positive score over the filtered games (stats_player_games;
-- the population not narrowed to the player's games: $player_id is null).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days), $player.
with per_player as (
    select m.player_id, sum(m.score) as score, sum(n_chao_2)::double as n_chao_2, sum(n_chao_3)::double as n_chao_3, sum(n_chao_4)::double as n_chao_4, sum(n_control_regained)::double as n_control_regained, sum(n_could_beat)::double as n_could_beat, sum(n_forced_passes)::double as n_forced_passes, sum(n_games)::double as n_games, sum(n_lead_five)::double as n_lead_five, sum(n_lead_pair)::double as n_lead_pair, sum(n_lead_single)::double as n_lead_single, sum(n_lead_triple)::double as n_lead_triple, sum(n_leads)::double as n_leads, sum(n_left_13)::double as n_left_13, sum(n_losses)::double as n_losses, sum(n_passes)::double as n_passes, sum(n_tricks)::double as n_tricks, sum(n_tricks_led_by_others)::double as n_tricks_led_by_others, sum(n_tricks_won)::double as n_tricks_won, sum(n_two_single_follows)::double as n_two_single_follows, sum(n_two_wasted)::double as n_two_wasted, sum(n_twos_dealt)::double as n_twos_dealt, sum(n_twos_left)::double as n_twos_left, sum(n_voluntary_passes)::double as n_voluntary_passes, sum(n_wins)::double as n_wins
    from stats_player_games m where
        ($ruleset is null or m.ruleset = ruleset_preset($ruleset))
        and ($match_id is null or m.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(m.started_ts as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(m.started_ts as timestamptz)) < $date_to::date + 1)
        and (($player_id is null and $seat is null and $opponent is null and $n_players is null and $outcome is null and $chao_tier is null
            and ruleset_overrides($ruleset) is null)
            or m.game_id in (select game_id from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)))
    group by 1
)
select case when player_id = $player then 'player' else 'winners' end as who,
    count(*) as n_players, sum(n_chao_2) as n_chao_2, sum(n_chao_3) as n_chao_3, sum(n_chao_4) as n_chao_4, sum(n_control_regained) as n_control_regained, sum(n_could_beat) as n_could_beat, sum(n_forced_passes) as n_forced_passes, sum(n_games) as n_games, sum(n_lead_five) as n_lead_five, sum(n_lead_pair) as n_lead_pair, sum(n_lead_single) as n_lead_single, sum(n_lead_triple) as n_lead_triple, sum(n_leads) as n_leads, sum(n_left_13) as n_left_13, sum(n_losses) as n_losses, sum(n_passes) as n_passes, sum(n_tricks) as n_tricks, sum(n_tricks_led_by_others) as n_tricks_led_by_others, sum(n_tricks_won) as n_tricks_won, sum(n_two_single_follows) as n_two_single_follows, sum(n_two_wasted) as n_two_wasted, sum(n_twos_dealt) as n_twos_dealt, sum(n_twos_left) as n_twos_left, sum(n_voluntary_passes) as n_voluntary_passes, sum(n_wins) as n_wins
from per_player
where player_id = $player or score > 0
group by 1
