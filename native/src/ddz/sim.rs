//! Seeded Dou Dizhu games played by the bots into log lines, as `pipeline/sim/ddz_play.py`
//! and `pipeline/sim/ddz_simulate.py` play and write them: the same draws from the same
//! streams (`crate::pyrand`), the same legal bids and plays in the same order (`super::bots`,
//! `super::moves`), the same planted feeder, the same think times, and the same JSON bytes
//! (`pipeline.logs.writer.dumps`). The chosen action is applied with `Game::commit`: no
//! second check.

use std::io::Write;

use super::bots::{legal_bids, Choice, DdzBotKind, Turn};
use super::moves::plays_from;
use super::replay::float_repr;
use super::rules::{DdzRules, Num, DECK_SIZE, KITTY_SIZE};
use super::state::{Action, ActionType, Game, GameResult, Phase};
use super::texts::write_mask;
use crate::pyrand::PyRandom;
use crate::sim::{iso_utc, BASE_TIMESTAMP, YEAR_SECONDS};

/// A game gives up after this many void deals in a row (`ddz_play.MAX_DEALS`); the core then
/// leaves the match to Python, which says so.
const MAX_DEALS: u32 = 100;

/// What stays the same over a run: the options, and the JSON fragments Python renders once.
pub struct DdzRunSpec {
    /// the run's seed as `str(seed)` (the generators are named after it)
    pub seed: String,
    pub games: u64,
    pub match_games: u64,
    pub feeder: Option<usize>,
    pub feed_rate: f64,
    /// `{id_prefix}-{seed}`, JSON-escaped
    pub prefix: String,
    /// the line's `ruleset` object
    pub ruleset_json: String,
    pub generator_json: String,
    pub seed_json: String,
    pub feeder_json: String,
    pub feed_rate_json: String,
}

/// An action as the log states it.
struct Logged {
    seat: usize,
    kind: ActionType,
    cards: u64,
    value: i64,
}

/// A planted feeding opportunity (`truth.feed_opportunities`).
struct Opportunity {
    action_index: usize,
    seat: usize,
    landlord_cards: u32,
    fed: bool,
}

/// One deal played out or void (`play_deal`'s record).
struct Dealt {
    hands: Vec<u64>,
    kitty: u64,
    set_aside: u64,
    face_up: u32,
    first_bidder: usize,
    actions: Vec<Logged>,
    opportunities: Vec<Opportunity>,
    result: GameResult,
}

/// `_feed_opportunity`: the feeder, a farmer, follows the landlord on one or two cards and
/// can beat.
fn feed_opportunity(game: &Game, seat: usize, feeder: Option<usize>, can_beat: bool) -> bool {
    let Some(landlord) = game.landlord else {
        return false;
    };
    feeder == Some(seat)
        && seat != landlord
        && game.top.is_some()
        && game.top_seat == Some(landlord)
        && game.counts[landlord] <= 2
        && can_beat
}

fn mask_of(cards: &[u32]) -> u64 {
    cards.iter().fold(0, |m, &c| m | 1 << c)
}

/// Deal once and play to the end or the void auction (`play_deal`).
fn play_deal(
    rs: &DdzRules,
    bots: &[DdzBotKind],
    rng: &mut PyRandom,
    feeder: Option<usize>,
    feed_rate: f64,
) -> Dealt {
    let mut deck: Vec<u32> = (0..DECK_SIZE).collect();
    rng.shuffle(&mut deck);
    let size = rs.hand_size as usize;
    let hands: Vec<u64> = (0..rs.players)
        .map(|s| mask_of(&deck[s * size..(s + 1) * size]))
        .collect();
    let start = rs.players * size;
    let kitty_end = start + KITTY_SIZE as usize;
    let kitty = mask_of(&deck[start..kitty_end]);
    let set_aside = mask_of(&deck[kitty_end..]);
    let dealt = hands.iter().fold(0u64, |m, &h| m | h);
    // the face-up card: the k-th dealt card, lowest id first
    let mut rest = dealt;
    for _ in 0..rng.randbelow(dealt.count_ones() as usize) {
        rest &= rest - 1;
    }
    let face_up = rest.trailing_zeros();
    let mut game = Game::new(
        rs,
        Some(&hands),
        Some(kitty),
        Some(set_aside),
        None,
        Some(face_up),
    )
    .expect("a simulated deal");
    game.lean = true;
    let first_bidder = game.turn.expect("a first bidder");
    let mut actions = Vec::with_capacity(64);
    let mut opportunities = Vec::new();
    while game.result.is_none() {
        let seat = game.turn.expect("a seat to act");
        let bot = bots[seat];
        if game.phase == Phase::Auction {
            let a = bot.bid(&game, &legal_bids(&game), rng);
            game.commit(&a, None);
            actions.push(Logged {
                seat,
                kind: a.kind,
                cards: 0,
                value: a.value,
            });
            continue;
        }
        let hand = game.hands.as_ref().expect("dealt")[seat];
        let plays = plays_from(hand, rs.four_with_two, game.top.as_ref());
        let mut choice = None;
        if feed_opportunity(&game, seat, feeder, !plays.is_empty()) {
            let fed = rng.random() < feed_rate;
            let landlord = game.landlord.expect("a landlord");
            opportunities.push(Opportunity {
                action_index: actions.len(),
                seat,
                landlord_cards: game.counts[landlord],
                fed,
            });
            if fed {
                choice = Some(Choice::Pass);
            }
        }
        let choice = choice.unwrap_or_else(|| {
            let can_pass = game.top.is_some();
            bot.choose(
                &Turn {
                    game: &game,
                    seat,
                    plays: &plays,
                    can_pass,
                },
                rng,
            )
        });
        let (kind, cards) = apply(&mut game, seat, choice);
        actions.push(Logged {
            seat,
            kind,
            cards,
            value: 0,
        });
    }
    Dealt {
        hands,
        kitty,
        set_aside,
        face_up,
        first_bidder,
        actions,
        opportunities,
        result: game.result.expect("a finished deal"),
    }
}

/// Apply a seat's choice (`Game.do`): a play as the engine reads its cards, which may not be
/// the generator's reading (`333-444-555` + `666` is generated as an airplane with wings, the
/// engine reads the longer airplane, and the next seat must beat that).
fn apply(game: &mut Game, seat: usize, choice: Choice) -> (ActionType, u64) {
    let (kind, cards, play) = match choice {
        Choice::Pass => (ActionType::Pass, 0, None),
        Choice::Play(p) => (ActionType::Play, p.mask, game.reading(p.mask)),
    };
    let a = Action {
        seat,
        kind,
        cards,
        value: 0,
        named: None,
    };
    game.commit(&a, play);
    (kind, cards)
}

/// Game `index` of the run (`play_game`): its void deals, then the deal played out; None
/// after `MAX_DEALS` void deals.
fn play_game(
    rs: &DdzRules,
    bots: &[DdzBotKind],
    spec: &DdzRunSpec,
    index: u64,
) -> Option<Vec<Dealt>> {
    let mut rng = PyRandom::from_text(&format!("ddz:{}:{index}", spec.seed));
    let mut out = Vec::with_capacity(1);
    for _ in 0..MAX_DEALS {
        let d = play_deal(rs, bots, &mut rng, spec.feeder, spec.feed_rate);
        let void = d.result.outcome == "redeal";
        out.push(d);
        if !void {
            return Some(out);
        }
    }
    None
}

/// Python's `round(x, 2)` of a finite `x >= 0`, in hundredths: `x × 100` rounded half to even
/// on `x`'s exact binary value, as `round` rounds its decimal digits (no text in between).
fn hundredths(x: f64) -> u64 {
    debug_assert!(x.is_finite() && x >= 0.0);
    let bits = x.to_bits();
    let exp = (bits >> 52 & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    let scaled = u128::from(m) * 100; // x × 100 = scaled × 2^e, exactly
    if e >= 0 {
        return (scaled << e) as u64;
    }
    let shift = e.unsigned_abs();
    if shift >= 128 {
        return 0;
    }
    let q = scaled >> shift;
    let r = scaled & ((1 << shift) - 1);
    let half = 1u128 << (shift - 1);
    (q + u128::from(r > half || (r == half && q & 1 == 1))) as u64
}

/// `_think`: seconds a seat takes over an action with `options` choices, `round(.., 2)` (the
/// double nearest the hundredths, as Python reads them back).
fn think(rng: &mut PyRandom, options: f64) -> f64 {
    let t = (0.8 + 0.25 * options.ln_1p()) * rng.lognormvariate(0.0, 0.45);
    hundredths(t) as f64 / 100.0
}

/// `repr(round(t, 2))` of a timestamp (a clock of 10 digits before the point: the shortest
/// digits are the hundredths, trailing zeros dropped but one).
fn push_ts(o: &mut Vec<u8>, t: f64) {
    let n = hundredths(t);
    let mut num = itoa::Buffer::new();
    o.extend_from_slice(num.format(n / 100).as_bytes());
    o.push(b'.');
    let cents = (n % 100) as u8;
    o.push(b'0' + cents / 10);
    if !cents.is_multiple_of(10) {
        o.push(b'0' + cents % 10);
    }
}

fn push_num(o: &mut Vec<u8>, n: Num) -> Option<()> {
    match n {
        Num::Int(i) => {
            let _ = write!(o, "{i}");
        }
        Num::Float(x) => o.extend_from_slice(float_repr(x)?.as_bytes()),
    }
    Some(())
}

fn push_opt(o: &mut Vec<u8>, v: Option<usize>) {
    match v {
        Some(v) => {
            let _ = write!(o, "{v}");
        }
        None => o.extend_from_slice(b"null"),
    }
}

fn push_cards(o: &mut Vec<u8>, mask: u64) {
    o.push(b'"');
    write_mask(mask, o);
    o.push(b'"');
}

/// One whole match as JSON lines (`ddz_simulate.match_lines`); `seats_json` and `bots_json`:
/// the match's `seats` list and `truth.bots`, rendered by Python. None when the core leaves
/// the match to Python (a game of only void deals, a score Python would print as `inf`).
pub fn match_lines(
    rs: &DdzRules,
    spec: &DdzRunSpec,
    m: u64,
    bots: &[DdzBotKind],
    seats_json: &str,
    bots_json: &str,
) -> Option<Vec<String>> {
    let mut mrng = PyRandom::from_text(&format!("ddz:{}:match:{m}", spec.seed));
    let mut clock = BASE_TIMESTAMP + (mrng.random() * YEAR_SECONDS).round_ties_even();
    let first = m * spec.match_games;
    let last = (first + spec.match_games).min(spec.games);
    let mut number = 0u64;
    let mut out = Vec::new();
    let fixed = Fixed {
        spec,
        m,
        seats_json,
        bots_json,
    };
    for index in first..last {
        let deals = play_game(rs, bots, spec, index)?;
        let mut times = PyRandom::from_text(&format!("ddz:{}:times:{index}", spec.seed));
        for (d, dealt) in deals.iter().enumerate() {
            number += 1;
            let started = clock;
            let ts: Vec<f64> = dealt
                .actions
                .iter()
                .map(|a| {
                    let options = if a.kind == ActionType::Pass { 1.0 } else { 4.0 };
                    clock += think(&mut times, options);
                    clock
                })
                .collect();
            let at = Place {
                index,
                deal: d + 1,
                number,
                started,
            };
            out.push(fixed.line(dealt, &ts, &at)?);
            clock += 15.0 + (times.random() * 30.0).round_ties_even();
        }
    }
    Some(out)
}

/// What a match's lines share.
struct Fixed<'a> {
    spec: &'a DdzRunSpec,
    m: u64,
    seats_json: &'a str,
    bots_json: &'a str,
}

/// Where a deal sits: its game, its number in the game and in the match, its start.
struct Place {
    index: u64,
    deal: usize,
    number: u64,
    started: f64,
}

impl Fixed<'_> {
    /// The deal's log line (`log_line` plus what `play_match` adds), in `dumps`' layout.
    fn line(&self, dealt: &Dealt, ts: &[f64], at: &Place) -> Option<String> {
        let (spec, p) = (self.spec, &self.spec.prefix);
        let mut o = Vec::with_capacity(8192);
        let _ = write!(
            o,
            "{{\"format_version\": 1, \"game_kind\": \"doudizhu\", \"game_id\": \
             \"{p}-{:08}-d{}\", \"ruleset\": {}, \"seats\": {}, \"deal\": {{\"hands\": [",
            at.index, at.deal, spec.ruleset_json, self.seats_json
        );
        for (i, &h) in dealt.hands.iter().enumerate() {
            if i > 0 {
                o.extend_from_slice(b", ");
            }
            push_cards(&mut o, h);
        }
        o.extend_from_slice(b"], \"kitty\": ");
        push_cards(&mut o, dealt.kitty);
        if dealt.set_aside != 0 {
            o.extend_from_slice(b", \"set_aside\": ");
            push_cards(&mut o, dealt.set_aside);
        }
        o.extend_from_slice(b", \"face_up_card\": ");
        push_cards(&mut o, 1 << dealt.face_up);
        let _ = write!(
            o,
            "}}, \"first_bidder\": {}, \"actions\": [",
            dealt.first_bidder
        );
        for (i, (a, &t)) in dealt.actions.iter().zip(ts).enumerate() {
            if i > 0 {
                o.extend_from_slice(b", ");
            }
            let _ = write!(
                o,
                "{{\"seat\": {}, \"action\": \"{}\"",
                a.seat,
                a.kind.as_str()
            );
            match a.kind {
                ActionType::Bid => {
                    let _ = write!(o, ", \"value\": {}", a.value);
                }
                ActionType::Play => {
                    o.extend_from_slice(b", \"cards\": ");
                    push_cards(&mut o, a.cards);
                }
                _ => {}
            }
            o.extend_from_slice(b", \"ts\": ");
            push_ts(&mut o, t);
            o.push(b'}');
        }
        let r = &dealt.result;
        let _ = write!(
            o,
            "], \"result\": {{\"outcome\": \"{}\", \"landlord\": ",
            r.outcome
        );
        push_opt(&mut o, r.landlord);
        let _ = write!(o, ", \"base\": {}, \"winner\": ", r.base);
        push_opt(&mut o, r.winner);
        o.extend_from_slice(b", \"landlord_won\": ");
        o.extend_from_slice(match r.landlord_won {
            None => b"null",
            Some(true) => b"true",
            Some(false) => b"false",
        });
        let _ = write!(
            o,
            ", \"bombs\": {}, \"rockets\": {}, \"spring\": ",
            r.bombs, r.rockets
        );
        match r.spring {
            None => o.extend_from_slice(b"null"),
            Some(s) => {
                let _ = write!(o, "\"{s}\"");
            }
        }
        let _ = write!(o, ", \"multiplier\": {}, \"amount\": ", r.multiplier);
        push_num(&mut o, r.amount)?;
        o.extend_from_slice(b", \"scores\": [");
        for (i, &s) in r.scores.iter().enumerate() {
            if i > 0 {
                o.extend_from_slice(b", ");
            }
            push_num(&mut o, s)?;
        }
        let _ = write!(
            o,
            "]}}, \"truth\": {{\"generator\": {}, \"seed\": {}, \"game_index\": {}, \
             \"deal_number\": {}, \"bots\": {}, \"feeder\": {}, \"feed_rate\": {}, \
             \"feed_opportunities\": [",
            spec.generator_json,
            spec.seed_json,
            at.index,
            at.deal,
            self.bots_json,
            spec.feeder_json,
            spec.feed_rate_json
        );
        for (i, f) in dealt.opportunities.iter().enumerate() {
            if i > 0 {
                o.extend_from_slice(b", ");
            }
            let _ = write!(
                o,
                "{{\"action_index\": {}, \"seat\": {}, \"landlord_cards\": {}, \"fed\": {}}}",
                f.action_index, f.seat, f.landlord_cards, f.fed
            );
        }
        let _ = write!(
            o,
            "]}}, \"match_id\": \"{p}-m{:06}\", \"game_number\": {}, \"table_id\": \
             \"{p}-t{:03}\", \"started_at\": \"{}\"}}",
            self.m,
            at.number,
            self.m % 1000,
            iso_utc(at.started)
        );
        String::from_utf8(o).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::combos::Kind;
    use super::*;

    #[test]
    fn rounding_as_python() {
        // round(0.125, 2), round(0.375, 2), round(2.675, 2), round(0.005, 2), round(7.0, 2)
        let got: Vec<u64> = [0.125, 0.375, 2.675, 0.005, 7.0, 0.0]
            .into_iter()
            .map(hundredths)
            .collect();
        assert_eq!(got, [12, 38, 267, 1, 700, 0]);
        // repr(round(t, 2)) of 1772451204.125, .5, .0, .07, 1772451204.105 (a hair above)
        let mut o = Vec::new();
        for t in [
            1_772_451_204.125,
            1_772_451_204.5,
            1_772_451_204.0,
            1_772_451_204.07,
        ] {
            push_ts(&mut o, t);
            o.push(b' ');
        }
        push_ts(&mut o, 1_772_451_204.105);
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "1772451204.12 1772451204.5 1772451204.0 1772451204.07 1772451204.11"
        );
        // math.log1p(1), math.log1p(4)
        assert_eq!(1f64.ln_1p(), std::f64::consts::LN_2); // 0.6931471805599453
        assert_eq!(4f64.ln_1p(), 1.6094379124341003);
    }
    #[test]
    fn a_play_is_applied_as_the_engine_reads_it() {
        let ddz = r#"{"name": "ddz", "name_repr": "'ddz'", "players": 3, "bidding": "points",
            "bid_reentry": true, "hand_size": 17, "four_with_two": true,
            "spring_doubles": false, "multiplier_cap": "none", "stake": 1}"#;
        let rs = DdzRules::from_dict(&serde_json::from_str(ddz).unwrap()).unwrap();
        // seat 0: three of each of 3, 4, 5, 6, and 7♦ … 8♦; then the cards in id order
        let triples: u64 = (0..4).map(|r| 0b111u64 << (4 * r)).sum();
        let mut rest = super::super::cards::FULL_DECK & !triples & !(0b11111 << 16);
        let mut take = |n: u32| {
            let mut m = 0;
            for _ in 0..n {
                let low = rest & rest.wrapping_neg();
                m |= low;
                rest &= !low;
            }
            m
        };
        let hands = [triples | 0b11111 << 16, take(17), take(17)];
        let kitty = take(3);
        let mut game = Game::new(&rs, Some(&hands), Some(kitty), Some(0), Some(0), None).unwrap();
        let bid = Action {
            seat: 0,
            kind: ActionType::Bid,
            cards: 0,
            value: 3,
            named: None,
        };
        game.commit(&bid, None);
        // Python: readings((3, 3, 3, 3, 0, …), ddz) == [airplane 6 (4 long), airplane_singles
        // 6 (3 long), airplane_singles 5 (3 long)]; plays_from yields the last one first
        let wings = plays_from(game.hands.as_ref().unwrap()[0], true, None)
            .into_iter()
            .find(|p| p.kind == Kind::AirplaneSingles && p.mask == triples)
            .expect("3-4-5 with 6-6-6 as wings");
        assert_eq!((wings.key, wings.units), (2, 3));
        apply(&mut game, 0, Choice::Play(wings));
        let top = game.top.expect("on the table");
        assert_eq!((top.kind, top.key, top.units), (Kind::Airplane, 3, 4));
    }
}
