-- Grain: one row per hand strength of $player's hands spoken with in the auctions of the
-- filtered Dou Dizhu games (full information; void deals included, as the ddz_bidding mart):
-- hands, bid rate, average bid, top-bid rate (3, or called), as landlord and its win %; beside
-- everyone's bid rate with that strength (the yardstick of bidding discipline) under the same
-- rulesets (sql/macros/ddz_bidding_rows.sql).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
sums as (
    -- every player's, as the ddz_bidding mart sums them (everyone's bid rate reads them all)
    select * from ddz_bidding_sums(fg)
)
select * from ddz_bidding_rows(sums, $player)
