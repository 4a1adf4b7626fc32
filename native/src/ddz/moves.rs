//! Dou Dizhu legal plays, as `pipeline/doudizhu/moves.py`'s `plays_from` (`_generate`) makes
//! them: every play of a hand that beats the table (all of them on a lead), each holding the
//! hand's lowest cards of its ranks, **in the same order** (the simulator's bots pick by
//! position and take the first of equals, so the order is part of the answer).

use super::cards::{counts_of, Counts, ACE_RANK, BJ_RANK, N_RANKS, RJ_RANK, TWO_RANK};
use super::combos::{Kind, Play};

/// A hand's rank counts and, per rank, the masks of its lowest 0, 1, … cards
/// (`low[r][n]`, `low_masks`).
struct HandView {
    counts: Counts,
    low: [[u64; 5]; N_RANKS],
}

impl HandView {
    fn of(hand: u64) -> HandView {
        let counts = counts_of(hand);
        let mut low = [[0u64; 5]; N_RANKS];
        for (r, row) in low.iter_mut().enumerate() {
            let (shift, bits) = if r <= TWO_RANK {
                (4 * r as u32, 0xF)
            } else {
                (52 + (r - BJ_RANK) as u32, 1)
            };
            let mut cards = (hand >> shift & bits) << shift;
            let mut m = 0;
            let mut n = 1;
            while cards != 0 {
                let b = cards & cards.wrapping_neg();
                m |= b;
                row[n] = m;
                cards ^= b;
                n += 1;
            }
        }
        HandView { counts, low }
    }
}

/// The counts of `n` cards of rank `r` alone (`_UNIT[r][n]`).
fn unit(r: usize, n: u8) -> Counts {
    let mut c = [0u8; N_RANKS];
    c[r] = n;
    c
}

fn play(kind: Kind, key: usize, units: usize, counts: Counts, mask: u64) -> Play {
    Play {
        kind,
        key,
        units,
        counts,
        mask,
    }
}

/// Where generated plays go, with the hand they come from.
struct Out<'v> {
    view: &'v HandView,
    plays: Vec<Play>,
}

impl Out<'_> {
    fn rocket(&mut self) {
        let low = &self.view.low;
        let mut c = [0u8; N_RANKS];
        c[BJ_RANK] = 1;
        c[RJ_RANK] = 1;
        let mask = low[BJ_RANK][1] | low[RJ_RANK][1];
        self.plays.push(play(Kind::Rocket, RJ_RANK, 1, c, mask));
    }

    fn bomb(&mut self, r: usize) {
        let mask = self.view.low[r][4];
        self.plays.push(play(Kind::Bomb, r, 1, unit(r, 4), mask));
    }

    /// The main part with each attachment set (`_attached` over `_kick_sets`), ranks `lo` …
    /// `hi` banned from the attachments: `k` singles (at most 3 of a rank, never both
    /// jokers) or `k` pairs of distinct ranks (no jokers), in `_kick_sets`' order.
    #[allow(clippy::too_many_arguments)]
    fn attached(
        &mut self,
        kind: Kind,
        key: usize,
        units: usize,
        main: Counts,
        mask: u64,
        (lo, hi): (usize, usize),
        k: usize,
        pairs: bool,
    ) {
        let base = play(kind, key, units, main, mask);
        self.kicks(base, (lo, hi), k, pairs, 0, false);
    }

    fn kicks(
        &mut self,
        partial: Play,
        banned: (usize, usize),
        k: usize,
        pairs: bool,
        start: usize,
        black_joker: bool,
    ) {
        if k == 0 {
            self.plays.push(partial);
            return;
        }
        let view = self.view;
        for (r, &have) in view.counts.iter().enumerate().skip(start) {
            if banned.0 <= r && r <= banned.1 {
                continue;
            }
            let have = have as usize;
            if pairs {
                if have >= 2 && r <= TWO_RANK {
                    let next = with(partial, r, 2, view.low[r][2]);
                    self.kicks(next, banned, k - 1, pairs, r + 1, false);
                }
                continue;
            }
            if r == RJ_RANK && black_joker {
                continue; // the rocket is not two singles
            }
            for take in 1..=have.min(3).min(k) {
                let next = with(partial, r, take as u8, view.low[r][take]);
                self.kicks(next, banned, k - take, pairs, r + 1, r == BJ_RANK);
            }
        }
    }

    fn chain(&self, lo: usize, hi: usize, width: u8) -> (Counts, u64) {
        let mut c = [0u8; N_RANKS];
        let mut m = 0;
        for (slot, low) in c[lo..=hi].iter_mut().zip(&self.view.low[lo..=hi]) {
            *slot = width;
            m |= low[width as usize];
        }
        (c, m)
    }
}

fn with(mut p: Play, r: usize, n: u8, cards: u64) -> Play {
    p.counts[r] += n;
    p.mask |= cards;
    p
}

/// Every play of `hand` that beats `top` (every play on a lead), in `plays_from`'s order.
pub fn plays_from(hand: u64, four_with_two: bool, top: Option<&Play>) -> Vec<Play> {
    let view = HandView::of(hand);
    let mut out = Out {
        view: &view,
        plays: Vec::with_capacity(64),
    };
    generate(&mut out, four_with_two, top);
    out.plays
}

fn generate(out: &mut Out, four_with_two: bool, top: Option<&Play>) {
    let counts = out.view.counts;
    let rocket = counts[BJ_RANK] > 0 && counts[RJ_RANK] > 0;
    let kind = top.map(|t| t.kind);
    if kind == Some(Kind::Rocket) {
        return;
    }
    // the key to beat: every rank beats it on a lead
    let above = |r: usize| top.is_none_or(|t| r > t.key);
    if let Some(t) = top {
        if t.kind == Kind::Bomb || t.kind.chain_units().is_some() {
            for (r, &c) in counts.iter().enumerate().take(TWO_RANK + 1) {
                if c == 4 && (t.kind != Kind::Bomb || r > t.key) {
                    out.bomb(r);
                }
            }
            if rocket {
                out.rocket();
            }
            if t.kind == Kind::Bomb {
                return;
            }
            let width = t.kind.width() as u8;
            let u = t.units;
            let mut run = 0;
            for (hi, &c) in counts.iter().enumerate().take(ACE_RANK + 1) {
                run = if c >= width { run + 1 } else { 0 };
                if run < u || hi <= t.key {
                    continue;
                }
                let lo = hi + 1 - u;
                let (main, mask) = out.chain(lo, hi, width);
                match t.kind {
                    Kind::AirplaneSingles | Kind::AirplanePairs => {
                        let pairs = t.kind == Kind::AirplanePairs;
                        out.attached(t.kind, hi, u, main, mask, (lo, hi), u, pairs);
                    }
                    _ => out.plays.push(play(t.kind, hi, u, main, mask)),
                }
            }
            return;
        }
    }
    let lead = top.is_none();
    let wants = |k: Kind| lead || kind == Some(k);
    let four_two = four_with_two && (wants(Kind::FourTwoSingles) || wants(Kind::FourTwoPairs));
    for (r, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let row = out.view.low[r];
        if above(r) {
            if wants(Kind::Single) {
                out.plays.push(play(Kind::Single, r, 1, unit(r, 1), row[1]));
            }
            if c >= 2 && wants(Kind::Pair) {
                out.plays.push(play(Kind::Pair, r, 1, unit(r, 2), row[2]));
            }
            if c >= 3 {
                if wants(Kind::Triple) {
                    out.plays.push(play(Kind::Triple, r, 1, unit(r, 3), row[3]));
                }
                for (k, pairs) in [(Kind::TripleSingle, false), (Kind::TriplePair, true)] {
                    if wants(k) {
                        out.attached(k, r, 1, unit(r, 3), row[3], (r, r), 1, pairs);
                    }
                }
            }
        }
        if c == 4 {
            out.bomb(r);
            if four_two && above(r) {
                for (k, pairs) in [(Kind::FourTwoSingles, false), (Kind::FourTwoPairs, true)] {
                    if wants(k) {
                        out.attached(k, r, 1, unit(r, 4), row[4], (r, r), 2, pairs);
                    }
                }
            }
        }
    }
    if rocket {
        out.rocket();
    }
    if !lead {
        return;
    }
    for chain in [Kind::Straight, Kind::PairChain, Kind::Airplane] {
        let width = chain.width() as u8;
        let (lo_units, hi_units) = chain.chain_units().unwrap_or((0, 0));
        for lo in 0..=ACE_RANK {
            if counts[lo] < width {
                continue;
            }
            let mut hi = lo;
            while hi < ACE_RANK && counts[hi + 1] >= width {
                hi += 1;
            }
            for units in lo_units..=hi_units.min(hi - lo + 1) {
                let top_rank = lo + units - 1;
                let (main, mask) = out.chain(lo, top_rank, width);
                out.plays.push(play(chain, top_rank, units, main, mask));
                if width == 3 {
                    for (k, pairs) in [(Kind::AirplaneSingles, false), (Kind::AirplanePairs, true)]
                    {
                        out.attached(k, top_rank, units, main, mask, (lo, top_rank), units, pairs);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cards::fast_mask;
    use super::super::combos::readings;
    use super::*;

    fn texts(hand: &str, top: Option<&Play>) -> Vec<String> {
        let plays = plays_from(fast_mask(hand).unwrap(), true, top);
        plays.iter().map(Play::text).collect()
    }

    #[test]
    fn the_python_order() {
        // [p.text for p in plays_from(mask_of(parse_cards(...)), load_ruleset("ddz"))]
        assert_eq!(
            texts("3d 3c 3h 4d BJ RJ", None),
            ["3", "3-3", "3-3-3", "3-3-3-4", "3-3-3-BJ", "3-3-3-RJ", "4", "BJ", "RJ", "BJ-RJ"]
        );
        let pair = readings(&counts_of(fast_mask("3s 3h").unwrap()), true)[0];
        assert_eq!(
            texts("4d 4c 5d 5c 9s 9h 9d 9c", Some(&pair)),
            ["4-4", "5-5", "9-9", "9-9-9-9"]
        );
    }

    #[test]
    fn every_play_is_a_reading_holding_the_lowest_cards() {
        let mut rng = crate::testing::xorshift(7);
        for _ in 0..300 {
            let mut hand = 0u64;
            while hand.count_ones() < 17 {
                hand |= 1 << (rng() % 54);
            }
            for p in plays_from(hand, true, None) {
                assert_eq!(p.mask & !hand, 0);
                assert_eq!(counts_of(p.mask), p.counts);
                let found = readings(&p.counts, true);
                assert!(
                    found.iter().any(|q| q.kind == p.kind && q.key == p.key),
                    "{p:?}"
                );
                for q in plays_from(hand, true, Some(&p)) {
                    assert!(q.beats(&p));
                }
            }
        }
    }
}
