-- Grain: one row per cooperation event of $player (ddz_coop_actions, is_event) with signal
-- $signal ('feed': passed on a landlord holding 1-2 cards though able to beat; 'partner':
-- beat the other farmer's play) in the filtered Dou Dizhu games, in play order, at most 1000:
-- game, step (= action_index + 1, the replayer's), the landlord's cards left, the play on the
-- table, the farmer's hand, what it played.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player, $signal.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
)
select a.game_id, a.action_index, a.started_ts as started_at, a.ruleset, a.trick,
    a.landlord_cards_left, a.table_play, a.hand, a.played
from ddz_coop_actions a
semi join fg using (game_id)
where a.player_id = $player and a.signal = $signal and a.is_event
order by a.started_ts, a.game_id, a.step
limit 1000
