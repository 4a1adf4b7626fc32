//! Whether a hand holds a play that beats the table (`pipeline.big2.moves.can_beat`): bombs
//! of another size first, then the plays of the top's size (singles, pairs and triples by
//! their keys; four and five cards from the candidates of `gen.rs`, without a list).

use crate::combos::{highest_single, single_key, strength, ComboRules, Play};
use crate::gen::any_bomb;
use crate::rules::{FlushCompare, FourOfAKind, StraightOrder};

const KEY_BITS: u32 = 40;
const ROYAL: u32 = 0b1_1111 << 7;
/// The cards of the first suit (♦), one bit per rank.
const SUIT: u64 = 0x0001_1111_1111_1111;

/// The strongest suit (under `st`) among a rank's 4-bit suit pattern (non-empty).
fn best_suit(nib: u64, st: &[u64; 4]) -> u64 {
    let mut best = 0;
    for (s, &strength) in st.iter().enumerate() {
        if nib >> s & 1 == 1 && strength >= best {
            best = strength;
        }
    }
    best
}

/// The highest `rank_key` (`Play.order`) among the hand's plays of four cards, if any: the
/// plays `classify` makes of the candidates `gen.rs` lists for four cards, without a list.
fn best_four(hand: u64, cr: &ComboRules, counts: &[u32; 13]) -> Option<u64> {
    let rs = &cr.rs;
    let st = strength(rs.suit_order);
    let mut best = None;
    let alone = rs.four_of_a_kind == FourOfAKind::Alone;
    if rs.allow_four_card_quads || alone {
        if let Some(r) = (0..13).rev().find(|&r| counts[r] == 4) {
            let level: u64 = if alone { 5 } else { 1 };
            best = Some(level << KEY_BITS | r as u64);
        }
    }
    if rs.allow_two_pairs && best.is_none() {
        // (a quad, of level 1 or 5, is above every two pairs, of level 0)
        let pairs = (0..13).filter(|&r| counts[r] >= 2).count();
        if pairs >= 2 {
            let high = (0..13).rev().find(|&r| counts[r] >= 2).unwrap_or(0);
            let nib = hand >> (high * 4) & 15;
            best = Some(high as u64 * 4 + best_suit(nib, &st));
        }
    }
    best
}

/// The highest `rank_key` among the hand's plays of five cards, if any (as `best_four`).
fn best_five(hand: u64, cr: &ComboRules, counts: &[u32; 13]) -> Option<u64> {
    let rs = &cr.rs;
    let st = strength(rs.suit_order);
    let nib = |r: u32| hand >> (r * 4) & 15;
    let mut best: Option<u64> = None;
    let mut consider = |order: u64| {
        if best.is_none_or(|b| order > b) {
            best = Some(order);
        }
    };
    if rs.four_of_a_kind == FourOfAKind::WithKicker {
        if let Some(r) = (0..13).rev().find(|&r| counts[r] == 4) {
            consider(5 << KEY_BITS | r as u64);
        }
    }
    let highest_card = rs.straight_order == StraightOrder::HighestCard;
    let present = (0..13).fold(0u32, |m, r| m | u32::from(counts[r] > 0) << r);
    for (i, (&seq, &spread)) in cr.straights.iter().zip(&cr.straight_spreads).enumerate() {
        if present & seq != seq {
            continue;
        }
        let high = 31 - seq.leading_zeros();
        let key = |s: u64| {
            if highest_card {
                high as u64 * 4 + s
            } else {
                i as u64 * 4 + s
            }
        };
        // straight flushes
        for (s, &strength) in st.iter().enumerate() {
            if hand & spread << s == spread << s {
                let level: u64 = if rs.royal_only_beats_quads && seq != ROYAL {
                    4
                } else {
                    6
                };
                consider(level << KEY_BITS | key(strength));
            }
        }
        // plain straights: the top card's strongest suit that leaves another suit below it
        let below = hand & (spread * 15) & !(15 << (high * 4));
        let top_nib = nib(high);
        let mut best_plain = None;
        for (s, &strength) in st.iter().enumerate() {
            let mixed = below & !(SUIT << s) != 0;
            if top_nib >> s & 1 == 1 && mixed && best_plain.is_none_or(|b| strength > b) {
                best_plain = Some(strength);
            }
        }
        if let Some(s) = best_plain {
            consider(1 << KEY_BITS | key(s));
        }
    }
    if let Some(t) = (0..13).rev().find(|&r| counts[r] >= 3) {
        if (0..13).any(|r| r != t && counts[r] >= 2) {
            consider(3 << KEY_BITS | t as u64);
        }
    }
    // flushes: per suit, the five ranks of the highest mask that is no straight (the flush
    // keys of one suit grow with that mask under every flush_compare)
    for s in 0..4u32 {
        if (hand & SUIT << s).count_ones() < 5 {
            continue;
        }
        let mut ranks = [0u32; 13];
        let mut k = 0;
        for r in (0..13).rev() {
            if hand >> (r * 4 + s) & 1 == 1 {
                ranks[k] = r;
                k += 1;
            }
        }
        if k < 5 {
            continue;
        }
        let Some(found) = highest_flush(&ranks[..k], cr) else {
            continue;
        };
        let suit = st[s as usize];
        let mut ranks_key = 0u64;
        for r in (0..13).rev() {
            if found >> r & 1 == 1 {
                ranks_key = ranks_key * 13 + r as u64;
            }
        }
        let fkey = match rs.flush_compare {
            FlushCompare::RanksThenSuit => ranks_key * 4 + suit,
            FlushCompare::HighestCard => (31 - found.leading_zeros()) as u64 * 4 + suit,
            FlushCompare::SuitThenRanks => suit * 13u64.pow(5) + ranks_key,
        };
        consider(2 << KEY_BITS | fkey);
    }
    if rs.allow_two_pairs_plus_one && best.is_none() {
        // (every other five-card play is above two pairs plus one, of level 0)
        let n = hand.count_ones();
        for high in (0..13).rev().filter(|&h| counts[h] >= 2) {
            let other = (0..13)
                .any(|low| low != high && counts[low] >= 2 && n > counts[low] + counts[high]);
            if other {
                best = Some(high as u64 * 4 + best_suit(nib(high as u32), &st));
                break;
            }
        }
    }
    best
}

/// The highest 13-bit mask of five of `ranks` (distinct, highest first) that is no straight.
fn highest_flush(ranks: &[u32], cr: &ComboRules) -> Option<u32> {
    let k = ranks.len();
    // in this nesting, the masks come highest first: the first that is no straight is it
    for a in 0..k {
        for b in a + 1..k {
            for c in b + 1..k {
                for d in c + 1..k {
                    for e in d + 1..k {
                        let m = 1 << ranks[a]
                            | 1 << ranks[b]
                            | 1 << ranks[c]
                            | 1 << ranks[d]
                            | 1 << ranks[e];
                        if cr.straight_position(m).is_none() {
                            return Some(m);
                        }
                    }
                }
            }
        }
    }
    None
}

/// The highest `rank_key` among the hand's plays of `size` (four or five) cards, if any.
pub fn best_order(hand: u64, size: u32, cr: &ComboRules) -> Option<u64> {
    if hand.count_ones() < size {
        return None;
    }
    let nibbles = rank_counts(hand);
    let counts: [u32; 13] = std::array::from_fn(|r| (nibbles >> (r * 4) & 15) as u32);
    match size {
        4 => best_four(hand, cr, &counts),
        5 => best_five(hand, cr, &counts),
        _ => None,
    }
}

/// Each rank's count of cards (0 to 4) in its four bits, for all ranks at once.
fn rank_counts(hand: u64) -> u64 {
    let twos = hand - (hand >> 1 & 0x5555_5555_5555_5555);
    (twos & 0x3333_3333_3333_3333) + (twos >> 2 & 0x3333_3333_3333_3333)
}

/// Whether the hand holds a play of `size` (four or five) cards whose `rank_key` is above
/// `order`: `best_order(hand, size, cr) > order`, with the quick answers first for five
/// cards. Five cards of one suit are a flush or a straight flush (level 2, or 4 or 6), a
/// triple and another pair a full house (level 3), a quad and a fifth card four of a kind
/// under `with_kicker` (level 5), whatever the ruleset; each is above every play of a lower
/// level, so a top below that level is beaten without looking for the best play. Without
/// any of them, a straight (level 1) is beaten only by a higher straight, and none of the
/// hand's straights can be a flush: its key is the sequence's with the top rank's strongest
/// suit.
pub fn beats_order(hand: u64, size: u32, order: u64, cr: &ComboRules) -> bool {
    if size == 5 && hand.count_ones() >= 5 {
        let level = order >> KEY_BITS;
        if level < 2 && (0..4).any(|s| (hand & SUIT << s).count_ones() >= 5) {
            return true;
        }
        if level < 5 {
            // the ranks held at least once, twice, three and four times (a bit at each
            // rank's lowest card)
            let n = rank_counts(hand);
            let held = (n | n >> 1 | n >> 2) & SUIT;
            let pairs = (n >> 1 | n >> 2) & SUIT;
            let triples = (n >> 2 | n >> 1 & n) & SUIT;
            let quads = n >> 2 & SUIT;
            if quads != 0 && cr.rs.four_of_a_kind == FourOfAKind::WithKicker {
                return true;
            }
            let full_house = triples != 0 && pairs.count_ones() >= 2;
            if level < 3 && full_house {
                return true;
            }
            if level == 1 {
                // (no five cards of a suit: a level-1 top returned above if there were)
                return beats_straight(hand, held, order, cr);
            }
        }
    }
    best_order(hand, size, cr).is_some_and(|o| o > order)
}

/// Whether the hand, with no five cards of a suit, holds a straight above the straight
/// `order` (`held`: the ranks it holds, a bit at each rank's lowest card).
fn beats_straight(hand: u64, held: u64, order: u64, cr: &ComboRules) -> bool {
    let st = strength(cr.rs.suit_order);
    let highest_card = cr.rs.straight_order == StraightOrder::HighestCard;
    for (i, (&seq, &spread)) in cr.straights.iter().zip(&cr.straight_spreads).enumerate() {
        if held & spread != spread {
            continue;
        }
        let high = 31 - seq.leading_zeros();
        let suit = best_suit(hand >> (high * 4) & 15, &st);
        let key = if highest_card {
            u64::from(high) * 4 + suit
        } else {
            i as u64 * 4 + suit
        };
        if 1 << KEY_BITS | key > order {
            return true;
        }
    }
    false
}

/// Whether the hand holds any play that beats `top` (`can_beat`).
pub fn can_beat(hand: u64, top: &Play, cr: &ComboRules) -> bool {
    if hand == 0 {
        return false;
    }
    let rs = &cr.rs;
    let so = rs.suit_order;
    if rs.bombs
        && (top.size != 5 || rs.four_of_a_kind == FourOfAKind::Alone)
        && any_bomb(hand, cr, |b| b.size != top.size && b.beats(top))
    {
        return true;
    }
    match top.size {
        1 => single_key(highest_single(hand, so), so) > top.key,
        2 => {
            let st = strength(so);
            for rank in (top.key >> 2)..13 {
                let suits = hand >> (rank * 4) & 15;
                if suits.count_ones() >= 2 {
                    let best = rank * 4
                        + (0..4)
                            .filter(|s| suits >> s & 1 == 1)
                            .map(|s| st[s])
                            .max()
                            .unwrap_or(0);
                    if best > top.key {
                        return true;
                    }
                }
            }
            false
        }
        3 => ((top.key + 1)..13).any(|rank| (hand >> (rank * 4) & 15).count_ones() >= 3),
        // four or five cards; the bombs of another size were looked at above (for a five-card
        // top under four_of_a_kind = with_kicker or off, only bombs of five cards can beat it)
        // (of one size, a play beats another iff its rank_key is higher: the bombs' levels
        // are above every other play's of their size)
        _ => beats_order(hand, top.size, top.order, cr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{fast_ids, mask_of};
    use crate::combos::classify;
    use crate::gen::{any_beating_same_size, beating_plays, plays_from};
    use crate::rules::{hk, SuitOrder};

    fn m(text: &str) -> u64 {
        mask_of(&fast_ids(text).unwrap())
    }

    #[test]
    fn beat_or_not() {
        let cr = ComboRules::new(&hk());
        let top = classify(m("9h 9s"), &cr).unwrap();
        assert!(!can_beat(m("9d 9c Ts"), &top, &cr));
        assert!(can_beat(m("Td Tc"), &top, &cr));
        let five = classify(m("3d 4c 5h 6s 7d"), &cr).unwrap();
        assert!(can_beat(m("4d 5c 6h 7s 8d Kd"), &five, &cr));
        assert!(can_beat(m("3c 4d 5d 6h 7c"), &five, &cr));
        assert!(!can_beat(m("3c 4d 5d 6h 9c Ks"), &five, &cr));
        assert!(can_beat(m("3c 3d 3h 9s 9d"), &five, &cr));
    }

    /// `best_order` is the highest `order` of `plays_from`'s plays of four and of five cards
    /// (none when it lists none), on random hands under rulesets with every option that
    /// changes what four and five cards make; and it answers as the candidate search
    /// (`any_beating_same_size`) whether the hand beats a top of that size. 60,000 hands in
    /// four tests of 15,000, which cargo runs side by side (one took ~35 s of `make test`).
    #[test]
    fn best_order_is_the_highest_play_0() {
        best_order_is_the_highest_play(0);
    }

    #[test]
    fn best_order_is_the_highest_play_1() {
        best_order_is_the_highest_play(1);
    }

    #[test]
    fn best_order_is_the_highest_play_2() {
        best_order_is_the_highest_play(2);
    }

    #[test]
    fn best_order_is_the_highest_play_3() {
        best_order_is_the_highest_play(3);
    }

    fn best_order_is_the_highest_play(quarter: u64) {
        const ROUNDS: usize = 15_000;
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15_u64 ^ quarter << 32);
        let variants = variants();
        let mut found = [0usize; 2];
        // every level's lowest and highest order, and orders between (`beats_order`'s tops)
        let mut thresholds: Vec<u64> = (0..7u64)
            .flat_map(|level| {
                [
                    level << KEY_BITS,
                    level << KEY_BITS | 60,
                    ((level + 1) << KEY_BITS) - 1,
                ]
            })
            .collect();
        thresholds.extend([0, 3 << KEY_BITS | 11, 2 << KEY_BITS | (4 * 371_293)]);
        // every straight's key (`beats_straight`)
        thresholds.extend((0..64).map(|key| 1 << KEY_BITS | key));
        for round in 0..ROUNDS {
            let cr = &variants[round % variants.len()];
            let mut hand = 0u64;
            let size = 1 + next() % 17;
            // every other hand is drawn from few ranks or one suit (quads, flushes, straights)
            let pool = match round % 4 {
                0 => FULL_DECK_MASK,
                1 => 0x0001_1111_1111_1111_u64 << (next() % 4),
                2 => (0xffff_u64 << (4 * (next() % 10))) & FULL_DECK_MASK,
                _ => (0x0fff_ffff_u64 << (4 * (next() % 7))) & FULL_DECK_MASK,
            };
            let size = size.min(u64::from(pool.count_ones()));
            while u64::from(hand.count_ones()) < size {
                let c = next() % 52;
                if pool >> c & 1 == 1 {
                    hand |= 1 << c;
                }
            }
            for want in [4u32, 5] {
                let listed = plays_from(hand, cr, Some(want));
                let best = listed.iter().map(|p| p.order).max();
                assert_eq!(best_order(hand, want, cr), best, "{hand:#x} size {want}");
                found[want as usize - 4] += usize::from(best.is_some());
                let near = best.map_or(vec![], |b| vec![b - 1, b, b + 1]);
                for &order in thresholds.iter().chain(&near) {
                    assert_eq!(
                        beats_order(hand, want, order, cr),
                        best.is_some_and(|b| b > order),
                        "{hand:#x} size {want} above {order:#x}"
                    );
                }
                for top in listed.iter().step_by(7).take(4) {
                    let other = hand & !top.mask;
                    assert_eq!(
                        best_order(other, want, cr).is_some_and(|o| o > top.order),
                        any_beating_same_size(other, top, cr),
                        "{other:#x} on {top:?}"
                    );
                }
            }
        }
        assert!(found.iter().all(|&n| n > ROUNDS / 12), "{found:?}");
    }

    const FULL_DECK_MASK: u64 = (1 << 52) - 1;

    /// 48 rulesets between them taking every option that changes what four and five cards make.
    fn variants() -> Vec<ComboRules> {
        let mut variants = Vec::new();
        for k in 0..48u32 {
            let mut rs = hk();
            rs.bombs = k & 1 == 1;
            rs.four_of_a_kind = [
                FourOfAKind::WithKicker,
                FourOfAKind::Alone,
                FourOfAKind::Off,
            ][(k as usize / 2) % 3];
            rs.allow_two_pairs = k & 8 != 0;
            rs.allow_two_pairs_plus_one = k & 16 != 0;
            rs.allow_four_card_quads = k & 32 != 0;
            rs.royal_only_beats_quads = k % 5 == 0;
            rs.suit_order = if k % 3 == 0 {
                SuitOrder::Taiwan
            } else {
                SuitOrder::Hk
            };
            rs.straight_order = [
                StraightOrder::Hk,
                StraightOrder::Big2Natural,
                StraightOrder::HighestCard,
                StraightOrder::Poker,
                StraightOrder::A2345TopPoker,
                StraightOrder::AkqjtTopPoker,
            ][k as usize % 6];
            rs.flush_compare = [
                FlushCompare::RanksThenSuit,
                FlushCompare::HighestCard,
                FlushCompare::SuitThenRanks,
            ][(k as usize / 6) % 3];
            variants.push(ComboRules::new(&rs));
        }
        variants
    }

    /// `can_beat` answers whether `beating_plays` (the generator the simulator's differential
    /// test pins to Python's) lists anything, on random hands and tops under rulesets with
    /// every option that changes what four and five cards make.
    #[test]
    fn can_beat_is_whether_a_beating_play_exists() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let variants = variants();
        let mut checked = [0usize; 6];
        for round in 0..40_000 {
            let cr = &variants[round % variants.len()];
            // a hand of 1 to 13 cards, and a top of 1 to 5 other cards that is a play
            let mut hand = 0u64;
            let size = 1 + next() % 13;
            while u64::from(hand.count_ones()) < size {
                hand |= 1 << (next() % 52);
            }
            let want = 1 + (next() % 5) as u32;
            let top = (0..50).find_map(|_| {
                let mut m = 0u64;
                while m.count_ones() < want {
                    m |= 1 << (next() % 52);
                }
                (m & hand == 0).then(|| classify(m, cr).ok()).flatten()
            });
            let Some(top) = top else { continue };
            let exists = !beating_plays(hand, &top, cr).is_empty();
            assert_eq!(can_beat(hand, &top, cr), exists, "{hand:#x} on {top:?}");
            checked[top.size as usize] += 1;
        }
        assert!(checked[1..].iter().all(|&n| n > 100), "{checked:?}");
    }
}
