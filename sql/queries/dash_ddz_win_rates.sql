-- Grain: one row per (role, dimension, value) of the filtered, played-out Dou Dizhu games
-- (ddz_stats_player_games, as the ddz_win_rates mart): dimension 'bid' = the game's winning bid,
-- 'hand_strength' = the seat's hand strength at bidding (full information only); games, wins,
-- win % of the seats of that role; of one player ($player) or everyone (null).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
seats as (
    select p.role, p.bid, p.hand_strength, p.is_winner
    from ddz_stats_player_games p
    semi join fg using (game_id)
    where $player is null or p.player_id = $player
),
cells as (
    select role, 'bid' as dimension, bid::integer as value, is_winner from seats
    union all
    select role, 'hand_strength', hand_strength, is_winner from seats
    where hand_strength is not null
)
select role, dimension, value, count(*) as games, count(*) filter (where is_winner) as wins,
    100.0 * count(*) filter (where is_winner) / count(*) as win_pct
from cells
group by all
order by dimension, role, value
