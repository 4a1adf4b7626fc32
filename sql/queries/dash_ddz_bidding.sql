-- Grain: one row per hand strength of $player's hands spoken with in the auctions of the
-- filtered Dou Dizhu games (full information; void deals included, as the ddz_bidding mart):
-- hands, bid rate, average bid, top-bid rate (3, or called), as landlord and its win %; beside
-- everyone's bid rate with that strength (the yardstick of bidding discipline).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
hands as (
    select
        st.player_id,
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
everyone as (
    select hand_strength, count(*) filter (where max_bid > 0) / count(*) as all_bid_rate
    from hands group by 1
)
select
    h.hand_strength,
    count(*) as hands,
    count(*) filter (where h.max_bid > 0) / count(*) as bid_rate,
    avg(h.max_bid) as avg_bid,
    count(*) filter (where h.is_top_bid) / count(*) as top_bid_rate,
    any_value(e.all_bid_rate) as all_bid_rate,
    count(*) filter (where h.is_landlord) as landlord_games,
    100.0 * count(*) filter (where h.is_landlord and h.is_winner)
        / nullif(count(*) filter (where h.is_landlord), 0) as landlord_win_pct
from hands h join everyone e using (hand_strength)
where h.player_id = $player
group by h.hand_strength
order by h.hand_strength
