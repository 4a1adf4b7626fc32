-- Grain: one row per filtered Dou Dizhu game $player sat in (stg_ddz_games, ddz_game_scores),
-- newest first, at most 1000: role, the seat's highest bid, hand strength, the game's bid and
-- multiplier, won, score.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters; null =
-- all; a period's days are UTC days), $player.
with fg as (
    select g.* from stg_ddz_games g
    where ($ruleset is null or g.ruleset = $ruleset)
      and ($match_id is null or g.match_id = $match_id)
      and ($date_from is null or timezone('UTC', g.started_ts) >= $date_from::date)
      and ($date_to is null or timezone('UTC', g.started_ts) < $date_to::date + 1)
      and ($player_id is null
           or g.game_id in (select game_id from stg_ddz_seats where player_id = $player_id))
)
select g.game_id, g.started_at, g.ruleset, g.outcome, sc.seat, sc.role, st.max_bid,
    st.hand_strength, g.bid, sc.multiplier, g.spring, sc.is_winner, sc.score
from fg g
join ddz_game_scores sc on sc.game_id = g.game_id and sc.player_id = $player
join stg_ddz_seats st on st.game_id = sc.game_id and st.seat = sc.seat
order by g.started_ts desc nulls last, g.game_id
limit 1000
