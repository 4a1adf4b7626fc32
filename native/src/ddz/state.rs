//! The Dou Dizhu state machine, as `pipeline/doudizhu/state.py`: the deal's checks, the
//! auction, the kitty, play, and the score; `do` verifies an action (the same `E_DDZ_*` codes
//! and messages), applies it and returns its record.

use super::cards::{counts_of, format_cards, Counts};
use super::combos::{can_beat_counts, explain, readings, Kind, Play};
use super::rules::{Bidding, DdzRules, Num, KITTY_SIZE, MAX_BID};
use crate::state::CardsLeft;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionType {
    Bid,
    Call,
    NoCall,
    Play,
    Pass,
}

impl ActionType {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionType::Bid => "bid",
            ActionType::Call => "call",
            ActionType::NoCall => "no_call",
            ActionType::Play => "play",
            ActionType::Pass => "pass",
        }
    }
    pub fn parse(text: &str) -> Option<ActionType> {
        Some(match text {
            "bid" => ActionType::Bid,
            "call" => ActionType::Call,
            "no_call" => ActionType::NoCall,
            "play" => ActionType::Play,
            "pass" => ActionType::Pass,
            _ => return None,
        })
    }
    fn is_auction(self) -> bool {
        matches!(
            self,
            ActionType::Bid | ActionType::Call | ActionType::NoCall
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Auction,
    Play,
    Over,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Auction => "auction",
            Phase::Play => "play",
            Phase::Over => "over",
        }
    }
}

/// An action as a log states it (`Action`).
#[derive(Debug, Clone, Copy)]
pub struct Action {
    pub seat: usize,
    pub kind: ActionType,
    pub cards: u64,
    pub value: i64,
    pub named: Option<Kind>,
}

/// One applied action and the engine's facts about it (`ActionRecord`, its field order).
#[derive(Debug, Clone)]
pub struct ActionRecord {
    pub action_index: usize,
    pub seat: usize,
    pub kind: ActionType,
    pub phase: Phase,
    pub bid: Option<i64>,
    pub cards: u64,
    pub play_kind: Option<Kind>,
    pub key: Option<usize>,
    pub units: Option<usize>,
    pub round: u32,
    pub is_lead: bool,
    pub top_before: u64,
    pub top_kind: Option<Kind>,
    pub top_seat: Option<usize>,
    /// Each seat's cards left after the action (a byte a seat, in place: no heap vector
    /// per action).
    pub cards_left: CardsLeft,
    pub hand_before: Option<u64>,
    pub beating_play_existed: Option<bool>,
    pub ends_round: bool,
    pub ends_auction: bool,
    pub landlord: Option<usize>,
    pub multiplier: i64,
    pub wins_game: bool,
    /// `("hand",)` with partial information, else `()`.
    pub unchecked_hand: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GameResult {
    /// `played_out` or `redeal`.
    pub outcome: &'static str,
    pub landlord: Option<usize>,
    pub base: i64,
    pub winner: Option<usize>,
    pub landlord_won: Option<bool>,
    pub bombs: i64,
    pub rockets: i64,
    /// `spring`, `anti_spring` or None.
    pub spring: Option<&'static str>,
    pub multiplier: i64,
    pub amount: Num,
    pub scores: Vec<Num>,
}

/// A rule broken: the code and the message (without the `(where)` suffix for a deal error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub code: &'static str,
    pub message: String,
}

fn broken(code: &'static str, message: String) -> Broken {
    Broken { code, message }
}

pub struct Game<'r> {
    pub(crate) rs: &'r DdzRules,
    pub(crate) n: usize,
    known: bool,
    pub(crate) hands: Option<Vec<u64>>,
    kitty: Option<u64>,
    pub counts: Vec<u32>,
    pub(crate) rank_counts: Option<Vec<Counts>>,
    pub(crate) turn: Option<usize>,
    pub(crate) phase: Phase,
    pub history: Vec<ActionRecord>,
    pub result: Option<GameResult>,
    /// No records (the simulator's games: the log holds none of their facts).
    pub lean: bool,
    bid: i64,
    bidder: Option<usize>,
    passed: Vec<bool>,
    passes_in_row: usize,
    pub(crate) landlord: Option<usize>,
    round: u32,
    pub(crate) top: Option<Play>,
    pub(crate) top_seat: Option<usize>,
    passes: usize,
    bombs: i64,
    rockets: i64,
    plays_by_seat: Vec<u32>,
}

impl<'r> Game<'r> {
    /// A game from a deal (or none); the deal's errors as `DealError` words them.
    pub fn new(
        rs: &'r DdzRules,
        hands: Option<&[u64]>,
        kitty: Option<u64>,
        set_aside: Option<u64>,
        first_bidder: Option<usize>,
        face_up_card: Option<u32>,
    ) -> Result<Game<'r>, Broken> {
        let n = rs.players;
        let hands = match hands {
            None => None,
            Some(h) => Some(check_deal(rs, h, kitty, set_aside)?),
        };
        let mut first = first_bidder;
        if let (Some(card), Some(hs)) = (face_up_card, hands.as_ref()) {
            let shown = format_cards(1 << card);
            let Some(holder) = (0..n).find(|&s| hs[s] >> card & 1 == 1) else {
                return Err(broken(
                    "E_DDZ_FACE_UP",
                    format!("the face-up card {shown} is in no hand"),
                ));
            };
            if let Some(fb) = first_bidder {
                if fb != holder {
                    return Err(broken(
                        "E_DDZ_FACE_UP",
                        format!(
                            "seat {fb} bids first but seat {holder} holds the face-up card {shown}"
                        ),
                    ));
                }
            }
            first = Some(holder);
        }
        let rank_counts = hands
            .as_ref()
            .map(|hs| hs.iter().map(|&h| counts_of(h)).collect());
        Ok(Game {
            rs,
            n,
            known: hands.is_some(),
            hands,
            kitty,
            counts: vec![rs.hand_size; n],
            rank_counts,
            turn: first,
            phase: Phase::Auction,
            history: Vec::with_capacity(64),
            result: None,
            lean: false,
            bid: 0,
            bidder: None,
            passed: vec![false; n],
            passes_in_row: 0,
            landlord: None,
            round: 0,
            top: None,
            top_seat: None,
            passes: 0,
            bombs: 0,
            rockets: 0,
            plays_by_seat: vec![0; n],
        })
    }

    fn err(&self, code: &'static str, message: String) -> Broken {
        let place = if self.phase == Phase::Auction {
            "auction".to_owned()
        } else {
            format!("round {}", self.round)
        };
        broken(code, format!("{message} ({place})"))
    }

    fn verify(&self, a: &Action) -> Result<Option<Play>, Broken> {
        let seat = a.seat;
        if self.result.is_some() {
            return Err(self.err(
                "E_DDZ_GAME_OVER",
                format!("seat {seat} acted after the game ended"),
            ));
        }
        if seat >= self.n {
            return Err(self.err(
                "E_DDZ_OUT_OF_TURN",
                format!("seat {seat} is not at this table"),
            ));
        }
        if let Some(turn) = self.turn {
            if seat != turn {
                return Err(self.err(
                    "E_DDZ_OUT_OF_TURN",
                    format!(
                        "seat {seat} acted ({}) but it is seat {turn}'s turn",
                        a.kind.as_str()
                    ),
                ));
            }
        }
        let auction = a.kind.is_auction();
        if auction != (self.phase == Phase::Auction) {
            return Err(self.err(
                "E_DDZ_PHASE",
                format!(
                    "seat {seat}: a {} during the {}",
                    a.kind.as_str(),
                    self.phase.as_str()
                ),
            ));
        }
        if auction {
            self.verify_bid(a)?;
            return Ok(None);
        }
        if a.kind == ActionType::Pass {
            if self.top.is_none() {
                return Err(self.err(
                    "E_DDZ_PASS_ON_LEAD",
                    format!("seat {seat} passed on the lead"),
                ));
            }
            return Ok(None);
        }
        self.verify_play(a).map(Some)
    }

    fn verify_bid(&self, a: &Action) -> Result<(), Broken> {
        let seat = a.seat;
        if self.rs.bidding == Bidding::Call {
            if a.kind == ActionType::Bid {
                return Err(self.err(
                    "E_DDZ_AUCTION",
                    format!(
                        "seat {seat} bid {} in a 叫地主 auction (call or no_call)",
                        a.value
                    ),
                ));
            }
            return Ok(());
        }
        if a.kind != ActionType::Bid {
            return Err(self.err(
                "E_DDZ_AUCTION",
                format!(
                    "seat {seat}: {} in a 叫分 auction (bid 0-3)",
                    a.kind.as_str()
                ),
            ));
        }
        if !(0..=MAX_BID).contains(&a.value) {
            return Err(self.err(
                "E_DDZ_BID_VALUE",
                format!("seat {seat} bid {}: bids are 0 (pass) to 3", a.value),
            ));
        }
        if a.value != 0 && a.value <= self.bid {
            let bidder = self.bidder.map_or("None".to_owned(), |b| b.to_string());
            return Err(self.err(
                "E_DDZ_BID_NOT_HIGHER",
                format!(
                    "seat {seat} bid {} after seat {bidder} bid {}",
                    a.value, self.bid
                ),
            ));
        }
        Ok(())
    }

    fn verify_play(&self, a: &Action) -> Result<Play, Broken> {
        let (seat, cards) = (a.seat, a.cards);
        if cards == 0 {
            return Err(self.err("E_DDZ_NOT_A_COMBO", format!("seat {seat} played no cards")));
        }
        if let Some(hands) = &self.hands {
            let missing = cards & !hands[seat];
            if missing != 0 {
                return Err(self.err(
                    "E_DDZ_NOT_IN_HAND",
                    format!(
                        "seat {seat} played {}: {} not in hand {}",
                        format_cards(cards),
                        format_cards(missing),
                        format_cards(hands[seat])
                    ),
                ));
            }
        } else if cards.count_ones() > self.counts[seat] {
            return Err(self.err(
                "E_DDZ_NOT_IN_HAND",
                format!(
                    "seat {seat} played {} cards ({}) holding {}",
                    cards.count_ones(),
                    format_cards(cards),
                    self.counts[seat]
                ),
            ));
        }
        let fwt = self.rs.four_with_two;
        let counts = counts_of(cards);
        let found = readings(&counts, fwt);
        if found.is_empty() {
            return Err(self.err(
                "E_DDZ_NOT_A_COMBO",
                format!("seat {seat}: {}", explain(&counts, fwt)),
            ));
        }
        if let Some(named) = a.named {
            if found.iter().all(|p| p.kind != named) {
                return Err(self.err(
                    "E_DDZ_KIND_NAMED",
                    format!(
                        "seat {seat} named {} for {}",
                        named.as_str(),
                        explain(&counts, fwt)
                    ),
                ));
            }
        }
        if let Some(p) = self.first_reading(&found, cards, a.named) {
            return Ok(p);
        }
        let Some(top) = self.top else {
            unreachable!("a lead always has a reading")
        };
        let same = found.iter().find(|p| {
            (p.kind == top.kind && p.units == top.units) || (p.is_bomb() && top.is_bomb())
        });
        if let Some(p) = same {
            return Err(self.err(
                "E_DDZ_NOT_HIGHER",
                format!("seat {seat} played {} on {}", p.text(), top.text()),
            ));
        }
        let first = &found[0];
        Err(self.err(
            "E_DDZ_WRONG_KIND",
            format!(
                "seat {seat} played {} ({}) on {} ({}, {} cards): same kind and length, or a bomb",
                first.text(),
                first.kind.as_str(),
                top.text(),
                top.kind.as_str(),
                top.size()
            ),
        ))
    }

    /// The reading the engine gives `cards` among `found` (their readings, preferred first):
    /// the first of the named kind, if any, that beats the table.
    fn first_reading(&self, found: &[Play], cards: u64, named: Option<Kind>) -> Option<Play> {
        let top = self.top;
        found
            .iter()
            .find(|p| named.is_none_or(|k| p.kind == k) && top.is_none_or(|t| p.beats(&t)))
            .map(|p| Play { mask: cards, ..*p })
    }

    /// The reading `verify` gives a legal play of `cards` (no kind named): what `commit` takes.
    pub fn reading(&self, cards: u64) -> Option<Play> {
        let found = readings(&counts_of(cards), self.rs.four_with_two);
        self.first_reading(&found, cards, None)
    }

    /// Whether `a` is legal now (`can`).
    pub fn can(&self, a: &Action) -> bool {
        self.verify(a).is_ok()
    }

    /// Verify and apply one action.
    pub fn act(&mut self, a: &Action) -> Result<(), Broken> {
        let play = self.verify(a)?;
        self.commit(a, play);
        Ok(())
    }

    /// Apply an action already known legal (`play`: its reading, as `verify` or `reading`
    /// gives it): the simulator's bots choose among the legal actions, so nothing is checked
    /// again.
    pub fn commit(&mut self, a: &Action, play: Option<Play>) {
        if self.phase == Phase::Auction {
            self.do_bid(a);
        } else {
            self.do_play(a, play);
        }
    }

    fn next_seat(&self, seat: usize) -> usize {
        (seat + 1) % self.n
    }

    fn do_bid(&mut self, a: &Action) {
        let seat = a.seat;
        let mut ends = false;
        let mut void = false;
        let value;
        if self.rs.bidding == Bidding::Call {
            value = i64::from(a.kind == ActionType::Call);
            if value != 0 {
                self.bid = 1;
                self.bidder = Some(seat);
                ends = true;
            } else {
                self.passed[seat] = true;
                void = self.passed.iter().all(|&p| p);
            }
        } else {
            value = a.value;
            if value != 0 {
                self.bid = value;
                self.bidder = Some(seat);
                self.passes_in_row = 0;
                ends = value == MAX_BID;
            } else {
                self.passed[seat] = true;
                self.passes_in_row += 1;
                match self.bidder {
                    None => void = self.passes_in_row == self.n,
                    Some(_) if self.rs.bid_reentry => ends = self.passes_in_row == self.n - 1,
                    Some(b) => ends = (0..self.n).filter(|&s| s != b).all(|s| self.passed[s]),
                }
            }
        }
        let hand_before = self.hands.as_ref().map(|h| h[seat]);
        if ends {
            let landlord = self.bidder.unwrap_or(seat);
            self.landlord = Some(landlord);
            if let (Some(hands), Some(kitty)) = (self.hands.as_mut(), self.kitty) {
                hands[landlord] |= kitty;
                self.rank_counts = Some(hands.iter().map(|&h| counts_of(h)).collect());
            }
            self.counts[landlord] += KITTY_SIZE;
            self.phase = Phase::Play;
            self.round = 1;
            self.turn = Some(landlord);
        } else if void {
            self.phase = Phase::Over;
            self.turn = None;
        } else {
            let mut nxt = self.next_seat(seat);
            if self.rs.bidding == Bidding::Points && !self.rs.bid_reentry {
                let mut guard = 0;
                while self.passed[nxt] && guard < self.n {
                    nxt = self.next_seat(nxt);
                    guard += 1;
                }
            }
            self.turn = Some(nxt);
        }
        if !self.lean {
            self.push_bid_record(a, value, hand_before, ends || void);
        }
        if void {
            self.result = Some(GameResult {
                outcome: "redeal",
                landlord: None,
                base: 0,
                winner: None,
                landlord_won: None,
                bombs: 0,
                rockets: 0,
                spring: None,
                multiplier: 1,
                amount: Num::Int(0),
                scores: vec![Num::Int(0); self.n],
            });
        }
    }

    fn push_bid_record(&mut self, a: &Action, value: i64, hand_before: Option<u64>, ends: bool) {
        self.history.push(ActionRecord {
            action_index: self.history.len(),
            seat: a.seat,
            kind: a.kind,
            phase: Phase::Auction,
            bid: Some(value),
            cards: 0,
            play_kind: None,
            key: None,
            units: None,
            round: 0,
            is_lead: false,
            top_before: 0,
            top_kind: None,
            top_seat: None,
            cards_left: CardsLeft::of(&self.counts),
            hand_before,
            beating_play_existed: None,
            ends_round: false,
            ends_auction: ends,
            landlord: self.landlord,
            multiplier: 1,
            wins_game: false,
            unchecked_hand: !self.known,
        });
    }

    fn do_play(&mut self, a: &Action, play: Option<Play>) {
        let seat = a.seat;
        let (top, top_seat) = (self.top, self.top_seat);
        let hand_before = self.hands.as_ref().map(|h| h[seat]);
        let beat = match (&top, &self.rank_counts, self.lean) {
            (Some(t), Some(rc), false) => Some(can_beat_counts(&rc[seat], t)),
            _ => None,
        };
        let mut ends_round = false;
        let mut wins = false;
        if let Some(p) = play {
            if let (Some(hands), Some(rc)) = (self.hands.as_mut(), self.rank_counts.as_mut()) {
                hands[seat] &= !p.mask;
                for (have, &c) in rc[seat].iter_mut().zip(p.counts.iter()) {
                    *have -= c;
                }
            }
            self.counts[seat] -= p.size();
            self.plays_by_seat[seat] += 1;
            match p.kind {
                Kind::Bomb => self.bombs += 1,
                Kind::Rocket => self.rockets += 1,
                _ => {}
            }
            self.top = Some(p);
            self.top_seat = Some(seat);
            self.passes = 0;
            wins = self.counts[seat] == 0;
            self.turn = Some(self.next_seat(seat));
        } else {
            self.passes += 1;
            if self.passes == self.n - 1 {
                ends_round = true;
                self.top = None;
                self.passes = 0;
                self.turn = top_seat;
            } else {
                self.turn = Some(self.next_seat(seat));
            }
        }
        if !self.lean {
            self.history.push(ActionRecord {
                action_index: self.history.len(),
                seat,
                kind: a.kind,
                phase: Phase::Play,
                bid: None,
                cards: play.map_or(0, |p| p.mask),
                play_kind: play.map(|p| p.kind),
                key: play.map(|p| p.key),
                units: play.map(|p| p.units),
                round: self.round,
                is_lead: top.is_none(),
                top_before: top.map_or(0, |t| t.mask),
                top_kind: top.map(|t| t.kind),
                top_seat,
                cards_left: CardsLeft::of(&self.counts),
                hand_before,
                beating_play_existed: beat,
                ends_round: ends_round || wins,
                ends_auction: false,
                landlord: self.landlord,
                multiplier: 1 << (self.bombs + self.rockets),
                wins_game: wins,
                unchecked_hand: !self.known,
            });
        }
        if ends_round {
            self.round += 1;
        }
        if wins {
            self.finish(seat);
        }
    }

    fn finish(&mut self, winner: usize) {
        let Some(landlord) = self.landlord else {
            return;
        };
        let landlord_won = winner == landlord;
        let total: u32 = self.plays_by_seat.iter().sum();
        let farmer_plays = total - self.plays_by_seat[landlord];
        let spring = if landlord_won && farmer_plays == 0 {
            Some("spring")
        } else if !landlord_won && self.plays_by_seat[landlord] == 1 {
            Some("anti_spring")
        } else {
            None
        };
        let rs = self.rs;
        let mut raw: i64 = 1 << (self.bombs + self.rockets);
        if spring.is_some() && rs.spring_doubles {
            raw *= 2;
        }
        let mult = rs.capped(raw);
        // base × stake × mult, left to right as Python computes it
        let amount = match rs.stake {
            Num::Int(s) => Num::Int(self.bid * s * mult),
            Num::Float(s) => Num::Float(self.bid as f64 * s * mult as f64),
        };
        let sign: i64 = if landlord_won { 1 } else { -1 };
        let n = self.n as i64;
        let scores = (0..self.n)
            .map(|s| {
                if s == landlord {
                    amount_times(sign, amount).mul_int(n - 1)
                } else {
                    amount_times(-sign, amount)
                }
            })
            .collect();
        self.phase = Phase::Over;
        self.turn = None;
        self.result = Some(GameResult {
            outcome: "played_out",
            landlord: Some(landlord),
            base: self.bid,
            winner: Some(winner),
            landlord_won: Some(landlord_won),
            bombs: self.bombs,
            rockets: self.rockets,
            spring,
            multiplier: mult,
            amount,
            scores,
        });
    }
}

/// `sign * amount` as Python computes it (an int sign times an int or a float).
fn amount_times(sign: i64, amount: Num) -> Num {
    match amount {
        Num::Int(a) => Num::Int(sign * a),
        Num::Float(a) => Num::Float(sign as f64 * a),
    }
}

fn check_deal(
    rs: &DdzRules,
    hands: &[u64],
    kitty: Option<u64>,
    set_aside: Option<u64>,
) -> Result<Vec<u64>, Broken> {
    let n = rs.players;
    if hands.len() != n {
        return Err(broken(
            "E_DDZ_DEAL_COUNT",
            format!("{} hands dealt for {n} players", hands.len()),
        ));
    }
    let mut parts: Vec<(String, u64, u32)> = hands
        .iter()
        .enumerate()
        .map(|(s, &h)| (format!("seat {s}"), h, rs.hand_size))
        .collect();
    if let Some(k) = kitty {
        parts.push(("the kitty".to_owned(), k, KITTY_SIZE));
    }
    if let Some(a) = set_aside {
        parts.push(("the set-aside cards".to_owned(), a, rs.set_aside_size()));
    }
    let mut seen = 0u64;
    for (name, cards, size) in parts {
        if seen & cards != 0 {
            return Err(broken(
                "E_DDZ_DEAL_DUPLICATE",
                format!(
                    "{name} was dealt {}, already dealt elsewhere",
                    format_cards(seen & cards)
                ),
            ));
        }
        seen |= cards;
        if cards.count_ones() != size {
            return Err(broken(
                "E_DDZ_DEAL_COUNT",
                format!(
                    "{name} was dealt {} cards, expected {size}",
                    cards.count_ones()
                ),
            ));
        }
    }
    if kitty.is_some() && set_aside.is_some() && seen != super::cards::FULL_DECK {
        return Err(broken(
            "E_DDZ_DEAL_COUNT",
            format!(
                "cards missing from the deal: {}",
                format_cards(super::cards::FULL_DECK & !seen)
            ),
        ));
    }
    Ok(hands.to_vec())
}
