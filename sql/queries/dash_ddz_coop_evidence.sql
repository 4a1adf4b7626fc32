-- Grain: one row per cooperation event of $player (ddz_coop_actions, is_event) with signal
-- $signal ('feed': passed on a landlord holding 1-2 cards though able to beat; 'partner':
-- beat the other farmer's play) in the filtered Dou Dizhu games, in play order, at most 1000:
-- game, step (= action_index + 1, the replayer's), the landlord's cards left, the play on the
-- table, the farmer's hand, what it played.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $player, $signal.
with fg as (
    select g.* from stg_ddz_games g
    where ($ruleset is null or g.ruleset = $ruleset)
      and ($match_id is null or g.match_id = $match_id)
      and ($date_from is null or timezone('UTC', g.started_ts) >= $date_from::date)
      and ($date_to is null or timezone('UTC', g.started_ts) < $date_to::date + 1)
      and ($player_id is null
           or g.game_id in (select game_id from stg_ddz_seats where player_id = $player_id))
)
select a.game_id, a.action_index, a.started_ts as started_at, a.ruleset, a.trick,
    a.landlord_cards_left, a.table_play, a.hand, a.played
from ddz_coop_actions a
semi join fg using (game_id)
where a.player_id = $player and a.signal = $signal and a.is_event
order by a.started_ts, a.game_id, a.step
limit 1000
