-- Grain: one row per filtered game $player sat in, newest first.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $player.
with fg as (select g.* from games g where coalesce(g.game_kind, 'big2') = 'big2' and
        ($ruleset is null or g.ruleset = $ruleset)
        and ($match_id is null or g.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(g.started_at as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(g.started_at as timestamptz)) < $date_to::date + 1)
        and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
)
select fg.game_id, fg.match_id, fg.ruleset, fg.started_at, s.seat, s.is_winner, s.cards_left,
    coalesce(fg.bao_seat = s.seat, false) as paid_bao
from fg join seats s using (game_id)
where s.player_id = $player
order by fg.started_at desc nulls last, fg.game_id
