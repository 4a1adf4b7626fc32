-- Dou Dizhu bidding discipline, bid versus hand strength. Grain: one row per (player_id, ruleset,
-- hand_strength) of the hands a seat spoke with in the auction (full information; void deals
-- included: passing a hand is a decision too). hand_strength is ddz_hand() of the dealt hand
-- (docs/stats.md, "Dou Dizhu").
--   bid_rate          hands bid (max_bid > 0; 叫地主: called) ÷ hands
--   avg_bid           the seat's highest bid (0 = passed) ÷ hands
--   top_bid_rate      hands bid 3 (叫分) or called (叫地主) ÷ hands
--   landlord_win_rate wins as landlord ÷ games as landlord with such a hand
select
    *,
    n_bids / n_hands as bid_rate,
    sum_bid / n_hands as avg_bid,
    n_top_bids / n_hands as top_bid_rate,
    n_landlord_wins / nullif(n_landlord, 0) as landlord_win_rate
from ddz_bidding_sums(stg_ddz_games)
