-- ddz_auction(max_bid, hand_strength) → struct: a seat's auction as the Dou Dizhu bidding stats
-- count it (docs/stats.md, "Dou Dizhu"), the one place of their thresholds (Decision: a strong
-- hand has hand_strength >= 4, a weak one <= 1). max_bid: the seat's highest bid (0 = passed,
-- NULL = it never spoke); hand_strength: stg_ddz_seats.hand_strength (NULL without the deal).
-- A void deal (荒牌) is an auction too: every seat that spoke passed.
--   is_asked          the seat spoke in the auction
--   has_bid           it bid (叫分 1-3) or called (叫地主)
--   is_strong_asked   a strong hand it spoke with; is_strong_passed: and passed
--   is_weak_asked     a weak hand it spoke with; is_weak_bid: and bid
create or replace macro ddz_auction(max_bid, hand_strength) as struct_pack(
    is_asked := max_bid is not null,
    has_bid := coalesce(max_bid > 0, false),
    is_strong_asked := coalesce(hand_strength >= 4 and max_bid is not null, false),
    is_strong_passed := coalesce(hand_strength >= 4 and max_bid = 0, false),
    is_weak_asked := coalesce(hand_strength <= 1 and max_bid is not null, false),
    is_weak_bid := coalesce(hand_strength <= 1 and max_bid > 0, false)
);

-- ddz_void_auctions(scores): one row per seat of a void deal (荒牌; key game_id, seat) of
-- `scores` (the name of ddz_game_scores, passed in: a macro that names a mart is created after
-- the marts, and two marts read this one): a seat with no role, no play and a score of 0, and
-- its auction (ddz_auction: every seat that spoke passed) as the bidding stats count it
-- (docs/stats.md, "One bid rate"), each flag a 0/1 count (n_asked, n_bids, n_strong_asked,
-- n_strong_passed, n_weak_asked, n_weak_bids) for its readers to sum: what ddz_stats_players,
-- rollup_ddz_player_days and the player page (dash_ddz_player_stats) add to the played-out
-- games' auctions. The hand is worked out for the void seats only (stg_ddz_seats.hand_strength
-- is ddz_hand() of every seat read, 2-3 s at 1M games).
create or replace macro ddz_void_auctions(scores) as table
select
    game_id,
    seat,
    player_id,
    ruleset,
    started_ts,
    score,
    auction.is_asked::integer as n_asked,
    auction.has_bid::integer as n_bids,
    auction.is_strong_asked::integer as n_strong_asked,
    auction.is_strong_passed::integer as n_strong_passed,
    auction.is_weak_asked::integer as n_weak_asked,
    auction.is_weak_bid::integer as n_weak_bids
from (
    select sc.*, ddz_auction(st.max_bid, ddz_hand(st.deal_mask).strength) as auction
    from query_table(scores) as sc
    join stg_ddz_seats as st on st.game_id = sc.game_id and st.seat = sc.seat
    where not sc.is_scored
);
