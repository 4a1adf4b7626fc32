-- ddz_bidding_sums(games): Dou Dizhu bidding discipline's sums, one row per (player_id, ruleset,
-- hand_strength) of the hands a seat spoke with in the auctions of `games` (a table or a CTE
-- of the caller with game_id, ruleset and ruleset_id: stg_ddz_games for the ddz_bidding mart,
-- the filtered games for dash_ddz_bidding; full information, void deals included): n_hands,
-- n_bids (max_bid > 0), sum_bid, n_top_bids (3, or called), n_landlord, n_landlord_wins. What
-- the mart stores beside its rates, and what ddz_bidding_rows reads.
create or replace macro ddz_bidding_sums(games) as table
with hands as (
    select
        st.player_id,
        g.ruleset,
        st.hand_strength,
        st.max_bid,
        st.max_bid = case when r.bidding = 'call' then 1 else 3 end as is_top_bid,
        st.role = 'landlord' as is_landlord,
        st.is_winner
    from stg_ddz_seats as st
    join query_table(games) as g on g.game_id = st.game_id
    join stg_ddz_rulesets as r on r.ruleset_id = g.ruleset_id
    where st.max_bid is not null and st.hand_strength is not null
)
select
    player_id,
    ruleset,
    hand_strength,
    count(*) as n_hands,
    count(*) filter (where max_bid > 0) as n_bids,
    sum(max_bid)::bigint as sum_bid,
    count(*) filter (where is_top_bid) as n_top_bids,
    count(*) filter (where is_landlord) as n_landlord,
    count(*) filter (where is_landlord and is_winner) as n_landlord_wins
from hands
group by all
