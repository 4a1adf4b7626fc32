//! The Dou Dizhu bots, as `pipeline/sim/ddz_bots.py`: random, greedy and heuristic, bidding
//! included. A bot is offered the engine's legal bids (`legal_bids`) or legal plays
//! (`super::moves::plays_from`, in Python's order) and picks one; ties go to the first, as
//! Python's `min` takes them.

use super::cards::{counts_of, Counts, ACE_RANK, BJ_RANK, N_RANKS, RJ_RANK, TWO_RANK};
use super::combos::{Kind, Play};
use super::rules::{Bidding, MAX_BID};
use super::state::{Action, ActionType, Game, Phase};
use crate::pyrand::PyRandom;
use crate::sim::first_min;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DdzBotKind {
    Random,
    Greedy,
    Heuristic,
}

impl DdzBotKind {
    /// A bot by its name (`DdzBotName`); None for one the core does not play.
    pub fn parse(name: &str) -> Option<DdzBotKind> {
        Some(match name {
            "random" => DdzBotKind::Random,
            "greedy" => DdzBotKind::Greedy,
            "heuristic" => DdzBotKind::Heuristic,
            _ => return None,
        })
    }
}

/// A play-phase decision (`DdzTurn`): the game, the seat, the legal plays, whether it may pass.
pub struct Turn<'t, 'g> {
    pub game: &'t Game<'g>,
    pub seat: usize,
    pub plays: &'t [Play],
    pub can_pass: bool,
}

impl Turn<'_, '_> {
    fn leading(&self) -> bool {
        self.game.top.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Pass,
    Play(Play),
}

fn auction_action(seat: usize, kind: ActionType, value: i64) -> Action {
    Action {
        seat,
        kind,
        cards: 0,
        value,
        named: None,
    }
}

/// The auction actions the engine accepts now, the pass (0 / `no_call`) first (`legal_bids`).
pub fn legal_bids(game: &Game) -> Vec<Action> {
    let Some(seat) = game.turn else {
        return Vec::new();
    };
    if game.phase != Phase::Auction {
        return Vec::new();
    }
    let candidates: Vec<Action> = if game.rs.bidding == Bidding::Call {
        vec![
            auction_action(seat, ActionType::NoCall, 0),
            auction_action(seat, ActionType::Call, 0),
        ]
    } else {
        (0..=MAX_BID)
            .map(|v| auction_action(seat, ActionType::Bid, v))
            .collect()
    };
    candidates.into_iter().filter(|a| game.can(a)).collect()
}

/// Whether rank `r` lies in 5 consecutive present ranks of 3 … A (`_in_run`).
fn in_run(counts: &Counts, r: usize) -> bool {
    let mut lo = r;
    while lo > 0 && counts[lo - 1] > 0 {
        lo -= 1;
    }
    let mut hi = r;
    while hi < ACE_RANK && counts[hi + 1] > 0 {
        hi += 1;
    }
    hi - lo + 1 >= 5
}

/// The heuristic's bidding score of a hand's rank counts (`hand_strength`).
pub fn hand_strength(counts: &Counts) -> f64 {
    let c = |r: usize| f64::from(counts[r]);
    let mut s = 0.0;
    if counts[BJ_RANK] > 0 && counts[RJ_RANK] > 0 {
        s += 8.0;
    } else {
        s += 3.0 * c(BJ_RANK) + 4.0 * c(RJ_RANK);
    }
    let bombs = (0..=TWO_RANK).filter(|&r| counts[r] == 4).count();
    s += 6.0 * bombs as f64;
    s += if counts[TWO_RANK] < 4 {
        2.0 * c(TWO_RANK)
    } else {
        0.0
    };
    s += if counts[ACE_RANK] < 4 {
        0.5 * c(ACE_RANK)
    } else {
        0.0
    };
    for r in 0..ACE_RANK - 3 {
        if counts[r] == 1 && !in_run(counts, r) {
            s -= 0.5;
        }
    }
    s
}

/// A quick count of the plays a hand still needs (`hand_units`).
pub fn hand_units(counts: &Counts) -> i32 {
    let mut c = *counts;
    let mut units = 0;
    let mut r = 0;
    while r <= ACE_RANK {
        if c[r] == 1 {
            let mut hi = r;
            while hi < ACE_RANK && matches!(c[hi + 1], 1 | 2) {
                hi += 1;
            }
            if hi - r + 1 >= 5 {
                for x in &mut c[r..=hi] {
                    *x -= 1;
                }
                units += 1;
            }
            r = hi + 1;
        } else {
            r += 1;
        }
    }
    let (mut singles, mut pairs, mut triples) = (0, 0, 0);
    for &n in &c {
        match n {
            1 => singles += 1,
            2 => pairs += 1,
            3 => triples += 1,
            4 => units += 1,
            _ => {}
        }
    }
    if c[BJ_RANK] > 0 && c[RJ_RANK] > 0 {
        singles -= 1; // the rocket: one play for two ranks
    }
    let carried = triples.min(singles + pairs);
    units + singles + pairs + triples - carried
}

/// The highest legal bid (or call) worth at most `want`; the pass when none is (`bid_up_to`).
fn bid_up_to(bids: &[Action], want: i64) -> Action {
    let mut best = bids[0];
    for a in bids {
        let worth = match a.kind {
            ActionType::Bid => a.value,
            ActionType::Call => 1,
            _ => 0,
        };
        if worth <= want {
            best = *a;
        }
    }
    best
}

/// Bids by strength (heuristic): 3 from 7, 2 from 5, 1 from 3; calls (叫地主) from 5.
const BID_THRESHOLDS: [(f64, i64); 3] = [(7.0, 3), (5.0, 2), (3.0, 1)];
const CALL_THRESHOLD: f64 = 5.0;

fn seat_counts(game: &Game, seat: usize) -> Counts {
    counts_of(game.hands.as_ref().map_or(0, |h| h[seat]))
}

impl DdzBotKind {
    /// One of `bids` (the engine's legal auction actions, the pass first).
    pub fn bid(self, game: &Game, bids: &[Action], rng: &mut PyRandom) -> Action {
        match self {
            DdzBotKind::Random => bids[rng.randbelow(bids.len())],
            DdzBotKind::Greedy => {
                let c = seat_counts(game, bids[0].seat);
                let big = c[TWO_RANK] + c[BJ_RANK] + c[RJ_RANK];
                if big < 2 || bids.len() < 2 {
                    bids[0]
                } else {
                    bids[1]
                }
            }
            DdzBotKind::Heuristic => {
                let s = hand_strength(&seat_counts(game, bids[0].seat));
                if game.rs.bidding == Bidding::Call {
                    return bid_up_to(bids, i64::from(s >= CALL_THRESHOLD));
                }
                let want = BID_THRESHOLDS
                    .iter()
                    .find(|(t, _)| s >= *t)
                    .map_or(0, |&(_, b)| b);
                bid_up_to(bids, want)
            }
        }
    }

    /// A play of `t.plays` or, when allowed, the pass.
    pub fn choose(self, t: &Turn, rng: &mut PyRandom) -> Choice {
        match self {
            DdzBotKind::Random => {
                let i = rng.randbelow(t.plays.len() + usize::from(t.can_pass));
                t.plays.get(i).map_or(Choice::Pass, |p| Choice::Play(*p))
            }
            DdzBotKind::Greedy => greedy_choose(t),
            DdzBotKind::Heuristic => heuristic_choose(t),
        }
    }
}

fn greedy_choose(t: &Turn) -> Choice {
    if t.plays.is_empty() {
        return Choice::Pass;
    }
    if t.leading() {
        let lowest = |p: &Play| (p.counts.iter().position(|&n| n > 0), p.size());
        return Choice::Play(first_min(t.plays, lowest));
    }
    Choice::Play(first_min(t.plays, |p| (p.is_bomb(), p.key, p.size())))
}

fn heuristic_choose(t: &Turn) -> Choice {
    let (game, seat, plays) = (t.game, t.seat, t.plays);
    if plays.is_empty() {
        return Choice::Pass;
    }
    let landlord = game.landlord;
    let counts = game
        .rank_counts
        .as_ref()
        .map_or([0; N_RANKS], |rc| rc[seat]);
    let size: u32 = counts.iter().map(|&c| u32::from(c)).sum();
    let is_landlord = Some(seat) == landlord;
    let danger = (0..game.n)
        .filter(|&s| (Some(s) == landlord) != is_landlord)
        .map(|s| game.counts[s])
        .min()
        .unwrap_or(0);
    if let Some(p) = plays.iter().find(|p| p.size() == size) {
        return Choice::Play(*p); // going out wins at once
    }
    let leading = t.leading();
    if !leading && game.top_seat.is_some() && game.top_seat != landlord && !is_landlord {
        return Choice::Pass; // the partner is on top
    }
    let now = f64::from(hand_units(&counts));
    let cost = |p: &Play| -> f64 {
        let mut rest = counts;
        for (r, &d) in rest.iter_mut().zip(p.counts.iter()) {
            *r -= d;
        }
        let mut c = f64::from(hand_units(&rest));
        let key = p.key as f64;
        if p.is_bomb() && c > 1.0 && danger > 3 {
            c += 4.0; // keep bombs for when they matter
        }
        if leading {
            if danger <= 2 && p.size() == danger && matches!(p.kind, Kind::Single | Kind::Pair) {
                c += 6.0 - key / 4.0; // the opponent could go out on it: only high ones
            }
            c += key / 16.0 - f64::from(p.size()) / 8.0; // low first, long first
        } else {
            c += key / 16.0;
        }
        c
    };
    let best = first_min(plays, cost);
    if leading || danger <= 2 {
        return Choice::Play(best);
    }
    if cost(&best) - best.key as f64 / 16.0 > now + 1.0 && danger > 4 {
        return Choice::Pass; // it would break the hand and nobody is close: keep it
    }
    if best.is_bomb() && danger > 3 && cost(&best) > 1.0 {
        return Choice::Pass;
    }
    Choice::Play(best)
}

#[cfg(test)]
mod tests {
    use super::super::cards::fast_mask;
    use super::*;

    fn counts(text: &str) -> Counts {
        counts_of(fast_mask(text).unwrap())
    }

    #[test]
    fn strength_and_units_as_python() {
        // the doctests of pipeline/sim/ddz_bots.py
        let strong = counts("BJ RJ 2d 2c 2h 2s Ad 3d 3c 5d 5c 7d 7c 9d 9c Jd Jc");
        assert_eq!(hand_strength(&strong), 14.5);
        let loose = counts("3d 5d 7d 9d Jd Jc Qd Qc Kd Kc 6d 6c 10d 10c Ad Ac 2d");
        assert_eq!(hand_strength(&loose), 1.5);
        assert_eq!(hand_units(&counts("3d 4d 5d 6d 7d 9d 9c 9h Kd")), 2);
        assert_eq!(hand_units(&counts("BJ RJ")), 1);
        assert_eq!(hand_units(&counts("")), 0);
    }
}
