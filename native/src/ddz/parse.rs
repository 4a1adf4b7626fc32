//! One Dou Dizhu JSON Lines game line → a typed record, on the common shapes only, as
//! `pipeline.doudizhu.game.record_from_obj` reads it (after `read_envelope`).
//!
//! As `crate::parse` does for Big Two: where a line is unusual (any schema problem, a card
//! spelling outside the common table, a `ts` in an ISO shape the core does not read (it reads
//! Big Two's: `crate::parse::envelope::iso_seconds`), a number at the edge of its range,
//! an override not read exactly) the parser answers `None` and the Python reader reads the
//! line, so a reader message is written once, in Python. A line is read from its tree when
//! the typed reader takes it (as Big Two's: each number read once, correctly, long ones with
//! `str::parse`), else by serde, whose reading of a long number may be a unit off in the
//! last place (`DdzLine::exact` false: the rows are then Python's); either way a number is
//! used only where such a reading cannot change the answer (range checks away from the ends,
//! the declared result's comparison within 1e-9), and a mismatch message that would print
//! such a value is Python's (`replay.rs`). The envelope
//! (ids, ruleset, seats, match fields …) is read and checked by `crate::parse::envelope`, as
//! Big Two's is; this file adds the deal, the first bidder, the actions and the result.

use super::cards::fast_mask;
use super::combos::Kind;
use super::state::{Action, ActionType};
pub use crate::parse::envelope::exact_float;
use crate::parse::envelope::{iso_seconds, near_edge, Body, Meta, Obj, RawGame, TS_MAX, TS_MIN};
use crate::parse::fast::{self, fields, nullable, raw_game, str_of, u64_of};
use crate::parse::tree::{Node, Tree};
use std::borrow::Cow;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

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
    /// Whether every number was read exactly (as orjson and Python read it): from the tree,
    /// or by serde when the line has no long number.
    pub exact: bool,
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
    #[serde(default, deserialize_with = "ts_of")]
    ts: Option<f64>,
}

/// An action's `ts`: null, a number (as serde reads an `f64`), or an ISO time of the shapes
/// the core reads (`iso_seconds`: the Python reader's seconds for it); any other text fails
/// the line, which the Python reader then reads.
fn ts_of<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number, an ISO time or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v as f64))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v as f64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            iso_seconds(v)
                .map(Some)
                .ok_or_else(|| E::custom("an ISO time the core does not read"))
        }
    }
    d.deserialize_option(V)
}

/// Dou Dizhu's own top-level fields.
#[derive(Default)]
struct Ddz<'a> {
    deal: Option<RawDeal>,
    first_bidder: Option<u64>,
    actions: Option<Vec<RawAction<'a>>>,
    result: Option<Map<String, Value>>,
}

impl<'de> Body<'de> for Ddz<'de> {
    const FIELDS: &'static [&'static str] = &["deal", "first_bidder", "actions", "result"];

    fn read<A: MapAccess<'de>>(&mut self, k: usize, map: &mut A) -> Result<(), A::Error> {
        match k {
            0 => self.deal = map.next_value::<Option<Obj<RawDeal>>>()?.map(|o| o.0),
            1 => self.first_bidder = map.next_value()?,
            2 => {
                let items: Vec<Obj<RawAction>> = map.next_value()?;
                self.actions = Some(items.into_iter().map(|a| a.0).collect());
            }
            _ => self.result = map.next_value()?,
        }
        Ok(())
    }

    /// The fields from the line's tree, as serde reads them above (`None` wherever the tree
    /// reader is not sure: serde reads the line).
    fn read_tree(&mut self, k: usize, t: &Tree<'de>, v: u32) -> Option<()> {
        match k {
            0 => self.deal = nullable(t, v, deal_of)?,
            1 => self.first_bidder = nullable(t, v, u64_of)?,
            2 => {
                self.actions = Some(
                    t.array(v)?
                        .map(|a| action_of(t, a))
                        .collect::<Option<_>>()?,
                )
            }
            _ => {
                self.result = match (t.node(v), value_of(t, v)?) {
                    (Node::Null, _) => None,
                    (_, Value::Object(map)) => Some(map),
                    _ => return None,
                }
            }
        }
        Some(())
    }

    fn complete(&self) -> bool {
        self.actions.is_some()
    }
}

/// A value of the tree as serde's `Value` (an object keeps the last entry of a key), each
/// number read once, correctly: a long one (`0.30000000000000004`, a float stake's amount)
/// with `str::parse` where serde's fast reading may be a unit off; an integer of 64 bits as
/// an integer, as serde reads it.
fn value_of(t: &Tree<'_>, i: u32) -> Option<Value> {
    Some(match t.node(i) {
        Node::Null => Value::Null,
        Node::True => Value::Bool(true),
        Node::False => Value::Bool(false),
        Node::Num(n) => serde_json::from_str(n).ok()?,
        Node::Long(n) => match (n.parse::<u64>(), n.parse::<i64>()) {
            (Ok(u), _) => Value::from(u),
            (_, Ok(k)) => Value::from(k),
            _ => Value::from(serde_json::Number::from_f64(n.parse().ok()?)?),
        },
        Node::Str(_) | Node::Esc(_) => Value::String(str_of(t, i)?.into_owned()),
        Node::Arr { .. } => {
            Value::Array(t.array(i)?.map(|v| value_of(t, v)).collect::<Option<_>>()?)
        }
        Node::Obj { .. } => {
            let mut map = Map::new();
            for &(key, v) in t.object(i)? {
                map.insert(key.to_owned(), value_of(t, v)?);
            }
            Value::Object(map)
        }
    })
}

/// Cards from the tree, as [`Cards`]' visitor reads them.
fn cards_of(t: &Tree<'_>, i: u32) -> Option<Cards> {
    match t.node(i) {
        Node::Arr { .. } => {
            let (mut m, mut any) = (0u64, false);
            for item in t.array(i)? {
                any = true;
                let c = super::cards::token_id(&str_of(t, item)?)?;
                if m >> c & 1 == 1 {
                    return None;
                }
                m |= 1 << c;
            }
            Some(Cards(m, !any))
        }
        _ => {
            let text = str_of(t, i)?; // `"\u5c0f\u738b"` (小王) as `json.dumps` writes it
            fast_mask(&text).map(|m| Cards(m, text.is_empty()))
        }
    }
}

/// The deal from the tree, as serde reads [`RawDeal`] (an object, no unknown or repeated
/// field, `hands` required).
fn deal_of(t: &Tree<'_>, i: u32) -> Option<RawDeal> {
    let mut hands = None;
    let (mut kitty, mut set_aside, mut face_up_card) = (None, None, None);
    for f in fields(t, i, &["hands", "kitty", "set_aside", "face_up_card"])? {
        let (k, v) = f?;
        match k {
            0 => hands = Some(t.array(v)?.map(|h| cards_of(t, h)).collect::<Option<_>>()?),
            1 => kitty = nullable(t, v, cards_of)?,
            2 => set_aside = nullable(t, v, cards_of)?,
            _ => face_up_card = nullable(t, v, cards_of)?,
        }
    }
    Some(RawDeal {
        hands: hands?,
        kitty,
        set_aside,
        face_up_card,
    })
}

/// An integer as `i64` (serde: no point, no exponent; `-0` is a float to serde).
fn i64_of(t: &Tree<'_>, i: u32) -> Option<i64> {
    match t.node(i) {
        Node::Num(n) if n != "-0" && !n.contains('.') => n.parse().ok(),
        _ => None,
    }
}

/// An action from the tree, as serde reads [`RawAction`].
fn action_of<'a>(t: &Tree<'a>, i: u32) -> Option<RawAction<'a>> {
    let (mut seat, mut action, mut cards, mut value, mut kind, mut ts) =
        (None, None, None, None, None, None);
    for f in fields(t, i, &["seat", "action", "cards", "value", "kind", "ts"])? {
        let (k, v) = f?;
        match k {
            0 => seat = Some(u64_of(t, v)?),
            1 => action = Some(str_of(t, v)?),
            2 => cards = nullable(t, v, cards_of)?,
            3 => value = nullable(t, v, i64_of)?,
            4 => kind = nullable(t, v, str_of)?,
            _ => ts = nullable(t, v, fast::ts_of)?,
        }
    }
    Some(RawAction {
        seat: seat?,
        action: action?,
        cards,
        value,
        kind,
        ts,
    })
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

/// A Dou Dizhu game line → its record, or `None` for the Python reader to read: from the
/// line's tree when the scanner and the typed reader take it (every number read exactly:
/// `DdzLine::exact`), else by serde (exact only without a number of more than 15 digits or
/// with an exponent: `risky_number`); the same answer either way.
pub fn parse_ddz_line(text: &str) -> Option<DdzLine> {
    read_ddz_line(text).map(|(line, _)| line)
}

/// [`parse_ddz_line`], with the line's tree when the typed reader read it from there (the
/// content hash reads it: no second scan), as Big Two's `read_line`.
pub fn read_ddz_line(text: &str) -> Option<(DdzLine, Option<Tree<'_>>)> {
    if let Some(tree) = Tree::read(text) {
        if let Some(raw) = raw_game::<Ddz>(&tree) {
            return finish(raw, true).map(|line| (line, Some(tree)));
        }
    }
    let raw = serde_json::from_str(text).ok()?;
    finish(raw, !crate::parse::risky_number(text)).map(|line| (line, None))
}

/// [`parse_ddz_line`]'s checks and record of a line read.
fn finish(raw: RawGame<'_, Ddz<'_>>, exact: bool) -> Option<DdzLine> {
    let RawGame::<Ddz> { env, body: raw } = raw;
    let head = env.check("doudizhu")?;
    let n = head.n_seats;
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
                // hands without the kitty: the Python reader's E_SCHEMA
                Some(deal.kitty?.0),
                deal.set_aside.map(|c| c.0),
                face,
            )
        }
    };
    let raw_actions = raw.actions?;
    if raw_actions.len() > 58 * n {
        return None; // E_GAME_TOO_LONG: the Python reader words it
    }
    let mut actions = Vec::with_capacity(raw_actions.len());
    let mut ts = Vec::with_capacity(raw_actions.len());
    for a in raw_actions {
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
    Some(DdzLine {
        game_number: head.game_number,
        meta: head.meta,
        game_id: head.game_id,
        preset: head.preset,
        overrides: head.overrides,
        n_seats: n,
        hands,
        kitty,
        set_aside,
        face_up_card,
        first_bidder,
        actions,
        ts,
        declared,
        exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The envelope is Big Two's reader: a struct written as a list of its values (which the
    /// Python reader refuses, `E_SCHEMA`) is the Python reader's here too, as is a line of the
    /// other game or with the other game's fields.
    #[test]
    fn shared_envelope() {
        let line = r#"{"format_version":1,"game_kind":"doudizhu","game_id":"d","ruleset":"ddz",
            "seats":[{"seat":0,"player_id":"a"},{"seat":1,"player_id":"b"},
                     {"seat":2,"player_id":"c","balance":5}],
            "first_bidder":0,"actions":[{"seat":0,"action":"bid","value":1}]}"#;
        let r = parse_ddz_line(line).unwrap();
        assert_eq!(
            (r.n_seats, r.actions.len(), r.first_bidder),
            (3, 1, Some(0))
        );
        for (from, to) in [
            (r#"{"seat":0,"player_id":"a"}"#, r#"[0, "a"]"#),
            (
                r#"{"seat":0,"action":"bid","value":1}"#,
                r#"[0, "bid", null, 1]"#,
            ),
            (r#""ddz""#, r#"["ddz"]"#),
            (r#""ddz""#, r#""ddz","deal":[["3d"]]"#),
            (r#""ddz""#, r#""ddz","start_counts":null"#),
            (r#""doudizhu""#, r#""big2""#),
            (r#""balance":5"#, r#""balance":9007199254740991.5"#),
            (r#""game_id":"d","#, r#""game_id":"d","game_id":"d","#),
        ] {
            let text = line.replacen(from, to, 1);
            assert!(parse_ddz_line(&text).is_none(), "{text}");
        }
    }

    /// The tree's reading of a line is serde's (`parse_ddz_line` tries the tree first): the
    /// same record, or the tree refuses, on random edits of lines with every field (a deal
    /// with a kitty, a set-aside and a face-up card, cards as strings, lists, jokers and
    /// escapes, bids, kinds, ISO and numeric times, nulls, a declared result); the tree reads
    /// a good share of them.
    #[test]
    fn tree_reads_as_serde() {
        let lines = [
            r#"{"format_version":1,"game_kind":"doudizhu","game_id":"d","ruleset":"ddz",
                "seats":[{"seat":0,"player_id":"a"},{"seat":1,"player_id":"b"},
                         {"seat":2,"player_id":"c","balance":5}],
                "deal":{"hands":["3d 4d","5d \u5c0f\u738b",["6d","RJ"]],"kitty":"7d 8d 9d",
                        "set_aside":null,"face_up_card":"7d"},
                "first_bidder":0,"actions":[{"seat":0,"action":"bid","value":1,"ts":1785000000.5},
                {"seat":1,"action":"bid","value":0,"ts":"2026-11-01 20:00:00.5"},
                {"seat":2,"action":"pass","cards":"","kind":null,"ts":null},
                {"seat":0,"action":"play","cards":["3d","4d"],"kind":"pair","ts":1785000002}],
                "result":{"outcome":"played_out","landlord":0,"scores":[2,-1,-1],"spring":null}}"#,
            r#"{"format_version":1,"game_kind":"doudizhu","game_id":"e","ruleset":{"preset":"ddz-2p",
                "overrides":{"hand_size":17}},"seats":[{"seat":0,"player_id":"a"},
                {"seat":1,"player_id":"b"}],"actions":[{"seat":1,"action":"play","cards":"BJ",
                "value":null,"ts":1785000000}],"result":null}"#,
        ];
        for line in lines {
            let read = parse_ddz_line(line).expect(line);
            assert!(read.exact && !read.actions.is_empty());
        }
        let alphabet: &[u8] = b" {}[]\",:-.0123456789eEnulsadbjRJ\\";
        let mut next = crate::testing::xorshift(0x51ed_270b_2a4c_1f09);
        let (mut read, mut tried) = (0, 0);
        for line in lines {
            for round in 0..4_000 {
                let b = crate::testing::edited(line, round % 3, alphabet, &mut next);
                let Ok(text) = std::str::from_utf8(&b) else {
                    continue;
                };
                tried += 1;
                let Some(tree) = Tree::read(text) else {
                    continue;
                };
                let Some(raw) = raw_game::<Ddz>(&tree) else {
                    continue;
                };
                let by_serde = serde_json::from_str::<RawGame<Ddz>>(text);
                assert!(by_serde.is_ok(), "{text}");
                if crate::parse::risky_number(text) {
                    continue; // serde's reading of a long number may be a unit off
                }
                let serde = by_serde.ok().and_then(|r| finish(r, true));
                assert_eq!(
                    format!("{:?}", finish(raw, true)),
                    format!("{serde:?}"),
                    "{text}"
                );
                read += 1;
            }
        }
        assert!(read > tried / 10, "{read} of {tried}");
    }
}
