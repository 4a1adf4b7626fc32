//! Combinations: classify a card set under a ruleset and compare plays, as
//! `pipeline/big2/combos.py` (`explain`, `Play.beats`): the same kinds, levels and keys, so the
//! same `rank_key` (`order = level << 40 | key`) and the same refusal texts.

use crate::cards::{format_cards, RANK_TEXT};
use crate::rules::{FlushCompare, FourOfAKind, Ruleset, StraightOrder, SuitOrder};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Single,
    Pair,
    Triple,
    Quad,
    TwoPairs,
    TwoPairsPlusOne,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Single => "single",
            Kind::Pair => "pair",
            Kind::Triple => "triple",
            Kind::Quad => "quad",
            Kind::TwoPairs => "two_pairs",
            Kind::TwoPairsPlusOne => "two_pairs_plus_one",
            Kind::Straight => "straight",
            Kind::Flush => "flush",
            Kind::FullHouse => "full_house",
            Kind::FourOfAKind => "four_of_a_kind",
            Kind::StraightFlush => "straight_flush",
        }
    }
}

const KEY_BITS: u32 = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    pub mask: u64,
    pub kind: Kind,
    pub size: u32,
    pub key: u64,
    pub is_bomb: bool,
    pub order: u64,
}

impl Play {
    fn new(mask: u64, kind: Kind, level: u64, key: u64, is_bomb: bool) -> Play {
        Play {
            mask,
            kind,
            size: mask.count_ones(),
            key,
            is_bomb,
            order: level << KEY_BITS | key,
        }
    }

    /// Whether this play may be played on `top` (`Play.beats`).
    pub fn beats(&self, top: &Play) -> bool {
        if self.is_bomb {
            return !top.is_bomb || self.order > top.order;
        }
        self.size == top.size && !top.is_bomb && self.order > top.order
    }
}

pub fn strength(order: SuitOrder) -> [u64; 4] {
    match order {
        SuitOrder::Hk => [0, 1, 2, 3],
        SuitOrder::Taiwan => [1, 0, 2, 3],
    }
}

/// A card's strength as a single: rank, then suit under the suit order.
pub fn single_key(c: u32, order: SuitOrder) -> u64 {
    (c as u64 >> 2) * 4 + strength(order)[(c & 3) as usize]
}

/// The strongest card of a non-empty hand as a single.
pub fn highest_single(hand: u64, order: SuitOrder) -> u32 {
    let top = 63 - hand.leading_zeros();
    match order {
        // a suit's strength is its number: the highest card is the strongest
        SuitOrder::Hk => top,
        // ♠ > ♥ > ♦ > ♣: the highest card unless the top rank holds only ♦ and ♣
        SuitOrder::Taiwan => {
            let rank = top >> 2;
            let bits = hand >> (rank * 4) & 15;
            if bits & 0b1100 != 0 {
                top
            } else if bits & 1 != 0 {
                rank * 4
            } else {
                rank * 4 + 1
            }
        }
    }
}

fn seq(low: u32) -> u32 {
    (low..low + 5)
        .map(|v| match v {
            1 | 14 => 1 << 11,
            2 => 1 << 12,
            v => 1 << (v - 3),
        })
        .sum()
}

/// Straight sequences (13-bit rank masks), weakest first, per straight order.
pub fn straights(order: StraightOrder) -> Vec<u32> {
    let plain: Vec<u32> = (3..11).map(seq).collect();
    let (a2345, s23456) = (seq(1), seq(2));
    let jqka2: u32 = (8..13).map(|r| 1 << r).sum();
    let mut out = Vec::new();
    match order {
        StraightOrder::Hk | StraightOrder::HighestCard => {
            out.extend(&plain);
            out.extend([s23456, a2345]);
        }
        StraightOrder::Big2Natural => {
            out.extend(&plain);
            out.push(jqka2);
        }
        StraightOrder::Poker => {
            out.extend([a2345, s23456]);
            out.extend(&plain);
        }
        StraightOrder::A2345TopPoker => {
            out.push(s23456);
            out.extend(&plain);
            out.push(a2345);
        }
        StraightOrder::AkqjtTopPoker => {
            out.push(s23456);
            out.extend(&plain[..7]);
            out.extend([a2345, plain[7]]);
        }
    }
    out
}

const ROYAL: u32 = 0b1_1111 << 7;

/// Why a card set is no play (its text is `explain`'s).
#[derive(Debug, PartialEq, Eq)]
pub enum Why {
    NoCards,
    TooMany(u32),
    NotAPair,
    NotATriple,
    TriplesOff,
    FourNotAPlay(FourOfAKind),
    TwoPairsOff,
    FourShape,
    FoakAlone,
    FoakOff,
    TwoPairsPlusOneOff,
    TripleTwoOdd,
    NotAStraight(u32, StraightOrder),
    NoFive,
}

fn straight_name(order: StraightOrder) -> &'static str {
    match order {
        StraightOrder::Hk => "hk",
        StraightOrder::Big2Natural => "big2_natural",
        StraightOrder::HighestCard => "highest_card",
        StraightOrder::Poker => "poker",
        StraightOrder::A2345TopPoker => "a2345_top_poker",
        StraightOrder::AkqjtTopPoker => "akqjt_top_poker",
    }
}

fn seq_text(rank_mask: u32) -> String {
    for start in 0..13 {
        let run: Vec<usize> = (0..5).map(|i| (start + i) % 13).collect();
        if run.iter().all(|&r| rank_mask >> r & 1 == 1) {
            return run
                .iter()
                .map(|&r| RANK_TEXT[r])
                .collect::<Vec<_>>()
                .join("-");
        }
    }
    (0..13)
        .filter(|r| rank_mask >> r & 1 == 1)
        .map(|r| RANK_TEXT[r])
        .collect::<Vec<_>>()
        .join("-")
}

impl Why {
    pub fn text(&self) -> String {
        match self {
            Why::NoCards => "no cards".into(),
            Why::TooMany(n) => format!("{n} cards: a play has 1 to 5 cards"),
            Why::NotAPair => "two cards of different ranks are not a pair".into(),
            Why::NotATriple => "three cards must be of one rank (a triple)".into(),
            Why::TriplesOff => "triples are not allowed (allow_triples = false)".into(),
            Why::FourNotAPlay(mode) => {
                let why = if *mode == FourOfAKind::Off {
                    "four_of_a_kind = off"
                } else {
                    "four_of_a_kind = with_kicker needs a fifth card"
                };
                format!(
                    "four cards of a rank are not a play (allow_four_card_quads = false, {why})"
                )
            }
            Why::TwoPairsOff => "two pairs are not allowed (allow_two_pairs = false)".into(),
            Why::FourShape => "four cards must be a quad or two pairs".into(),
            Why::FoakAlone => {
                "four of a kind is played without a kicker (four_of_a_kind = alone)".into()
            }
            Why::FoakOff => "four of a kind is no play (four_of_a_kind = off)".into(),
            Why::TwoPairsPlusOneOff => {
                "two pairs plus one are not allowed (allow_two_pairs_plus_one = false)".into()
            }
            Why::TripleTwoOdd => {
                "five cards with a triple and two odd cards are no combination".into()
            }
            Why::NotAStraight(ranks, order) => format!(
                "{} is not a straight under straight_order = {}",
                seq_text(*ranks),
                straight_name(*order)
            ),
            Why::NoFive => "five cards that are no straight, flush, full house, four of a kind or straight flush".into(),
        }
    }
}

/// Per-ruleset tables the classifier reads (built once per ruleset).
#[derive(Clone, Debug)]
pub struct ComboRules {
    pub rs: Ruleset,
    pub straights: Vec<u32>,
    /// Each 13-bit rank mask's index in `straights`, `NO_STRAIGHT` for none.
    pub straight_index: Box<[u8; 8192]>,
    /// Each of `straights` as a card mask: its ranks' lowest cards (♦), one bit a rank.
    pub straight_spreads: Vec<u64>,
}

/// `straight_index`'s value for a rank mask that is no straight.
pub const NO_STRAIGHT: u8 = u8::MAX;

impl ComboRules {
    pub fn new(rs: &Ruleset) -> ComboRules {
        let straights = straights(rs.straight_order);
        let mut straight_index = Box::new([NO_STRAIGHT; 8192]);
        for (i, &seq) in straights.iter().enumerate().rev() {
            straight_index[seq as usize] = i as u8; // the first index wins, as `position`
        }
        let straight_spreads = straights
            .iter()
            .map(|&seq| {
                (0..13)
                    .filter(|r| seq >> r & 1 == 1)
                    .map(|r| 1u64 << (r * 4))
                    .sum()
            })
            .collect();
        ComboRules {
            rs: rs.clone(),
            straights,
            straight_index,
            straight_spreads,
        }
    }

    /// The index of a 13-bit rank mask in `straights`, if it is one.
    pub fn straight_position(&self, rank_mask: u32) -> Option<usize> {
        let i = self.straight_index[rank_mask as usize & 8191];
        (i != NO_STRAIGHT).then_some(i as usize)
    }
}

fn is_cyclic_run(rank_mask: u32) -> bool {
    (0..13).any(|r| rank_mask == (0..5).map(|i| 1u32 << ((r + i) % 13)).sum::<u32>())
}

/// Classify a card set: a play, or why it is none (`explain`).
pub fn classify(mask: u64, cr: &ComboRules) -> Result<Play, Why> {
    classify_inline(mask, cr)
}

/// [`classify`] inlined where it is called (the replay's `verify`: the play stays in
/// registers; a `Play` returned through memory is read back wider than it was written).
#[inline(always)]
pub(crate) fn classify_inline(mask: u64, cr: &ComboRules) -> Result<Play, Why> {
    let rs = &cr.rs;
    let n = mask.count_ones();
    if n == 0 {
        return Err(Why::NoCards);
    }
    if n > 5 {
        return Err(Why::TooMany(n));
    }
    let so = rs.suit_order;
    if n == 1 {
        // the commonest case (every single a hand holds), without the shape work below
        let c = mask.trailing_zeros();
        return Ok(Play::new(mask, Kind::Single, 0, single_key(c, so), false));
    }
    let st = strength(so);
    // rank counts, and the top single key per rank
    let mut counts = [0u32; 13];
    let mut m = mask;
    while m != 0 {
        counts[(m.trailing_zeros() >> 2) as usize] += 1;
        m &= m - 1;
    }
    let top_single = |cards: u64| -> u64 {
        let mut best = 0;
        let mut m = cards;
        while m != 0 {
            best = best.max(single_key(m.trailing_zeros(), so));
            m &= m - 1;
        }
        best
    };
    // the rank counts, largest first (at most five cards: no allocation, this runs per candidate)
    let mut shape_buf = [0u32; 5];
    let mut len = 0;
    for &c in counts.iter().filter(|&&c| c > 0) {
        shape_buf[len] = c;
        len += 1;
    }
    let shape = &mut shape_buf[..len];
    shape.sort_unstable_by(|a, b| b.cmp(a));
    let shape = &*shape;
    let first = mask.trailing_zeros();
    let rank_cards = |r: usize| mask & (15u64 << (r * 4));
    let made =
        |kind: Kind, level: u64, key: u64, bomb: bool| Ok(Play::new(mask, kind, level, key, bomb));
    match n {
        1 => made(Kind::Single, 0, single_key(first, so), false),
        2 => {
            if shape != [2] {
                return Err(Why::NotAPair);
            }
            made(Kind::Pair, 0, top_single(mask), false)
        }
        3 => {
            if shape != [3] {
                return Err(Why::NotATriple);
            }
            if !rs.allow_triples {
                return Err(Why::TriplesOff);
            }
            made(Kind::Triple, 0, (first >> 2) as u64, false)
        }
        4 => {
            if shape == [4] {
                if rs.four_of_a_kind == FourOfAKind::Alone {
                    return made(Kind::FourOfAKind, 5, (first >> 2) as u64, rs.bombs);
                }
                if !rs.allow_four_card_quads {
                    return Err(Why::FourNotAPlay(rs.four_of_a_kind));
                }
                return made(Kind::Quad, 1, (first >> 2) as u64, false);
            }
            if shape == [2, 2] {
                if !rs.allow_two_pairs {
                    return Err(Why::TwoPairsOff);
                }
                let high = (0..13).rev().find(|&r| counts[r] > 0).unwrap_or(0);
                return made(Kind::TwoPairs, 0, top_single(rank_cards(high)), false);
            }
            Err(Why::FourShape)
        }
        _ => {
            if shape == [4, 1] {
                return match rs.four_of_a_kind {
                    FourOfAKind::Alone => Err(Why::FoakAlone),
                    FourOfAKind::Off => Err(Why::FoakOff),
                    FourOfAKind::WithKicker => {
                        let four = (0..13).find(|&r| counts[r] == 4).unwrap_or(0);
                        made(Kind::FourOfAKind, 5, four as u64, rs.bombs)
                    }
                };
            }
            if shape == [3, 2] {
                let three = (0..13).find(|&r| counts[r] == 3).unwrap_or(0);
                return made(Kind::FullHouse, 3, three as u64, false);
            }
            if shape == [2, 2, 1] {
                if !rs.allow_two_pairs_plus_one {
                    return Err(Why::TwoPairsPlusOneOff);
                }
                let high = (0..13).rev().find(|&r| counts[r] == 2).unwrap_or(0);
                return made(
                    Kind::TwoPairsPlusOne,
                    0,
                    top_single(rank_cards(high)),
                    false,
                );
            }
            if shape != [1, 1, 1, 1, 1] {
                return Err(Why::TripleTwoOdd);
            }
            let rank_mask: u32 = (0..13).filter(|&r| counts[r] > 0).map(|r| 1u32 << r).sum();
            let suits = (0..4u32)
                .filter(|s| mask & (0x0001_1111_1111_1111_u64 << s) != 0)
                .count();
            let flush = suits == 1;
            if let Some(index) = cr.straight_position(rank_mask) {
                let top = top_single(mask);
                let skey = if rs.straight_order == StraightOrder::HighestCard {
                    top
                } else {
                    index as u64 * 4 + (top & 3)
                };
                if flush {
                    let level = if rs.royal_only_beats_quads && rank_mask != ROYAL {
                        4
                    } else {
                        6
                    };
                    return made(Kind::StraightFlush, level, skey, rs.bombs);
                }
                return made(Kind::Straight, 1, skey, false);
            }
            if flush {
                let suit = st[(first & 3) as usize];
                let ranks_key = (0..13u64)
                    .rev()
                    .filter(|&r| counts[r as usize] > 0)
                    .fold(0u64, |k, r| k * 13 + r);
                let fkey = match rs.flush_compare {
                    FlushCompare::RanksThenSuit => ranks_key * 4 + suit,
                    FlushCompare::HighestCard => top_single(mask),
                    FlushCompare::SuitThenRanks => suit * 13u64.pow(5) + ranks_key,
                };
                return made(Kind::Flush, 2, fkey, false);
            }
            if is_cyclic_run(rank_mask) {
                return Err(Why::NotAStraight(rank_mask, rs.straight_order));
            }
            Err(Why::NoFive)
        }
    }
}

/// `require_play`'s message for a card set that is no play.
pub fn not_a_combination(mask: u64, why: &Why) -> String {
    format!(
        "{} is not a combination: {}",
        format_cards(mask),
        why.text()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{fast_ids, mask_of};
    use crate::rules::hk;

    fn m(text: &str) -> u64 {
        mask_of(&fast_ids(text).unwrap())
    }

    /// The strongest card as the suit strengths order them (the first definition).
    fn highest_single_by_strength(hand: u64, order: SuitOrder) -> u32 {
        let rank = (63 - hand.leading_zeros()) >> 2;
        let bits = hand >> (rank * 4) & 15;
        let st = strength(order);
        let best = (0..4u32)
            .filter(|s| bits >> s & 1 == 1)
            .max_by_key(|&s| st[s as usize])
            .unwrap_or(0);
        rank * 4 + best
    }

    #[test]
    fn highest_single_by_suit_strength() {
        for order in [SuitOrder::Hk, SuitOrder::Taiwan] {
            for rank in 0..13u32 {
                for bits in 1..16u64 {
                    for below in [0u64, 1, 0b1010_0110, (1 << (rank * 4)) - 1] {
                        let hand = bits << (rank * 4) | below & ((1 << (rank * 4)) - 1);
                        assert_eq!(
                            highest_single(hand, order),
                            highest_single_by_strength(hand, order),
                            "{hand:#x} {order:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn classify_like_python() {
        let cr = ComboRules::new(&hk());
        let p6 = classify(m("6s 6d"), &cr).unwrap();
        assert_eq!(p6.kind, Kind::Pair);
        assert!(p6.beats(&classify(m("6h 6c"), &cr).unwrap()));
        let foak = classify(m("4s 4h 4c 4d 3s"), &cr).unwrap();
        assert!(foak.beats(&classify(m("3s 3h 3c 3d Ks"), &cr).unwrap()));
        let why = classify(m("Jd Qc Kh As 2s"), &cr).unwrap_err();
        assert_eq!(
            why.text(),
            "J-Q-K-A-2 is not a straight under straight_order = hk"
        );
        let why = classify(m("3d 4d 4c"), &cr).unwrap_err();
        assert_eq!(
            not_a_combination(m("3d 4d 4c"), &why),
            "3♦4♦4♣ is not a combination: three cards must be of one rank (a triple)"
        );
    }
}
