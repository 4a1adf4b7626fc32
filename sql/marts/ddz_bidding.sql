-- Dou Dizhu bidding discipline, bid versus hand strength. Grain: one row per (player_id, ruleset,
-- hand_strength) of the hands a seat spoke with in the auction (full information; void deals
-- included: passing a hand is a decision too). hand_strength is ddz_hand() of the dealt hand
-- (docs/stats.md, "Dou Dizhu").
--   bid_rate          hands bid (max_bid > 0; 叫地主: called) ÷ hands
--   avg_bid           the seat's highest bid (0 = passed) ÷ hands
--   top_bid_rate      hands bid 3 (叫分) or called (叫地主) ÷ hands
--   landlord_win_rate wins as landlord ÷ games as landlord with such a hand
with hands as (
    select
        st.game_id,
        st.seat,
        st.player_id,
        g.ruleset,
        st.hand_strength,
        st.max_bid,
        st.max_bid = case when r.bidding = 'call' then 1 else 3 end as is_top_bid,
        st.role = 'landlord' as is_landlord,
        st.is_winner
    from stg_ddz_seats as st
    join stg_ddz_games as g on g.game_id = st.game_id
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
    count(*) filter (where is_landlord and is_winner) as n_landlord_wins,
    count(*) filter (where max_bid > 0) / count(*) as bid_rate,
    sum(max_bid) / count(*) as avg_bid,
    count(*) filter (where is_top_bid) / count(*) as top_bid_rate,
    count(*) filter (where is_landlord and is_winner)
        / nullif(count(*) filter (where is_landlord), 0) as landlord_win_rate
from hands
group by all
