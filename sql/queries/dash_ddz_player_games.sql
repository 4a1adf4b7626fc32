-- Grain: one row per filtered Dou Dizhu game $player sat in (stg_ddz_games, ddz_game_scores),
-- newest first, the newest $limit: role, the seat's highest bid, hand strength, the game's bid
-- and multiplier, won, score; ruleset: the game's own (ruleset_label: the preset, with its
-- overrides when it has any).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player,
-- $limit.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
newest as (
    -- the page's games first, then the bids and hands of their seats only (joined before the
    -- limit, every seat of the player's games read its dealt hand: 2.5 s against 1.2 s for a
    -- player of 1M games)
    select g.game_id, g.started_at, g.started_ts, ruleset_label(g.ruleset_id) as ruleset,
        g.outcome, sc.seat, sc.role, g.bid, sc.multiplier, g.spring, sc.is_winner, sc.score
    from fg g
    join ddz_game_scores sc on sc.game_id = g.game_id and sc.player_id = $player
    order by g.started_ts desc nulls last, g.game_id
    limit $limit
)
select n.game_id, n.started_at, n.ruleset, n.outcome, n.seat, n.role, st.max_bid,
    st.hand_strength, n.bid, n.multiplier, n.spring, n.is_winner, n.score
from newest n
join stg_ddz_seats st on st.game_id = n.game_id and st.seat = n.seat
order by n.started_ts desc nulls last, n.game_id
