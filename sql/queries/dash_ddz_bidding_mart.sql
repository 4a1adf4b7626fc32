-- Grain: one row per hand strength of $player's hands spoken with in the auctions of the Dou
-- Dizhu games of $ruleset (null = all): dash_ddz_bidding's rows from the ddz_bidding mart's
-- sums per player, ruleset and strength, which the dashboards read when no filter but the
-- ruleset is set and the marts count every Dou Dizhu game (dash_ddz_marts_fresh): 2.9 s ->
-- 0.004 s at 1M games, where the detailed query reads every seat's dealt hand. The same rows as
-- there (ddz_bidding_rows).
-- Parameters: $ruleset, $player.
with hands as (
    select * from ddz_bidding where $ruleset is null or ruleset = $ruleset
)
select * from ddz_bidding_rows(hands, $player)
