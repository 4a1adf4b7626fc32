-- Strategy stats per player: one row per (player_id, ruleset), over every stored game.
-- For other filters (period, match) sum stats_player_games' n_* columns the same way.
-- Each rate is actions ÷ opportunities (docs/stats.md):
--   win_rate               games won ÷ games played
--   avg_cards_left_losing  cards left ÷ games lost
--   chao_2_rate …          losses at ×2 / ×3 / ×4 or more (炒 tier of the game's ruleset) ÷ games lost
--   rate_left_8_9 …        losses with 8-9 / 10-12 / 13 cards left (炒 bands) ÷ games lost
--   score_per_game         score (mart_game_scores: money, or minus penalty points) ÷ games
--   lead_*_share           leads of the kind ÷ leads
--   five_card_per_game     five-card plays ÷ games
--   voluntary_pass_rate    passes holding a beating play ÷ following turns holding one
--   forced_pass_share      passes without a beating play ÷ passes
--   two_wasted_rate        single 2s played on a single while a lower card would have beaten ÷
--                          single 2s played on a single (hand known)
--   trick_win_rate         tricks won ÷ tricks played
--   control_regain_rate    tricks won that another seat led ÷ tricks another seat led
--   twos_left_rate         2s held at the end ÷ 2s dealt (full information)
--   seconds_per_decision   seconds since the previous action ÷ timed plays and passes
with sums as (
    select
        player_id,
        ruleset,
        sum(n_games)::bigint as n_games,
        sum(n_wins)::bigint as n_wins,
        sum(n_losses)::bigint as n_losses,
        sum(cards_left_when_losing)::bigint as n_cards_left_losing,
        sum(n_chao_2)::bigint as n_chao_2,
        sum(n_chao_3)::bigint as n_chao_3,
        sum(n_chao_4)::bigint as n_chao_4,
        sum(score) as sum_score,
        sum(n_left_8_9)::bigint as n_left_8_9,
        sum(n_left_10_12)::bigint as n_left_10_12,
        sum(n_left_13)::bigint as n_left_13,
        sum(n_leads)::bigint as n_leads,
        sum(n_lead_single)::bigint as n_lead_single,
        sum(n_lead_pair)::bigint as n_lead_pair,
        sum(n_lead_triple)::bigint as n_lead_triple,
        sum(n_lead_five)::bigint as n_lead_five,
        sum(n_lead_other)::bigint as n_lead_other,
        sum(n_five_card_plays)::bigint as n_five_card_plays,
        sum(n_follow_turns)::bigint as n_follow_turns,
        sum(n_passes)::bigint as n_passes,
        sum(n_voluntary_passes)::bigint as n_voluntary_passes,
        sum(n_forced_passes)::bigint as n_forced_passes,
        sum(n_could_beat)::bigint as n_could_beat,
        sum(n_two_single_follows)::bigint as n_two_single_follows,
        sum(n_two_wasted)::bigint as n_two_wasted,
        sum(n_tricks)::bigint as n_tricks,
        sum(n_tricks_won)::bigint as n_tricks_won,
        sum(n_tricks_led_by_others)::bigint as n_tricks_led_by_others,
        sum(n_control_regained)::bigint as n_control_regained,
        sum(n_twos_dealt)::bigint as n_twos_dealt,
        sum(n_twos_left)::bigint as n_twos_left,
        sum(n_timed_decisions)::bigint as n_timed_decisions,
        sum(sum_decision_seconds) as sum_decision_seconds
    from stats_player_games
    group by player_id, ruleset
)

select
    *,
    n_wins / nullif(n_games, 0) as win_rate,
    n_cards_left_losing / nullif(n_losses, 0) as avg_cards_left_losing,
    n_chao_2 / nullif(n_losses, 0) as chao_2_rate,
    n_chao_3 / nullif(n_losses, 0) as chao_3_rate,
    n_chao_4 / nullif(n_losses, 0) as chao_4_rate,
    sum_score / nullif(n_games, 0) as score_per_game,
    n_left_8_9 / nullif(n_losses, 0) as rate_left_8_9,
    n_left_10_12 / nullif(n_losses, 0) as rate_left_10_12,
    n_left_13 / nullif(n_losses, 0) as rate_left_13,
    n_lead_single / nullif(n_leads, 0) as lead_single_share,
    n_lead_pair / nullif(n_leads, 0) as lead_pair_share,
    n_lead_triple / nullif(n_leads, 0) as lead_triple_share,
    n_lead_five / nullif(n_leads, 0) as lead_five_share,
    n_lead_other / nullif(n_leads, 0) as lead_other_share,
    n_five_card_plays / nullif(n_games, 0) as five_card_per_game,
    n_voluntary_passes / nullif(n_could_beat, 0) as voluntary_pass_rate,
    n_forced_passes / nullif(n_passes, 0) as forced_pass_share,
    n_two_wasted / nullif(n_two_single_follows, 0) as two_wasted_rate,
    n_tricks_won / nullif(n_tricks, 0) as trick_win_rate,
    n_control_regained / nullif(n_tricks_led_by_others, 0) as control_regain_rate,
    n_twos_left / nullif(n_twos_dealt, 0) as twos_left_rate,
    sum_decision_seconds / nullif(n_timed_decisions, 0) as seconds_per_decision
from sums
