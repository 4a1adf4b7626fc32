//! Whether a hand holds a play that beats the table (`pipeline.big2.moves.can_beat`): bombs
//! of another size first, then the plays of the top's size (singles, pairs and triples by
//! their keys; four and five cards from the candidates of `gen.rs`, without a list).

use crate::combos::{highest_single, single_key, strength, ComboRules, Play};
use crate::gen::{any_beating_same_size, any_bomb};
use crate::rules::FourOfAKind;

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
        _ => any_beating_same_size(hand, top, cr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{fast_ids, mask_of};
    use crate::combos::classify;
    use crate::gen::beating_plays;
    use crate::rules::{hk, FlushCompare, StraightOrder, SuitOrder};

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

    /// `can_beat` answers whether `beating_plays` (the generator the simulator's differential
    /// test pins to Python's) lists anything, on random hands and tops under rulesets with
    /// every option that changes what four and five cards make.
    #[test]
    fn can_beat_is_whether_a_beating_play_exists() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
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
            ][k as usize % 3];
            variants.push(ComboRules::new(&rs));
        }
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
