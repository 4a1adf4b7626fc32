//! Dou Dizhu combinations, as `pipeline/doudizhu/combos.py`: every reading of a rank
//! multiset in the engine's preference (`readings`), why a set is none (`explain`), how
//! plays compare (`beats`), and `can_beat_counts` of `moves.py`.

use super::cards::{
    format_ranks, rank_text, Counts, ACE_RANK, BJ_RANK, N_RANKS, RJ_RANK, TWO_RANK,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Single,
    Pair,
    Triple,
    TripleSingle,
    TriplePair,
    Straight,
    PairChain,
    Airplane,
    AirplaneSingles,
    AirplanePairs,
    Bomb,
    Rocket,
    FourTwoSingles,
    FourTwoPairs,
}

pub const KINDS: [Kind; 14] = [
    Kind::Single,
    Kind::Pair,
    Kind::Triple,
    Kind::TripleSingle,
    Kind::TriplePair,
    Kind::Straight,
    Kind::PairChain,
    Kind::Airplane,
    Kind::AirplaneSingles,
    Kind::AirplanePairs,
    Kind::Bomb,
    Kind::Rocket,
    Kind::FourTwoSingles,
    Kind::FourTwoPairs,
];

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Single => "single",
            Kind::Pair => "pair",
            Kind::Triple => "triple",
            Kind::TripleSingle => "triple_single",
            Kind::TriplePair => "triple_pair",
            Kind::Straight => "straight",
            Kind::PairChain => "pair_chain",
            Kind::Airplane => "airplane",
            Kind::AirplaneSingles => "airplane_singles",
            Kind::AirplanePairs => "airplane_pairs",
            Kind::Bomb => "bomb",
            Kind::Rocket => "rocket",
            Kind::FourTwoSingles => "four_two_singles",
            Kind::FourTwoPairs => "four_two_pairs",
        }
    }
    pub fn parse(text: &str) -> Option<Kind> {
        KINDS.iter().copied().find(|k| k.as_str() == text)
    }
    /// Cards of one rank in the main part (`MAIN_WIDTH`).
    pub fn width(self) -> usize {
        match self {
            Kind::Single | Kind::Straight | Kind::Rocket => 1,
            Kind::Pair | Kind::PairChain => 2,
            Kind::Triple
            | Kind::TripleSingle
            | Kind::TriplePair
            | Kind::Airplane
            | Kind::AirplaneSingles
            | Kind::AirplanePairs => 3,
            Kind::Bomb | Kind::FourTwoSingles | Kind::FourTwoPairs => 4,
        }
    }
    /// Shortest and longest chain of a sequence kind (`CHAIN_UNITS`).
    pub fn chain_units(self) -> Option<(usize, usize)> {
        match self {
            Kind::Straight => Some((5, 12)),
            Kind::PairChain => Some((3, 10)),
            Kind::Airplane | Kind::AirplaneSingles | Kind::AirplanePairs => Some((2, 6)),
            _ => None,
        }
    }
    fn spaced(self) -> String {
        self.as_str().replace('_', " ")
    }
}

/// One reading of a set of cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Play {
    pub kind: Kind,
    pub key: usize,
    pub units: usize,
    pub counts: Counts,
    pub mask: u64,
}

impl Play {
    pub fn size(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }
    pub fn is_bomb(&self) -> bool {
        matches!(self.kind, Kind::Bomb | Kind::Rocket)
    }
    fn main_ranks(&self) -> std::ops::Range<usize> {
        if self.kind == Kind::Rocket {
            BJ_RANK..RJ_RANK + 1
        } else {
            self.key + 1 - self.units..self.key + 1
        }
    }
    /// The play the way players write it: main part low to high, then the attachments.
    pub fn text(&self) -> String {
        let width = self.kind.width();
        let mut rest = self.counts;
        let mut parts = Vec::new();
        for r in self.main_ranks() {
            for _ in 0..width {
                parts.push(rank_text(r));
            }
            rest[r] -= width as u8;
        }
        for (r, &n) in rest.iter().enumerate() {
            for _ in 0..n {
                parts.push(rank_text(r));
            }
        }
        parts.join("-")
    }
    pub fn beats(&self, top: &Play) -> bool {
        if self.kind == Kind::Rocket {
            return top.kind != Kind::Rocket;
        }
        if top.kind == Kind::Rocket {
            return false;
        }
        if self.kind == Kind::Bomb {
            return top.kind != Kind::Bomb || self.key > top.key;
        }
        self.kind == top.kind && self.units == top.units && self.key > top.key
    }
}

fn attachments(
    rest: &Counts,
    main: std::ops::Range<usize>,
    k: usize,
    pairs: bool,
    why: &mut Option<&mut Vec<String>>,
) -> bool {
    let mut note = |text: &'static str| {
        if let Some(w) = why.as_mut() {
            w.push(text.to_owned());
        }
    };
    if main.clone().any(|r| rest[r] > 0) {
        note("attachments never hold a rank of the main part");
        return false;
    }
    if pairs {
        let ranks: Vec<usize> = (0..N_RANKS).filter(|&r| rest[r] > 0).collect();
        let ok = ranks.len() == k && ranks.iter().all(|&r| rest[r] == 2);
        if !ok {
            if ranks.iter().any(|&r| rest[r] == 4) {
                note("two pair attachments are of two different ranks");
            } else {
                note("the attachments of one play are all singles or all pairs");
            }
        }
        return ok;
    }
    if rest[BJ_RANK] > 0 && rest[RJ_RANK] > 0 {
        note("the rocket is not two singles (attachments never hold both jokers)");
        return false;
    }
    if rest.iter().max() == Some(&4) {
        note("a bomb is not an attachment");
        return false;
    }
    true
}

/// `_compute`: every reading, preferred first; `why` collects the reasons a shape fails.
fn compute(counts: &Counts, four_with_two: bool, mut why: Option<&mut Vec<String>>) -> Vec<Play> {
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    let mut out: Vec<Play> = Vec::new();
    if n == 0 {
        return out;
    }
    let ranks: Vec<usize> = (0..N_RANKS).filter(|&r| counts[r] > 0).collect();
    let add = |out: &mut Vec<Play>, kind: Kind, key: usize, units: usize| {
        out.push(Play {
            kind,
            key,
            units,
            counts: *counts,
            mask: 0,
        })
    };
    if n == 1 {
        add(&mut out, Kind::Single, ranks[0], 1);
    }
    if n == 2 && counts[BJ_RANK] > 0 && counts[RJ_RANK] > 0 {
        add(&mut out, Kind::Rocket, RJ_RANK, 1);
    }
    if ranks.len() == 1 && (2..=4).contains(&n) {
        let kind = [Kind::Pair, Kind::Triple, Kind::Bomb][n - 2];
        add(&mut out, kind, ranks[0], 1);
    }
    let first_width = counts[ranks[0]];
    if ranks.iter().all(|&r| counts[r] == first_width) {
        let width = first_width;
        let consecutive = ranks[ranks.len() - 1] - ranks[0] + 1 == ranks.len();
        let kind = match width {
            1 => Some(Kind::Straight),
            2 => Some(Kind::PairChain),
            3 => Some(Kind::Airplane),
            _ => None,
        };
        if let (Some(kind), true) = (kind, consecutive) {
            let (lo, hi) = kind.chain_units().unwrap_or((0, 0));
            let len = ranks.len();
            if ranks[len - 1] > ACE_RANK && len >= 2 {
                if let Some(w) = why.as_mut() {
                    if width > 1 || len >= 5 {
                        w.push("2s and jokers never in a sequence (3 … A)".to_owned());
                    }
                }
            } else if (lo..=hi).contains(&len) {
                add(&mut out, kind, ranks[len - 1], len);
            } else if len >= 2 {
                if let Some(w) = why.as_mut() {
                    w.push(format!("{} needs {lo} to {hi} of its units", kind.spaced()));
                }
            }
        }
    }
    for (pairs, per) in [(false, 1usize), (true, 2usize)] {
        if !n.is_multiple_of(3 + per) {
            continue;
        }
        let k = n / (3 + per);
        if k == 1 {
            for &t in &ranks {
                if counts[t] >= 3 && t <= TWO_RANK {
                    let mut rest = *counts;
                    rest[t] -= 3;
                    if attachments(&rest, t..t + 1, 1, pairs, &mut why) {
                        let kind = if pairs {
                            Kind::TriplePair
                        } else {
                            Kind::TripleSingle
                        };
                        add(&mut out, kind, t, 1);
                    }
                }
            }
        } else if k <= 6 {
            for lo in 0..(ACE_RANK + 2).saturating_sub(k) {
                let main = lo..lo + k;
                if main.clone().all(|r| counts[r] >= 3) {
                    let mut rest = *counts;
                    for r in main.clone() {
                        rest[r] -= 3;
                    }
                    if attachments(&rest, main, k, pairs, &mut why) {
                        let kind = if pairs {
                            Kind::AirplanePairs
                        } else {
                            Kind::AirplaneSingles
                        };
                        add(&mut out, kind, lo + k - 1, k);
                    }
                }
            }
        }
    }
    if n == 6 || n == 8 {
        for &f in &ranks {
            if counts[f] == 4 {
                if !four_with_two {
                    if let Some(w) = why.as_mut() {
                        w.push("four + two is off (four_with_two = false)".to_owned());
                    }
                    continue;
                }
                let mut rest = *counts;
                rest[f] = 0;
                if attachments(&rest, f..f + 1, 2, n == 8, &mut why) {
                    let kind = if n == 8 {
                        Kind::FourTwoPairs
                    } else {
                        Kind::FourTwoSingles
                    };
                    add(&mut out, kind, f, 1);
                }
            }
        }
    }
    out.sort_by_key(|p| {
        (
            std::cmp::Reverse(p.kind.width() * p.units),
            std::cmp::Reverse(p.key),
        )
    });
    out
}

/// Every combination a rank multiset is, preferred reading first (empty: not a play).
pub fn readings(counts: &Counts, four_with_two: bool) -> Vec<Play> {
    compute(counts, four_with_two, None)
}

/// What some cards are, or why they are not a combination (`explain`).
pub fn explain(counts: &Counts, four_with_two: bool) -> String {
    let mut why: Vec<String> = Vec::new();
    let found = compute(counts, four_with_two, Some(&mut why));
    let shown = format_ranks(counts);
    if !found.is_empty() {
        let parts: Vec<String> = found
            .iter()
            .map(|p| {
                let mut s = format!("{}: {} of {}", p.text(), p.kind.spaced(), rank_text(p.key));
                if p.units > 1 {
                    s.push_str(&format!(" ({} long)", p.units));
                }
                s
            })
            .collect();
        return parts.join("; ");
    }
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    if n == 0 {
        return "no cards is not a combination".to_owned();
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    let reason = match why.first() {
        Some(text) => text.clone(),
        None if max >= 3 && n > 3 => {
            "attachments are one single or one pair per triple, all singles or all pairs".to_owned()
        }
        None => format!("no combination has this shape ({n} cards)"),
    };
    format!("{shown} is not a combination: {reason}")
}

fn kicker_room(counts: &Counts, main: std::ops::Range<usize>, k: usize, pairs: bool) -> bool {
    if pairs {
        return (0..=TWO_RANK)
            .filter(|r| !main.contains(r) && counts[*r] >= 2)
            .count()
            >= k;
    }
    let room: usize = (0..=TWO_RANK)
        .filter(|r| !main.contains(r))
        .map(|r| (counts[r] as usize).min(3))
        .sum();
    room + ((counts[BJ_RANK] + counts[RJ_RANK]) as usize).min(1) >= k
}

/// Whether a hand's rank counts hold any play that beats `top` (`can_beat_counts`).
pub fn can_beat_counts(counts: &Counts, top: &Play) -> bool {
    let kind = top.kind;
    if kind == Kind::Rocket {
        return false;
    }
    if counts[BJ_RANK] > 0 && counts[RJ_RANK] > 0 {
        return true;
    }
    let key = top.key;
    if kind == Kind::Bomb {
        return counts[key + 1..=TWO_RANK].contains(&4);
    }
    if counts[..=TWO_RANK].contains(&4) {
        return true;
    }
    if kind == Kind::Single {
        return counts[key + 1..].iter().any(|&c| c > 0);
    }
    let units = top.units;
    let width = kind.width();
    if kind == Kind::Pair || kind == Kind::Triple {
        return counts[key + 1..=TWO_RANK]
            .iter()
            .any(|&c| c as usize >= width);
    }
    let (hi_limit, extra) = if kind.chain_units().is_some() {
        let extra = match kind {
            Kind::AirplaneSingles => Some((units, false)),
            Kind::AirplanePairs => Some((units, true)),
            _ => None,
        };
        (ACE_RANK, extra)
    } else {
        let extra = match kind {
            Kind::TripleSingle => (1, false),
            Kind::TriplePair => (1, true),
            Kind::FourTwoSingles => (2, false),
            _ => (2, true),
        };
        (TWO_RANK, Some(extra))
    };
    for hi in key + 1..=hi_limit {
        let main = hi + 1 - units..hi + 1;
        if width == 4 {
            if counts[hi] != 4 {
                continue;
            }
        } else if main.clone().any(|r| (counts[r] as usize) < width) {
            continue;
        }
        match extra {
            None => return true,
            Some((k, pairs)) => {
                if kicker_room(counts, main, k, pairs) {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_in_declaration_order() {
        // the bindings index each kind's Python member by its discriminant
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(*k as usize, i);
            assert_eq!(Kind::parse(k.as_str()), Some(*k));
        }
    }
}
