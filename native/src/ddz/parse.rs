//! One Dou Dizhu JSON Lines game line → a typed record, on the common shapes only, as
//! `pipeline.doudizhu.game.record_from_obj` reads it (after `read_envelope`).
//!
//! As `crate::parse` does for Big Two: where a line is unusual (any schema problem, a card
//! spelling outside the common table, an ISO time as `ts`, a number at the edge of its range,
//! an override not read exactly) the parser answers `None` and the Python reader reads the
//! line, so a reader message is written once, in Python. Unlike Big Two's, a line with a
//! long number is read here: a float stake makes results such as `0.30000000000000004`; a
//! number is used only where a reading a unit off in the last place cannot change the answer
//! (range checks away from the ends, the declared result's comparison within 1e-9), and a
//! mismatch message that would print such a value is Python's (`replay.rs`). The envelope's
//! checks shared with Big Two (`started_at_ok`, `present`, `non_empty`, `AnyObject`) are
//! `crate::parse`'s.

use super::cards::fast_mask;
use super::combos::Kind;
use super::state::{Action, ActionType};
use crate::parse::{
    non_empty, present, started_at_ok, started_at_stored, AnyObject, Meta, SeatMeta,
};
use std::borrow::Cow;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

const TS_MIN: f64 = 631_152_000.0; // 1990-01-01T00:00:00Z
const TS_MAX: f64 = 4_102_444_800.0; // 2100-01-01T00:00:00Z
const INT32_MAX: u64 = (1 << 31) - 1;
const BALANCE_MAX: f64 = 9_007_199_254_740_992.0; // 2**53
const RESULT_KEYS: [&str; 11] = [
    "outcome",
    "landlord",
    "base",
    "winner",
    "landlord_won",
    "bombs",
    "rockets",
    "spring",
    "multiplier",
    "amount",
    "scores",
];

/// One Dou Dizhu game line, read.
#[derive(Debug, Clone)]
pub struct DdzLine {
    pub game_id: String,
    pub preset: String,
    /// The overrides as canonical JSON (sorted keys): the ruleset cache's key.
    pub overrides: String,
    pub n_seats: usize,
    pub hands: Option<Vec<u64>>,
    pub kitty: Option<u64>,
    pub set_aside: Option<u64>,
    pub face_up_card: Option<u32>,
    pub first_bidder: Option<usize>,
    pub actions: Vec<Action>,
    pub ts: Vec<Option<f64>>,
    /// The declared result's non-null fields, sorted by key.
    pub declared: Option<Vec<(String, Value)>>,
    /// `game_number` (1 when not logged) and the envelope the games and seats rows hold.
    pub game_number: u64,
    pub meta: Meta,
}

/// Whether serde read this float exactly: a number written with at most 15 significant
/// digits is (one rounding); its shortest digits are then at most 15 too. A value with more
/// may be a unit off in the last place (serde's fast float reading, without
/// `float_roundtrip`, which would double Big Two's parse).
pub fn exact_float(x: f64) -> bool {
    let shown = format!("{:e}", x);
    let digits = shown.split('e').next().unwrap_or("").bytes();
    x.is_finite() && digits.filter(u8::is_ascii_digit).count() <= 15
}

/// Whether every number of an override value is within ±2**53 (`_freeze`) and read exactly
/// (what Python resolves is the text serde prints back).
fn overrides_ok(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.as_f64()
                .is_some_and(|x| (-BALANCE_MAX..=BALANCE_MAX).contains(&x))
                && (n.is_i64() || n.is_u64() || n.as_f64().is_some_and(exact_float))
        }
        Value::Array(items) => items.iter().all(overrides_ok),
        Value::Object(map) => map.values().all(overrides_ok),
        _ => true,
    }
}

/// Within `margin` of a range's ends: a number the core leaves to Python, so that a reading a
/// unit off in the last place can never fall on the other side of an end.
fn near_edge(x: f64, lo: f64, hi: f64, margin: f64) -> bool {
    (x - lo).abs() <= margin || (x - hi).abs() <= margin
}

/// Cards as the log writes them (a string, or a list of one-card strings) as a mask, with
/// whether the value was exactly `""` or `[]`; anything uncommon fails (the line is Python's).
struct Cards(u64, bool);

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cards, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cards;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("cards")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Cards, E> {
                fast_mask(text)
                    .map(|m| Cards(m, text.is_empty()))
                    .ok_or_else(|| E::custom("uncommon cards"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cards, A::Error> {
                let mut m = 0u64;
                let mut any = false;
                while let Some(tok) = seq.next_element::<Cow<'de, str>>()? {
                    any = true;
                    let c = super::cards::token_id(&tok)
                        .ok_or_else(|| de::Error::custom("uncommon card"))?;
                    if m >> c & 1 == 1 {
                        return Err(de::Error::custom("a card twice"));
                    }
                    m |= 1 << c;
                }
                Ok(Cards(m, !any))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSeat<'a> {
    seat: u64,
    #[serde(borrow)]
    player_id: Cow<'a, str>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    balance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec<'a> {
    #[serde(borrow)]
    preset: Cow<'a, str>,
    #[serde(default, deserialize_with = "present")]
    overrides: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawRuleset<'a> {
    #[serde(borrow)]
    Name(Cow<'a, str>),
    #[serde(borrow)]
    Spec(RawSpec<'a>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeal {
    hands: Vec<Cards>,
    #[serde(default)]
    kitty: Option<Cards>,
    #[serde(default)]
    set_aside: Option<Cards>,
    #[serde(default)]
    face_up_card: Option<Cards>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction<'a> {
    seat: u64,
    #[serde(borrow)]
    action: Cow<'a, str>,
    #[serde(default)]
    cards: Option<Cards>,
    #[serde(default)]
    value: Option<i64>,
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    ts: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RawGame<'a> {
    format_version: u64,
    #[serde(borrow)]
    game_kind: Cow<'a, str>,
    game_id: String,
    #[serde(borrow)]
    ruleset: RawRuleset<'a>,
    #[serde(borrow, default)]
    match_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    game_number: Option<u64>,
    #[serde(borrow, default)]
    table_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tournament_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tournament_kind: Option<Cow<'a, str>>,
    #[serde(default)]
    tournament_round: Option<u64>,
    #[serde(borrow, default)]
    started_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    seats: Vec<RawSeat<'a>>,
    #[serde(default)]
    deal: Option<RawDeal>,
    #[serde(default)]
    first_bidder: Option<u64>,
    #[serde(borrow)]
    actions: Vec<RawAction<'a>>,
    #[serde(default)]
    result: Option<Map<String, Value>>,
    #[serde(default)]
    truth: Option<AnyObject>,
}

fn action(raw: RawAction<'_>, n: usize) -> Option<(Action, Option<f64>)> {
    if raw.seat >= n as u64 {
        return None;
    }
    let kind = ActionType::parse(&raw.action)?;
    let value = match (kind, raw.value) {
        (ActionType::Bid, Some(v)) => v,
        (ActionType::Bid, None) => return None,
        (_, None) => 0,
        _ => return None,
    };
    let (cards, named) = if kind == ActionType::Play {
        let cards = raw.cards?.0;
        let named = match raw.kind {
            None => None,
            Some(text) => Some(Kind::parse(&text)?),
        };
        (cards, named)
    } else {
        if raw.cards.is_some_and(|c| !c.1) || raw.kind.is_some_and(|k| !k.is_empty()) {
            return None;
        }
        (0, None)
    };
    if raw
        .ts
        .is_some_and(|ts| !(TS_MIN..=TS_MAX).contains(&ts) || near_edge(ts, TS_MIN, TS_MAX, 1e-3))
    {
        return None;
    }
    let a = Action {
        seat: raw.seat as usize,
        kind,
        cards,
        value,
        named,
    };
    Some((a, raw.ts))
}

/// A Dou Dizhu game line → its record, or `None` for the Python reader to read.
pub fn parse_ddz_line(text: &str) -> Option<DdzLine> {
    let raw: RawGame = serde_json::from_str(text).ok()?;
    if raw.format_version != 1 || raw.game_kind != "doudizhu" || raw.game_id.is_empty() {
        return None;
    }
    let (preset, overrides) = match raw.ruleset {
        RawRuleset::Name(name) => (name.into_owned(), "{}".to_string()),
        RawRuleset::Spec(spec) => {
            let overrides = Value::Object(spec.overrides.unwrap_or_default());
            if !overrides_ok(&overrides) {
                return None;
            }
            (
                spec.preset.into_owned(),
                serde_json::to_string(&overrides).ok()?,
            )
        }
    };
    if preset.is_empty() {
        return None;
    }
    let n = raw.seats.len();
    if !(2..=52).contains(&n) {
        return None;
    }
    for (i, seat) in raw.seats.iter().enumerate() {
        if seat.seat != i as u64
            || seat.player_id.is_empty()
            || seat.balance.is_some_and(|b| {
                !(-BALANCE_MAX..=BALANCE_MAX).contains(&b)
                    || near_edge(b, -BALANCE_MAX, BALANCE_MAX, 1.0)
            })
        {
            return None;
        }
    }
    let texts = [
        &raw.match_id,
        &raw.table_id,
        &raw.tournament_id,
        &raw.tournament_kind,
    ];
    if !texts.into_iter().all(non_empty) {
        return None;
    }
    let in_int32 = |x: u64| (1..=INT32_MAX).contains(&x);
    if !in_int32(raw.game_number.unwrap_or(1)) || !raw.tournament_round.is_none_or(in_int32) {
        return None;
    }
    if let Some(t) = &raw.started_at {
        if !started_at_ok(t) {
            return None;
        }
    }
    let (hands, kitty, set_aside, face_up_card) = match raw.deal {
        None => (None, None, None, None),
        Some(deal) => {
            let face = match deal.face_up_card {
                None => None,
                Some(Cards(m, _)) if m.count_ones() == 1 => Some(m.trailing_zeros()),
                Some(_) => return None,
            };
            (
                Some(deal.hands.iter().map(|h| h.0).collect()),
                deal.kitty.map(|c| c.0),
                deal.set_aside.map(|c| c.0),
                face,
            )
        }
    };
    if raw.actions.len() > 58 * n {
        return None; // E_GAME_TOO_LONG: the Python reader words it
    }
    let mut actions = Vec::with_capacity(raw.actions.len());
    let mut ts = Vec::with_capacity(raw.actions.len());
    for a in raw.actions {
        let (a, t) = action(a, n)?;
        actions.push(a);
        ts.push(t);
    }
    let first_bidder = match raw.first_bidder {
        None => None,
        Some(s) if s < n as u64 => Some(s as usize),
        Some(_) => return None,
    };
    let declared = match raw.result {
        None => None,
        Some(map) => {
            let mut fields = Vec::new();
            for (key, value) in map {
                if !RESULT_KEYS.contains(&key.as_str()) {
                    return None;
                }
                if (key == "landlord" || key == "winner")
                    && !value.is_null()
                    && value.as_u64().is_none_or(|s| s >= n as u64)
                {
                    return None;
                }
                if !value.is_null() {
                    fields.push((key, value));
                }
            }
            Some(fields) // a serde_json Map iterates in key order
        }
    };
    let text = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
    let meta = Meta {
        match_id: text(raw.match_id),
        table_id: text(raw.table_id),
        tournament_id: text(raw.tournament_id),
        tournament_kind: text(raw.tournament_kind),
        tournament_round: raw.tournament_round,
        started_at: raw.started_at.as_deref().map(started_at_stored),
        seats: raw
            .seats
            .into_iter()
            .map(|s| SeatMeta {
                player_id: s.player_id.into_owned(),
                name: s.name.map(Cow::into_owned),
                balance: s.balance,
            })
            .collect(),
    };
    Some(DdzLine {
        game_number: raw.game_number.unwrap_or(1),
        meta,
        game_id: raw.game_id,
        preset,
        overrides,
        n_seats: n,
        hands,
        kitty,
        set_aside,
        face_up_card,
        first_bidder,
        actions,
        ts,
        declared,
    })
}
