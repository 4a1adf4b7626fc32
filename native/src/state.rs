//! The game state machine, as `pipeline/big2/state.py` (`Game.verify` / `Game.do`): the same
//! checks in the same order, the same stable codes and message texts, the same facts per action.

use std::borrow::Cow;

use crate::cards::{format_cards, FULL_DECK};
use crate::combos::{
    classify_inline, highest_single, not_a_combination, single_key, ComboRules, Kind, Play,
};
use crate::moves::can_beat;
use crate::rules::{Direction, FirstPlay, MustBlock, Ruleset, SuitOrder, ThreePlayerMode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionType {
    Play,
    Pass,
    Claim,
    Swap,
    Announce,
}

impl ActionType {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionType::Play => "play",
            ActionType::Pass => "pass",
            ActionType::Claim => "claim",
            ActionType::Swap => "swap",
            ActionType::Announce => "announce",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    Dragon,
    FourTwos,
    PointsBelow3,
    NoCardAbove10,
    NoJqk,
}

impl Claim {
    pub fn as_str(self) -> &'static str {
        match self {
            Claim::Dragon => "dragon",
            Claim::FourTwos => "four_twos",
            Claim::PointsBelow3 => "points_below_3",
            Claim::NoCardAbove10 => "no_card_above_10",
            Claim::NoJqk => "no_jqk",
        }
    }

    pub fn parse(text: &str) -> Option<Claim> {
        Some(match text {
            "dragon" => Claim::Dragon,
            "four_twos" => Claim::FourTwos,
            "points_below_3" => Claim::PointsBelow3,
            "no_card_above_10" => Claim::NoCardAbove10,
            "no_jqk" => Claim::NoJqk,
            _ => return None,
        })
    }

    pub fn is_instant_win(self) -> bool {
        matches!(self, Claim::Dragon | Claim::FourTwos)
    }
}

/// Whether a dealt hand supports a claim (`claim_holds`).
pub fn claim_holds(claim: Claim, hand: u64) -> bool {
    let ranks: Vec<u32> = (0..52)
        .filter(|c| hand >> c & 1 == 1)
        .map(|c| c >> 2)
        .collect();
    match claim {
        Claim::Dragon => (0..13).all(|r| ranks.contains(&r)),
        Claim::FourTwos => ranks.iter().filter(|&&r| r == 12).count() == 4,
        Claim::PointsBelow3 => {
            let points: u32 = ranks
                .iter()
                .map(|r| match r {
                    8 => 1,
                    9 => 2,
                    10 => 3,
                    11 => 4,
                    12 => 5,
                    _ => 0,
                })
                .sum();
            points < 3
        }
        Claim::NoCardAbove10 => ranks.iter().all(|&r| r <= 7),
        Claim::NoJqk => !ranks.iter().any(|&r| (8..=10).contains(&r)),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    pub seat: u64,
    pub kind: ActionType,
    pub cards: u64,
    pub claim: Option<Claim>,
    pub drawn: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Obligation {
    Lead,
    Follow,
}

impl Obligation {
    pub fn as_str(self) -> &'static str {
        match self {
            Obligation::Lead => "lead_non_single_or_highest_single",
            Obligation::Follow => "follow_with_highest_single",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Met,
    Violated,
    Unknown,
}

impl Block {
    pub fn as_str(self) -> &'static str {
        match self {
            Block::Met => "met",
            Block::Violated => "violated",
            Block::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastCall {
    Made,
    Missing,
}

impl LastCall {
    pub fn as_str(self) -> &'static str {
        match self {
            LastCall::Made => "made",
            LastCall::Missing => "missing",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    PlayedOut,
    InstantWin,
    Redeal,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::PlayedOut => "played_out",
            Outcome::InstantWin => "instant_win",
            Outcome::Redeal => "redeal",
        }
    }
}

/// What partial information left unchecked (`ActionRecord.unchecked`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unchecked {
    Nothing,
    Hand,
    HandAndLowest,
}

impl Unchecked {
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Unchecked::Nothing => &[],
            Unchecked::Hand => &["hand"],
            Unchecked::HandAndLowest => &["hand", "first_play_lowest"],
        }
    }
}

/// The cards each seat holds after an action (`ActionRecord.cards_left`): inline for a table
/// of up to eight seats (a byte a seat, written as one word: no heap vector per action), on
/// the heap for a larger one (at most 52 seats, a seat holds at most 52 cards).
#[derive(Clone)]
pub struct CardsLeft {
    small: [u8; 8],
    wide: Option<Box<[u8; 52]>>,
    len: u8,
}

impl CardsLeft {
    /// No seats (the simulator's lean records).
    pub const EMPTY: CardsLeft = CardsLeft {
        small: [0; 8],
        wide: None,
        len: 0,
    };

    /// The counts of every seat (each at most 52, at most 52 seats).
    pub fn of(counts: &[u32]) -> CardsLeft {
        if counts.len() <= 8 {
            return CardsLeft::packed(pack(counts), counts.len());
        }
        let mut wide = Box::new([0u8; 52]);
        for (slot, &c) in wide.iter_mut().zip(counts) {
            *slot = c as u8;
        }
        CardsLeft {
            small: [0; 8],
            wide: Some(wide),
            len: counts.len() as u8,
        }
    }

    /// The counts of up to eight seats, a byte a seat, seat 0 the lowest.
    #[inline]
    fn packed(counts: u64, len: usize) -> CardsLeft {
        CardsLeft {
            small: counts.to_le_bytes(),
            wide: None,
            len: len as u8,
        }
    }

    /// The counts of a table of up to eight seats as one word, a byte a seat from the lowest
    /// (the bytes above them zero); None for a larger table.
    #[inline]
    pub fn word(&self) -> Option<u64> {
        self.wide.is_none().then(|| u64::from_le_bytes(self.small))
    }

    pub fn as_slice(&self) -> &[u8] {
        let len = self.len as usize;
        match &self.wide {
            Some(wide) => &wide[..len],
            None => &self.small[..len],
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Up to eight seats' counts as one word, a byte a seat, seat 0 the lowest.
fn pack(counts: &[u32]) -> u64 {
    counts
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |w, (s, &c)| w | u64::from(c as u8) << (8 * s))
}

impl PartialEq for CardsLeft {
    fn eq(&self, other: &CardsLeft) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for CardsLeft {}

impl std::fmt::Debug for CardsLeft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// One applied action and the engine's facts about it (`ActionRecord`, field for field): 88
/// bytes a record (it was 184), written once per action. Seats and cards as bytes (at most
/// 52 of each), the optional masks and the block reason behind methods (`hand_before`,
/// `rank_key`, `block_reason`: the reason's text is printed from the record's facts when
/// asked for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionRecord {
    pub cards: u64,
    pub top_before: u64,
    /// The hand, or `NO_HAND` (the log does not hold it): see `hand_before`.
    hand: u64,
    /// The play's `rank_key` when `play_kind` is some: see `rank_key`.
    order: u64,
    pub cards_left: CardsLeft,
    pub action_index: u32,
    pub trick: u32,
    pub seat: u8,
    pub next_seat: u8,
    pub kind: ActionType,
    pub play_kind: Option<Kind>,
    pub is_lead: bool,
    pub beating_play_existed: Option<bool>,
    pub highest_single: Option<u8>,
    pub next_on_one: bool,
    pub obligation: Option<Obligation>,
    pub block: Option<Block>,
    pub ends_trick: bool,
    pub wins_game: bool,
    pub drawn: Option<u8>,
    pub claim: Option<Claim>,
    pub unchecked: Unchecked,
    pub last_call: Option<LastCall>,
}

/// `ActionRecord::hand`'s value when the log does not hold the hand (a hand is 52 bits).
const NO_HAND: u64 = u64::MAX;

impl ActionRecord {
    /// The acting seat's hand before the action, when the log holds the hands.
    #[inline]
    pub fn hand_before(&self) -> Option<u64> {
        (self.hand != NO_HAND).then_some(self.hand)
    }

    /// The play's `rank_key` (`level << 40 | key`), for a play.
    #[inline]
    pub fn rank_key(&self) -> Option<u64> {
        self.play_kind.map(|_| self.order)
    }

    /// Why the must-block obligation was violated or is unknown (`''` otherwise), as
    /// `obligation` words it: from the record's obligation, block, kind, cards and highest
    /// single (the acting seat's best card, the one a violated obligation names). Inline: a
    /// met or no obligation, most actions', is told without a call.
    #[inline]
    pub fn block_reason(&self) -> Cow<'static, str> {
        if !matches!(self.block, Some(Block::Violated | Block::Unknown)) {
            return Cow::Borrowed("");
        }
        let played = (self.kind == ActionType::Play).then_some(self.cards);
        block_reason(
            self.obligation,
            self.block,
            played,
            self.highest_single.map(u32::from),
        )
    }
}

/// The text of a block reason (`obligation`'s third answer in Python): for a violated
/// obligation the seat's best card `best` and what it played (`None`: it passed).
fn block_reason(
    obligation: Option<Obligation>,
    block: Option<Block>,
    played: Option<u64>,
    best: Option<u32>,
) -> Cow<'static, str> {
    let best = || format_cards(1 << best.unwrap_or(0));
    match (block, obligation) {
        (Some(Block::Violated), Some(Obligation::Lead)) => {
            format!("led a single lower than {}", best()).into()
        }
        (Some(Block::Violated), _) => match played {
            None => format!("passed holding {}", best()).into(),
            Some(cards) => format!("played {} holding {}", format_cards(cards), best()).into(),
        },
        (Some(Block::Unknown), _) => "hand not in the log".into(),
        _ => "".into(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub outcome: Outcome,
    pub winner: Option<usize>,
    pub claim: Option<Claim>,
    pub cards_left: Vec<u32>,
    pub final_hands: Option<Vec<u64>>,
    pub first_leader: Option<usize>,
    pub n_tricks: u32,
    pub bao_seat: Option<usize>,
    pub bao_unknown_seat: Option<usize>,
}

/// A named error: a stable code and the message (`Big2Error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    pub code: &'static str,
    pub message: String,
}

fn err(code: &'static str, message: String) -> EngineError {
    EngineError { code, message }
}

/// The deck as singles, weakest first (built once per suit order).
fn weakest_first(order: SuitOrder) -> [u32; 52] {
    static TABLES: std::sync::OnceLock<[[u32; 52]; 2]> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        [SuitOrder::Hk, SuitOrder::Taiwan].map(|o| {
            let mut cards: [u32; 52] = std::array::from_fn(|c| c as u32);
            cards.sort_by_key(|&c| single_key(c, o));
            cards
        })
    });
    tables[usize::from(order == SuitOrder::Taiwan)]
}

pub struct Game<'a> {
    pub(crate) rs: &'a Ruleset,
    pub(crate) cr: &'a ComboRules,
    pub(crate) n: usize,
    locks_out: bool,
    pub(crate) enforced: bool,
    call_pending: Option<LastCall>,
    pub history: Vec<ActionRecord>,
    /// The simulator's games: records skip the facts a log does not hold
    /// (`beating_play_existed`, `cards_left`), which cost a play search and an allocation.
    pub lean: bool,
    pub result: Option<GameResult>,
    pub(crate) step: usize, // n - 1 for clockwise, 1 for counter-clockwise
    pub(crate) stock: Vec<u32>,
    stock_left: usize,
    pub(crate) played: u64,
    pub(crate) swapped: bool,
    pub(crate) hands: Option<Vec<u64>>,
    pub counts: Vec<u32>,
    /// `counts` of seats 0 to 7 as the records hold them, a byte a seat (kept with `counts`:
    /// no conversion per action; a table of more than eight seats converts `counts`).
    left: u64,
    pub(crate) lowest: Option<u32>,
    pub(crate) lowest_rule: bool,
    pub turn: Option<usize>,
    first_leader: Option<usize>,
    pub(crate) started: bool,
    trick: u32,
    pub(crate) top: Option<Play>,
    pub(crate) top_seat: Option<usize>,
    /// The seats locked out of the trick, a bit a seat (at most 52 seats).
    locked: u64,
    passes: usize,
    /// The seats that called their last card, a bit a seat.
    called: u64,
    pub(crate) call_due: Option<usize>,
}

pub struct Deal<'d> {
    pub hands: Option<&'d [u64]>,
    pub stock: &'d [u32],
    pub start_counts: Option<&'d [u32]>,
    pub game_number: u64,
    pub previous_winner: Option<usize>,
    pub first_leader: Option<usize>,
}

impl<'a> Game<'a> {
    pub fn new(rs: &'a Ruleset, cr: &'a ComboRules, deal: &Deal) -> Result<Game<'a>, EngineError> {
        let n = rs.players;
        let clockwise = rs.direction == Direction::Clockwise
            || (rs.direction == Direction::Alternate && deal.game_number % 2 == 1);
        let stock_left = if rs.players == 3 && rs.three_player_mode == ThreePlayerMode::Stock13 {
            rs.stock_size()
        } else {
            0
        };
        let mut game = Game {
            rs,
            cr,
            n,
            locks_out: rs.pass_locks_out,
            enforced: rs.must_block == MustBlock::Enforced,
            call_pending: if rs.last_card_required {
                Some(LastCall::Missing)
            } else {
                None
            },
            history: Vec::with_capacity(96),
            lean: false,
            result: None,
            step: if clockwise { n - 1 } else { 1 },
            stock: deal.stock.to_vec(),
            stock_left,
            played: 0,
            swapped: false,
            hands: None,
            counts: Vec::new(),
            left: 0,
            lowest: None,
            lowest_rule: false,
            turn: None,
            first_leader: None,
            started: false,
            trick: 1,
            top: None,
            top_seat: None,
            locked: 0,
            passes: 0,
            called: 0,
            call_due: None,
        };
        if let Some(hands) = deal.hands {
            let checked = game.check_deal(hands.to_vec())?;
            game.counts = checked.iter().map(|h| h.count_ones()).collect();
            game.hands = Some(checked);
        } else {
            game.counts = match deal.start_counts {
                Some(c) => c.to_vec(),
                None => game.default_counts()?,
            };
        }
        if game.counts.len() != n {
            return Err(err(
                "E_DEAL_COUNT",
                format!("{} seats for {} players", game.counts.len(), n),
            ));
        }
        game.left = pack(&game.counts);
        game.lowest = game.lowest_card();
        let uses_lowest = deal.previous_winner.is_none() || rs.first_lead_every_game;
        game.lowest_rule = uses_lowest && rs.first_play != FirstPlay::None;
        game.turn = if !uses_lowest {
            deal.previous_winner
        } else if let (Some(hands), Some(low)) = (&game.hands, game.lowest) {
            (0..n).find(|&s| hands[s] >> low & 1 == 1)
        } else {
            deal.first_leader
        };
        game.first_leader = game.turn;
        Ok(game)
    }

    fn default_counts(&self) -> Result<Vec<u32>, EngineError> {
        let rs = self.rs;
        if rs.leftover_to_lowest() && rs.stock_size() > 0 {
            return Err(err(
                "E_PARTIAL_COUNTS",
                format!(
                    "{} players dealt {} each and {} left over, without the deal: give start_counts (who got the leftover)",
                    rs.players,
                    rs.hand_size(),
                    rs.stock_size()
                ),
            ));
        }
        Ok(vec![rs.hand_size() as u32; self.n])
    }

    fn check_deal(&mut self, mut hands: Vec<u64>) -> Result<Vec<u64>, EngineError> {
        let rs = self.rs;
        if hands.len() != self.n {
            return Err(err(
                "E_DEAL_COUNT",
                format!("{} hands dealt for {} players", hands.len(), self.n),
            ));
        }
        let mut seen = 0u64;
        for (seat, &hand) in hands.iter().enumerate() {
            if seen & hand != 0 {
                return Err(err(
                    "E_DEAL_DUPLICATE",
                    format!(
                        "seat {seat} was dealt {}, already dealt to another seat",
                        format_cards(seen & hand)
                    ),
                ));
            }
            seen |= hand;
            if hand.count_ones() as usize != rs.hand_size() {
                return Err(err(
                    "E_DEAL_COUNT",
                    format!(
                        "seat {seat} was dealt {} cards, expected {}",
                        hand.count_ones(),
                        rs.hand_size()
                    ),
                ));
            }
        }
        let mut stock_mask = 0u64;
        for &c in &self.stock {
            if (seen | stock_mask) >> c & 1 == 1 {
                return Err(err(
                    "E_DEAL_DUPLICATE",
                    format!("stock card {} dealt twice", format_cards(1 << c)),
                ));
            }
            stock_mask |= 1 << c;
        }
        if self.stock.len() != rs.stock_size() {
            return Err(err(
                "E_DEAL_STOCK",
                format!(
                    "stock holds {} cards, expected {}",
                    self.stock.len(),
                    rs.stock_size()
                ),
            ));
        }
        if seen | stock_mask != FULL_DECK {
            let missing = FULL_DECK & !(seen | stock_mask);
            return Err(err(
                "E_DEAL_COUNT",
                format!("cards missing from the deal: {}", format_cards(missing)),
            ));
        }
        if rs.leftover_to_lowest() {
            let low = weakest_first(rs.suit_order)
                .into_iter()
                .find(|&c| seen >> c & 1 == 1)
                .unwrap_or(0);
            if let Some(holder) = (0..self.n).find(|&s| hands[s] >> low & 1 == 1) {
                hands[holder] |= stock_mask;
            }
            self.stock.clear();
        }
        Ok(hands)
    }

    fn lowest_card(&self) -> Option<u32> {
        let rs = self.rs;
        let order = weakest_first(rs.suit_order);
        if let Some(hands) = &self.hands {
            let dealt = hands.iter().fold(0u64, |a, &h| a | h);
            return order.into_iter().find(|&c| dealt >> c & 1 == 1);
        }
        let everything_dealt = rs.players != 3 || rs.three_player_mode == ThreePlayerMode::Deal17;
        if everything_dealt {
            Some(order[0])
        } else {
            None
        }
    }

    pub fn next_seat(&self, seat: usize) -> usize {
        // (seat < n and step < n: one subtraction, not a division)
        let s = seat + self.step;
        if s >= self.n {
            s - self.n
        } else {
            s
        }
    }

    /// `left` after `counts[seat]` changed: one word written, no byte (a byte store read
    /// back as part of a wider load stalls).
    #[inline]
    fn set_left(&mut self, seat: usize) {
        if seat < 8 {
            let shift = 8 * seat;
            self.left = self.left & !(0xff << shift) | u64::from(self.counts[seat] as u8) << shift;
        }
    }

    /// Every seat's count as a record holds it.
    #[inline]
    fn cards_left(&self) -> CardsLeft {
        if self.n > 8 {
            CardsLeft::of(&self.counts)
        } else {
            CardsLeft::packed(self.left, self.n)
        }
    }

    fn next_active(&self, seat: usize) -> usize {
        let mut s = self.next_seat(seat);
        while self.locks_out && self.locked >> s & 1 == 1 && Some(s) != self.top_seat {
            s = self.next_seat(s);
        }
        s
    }

    pub fn finished(&self) -> bool {
        self.result.is_some()
    }

    /// Whether the next play is the game's opening play bound by the lowest-card rule.
    pub fn first_play_due(&self) -> bool {
        !self.started && self.lowest_rule && !self.swapped && self.lowest.is_some()
    }

    /// Whether a rule beyond holding and beating may exclude a play now (`plays_restricted`).
    pub fn plays_restricted(&self) -> bool {
        self.enforced || self.first_play_due()
    }

    /// 頂大: the card that meets the obligation of `seat` when it is bound (`block_card`).
    pub fn block_card(&self, seat: usize) -> Option<u32> {
        if self.counts[self.next_seat(seat)] != 1 {
            return None;
        }
        let so = self.rs.suit_order;
        if let Some(t) = &self.top {
            if t.kind != Kind::Single {
                return None;
            }
        }
        let held = match &self.hands {
            Some(h) => h[seat],
            None => FULL_DECK & !self.played,
        };
        let best = highest_single(held, so);
        if let Some(t) = &self.top {
            if single_key(best, so) < t.key {
                return None;
            }
        }
        Some(best)
    }

    fn fail(&self, code: &'static str, message: String) -> EngineError {
        err(code, format!("{message} (trick {})", self.trick))
    }

    /// Raise a named error if the action is illegal now; the play it makes. (Inlined: the
    /// play stays in registers for `apply`'s commit, no `Result` written and read back.)
    #[inline(always)]
    pub fn verify(&self, action: &Action) -> Result<Option<Play>, EngineError> {
        if self.result.is_some() {
            return Err(self.fail(
                "E_GAME_OVER",
                format!("seat {} acted after the game ended", action.seat),
            ));
        }
        if action.seat >= self.n as u64 {
            return Err(self.fail(
                "E_BAD_SEAT",
                format!("seat {} is not at a {}-seat table", action.seat, self.n),
            ));
        }
        let seat = action.seat as usize;
        match action.kind {
            ActionType::Claim => {
                self.verify_claim(action, seat)?;
                return Ok(None);
            }
            ActionType::Swap => {
                self.verify_swap(seat)?;
                return Ok(None);
            }
            ActionType::Announce => {
                self.verify_announce(seat)?;
                return Ok(None);
            }
            _ => {}
        }
        if let Some(turn) = self.turn {
            if seat != turn {
                if self.locks_out && self.locked >> seat & 1 == 1 {
                    return Err(self.fail(
                        "E_LOCKED_OUT",
                        format!("seat {seat} acted after passing in this trick (pass_locks_out); seat {turn} is to act"),
                    ));
                }
                return Err(self.fail(
                    "E_OUT_OF_TURN",
                    format!("seat {seat} acted; seat {turn} is to act"),
                ));
            }
        }
        if action.kind == ActionType::Pass {
            if self.top.is_none() {
                return Err(self.fail("E_LEAD_PASS", format!("seat {seat} passed while leading")));
            }
            if action.drawn.is_some() {
                self.verify_draw(action, seat)?;
            }
            if self.enforced {
                self.enforce_block(seat, None)?;
            }
            return Ok(None);
        }
        self.verify_play(action, seat).map(Some)
    }

    #[inline(always)]
    fn verify_play(&self, action: &Action, seat: usize) -> Result<Play, EngineError> {
        let mask = action.cards;
        let play = classify_inline(mask, self.cr)
            .map_err(|why| err("E_NOT_A_COMBINATION", not_a_combination(mask, &why)))?;
        if let Some(hands) = &self.hands {
            if mask & !hands[seat] != 0 {
                return Err(self.fail(
                    "E_NOT_IN_HAND",
                    format!(
                        "seat {seat} played {} but does not hold {}",
                        format_cards(mask),
                        format_cards(mask & !hands[seat])
                    ),
                ));
            }
        } else {
            if mask & self.played != 0 {
                return Err(self.fail(
                    "E_CARD_PLAYED_TWICE",
                    format!(
                        "seat {seat} played {}; {} was already played",
                        format_cards(mask),
                        format_cards(mask & self.played)
                    ),
                ));
            }
            if play.size > self.counts[seat] {
                return Err(self.fail(
                    "E_TOO_MANY_CARDS",
                    format!(
                        "seat {seat} played {} cards holding {}",
                        play.size, self.counts[seat]
                    ),
                ));
            }
        }
        match &self.top {
            None => {
                if !self.started && self.lowest_rule && !self.swapped {
                    if let Some(low) = self.lowest {
                        self.verify_first_play(seat, &play, low)?;
                    }
                }
            }
            Some(top) => {
                if !play.beats(top) {
                    let code = if play.size != top.size && !play.is_bomb {
                        "E_WRONG_SIZE"
                    } else {
                        "E_NOT_HIGHER"
                    };
                    return Err(self.fail(
                        code,
                        format!(
                            "seat {seat} played {} on {}",
                            format_cards(mask),
                            format_cards(top.mask)
                        ),
                    ));
                }
            }
        }
        if self.enforced {
            self.enforce_block(seat, Some(&play))?;
        }
        Ok(play)
    }

    fn verify_first_play(&self, seat: usize, play: &Play, low: u32) -> Result<(), EngineError> {
        let text = || format_cards(play.mask); // only for a reject's message
        let rule = self.rs.first_play;
        if rule == FirstPlay::Contain && play.mask >> low & 1 == 0 {
            return Err(self.fail(
                "E_FIRST_PLAY_LOWEST",
                format!(
                    "seat {seat} opened with {} without {}",
                    text(),
                    format_cards(1 << low)
                ),
            ));
        }
        if rule == FirstPlay::Single && play.mask != 1 << low {
            return Err(self.fail(
                "E_FIRST_PLAY_SINGLE",
                format!(
                    "seat {seat} opened with {}; the opening play must be {} alone",
                    text(),
                    format_cards(1 << low)
                ),
            ));
        }
        Ok(())
    }

    fn verify_draw(&self, action: &Action, seat: usize) -> Result<(), EngineError> {
        let Some(drawn) = action.drawn else {
            return Ok(());
        };
        let shown = format_cards(1 << drawn);
        if self.stock_left == 0 {
            return Err(self.fail(
                "E_DRAW",
                format!("seat {seat} drew {shown} from an empty stock"),
            ));
        }
        if let Some(&next) = self.stock.first() {
            if next != drawn {
                return Err(self.fail(
                    "E_DRAW",
                    format!(
                        "seat {seat} drew {shown}; the stock's next card is {}",
                        format_cards(1 << next)
                    ),
                ));
            }
        }
        if self.played >> drawn & 1 == 1 {
            return Err(self.fail(
                "E_CARD_PLAYED_TWICE",
                format!("seat {seat} drew {shown}, already played"),
            ));
        }
        Ok(())
    }

    fn verify_claim(&self, action: &Action, seat: usize) -> Result<(), EngineError> {
        let Some(claim) = action.claim else {
            return Err(self.fail(
                "E_CLAIM",
                format!("seat {seat} made a claim without saying which"),
            ));
        };
        let name = claim.as_str();
        if self.started {
            return Err(self.fail(
                "E_CLAIM_LATE",
                format!("seat {seat} claimed {name} after play began"),
            ));
        }
        let enabled = match claim {
            Claim::Dragon => self.rs.dragon_instant_win,
            Claim::FourTwos => self.rs.four_twos_instant_win,
            _ => self.rs.redeal_if.iter().any(|r| r == name),
        };
        if !enabled {
            return Err(self.fail(
                "E_CLAIM_DISABLED",
                format!("seat {seat} claimed {name}, which this ruleset does not allow"),
            ));
        }
        if let Some(hands) = &self.hands {
            if !claim_holds(claim, hands[seat]) {
                return Err(self.fail(
                    "E_CLAIM_FALSE",
                    format!(
                        "seat {seat} claimed {name} holding {}",
                        format_cards(hands[seat])
                    ),
                ));
            }
        }
        Ok(())
    }

    fn verify_swap(&self, seat: usize) -> Result<(), EngineError> {
        let rs = self.rs;
        if rs.players != 3 || rs.three_player_mode != ThreePlayerMode::SwapLeftover {
            return Err(self.fail(
                "E_SWAP",
                "a swap needs 3 players and three_player_mode = swap_leftover".into(),
            ));
        }
        if self.started || self.swapped {
            return Err(self.fail(
                "E_SWAP",
                format!("seat {seat} swapped after play began or twice"),
            ));
        }
        if let Some(hands) = &self.hands {
            let holds = self.lowest.is_some_and(|low| hands[seat] >> low & 1 == 1);
            if !holds {
                return Err(self.fail(
                    "E_SWAP",
                    format!("seat {seat} swapped without holding the lowest card"),
                ));
            }
        }
        Ok(())
    }

    fn verify_announce(&self, seat: usize) -> Result<(), EngineError> {
        let held = self.counts[seat];
        if held != 1 {
            return Err(self.fail(
                "E_CALL_NOT_LAST",
                format!("seat {seat} called its last card holding {held} cards"),
            ));
        }
        if self.called >> seat & 1 == 1 {
            return Err(self.fail(
                "E_CALL_REPEATED",
                format!("seat {seat} called its last card a second time"),
            ));
        }
        Ok(())
    }

    /// 頂大: the obligation of `seat` making `play` (`None`: a pass) and whether it is met
    /// (`obligation`; its reason is `block_reason` of these facts).
    pub(crate) fn obligation(
        &self,
        seat: usize,
        play: Option<&Play>,
    ) -> (Option<Obligation>, Option<Block>) {
        let nxt = self.next_seat(seat);
        if self.counts[nxt] != 1 {
            return (None, None);
        }
        let top = self.top.as_ref();
        let so = self.rs.suit_order;
        if let Some(t) = top {
            if t.kind != Kind::Single {
                return (None, None);
            }
        }
        if let Some(hands) = &self.hands {
            let best = highest_single(hands[seat], so);
            let best_key = single_key(best, so);
            let Some(t) = top else {
                if play.is_some_and(|p| p.size > 1 || p.mask == 1 << best) {
                    return (Some(Obligation::Lead), Some(Block::Met));
                }
                return (Some(Obligation::Lead), Some(Block::Violated));
            };
            if best_key < t.key {
                return (None, None);
            }
            if play.is_some_and(|p| p.mask == 1 << best || p.is_bomb) {
                return (Some(Obligation::Follow), Some(Block::Met));
            }
            return (Some(Obligation::Follow), Some(Block::Violated));
        }
        let possible = FULL_DECK & !self.played;
        let ceiling = highest_single(possible, so);
        let Some(t) = top else {
            if play.is_some_and(|p| p.size > 1 || p.mask == 1 << ceiling) {
                return (Some(Obligation::Lead), Some(Block::Met));
            }
            return (Some(Obligation::Lead), Some(Block::Unknown));
        };
        if single_key(ceiling, so) < t.key {
            return (None, None);
        }
        if play.is_some_and(|p| p.mask == 1 << ceiling || p.is_bomb) {
            return (Some(Obligation::Follow), Some(Block::Met));
        }
        (Some(Obligation::Follow), Some(Block::Unknown))
    }

    fn enforce_block(&self, seat: usize, play: Option<&Play>) -> Result<(), EngineError> {
        let (obligation, block) = self.obligation(seat, play);
        if block == Some(Block::Violated) {
            // a violation is known only with the hands
            let best = self
                .hands
                .as_ref()
                .map(|h| highest_single(h[seat], self.rs.suit_order));
            let reason = block_reason(obligation, block, play.map(|p| p.mask), best);
            return Err(self.fail(
                "E_MUST_BLOCK",
                format!(
                    "seat {seat} {reason} while seat {} holds one card (must_block = enforced)",
                    self.next_seat(seat)
                ),
            ));
        }
        Ok(())
    }

    /// Verify the action, apply it and append its record.
    pub fn apply(&mut self, action: &Action) -> Result<(), EngineError> {
        let play = self.verify(action)?;
        self.commit_inline(action, play);
        Ok(())
    }

    /// Apply an action already known legal (`play`: the play it makes, as `verify` gives it):
    /// the simulator's bots choose among the legal moves, so nothing is checked again.
    pub fn commit(&mut self, action: &Action, play: Option<Play>) -> Result<(), EngineError> {
        self.commit_inline(action, play);
        Ok(())
    }

    #[inline(always)]
    fn commit_inline(&mut self, action: &Action, play: Option<Play>) {
        let seat = action.seat as usize;
        let hand_before = self.hands.as_ref().map(|h| h[seat]);
        match action.kind {
            ActionType::Claim => return self.do_claim(action, seat, hand_before),
            ActionType::Swap => return self.do_swap(action, seat, hand_before),
            ActionType::Announce => return self.do_announce(action, seat, hand_before),
            _ => {}
        }
        self.call_due = None;
        if self.turn.is_none() {
            self.turn = Some(seat);
            self.first_leader = Some(seat);
        }
        let top = self.top;
        let nxt = self.next_seat(seat);
        let mut highest = None;
        let mut beating = None;
        let unchecked = if let Some(hand) = hand_before {
            highest = Some(highest_single(hand, self.rs.suit_order));
            if let (Some(t), false) = (&top, self.lean) {
                // a play on the table beats it (`verify`): a beating play existed
                beating = Some(play.is_some() || can_beat(hand, t, self.cr));
            }
            Unchecked::Nothing
        } else if !self.started && self.lowest_rule && self.lowest.is_none() {
            Unchecked::HandAndLowest
        } else {
            Unchecked::Hand
        };
        let (obligation, block) = if self.counts[nxt] == 1 {
            self.obligation(seat, play.as_ref())
        } else {
            (None, None)
        };
        let mut ends_trick = false;
        let mut wins = false;
        let mut drawn = None;
        if let Some(p) = &play {
            self.counts[seat] -= p.size;
            self.set_left(seat);
            self.played |= p.mask;
            if let Some(hands) = &mut self.hands {
                hands[seat] &= !p.mask;
            }
            self.started = true;
            self.top = Some(*p);
            self.top_seat = Some(seat);
            self.passes = 0;
            wins = self.counts[seat] == 0;
            self.turn = Some(self.next_active(seat));
        } else {
            if self.stock_left > 0 {
                drawn = self.draw(seat, action.drawn);
            }
            self.passes += 1;
            self.locked |= 1 << seat;
            if self.locks_out {
                let t = self.next_active(seat);
                self.turn = Some(t);
                ends_trick = Some(t) == self.top_seat;
            } else {
                self.turn = Some(nxt);
                ends_trick = self.passes == self.n - 1;
            }
        }
        let mut record = ActionRecord {
            cards: play.map_or(0, |p| p.mask),
            top_before: top.map_or(0, |t| t.mask),
            hand: hand_before.unwrap_or(NO_HAND),
            order: play.map_or(0, |p| p.order),
            cards_left: if self.lean {
                CardsLeft::EMPTY
            } else {
                self.cards_left()
            },
            action_index: self.history.len() as u32,
            trick: self.trick,
            seat: seat as u8,
            next_seat: nxt as u8,
            kind: action.kind,
            play_kind: play.map(|p| p.kind),
            is_lead: top.is_none(),
            beating_play_existed: beating,
            highest_single: highest.map(|c| c as u8),
            next_on_one: self.counts[nxt] == 1,
            obligation,
            block,
            ends_trick,
            wins_game: wins,
            drawn: drawn.map(|c| c as u8),
            claim: None,
            unchecked,
            last_call: None,
        };
        if play.is_some() && self.counts[seat] == 1 && self.called >> seat & 1 == 0 {
            self.call_due = Some(self.history.len());
            if self.call_pending.is_some() {
                record.last_call = self.call_pending;
            }
        }
        self.history.push(record);
        if ends_trick {
            self.turn = self.top_seat;
            self.top = None;
            self.top_seat = None;
            self.locked = 0;
            self.passes = 0;
            self.trick += 1;
        }
        if wins {
            self.finish(Outcome::PlayedOut, Some(seat), None);
        }
    }

    fn draw(&mut self, seat: usize, reported: Option<u32>) -> Option<u32> {
        self.stock_left -= 1;
        self.counts[seat] += 1;
        self.set_left(seat);
        if !self.stock.is_empty() {
            let c = self.stock.remove(0);
            if let Some(hands) = &mut self.hands {
                hands[seat] |= 1 << c;
            }
            return Some(c);
        }
        reported
    }

    fn meta_record(&self, action: &Action, seat: usize, hand_before: Option<u64>) -> ActionRecord {
        ActionRecord {
            cards: 0,
            top_before: 0,
            hand: hand_before.unwrap_or(NO_HAND),
            order: 0,
            cards_left: self.cards_left(),
            action_index: self.history.len() as u32,
            trick: self.trick,
            seat: seat as u8,
            next_seat: self.next_seat(seat) as u8,
            kind: action.kind,
            play_kind: None,
            is_lead: false,
            beating_play_existed: None,
            highest_single: None,
            next_on_one: false,
            obligation: None,
            block: None,
            ends_trick: false,
            wins_game: false,
            drawn: None,
            claim: action.claim,
            unchecked: if hand_before.is_some() {
                Unchecked::Nothing
            } else {
                Unchecked::Hand
            },
            last_call: None,
        }
    }

    #[cold]
    fn do_claim(&mut self, action: &Action, seat: usize, hand_before: Option<u64>) {
        let claim = action.claim;
        let record = self.meta_record(action, seat, hand_before);
        self.history.push(record);
        match claim {
            Some(c) if c.is_instant_win() => self.finish(Outcome::InstantWin, Some(seat), claim),
            _ => self.finish(Outcome::Redeal, None, claim),
        }
    }

    #[cold]
    fn do_swap(&mut self, action: &Action, seat: usize, hand_before: Option<u64>) {
        self.swapped = true;
        let mut record = self.meta_record(action, seat, hand_before);
        let stock_mask: u64 = self.stock.iter().map(|&c| 1u64 << c).sum();
        if let (Some(hands), Some(low)) = (&mut self.hands, self.lowest) {
            hands[seat] = hands[seat] & !(1 << low) | stock_mask;
            self.played |= 1 << low;
            record.cards = 1 << low;
            self.stock.clear();
        } else if action.cards != 0 {
            self.played |= action.cards;
            record.cards = action.cards;
        }
        if self.turn.is_none() || self.lowest_rule {
            self.turn = Some(seat);
            self.first_leader = Some(seat);
        }
        self.history.push(record);
    }

    #[cold]
    fn do_announce(&mut self, action: &Action, seat: usize, hand_before: Option<u64>) {
        self.called |= 1 << seat;
        if let Some(due) = self.call_due {
            if usize::from(self.history[due].seat) == seat {
                self.history[due].last_call = Some(LastCall::Made);
                self.call_due = None;
            }
        }
        let record = self.meta_record(action, seat, hand_before);
        self.history.push(record);
    }

    fn finish(&mut self, outcome: Outcome, winner: Option<usize>, claim: Option<Claim>) {
        self.turn = None;
        let (bao, status) = if outcome == Outcome::PlayedOut {
            self.bao(winner)
        } else {
            (None, None)
        };
        self.result = Some(GameResult {
            outcome,
            winner,
            claim,
            cards_left: self.counts.clone(),
            final_hands: self.hands.clone(),
            first_leader: self.first_leader,
            n_tricks: self.trick,
            bao_seat: if status == Some(Block::Violated) {
                bao
            } else {
                None
            },
            bao_unknown_seat: if status == Some(Block::Unknown) {
                bao
            } else {
                None
            },
        });
    }

    fn bao(&self, winner: Option<usize>) -> (Option<usize>, Option<Block>) {
        let Some(winner) = winner else {
            return (None, None);
        };
        if self.rs.must_block == MustBlock::Off {
            return (None, None);
        }
        let upto = self.history.len().saturating_sub(1);
        for record in self.history[..upto].iter().rev() {
            if usize::from(record.seat) == winner
                && !matches!(record.kind, ActionType::Claim | ActionType::Announce)
            {
                return (None, None);
            }
            if record.obligation.is_some() && usize::from(record.next_seat) == winner {
                if matches!(record.block, Some(Block::Violated) | Some(Block::Unknown)) {
                    return (Some(usize::from(record.seat)), record.block);
                }
                return (None, None);
            }
        }
        (None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combos::classify;
    use crate::pyrand::PyRandom;
    use crate::rules::hk;
    use crate::sim::{play_game, Bot, BotKind, Planted};

    /// The slim record against the game's own state: `cards_left` (a word that a table of up to
    /// eight seats updates in place, a heap copy above) equal to `counts` after each action,
    /// `hand_before` the hand before it, `rank_key` the play's order, the seats; and every fact
    /// the simulator's lean record also holds equal. Random-bot games of 2 to 13 seats (3 with
    /// a stock to draw from), 頂大 enforced and liable, replayed through `apply`.
    #[test]
    fn slim_records_hold_the_game_facts() {
        let mut checked = 0;
        for players in [2, 3, 4, 5, 7, 8, 9, 13] {
            for variant in 0..4u64 {
                let mut rs = hk();
                rs.players = players;
                if variant % 2 == 1 {
                    rs.must_block = MustBlock::Enforced;
                }
                if players == 3 && variant >= 2 {
                    rs.three_player_mode = ThreePlayerMode::Stock13;
                }
                let cr = ComboRules::new(&rs);
                let mut bots: Vec<Bot> = (0..players).map(|_| Bot::new(BotKind::Random)).collect();
                let mut rng = PyRandom::from_text(&format!("slim:{players}:{variant}"));
                let planted = Planted {
                    discipline: 0.5,
                    colluders: None,
                };
                let played = play_game(&rs, &cr, &mut bots, &mut rng, 1, None, planted, 0.0);
                let deal = Deal {
                    hands: Some(&played.hands),
                    stock: &played.stock,
                    start_counts: None,
                    game_number: 1,
                    previous_winner: None,
                    first_leader: None,
                };
                let mut game = Game::new(&rs, &cr, &deal).expect("a deal");
                for lean in &played.game.history {
                    let action = Action {
                        seat: lean.seat.into(),
                        kind: lean.kind,
                        cards: lean.cards,
                        claim: lean.claim,
                        drawn: lean.drawn.map(u32::from),
                    };
                    let seat = usize::from(lean.seat);
                    let hand = game.hands.as_ref().map(|h| h[seat]);
                    game.apply(&action).expect("a legal action");
                    let r = game.history.last().expect("a record");
                    let counts: Vec<u8> = game.counts.iter().map(|&c| c as u8).collect();
                    assert_eq!(r.cards_left.as_slice(), counts, "{players} seats");
                    assert_eq!(r.cards_left.len(), players);
                    assert_eq!(r.hand_before(), hand);
                    let order = (r.kind == ActionType::Play)
                        .then(|| classify(r.cards, &cr).expect("a play").order);
                    assert_eq!(r.rank_key(), order);
                    assert_eq!(usize::from(r.next_seat), game.next_seat(seat));
                    let mut full = r.clone();
                    full.cards_left = CardsLeft::EMPTY;
                    full.beating_play_existed = None;
                    assert_eq!(&full, lean);
                    checked += 1;
                }
                assert_eq!(game.result, played.game.result);
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// The record stays small: it is written once per replayed action.
    #[test]
    fn records_stay_small() {
        assert!(std::mem::size_of::<ActionRecord>() <= 88);
        assert!(std::mem::size_of::<CardsLeft>() <= 24);
    }

    /// A table of more than eight seats keeps `cards_left` on the heap, up to 52 seats.
    #[test]
    fn cards_left_of_any_table() {
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def1);
        for len in 0..=52usize {
            let counts: Vec<u32> = (0..len).map(|_| (next() % 53) as u32).collect();
            let left = CardsLeft::of(&counts);
            let bytes: Vec<u8> = counts.iter().map(|&c| c as u8).collect();
            assert_eq!(left.as_slice(), bytes);
            assert_eq!((left.len(), left.is_empty()), (len, len == 0));
        }
    }
}
