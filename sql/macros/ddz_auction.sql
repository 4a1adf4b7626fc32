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
)
