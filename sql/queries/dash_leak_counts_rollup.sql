-- Grain: one row per side, who = 'player' / 'winners' (at most two): the leak finder's counts of
-- $player and of the players with a positive score over a period, from rollup_stats_player_days.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player.
with per_player as (
    select m.player_id, sum(m.score) as score, sum(n_chao_2)::double as n_chao_2, sum(n_chao_3)::double as n_chao_3, sum(n_chao_4)::double as n_chao_4, sum(n_control_regained)::double as n_control_regained, sum(n_could_beat)::double as n_could_beat, sum(n_forced_passes)::double as n_forced_passes, sum(n_games)::double as n_games, sum(n_lead_five)::double as n_lead_five, sum(n_lead_pair)::double as n_lead_pair, sum(n_lead_single)::double as n_lead_single, sum(n_lead_triple)::double as n_lead_triple, sum(n_leads)::double as n_leads, sum(n_left_13)::double as n_left_13, sum(n_losses)::double as n_losses, sum(n_passes)::double as n_passes, sum(n_tricks)::double as n_tricks, sum(n_tricks_led_by_others)::double as n_tricks_led_by_others, sum(n_tricks_won)::double as n_tricks_won, sum(n_two_single_follows)::double as n_two_single_follows, sum(n_two_wasted)::double as n_two_wasted, sum(n_twos_dealt)::double as n_twos_dealt, sum(n_twos_left)::double as n_twos_left, sum(n_voluntary_passes)::double as n_voluntary_passes, sum(n_wins)::double as n_wins
    from (select * from rollup_stats_player_days r where
            ($ruleset is null or r.ruleset = $ruleset)
            and ($date_from is null or r.day >= $date_from::date)
            and ($date_to is null or r.day <= $date_to::date)
    ) m
    group by 1
)
select case when player_id = $player then 'player' else 'winners' end as who,
    count(*) as n_players, sum(n_chao_2) as n_chao_2, sum(n_chao_3) as n_chao_3, sum(n_chao_4) as n_chao_4, sum(n_control_regained) as n_control_regained, sum(n_could_beat) as n_could_beat, sum(n_forced_passes) as n_forced_passes, sum(n_games) as n_games, sum(n_lead_five) as n_lead_five, sum(n_lead_pair) as n_lead_pair, sum(n_lead_single) as n_lead_single, sum(n_lead_triple) as n_lead_triple, sum(n_leads) as n_leads, sum(n_left_13) as n_left_13, sum(n_losses) as n_losses, sum(n_passes) as n_passes, sum(n_tricks) as n_tricks, sum(n_tricks_led_by_others) as n_tricks_led_by_others, sum(n_tricks_won) as n_tricks_won, sum(n_two_single_follows) as n_two_single_follows, sum(n_two_wasted) as n_two_wasted, sum(n_twos_dealt) as n_twos_dealt, sum(n_twos_left) as n_twos_left, sum(n_voluntary_passes) as n_voluntary_passes, sum(n_wins) as n_wins
from per_player
where player_id = $player or score > 0
group by 1
