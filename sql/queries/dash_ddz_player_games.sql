-- Grain: one row per filtered Dou Dizhu game $player sat in (stg_ddz_games, ddz_game_scores),
-- newest first, at most 1000: role, the seat's highest bid, hand strength, the game's bid and
-- multiplier, won, score.
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
)
select g.game_id, g.started_at, g.ruleset, g.outcome, sc.seat, sc.role, st.max_bid,
    st.hand_strength, g.bid, sc.multiplier, g.spring, sc.is_winner, sc.score
from fg g
join ddz_game_scores sc on sc.game_id = g.game_id and sc.player_id = $player
join stg_ddz_seats st on st.game_id = sc.game_id and st.seat = sc.seat
order by g.started_ts desc nulls last, g.game_id
limit 1000
