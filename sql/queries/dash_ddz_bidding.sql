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
hands as (
    select
        st.player_id,
        g.ruleset,
        st.hand_strength,
        st.max_bid,
        st.max_bid = case when r.bidding = 'call' then 1 else 3 end as is_top_bid,
        st.role = 'landlord' as is_landlord,
        st.is_winner
    from stg_ddz_seats st
    join fg g on g.game_id = st.game_id
    join stg_ddz_rulesets r on r.ruleset_id = g.ruleset_id
    where st.max_bid is not null and st.hand_strength is not null
),
sums as (
    -- every player's, as the ddz_bidding mart sums them (everyone's bid rate reads them all)
    select
        player_id,
        ruleset,
        hand_strength,
        count(*) as n_hands,
        count(*) filter (where max_bid > 0) as n_bids,
        sum(max_bid) as sum_bid,
        count(*) filter (where is_top_bid) as n_top_bids,
        count(*) filter (where is_landlord) as n_landlord,
        count(*) filter (where is_landlord and is_winner) as n_landlord_wins
    from hands
    group by all
)
select * from ddz_bidding_rows(sums, $player)
