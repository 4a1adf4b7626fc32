//! One JSON Lines game line → a typed record, on the common shapes only.
//!
//! The checks are those of `pipeline.logs.records.record_from_obj`; but where a line is
//! unusual (any schema problem, a card spelling outside the common table, an ISO time as `ts`,
//! a number at the edge of its range) the parser answers `None`: the Python reader then reads
//! the line and gives the reject with its exact message. So a line the core accepts is one the
//! Python reader accepts, with the same values, and no reader message is written twice.

use crate::cards::{mask_of, token_card};
use crate::state::{Action, ActionType, Claim};
use std::borrow::Cow;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

mod fast;
pub mod tree;
use tree::Tree;

pub const TS_MIN: f64 = 631_152_000.0; // 1990-01-01T00:00:00Z
pub const TS_MAX: f64 = 4_102_444_800.0; // 2100-01-01T00:00:00Z
const INT32_MAX: u64 = (1 << 31) - 1;
const BALANCE_MAX: f64 = 9_007_199_254_740_992.0; // 2**53

/// One game line, read.
#[derive(Debug, Clone)]
pub struct Record {
    pub game_id: String,
    pub game_kind: String,
    pub preset: String,
    /// The overrides as canonical JSON (sorted keys): the ruleset cache's key.
    pub overrides: String,
    pub n_seats: usize,
    pub hands: Option<Vec<u64>>,
    pub stock: Vec<u32>,
    pub start_counts: Option<Vec<u32>>,
    pub game_number: u64,
    pub previous_winner: Option<usize>,
    pub first_leader: Option<usize>,
    pub declared_winner: Option<usize>,
    pub declared_left: Option<Vec<u32>>,
    pub has_declared: bool,
    pub actions: Vec<Action>,
    /// Each action's `ts` as logged (seconds), or None.
    pub ts: Vec<Option<f64>>,
    /// The metadata the games and seats rows hold, as the Python reader stores it.
    pub meta: Meta,
}

/// A seat of the `seats` list.
#[derive(Debug, Clone)]
pub struct SeatMeta {
    pub player_id: String,
    pub name: Option<String>,
    pub balance: Option<f64>,
}

/// The game's metadata as `record_from_obj` gives it (`started_at` in its stored form).
#[derive(Debug, Clone, Default)]
pub struct Meta {
    pub match_id: Option<String>,
    pub table_id: Option<String>,
    pub tournament_id: Option<String>,
    pub tournament_kind: Option<String>,
    pub tournament_round: Option<u64>,
    pub started_at: Option<String>,
    pub seats: Vec<SeatMeta>,
}

/// Whether every number inside an override value is within ±2**53 (`_freeze`).
fn numbers_in_range(v: &Value) -> bool {
    match v {
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|x| (-BALANCE_MAX..=BALANCE_MAX).contains(&x)),
        Value::Array(items) => items.iter().all(numbers_in_range),
        Value::Object(map) => map.values().all(numbers_in_range),
        _ => true,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f][Z|±HH:MM]` within 1990 … 2100 (else the Python reader decides).
pub(crate) fn started_at_ok(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 19 || !text.is_ascii() {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19))
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| text[r].parse::<u32>().unwrap_or(99);
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    let (hour, minute, second) = (num(11..13), num(14..16), num(17..19));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month)
        || day == 0
        || day > days[month as usize - 1]
        || hour > 23
        || minute > 59
        || second > 59
    {
        return false;
    }
    // a year strictly inside the range: no zone can move it across an end
    if !(1991..=2098).contains(&year) {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n != 3 && n != 6 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest.as_bytes() {
        [] | [b'Z'] => true,
        [s, h1, h2, b':', m1, m2] if (*s == b'+' || *s == b'-') => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && (rest[1..3].parse::<u32>().unwrap_or(99) < 24)
                && (rest[4..6].parse::<u32>().unwrap_or(99) < 60)
        }
        _ => false,
    }
}

/// `started_at` as the Python reader stores it (`_started_at`): as logged when it names a
/// zone, else with `+00:00` made explicit as `datetime.isoformat` writes it (microseconds,
/// six digits, only when not zero). Only for a text `started_at_ok` accepted.
pub(crate) fn started_at_stored(text: &str) -> String {
    let rest = &text[19..];
    let (frac, zone) = match rest.strip_prefix('.') {
        Some(f) => {
            let n = f.bytes().take_while(u8::is_ascii_digit).count();
            (&f[..n], &f[n..])
        }
        None => ("", rest),
    };
    if !zone.is_empty() {
        return text.to_owned();
    }
    let mut out = text[..19].to_owned();
    if !frac.is_empty() {
        let micro: u32 = format!("{frac:0<6}").parse().unwrap_or(0);
        if micro != 0 {
            out.push_str(&format!(".{micro:06}"));
        }
    }
    out.push_str("+00:00");
    out
}

/// Whether the line holds a number serde may read otherwise than orjson: one with more than
/// 15 digits (its significand may not fit a double exactly: serde's fast reading may then be a
/// unit off in the last place, and an integer may be at the edge of 64 bits) or with an
/// exponent (`1e-300`). A number of at most 15 digits and no exponent is read exactly (one
/// rounding, Clinger's fast path). Such a line is the Python reader's.
fn risky_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let mut digits = 0;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    match b[i] {
                        b'e' | b'E' => return true,
                        b'0'..=b'9' => digits += 1,
                        _ => {}
                    }
                    i += 1;
                }
                if digits > 15 {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// Cards as the log writes them (one string, or a list of one-card strings), read straight
/// into card ids with the common spellings; anything else fails, and the line goes to Python.
/// The ids in their order (inline: no card repeats, so at most 52), and whether the value was
/// exactly `""` or `[]` (what a pass may carry).
struct Cards {
    ids: [u8; 52],
    len: u8,
    exactly_empty: bool,
}

impl Cards {
    fn new() -> Cards {
        Cards {
            ids: [0; 52],
            len: 0,
            exactly_empty: false,
        }
    }

    /// Add a card; None when it is there already.
    fn add(&mut self, c: u8, seen: &mut u64) -> Option<()> {
        if *seen >> c & 1 == 1 {
            return None;
        }
        *seen |= 1 << c;
        self.ids[self.len as usize] = c;
        self.len += 1;
        Some(())
    }

    /// The common tokens of one string, separated by ASCII whitespace (`fast_ids`).
    fn of_text(text: &str) -> Option<Cards> {
        let mut out = Cards::new();
        let mut seen = 0u64;
        for tok in text.split_ascii_whitespace() {
            out.add(token_card(tok)?, &mut seen)?;
        }
        out.exactly_empty = text.is_empty();
        Some(out)
    }

    fn ids(&self) -> &[u8] {
        &self.ids[..self.len as usize]
    }

    fn mask(&self) -> u64 {
        mask_of(self.ids())
    }
}

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cards, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cards;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("cards")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Cards, E> {
                Cards::of_text(text).ok_or_else(|| E::custom("uncommon cards"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cards, A::Error> {
                let mut out = Cards::new();
                let mut seen = 0u64;
                while let Some(tok) = seq.next_element::<Cow<'de, str>>()? {
                    let c = token_card(&tok).ok_or_else(|| de::Error::custom("uncommon card"))?;
                    out.add(c, &mut seen)
                        .ok_or_else(|| de::Error::custom("a card twice"))?;
                }
                out.exactly_empty = out.len == 0;
                Ok(out)
            }
        }
        d.deserialize_any(V)
    }
}

/// Any JSON object, skipped (`truth`).
pub(crate) struct AnyObject;

impl<'de> Deserialize<'de> for AnyObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AnyObject, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyObject, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyObject)
            }
        }
        d.deserialize_map(V)
    }
}

/// A struct read only from a JSON object: serde's derived readers also take a list of the
/// fields' values in order (`[0, "p0"]` as a seat), which the Python reader refuses
/// (`E_SCHEMA`); such a line is the Python reader's.
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Obj<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Obj::deserialize(d).map(|o| o.0)
}

fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Vec::<Obj<T>>::deserialize(d).map(|v| v.into_iter().map(|o| o.0).collect())
}

fn opt_object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<Obj<T>>::deserialize(d).map(|o| o.map(|o| o.0))
}

/// A field that may be absent but not null (`game_number`, `overrides`, `stock`).
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
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
    #[serde(borrow, deserialize_with = "object")]
    Spec(RawSpec<'a>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeal {
    hands: Vec<Cards>,
    #[serde(default, deserialize_with = "present")]
    stock: Option<Cards>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawResult {
    #[serde(default)]
    winner: Option<u64>,
    #[serde(default)]
    cards_left: Option<Vec<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction<'a> {
    seat: u64,
    #[serde(borrow)]
    action: Cow<'a, str>,
    #[serde(default)]
    cards: Option<Cards>,
    #[serde(borrow, default)]
    claim: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    drawn: Option<Cow<'a, str>>,
    #[serde(default)]
    ts: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
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
    #[serde(borrow, deserialize_with = "objects")]
    seats: Vec<RawSeat<'a>>,
    #[serde(default, deserialize_with = "opt_object")]
    deal: Option<RawDeal>,
    #[serde(default)]
    start_counts: Option<Vec<u64>>,
    #[serde(default)]
    previous_winner: Option<u64>,
    #[serde(default)]
    first_leader: Option<u64>,
    #[serde(borrow, deserialize_with = "objects")]
    actions: Vec<RawAction<'a>>,
    #[serde(default, deserialize_with = "opt_object")]
    result: Option<RawResult>,
    #[serde(default)]
    truth: Option<AnyObject>,
}

fn seat_ref(value: Option<u64>, n: usize) -> Option<Option<usize>> {
    match value {
        None => Some(None),
        Some(s) if s < n as u64 => Some(Some(s as usize)),
        Some(_) => None,
    }
}

fn counts(values: Vec<u64>) -> Option<Vec<u32>> {
    values
        .into_iter()
        .map(|c| (c <= 52).then_some(c as u32))
        .collect()
}

pub(crate) fn non_empty(value: &Option<Cow<'_, str>>) -> bool {
    value.as_ref().is_none_or(|s| !s.is_empty())
}

fn action(raw: RawAction<'_>) -> Option<(Action, Option<f64>)> {
    let kind = match raw.action.as_ref() {
        "play" => ActionType::Play,
        "pass" => ActionType::Pass,
        "claim" => ActionType::Claim,
        "swap" => ActionType::Swap,
        "announce" => ActionType::Announce,
        _ => return None,
    };
    let cards = match (kind, raw.cards) {
        (ActionType::Play, Some(c)) if c.len > 0 => c.mask(),
        (ActionType::Play, _) => return None,
        (_, Some(c)) if !c.exactly_empty => return None,
        _ => 0,
    };
    let claim = match (kind, raw.claim) {
        (ActionType::Claim, Some(text)) => Some(Claim::parse(&text)?),
        (ActionType::Claim, None) | (_, Some(_)) => return None,
        (_, None) => None,
    };
    let drawn = match (kind, raw.drawn) {
        (_, None) => None,
        (ActionType::Pass, Some(text)) => {
            Some(token_card(text.trim_matches(|c: char| c.is_ascii_whitespace()))? as u32)
        }
        _ => return None,
    };
    if raw.ts.is_some_and(|ts| !(TS_MIN..=TS_MAX).contains(&ts)) {
        return None;
    }
    let action = Action {
        seat: raw.seat,
        kind,
        cards,
        claim,
        drawn,
    };
    Some((action, raw.ts))
}

/// A game line → its record, or `None` for the Python reader to decide.
pub fn parse_line(text: &str) -> Option<Record> {
    read_line(text).map(|(record, _)| record)
}

/// A game line → its record and, when the tree scanner read it (the common case), its tree
/// (the content hash reads it: `rows::tree_hash`); `None` for the Python reader to decide.
/// A line outside the scanner's subset, or whose shape the typed reader of the tree does not
/// take, is read by serde as before: the same answer either way.
pub fn read_line(text: &str) -> Option<(Record, Option<Tree<'_>>)> {
    if let Some(tree) = Tree::read(text) {
        if let Some(raw) = fast::raw_game(&tree) {
            return finish(raw).map(|record| (record, Some(tree)));
        }
    }
    serde_line(text).map(|record| (record, None))
}

/// The line read by serde alone (the reference of the tree's typed reader).
pub fn serde_line(text: &str) -> Option<Record> {
    if risky_number(text) {
        return None;
    }
    let raw: Obj<RawGame> = serde_json::from_str(text).ok()?;
    finish(raw.0)
}

/// The checks and the record of a line read (by serde or from the tree).
fn finish(raw: RawGame<'_>) -> Option<Record> {
    if raw.format_version != 1 || raw.game_kind != "big2" || raw.game_id.is_empty() {
        return None; // a doudizhu line: the Python replay names it (E_GAME_KIND)
    }
    let (preset, overrides) = match raw.ruleset {
        RawRuleset::Name(name) => (name.into_owned(), "{}".to_string()),
        RawRuleset::Spec(spec) => {
            let overrides = Value::Object(spec.overrides.unwrap_or_default());
            if !numbers_in_range(&overrides) {
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
            || seat
                .balance
                .is_some_and(|b| !(-BALANCE_MAX..=BALANCE_MAX).contains(&b))
        {
            return None;
        }
        let _ = &seat.name; // any string or null
    }
    let (hands, stock) = match raw.deal {
        None => (None, Vec::new()),
        Some(deal) => (
            Some(deal.hands.iter().map(Cards::mask).collect()),
            deal.stock.map_or_else(Vec::new, |s| {
                s.ids().iter().copied().map(u32::from).collect()
            }),
        ),
    };
    let start_counts = match raw.start_counts {
        None => None,
        Some(values) => Some(counts(values)?),
    };
    if let Some(text) = &raw.started_at {
        if !started_at_ok(text) {
            return None;
        }
    }
    if raw.actions.len() > 52 * n + 2 {
        return None;
    }
    let mut actions = Vec::with_capacity(raw.actions.len());
    let mut times = Vec::with_capacity(raw.actions.len());
    let mut last = TS_MIN;
    for a in raw.actions {
        let (a, ts) = action(a)?;
        if let Some(ts) = ts {
            if ts < last {
                return None; // E_TS_ORDER: the Python reader words it
            }
            last = ts;
        }
        actions.push(a);
        times.push(ts);
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
    let game_number = raw.game_number.unwrap_or(1);
    let in_int32 = |x: u64| (1..=INT32_MAX).contains(&x);
    if !in_int32(game_number) || !raw.tournament_round.is_none_or(in_int32) {
        return None;
    }
    let previous_winner = seat_ref(raw.previous_winner, n)?;
    let first_leader = seat_ref(raw.first_leader, n)?;
    let (has_declared, declared_winner, declared_left) = match raw.result {
        None => (false, None, None),
        Some(res) => {
            let left = match res.cards_left {
                None => None,
                Some(values) => Some(counts(values)?),
            };
            (true, seat_ref(res.winner, n)?, left)
        }
    };
    let _ = raw.truth;
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
    Some(Record {
        game_id: raw.game_id,
        game_kind: "big2".to_owned(),
        preset,
        overrides,
        n_seats: n,
        hands,
        stock,
        start_counts,
        game_number,
        previous_winner,
        first_leader,
        declared_winner,
        declared_left,
        has_declared,
        actions,
        ts: times,
        meta,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert!(started_at_ok("2026-11-01T20:00:00+08:00"));
        assert!(started_at_ok("2026-11-01T20:00:00"));
        assert!(started_at_ok("2026-11-01T12:07:00Z"));
        assert!(!started_at_ok("2026-02-30T20:00:00"));
        assert!(!started_at_ok("2100-01-01T00:00:00"));
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00"),
            "2026-11-01T20:00:00+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00.120"),
            "2026-11-01T20:00:00.120000+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00.000"),
            "2026-11-01T20:00:00+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00Z"),
            "2026-11-01T20:00:00Z"
        );
    }

    #[test]
    fn fast_path_or_none() {
        let line = r#"{"format_version":1,"game_kind":"big2","game_id":"g","ruleset":"hk",
            "seats":[{"seat":0,"player_id":"a"},{"seat":1,"player_id":"b"}],
            "actions":[{"seat":0,"action":"play","cards":"3d"},{"seat":1,"action":"pass"}]}"#;
        let r = parse_line(line).unwrap();
        assert_eq!((r.actions.len(), r.actions[0].cards, r.n_seats), (2, 1, 2));
        assert!(parse_line(&line.replace("\"3d\"", "\"3x\"")).is_none());
        assert!(risky_number(r#"{"a": "x\"", "ts": 1785000012.3456789}"#));
        assert!(risky_number(r#"{"ts": 1.5e-7}"#));
        assert!(!risky_number(
            r#"{"a": "1e5 12345678901234567", "ts": 1785000012.125}"#
        ));
        assert!(
            parse_line(&line.replace("\"seat\":1,\"action\"", "\"seat\":1.0,\"action\"")).is_none()
        );
    }

    /// A struct written as a list of its values is the Python reader's (`E_SCHEMA`), on both
    /// reads (a name with an escape sends the line to serde).
    #[test]
    fn structs_only_from_objects() {
        let line = r#"{"format_version":1,"game_kind":"big2","game_id":"g","ruleset":"hk",
            "seats":[{"seat":0,"player_id":"a"},{"seat":1,"player_id":"b\"c"}],
            "actions":[{"seat":0,"action":"play","cards":"3d"},{"seat":1,"action":"pass"}]}"#;
        assert!(serde_line(line).is_some());
        for (from, to) in [
            (r#"{"seat":0,"player_id":"a"}"#, r#"[0, "a"]"#),
            (r#"{"seat":1,"action":"pass"}"#, r#"[1, "pass"]"#),
            (r#""hk""#, r#"["hk"]"#),
            (r#""hk""#, r#""hk","deal":[["3d"]]"#),
            (r#""hk""#, r#""hk","result":[0]"#),
        ] {
            let text = line.replacen(from, to, 1);
            assert!(serde_line(&text).is_none(), "{text}");
            assert!(parse_line(&text).is_none(), "{text}");
        }
    }

    /// The tree's numbers read as `str::parse` (and serde) read them, to the bit.
    #[test]
    fn decimals_read_exactly() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..300_000 {
            let total = 1 + (next() % 15) as usize;
            let whole = (next() % (total as u64 + 1)) as usize;
            let mut text = String::from(if round % 2 == 0 { "-" } else { "" });
            let digit = |k: usize, x: u64| {
                char::from(b'0' + (x % 10) as u8 + u8::from(k == 0 && x.is_multiple_of(10)))
            };
            if whole == 0 {
                text.push('0');
            } else {
                for k in 0..whole {
                    text.push(digit(k, next()));
                }
            }
            if total > whole {
                text.push('.');
                for _ in whole..total {
                    text.push(char::from(b'0' + (next() % 10) as u8));
                }
            }
            let want: f64 = text.parse().unwrap();
            assert_eq!(fast::decimal(&text).to_bits(), want.to_bits(), "{text}");
            let serde: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(serde.to_bits(), want.to_bits(), "{text}");
        }
    }

    /// The tree's typed reader answers as serde does wherever it answers: on a full line and
    /// on copies with one or two of its values, keys or brackets changed (nulls, wrong types,
    /// arrays for objects, repeated and unknown fields, negative and fractional numbers,
    /// uncommon cards …). Where it does not answer, `read_line` asks serde: the same answer.
    #[test]
    fn tree_reader_is_serde() {
        let line = r#"{"format_version": 1, "game_kind": "big2", "game_id": "g7",
            "ruleset": {"preset": "hk", "overrides": {"pass_locks_out": false, "x": [1.5, -0]}},
            "match_id": "m", "game_number": 2, "table_id": null, "tournament_id": "t",
            "tournament_kind": "swiss", "tournament_round": 3,
            "started_at": "2026-11-01T20:00:00.120",
            "seats": [{"seat": 0, "player_id": "a", "name": "Ann", "balance": -12.5},
                      {"seat": 1, "player_id": "b", "name": null, "balance": 3}],
            "deal": {"hands": ["3d 4d", ["5d", "6d"]], "stock": []},
            "start_counts": [2, 2], "previous_winner": null, "first_leader": 0,
            "actions": [{"seat": 0, "action": "play", "cards": "3d", "ts": 1785000000.5},
                        {"seat": 1, "action": "pass", "cards": "", "ts": 1785000001},
                        {"seat": 0, "action": "play", "cards": ["4d"], "ts": null},
                        {"seat": 1, "action": "claim", "claim": "dragon", "drawn": null}],
            "result": {"winner": 0, "cards_left": [0, 2]}, "truth": {"seed": 1, "k": [null]}}"#;
        let swaps: &[(&str, &str)] = &[
            ("1,", "null,"),
            ("1,", "1.0,"),
            ("1,", "-1,"),
            ("1,", "\"1\","),
            ("\"big2\"", "null"),
            ("\"g7\"", "7"),
            ("{\"preset\"", "{\"x\": 1, \"preset\""),
            ("{\"preset\": \"hk\", ", "{"),
            ("\"overrides\": {", "\"overrides\": null, \"o\": {"),
            ("\"pass_locks_out\": false, ", ""),
            ("{\"pass_locks_out\": false, \"x\": [1.5, -0]}", "{}"),
            ("{\"pass_locks_out\": false, \"x\": [1.5, -0]}", "[]"),
            ("\"m\"", "null"),
            ("\"m\"", "\"\""),
            ("\"game_number\": 2", "\"game_number\": null"),
            ("\"game_number\": 2", "\"game_number\": 2.5"),
            ("\"table_id\": null", "\"table_id\": 5"),
            ("\"tournament_round\": 3", "\"tournament_round\": null"),
            ("\"tournament_round\": 3", "\"tournament_round\": -3"),
            ("20:00:00.120", "20:00:00"),
            ("\"2026-11-01T20:00:00.120\"", "null"),
            (
                "{\"seat\": 0, \"player_id\": \"a\"",
                "[0, \"a\"], {\"seat\": 9, \"player_id\": \"a\"",
            ),
            (
                "\"seat\": 0, \"player_id\": \"a\"",
                "\"player_id\": \"a\", \"seat\": 0",
            ),
            (
                "\"seat\": 0, \"player_id\": \"a\"",
                "\"seat\": 0, \"seat\": 0, \"player_id\": \"a\"",
            ),
            ("\"name\": \"Ann\"", "\"name\": 1"),
            ("\"balance\": -12.5", "\"balance\": null"),
            ("\"balance\": -12.5", "\"balance\": \"x\""),
            ("\"balance\": 3", "\"balance\": -0"),
            ("[\"5d\", \"6d\"]", "[\"5d\", 6]"),
            ("[\"5d\", \"6d\"]", "[\"5d\", \"5d\"]"),
            ("[\"5d\", \"6d\"]", "\"5d  6d\""),
            ("[\"5d\", \"6d\"]", "null"),
            ("\"3d 4d\"", "\"3d 4x\""),
            ("\"stock\": []", "\"stock\": null"),
            ("\"stock\": []", "\"stock\": \"\""),
            (", \"stock\": []", ""),
            ("{\"hands\"", "{\"z\": 0, \"hands\""),
            ("\"deal\": {", "\"deal\": null, \"d\": {"),
            ("[2, 2]", "null"),
            ("[2, 2]", "[2, 53]"),
            ("[2, 2]", "[2, 2.0]"),
            ("\"first_leader\": 0", "\"first_leader\": null"),
            ("\"first_leader\": 0", "\"first_leader\": 5"),
            ("\"cards\": \"3d\"", "\"cards\": null"),
            ("\"cards\": \"3d\"", "\"cards\": [\"3d\"]"),
            ("\"cards\": \"\"", "\"cards\": []"),
            ("\"cards\": \"\"", "\"cards\": \" \""),
            ("\"cards\": \"\"", "\"cards\": null"),
            ("\"ts\": 1785000000.5", "\"ts\": \"1785000000.5\""),
            ("\"ts\": 1785000001", "\"ts\": 1785000000.25"),
            ("\"ts\": null", "\"ts\": 1785000002"),
            ("\"action\": \"pass\"", "\"action\": \"fold\""),
            (
                "\"action\": \"pass\"",
                "\"action\": \"pass\", \"action\": \"pass\"",
            ),
            ("\"claim\": \"dragon\"", "\"claim\": null"),
            ("\"drawn\": null", "\"drawn\": \"3d\""),
            (
                "{\"seat\": 1, \"action\": \"claim\"",
                "[1, \"claim\"], {\"seat\": 1, \"action\": \"claim\"",
            ),
            ("\"winner\": 0", "\"winner\": null"),
            ("\"winner\": 0", "\"winner\": 0.0"),
            ("[0, 2]", "null"),
            ("\"result\": {", "\"result\": null, \"r\": {"),
            ("{\"seed\": 1, \"k\": [null]}", "null"),
            ("{\"seed\": 1, \"k\": [null]}", "[1]"),
            ("{\"seed\": 1, \"k\": [null]}", "{\"seed\": 1, \"seed\": 2}"),
            ("\"truth\"", "\"tooth\""),
            ("\"format_version\": 1, ", ""),
            (
                "\"format_version\": 1, ",
                "\"format_version\": 1, \"format_version\": 1, ",
            ),
            ("\"actions\": [", "\"actions\": null, \"a\": ["),
            (
                "{\"format_version\"",
                "{\"truth\": null, \"format_version\"",
            ),
        ];
        let both = |text: &str| {
            let fast = Tree::read(text)
                .and_then(|t| fast::raw_game(&t).map(|raw| format!("{:?}", finish(raw))));
            (fast, format!("{:?}", serde_line(text)))
        };
        let (fast, slow) = both(line);
        assert_eq!(fast.as_deref(), Some(slow.as_str()));
        assert!(slow.starts_with("Some"), "{slow}");
        let mut answered = 0;
        for (i, &(from, to)) in swaps.iter().enumerate() {
            assert!(line.contains(from), "{from}");
            let one = line.replacen(from, to, 1);
            // and a second change with it
            let (from2, to2) = swaps[(i * 7 + 3) % swaps.len()];
            let two = one.replacen(from2, to2, 1);
            for text in [one, two] {
                let (fast, slow) = both(&text);
                if let Some(fast) = fast {
                    assert_eq!(fast, slow, "{text}");
                    answered += 1;
                }
                let read = read_line(&text).map(|(r, _)| r);
                assert_eq!(format!("{read:?}"), slow, "{text}");
            }
        }
        assert!(answered > swaps.len() / 2, "{answered}");
    }
}
