//! One Big Two JSON Lines game line → a typed record, on the common shapes only.
//!
//! The checks are those of `pipeline.logs.records.record_from_obj`; but where a line is
//! unusual (any schema problem, a card spelling outside the common table, an ISO time as `ts`,
//! a number at the edge of its range) the parser answers `None`: the Python reader then reads
//! the line and gives the reject with its exact message. So a line the core accepts is one the
//! Python reader accepts, with the same values, and no reader message is written twice. The
//! envelope (ids, ruleset, seats, match fields …) is `envelope`'s, shared with Dou Dizhu; this
//! file adds Big Two's own fields: the deal, the start counts, the leaders, the actions and the
//! declared result.

use crate::cards::{cards_in, short_table, token_card};
use crate::state::{Action, ActionType, Claim};
use std::borrow::Cow;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

pub(crate) mod envelope;
pub(crate) mod fast;
pub mod tree;
use envelope::{present, Body, Obj, RawGame, TS_MAX, TS_MIN};
pub use envelope::{Meta, SeatMeta};
use tree::Tree;

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

/// Whether the line holds a number serde may read otherwise than orjson: one with more than
/// 15 digits (its significand may not fit a double exactly: serde's fast reading may then be a
/// unit off in the last place, and an integer may be at the edge of 64 bits) or with an
/// exponent (`1e-300`). A number of at most 15 digits and no exponent is read exactly (one
/// rounding, Clinger's fast path). Such a line is the Python reader's.
pub(crate) fn risky_number(text: &str) -> bool {
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

/// What cards as the log writes them (one string, or a list of one-card strings) are read
/// into, straight from their common spellings; anything else fails, and the line goes to
/// Python. A set for most fields ([`CardSet`]), a list in the logged order for the stock
/// ([`Cards`]).
trait Collect: Sized {
    fn empty() -> Self;
    /// Add a card; None when it is there already.
    fn add(&mut self, c: u8) -> Option<()>;
    fn is_empty(&self) -> bool;
    /// Whether the value was exactly `""` or `[]` (what a pass may carry).
    fn set_exactly_empty(&mut self, yes: bool);
}

/// Cards as a set: their mask, how many, and whether the value was exactly `""` or `[]`
/// (small, so an action's cards are copied cheaply).
#[derive(Clone, Copy)]
struct CardSet {
    mask: u64,
    len: u8,
    exactly_empty: bool,
}

impl Collect for CardSet {
    fn empty() -> CardSet {
        CardSet {
            mask: 0,
            len: 0,
            exactly_empty: false,
        }
    }

    fn add(&mut self, c: u8) -> Option<()> {
        if self.mask >> c & 1 == 1 {
            return None;
        }
        self.mask |= 1 << c;
        self.len += 1;
        Some(())
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn set_exactly_empty(&mut self, yes: bool) {
        self.exactly_empty = yes;
    }
}

/// Cards as a list: the ids in their order (inline: no card repeats, so at most 52).
struct Cards {
    ids: [u8; 52],
    set: CardSet,
}

impl Collect for Cards {
    fn empty() -> Cards {
        Cards {
            ids: [0; 52],
            set: CardSet::empty(),
        }
    }

    fn add(&mut self, c: u8) -> Option<()> {
        self.set.add(c)?;
        self.ids[usize::from(self.set.len) - 1] = c;
        Some(())
    }

    fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    fn set_exactly_empty(&mut self, yes: bool) {
        self.set.exactly_empty = yes;
    }
}

impl Cards {
    fn ids(&self) -> &[u8] {
        &self.ids[..usize::from(self.set.len)]
    }
}

/// The common tokens of one string, separated by ASCII whitespace (`fast_ids`). The usual
/// spelling, two-byte tokens one space apart (`3d 4d 5d`), is read a pair at a time with the
/// table looked up once; any other, or a pair that is not a card, token by token.
fn read_text<C: Collect>(text: &str) -> Option<C> {
    let b = text.as_bytes();
    if b.len() % 3 == 2 {
        if let Some(out) = read_pairs(b) {
            return Some(out);
        }
    }
    let mut out = C::empty();
    for tok in text.split_ascii_whitespace() {
        match token_card(tok) {
            Some(c) => out.add(c)?,
            // run together, or other separators: `5♦5♣`, `3d,4d`
            None => return read_any(text),
        }
    }
    out.set_exactly_empty(text.is_empty());
    Some(out)
}

/// [`read_text`] of a string in any notation `parse_cards` reads ([`cards_in`]).
#[inline(never)]
fn read_any<C: Collect>(text: &str) -> Option<C> {
    let mut out = C::empty();
    cards_in(text, |c| out.add(c))?;
    out.set_exactly_empty(text.is_empty());
    Some(out)
}

/// Pairs of ASCII bytes one space apart, each a card of the short table (a card has no
/// whitespace in it, so these pairs are the string's tokens); None for anything else.
fn read_pairs<C: Collect>(b: &[u8]) -> Option<C> {
    let table = short_table();
    let mut out = C::empty();
    for pair in b.chunks(3) {
        let (x, y, gap) = match *pair {
            [x, y] => (x, y, b' '),
            [x, y, gap] => (x, y, gap),
            _ => return None,
        };
        if gap != b' ' || !x.is_ascii() || !y.is_ascii() {
            return None;
        }
        match table[usize::from(x)][usize::from(y)] {
            255 => return None,
            c => out.add(c)?,
        }
    }
    Some(out)
}

/// Serde's reading of cards into `C`.
struct CardsVisitor<C>(std::marker::PhantomData<C>);

impl<'de, C: Collect> Visitor<'de> for CardsVisitor<C> {
    type Value = C;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("cards")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<C, E> {
        read_text(text).ok_or_else(|| E::custom("uncommon cards"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<C, A::Error> {
        let mut out = C::empty();
        while let Some(tok) = seq.next_element::<Cow<'de, str>>()? {
            let c = token_card(&tok).ok_or_else(|| de::Error::custom("uncommon card"))?;
            out.add(c)
                .ok_or_else(|| de::Error::custom("a card twice"))?;
        }
        let empty = out.is_empty();
        out.set_exactly_empty(empty);
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        d.deserialize_any(CardsVisitor(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cards, D::Error> {
        d.deserialize_any(CardsVisitor(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeal {
    hands: Vec<CardSet>,
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
    cards: Option<CardSet>,
    #[serde(borrow, default)]
    claim: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    drawn: Option<Cow<'a, str>>,
    #[serde(default)]
    ts: Option<f64>,
}

/// The actions, each read straight into the record's (no list of raw actions first).
#[derive(Default)]
struct Actions {
    list: Vec<Action>,
    ts: Vec<Option<f64>>,
    last: f64,
}

impl Actions {
    /// One more action; None for a line the Python reader reads (an uncommon action, a `ts`
    /// before the last one: `E_TS_ORDER`).
    fn push(&mut self, raw: RawAction<'_>) -> Option<()> {
        let (a, ts) = action(raw)?;
        if let Some(ts) = ts {
            if ts < self.last {
                return None;
            }
            self.last = ts;
        }
        self.list.push(a);
        self.ts.push(ts);
        Some(())
    }
}

impl<'de> Deserialize<'de> for Actions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Actions, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Actions;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of actions")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Actions, A::Error> {
                let mut out = Actions::default();
                while let Some(Obj(raw)) = seq.next_element::<Obj<RawAction>>()? {
                    out.push(raw)
                        .ok_or_else(|| de::Error::custom("uncommon action"))?;
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V)
    }
}

/// Big Two's own top-level fields.
#[derive(Default)]
struct Big2 {
    deal: Option<RawDeal>,
    start_counts: Option<Vec<u64>>,
    previous_winner: Option<u64>,
    first_leader: Option<u64>,
    actions: Option<Actions>,
    result: Option<RawResult>,
}

impl<'de> Body<'de> for Big2 {
    const FIELDS: &'static [&'static str] = &[
        "deal",
        "start_counts",
        "previous_winner",
        "first_leader",
        "actions",
        "result",
    ];

    fn read<A: MapAccess<'de>>(&mut self, k: usize, map: &mut A) -> Result<(), A::Error> {
        match k {
            0 => self.deal = map.next_value::<Option<Obj<RawDeal>>>()?.map(|o| o.0),
            1 => self.start_counts = map.next_value()?,
            2 => self.previous_winner = map.next_value()?,
            3 => self.first_leader = map.next_value()?,
            4 => self.actions = Some(map.next_value()?),
            _ => self.result = map.next_value::<Option<Obj<RawResult>>>()?.map(|o| o.0),
        }
        Ok(())
    }

    fn read_tree(&mut self, k: usize, t: &Tree<'de>, v: u32) -> Option<()> {
        use fast::{nullable, u64_list, u64_of};
        match k {
            0 => self.deal = nullable(t, v, fast::deal_of)?,
            1 => self.start_counts = nullable(t, v, u64_list)?,
            2 => self.previous_winner = nullable(t, v, u64_of)?,
            3 => self.first_leader = nullable(t, v, u64_of)?,
            4 => self.actions = Some(fast::actions_of(t, v)?),
            _ => self.result = nullable(t, v, fast::result_of)?,
        }
        Some(())
    }

    fn complete(&self) -> bool {
        self.actions.is_some()
    }
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
        (ActionType::Play, Some(c)) if c.len > 0 => c.mask,
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
    finish(serde_json::from_str(text).ok()?)
}

/// Big Two's checks and the record of a line read (by serde or from the tree).
fn finish(raw: RawGame<'_, Big2>) -> Option<Record> {
    let RawGame { env, body } = raw;
    // a doudizhu line: the Python replay names it (E_GAME_KIND)
    let head = env.check("big2")?;
    let n = head.n_seats;
    let (hands, stock) = match body.deal {
        None => (None, Vec::new()),
        Some(deal) => (
            Some(deal.hands.iter().map(|h| h.mask).collect()),
            deal.stock.map_or_else(Vec::new, |s| {
                s.ids().iter().copied().map(u32::from).collect()
            }),
        ),
    };
    let start_counts = match body.start_counts {
        None => None,
        Some(values) => Some(counts(values)?),
    };
    let actions = body.actions?;
    if actions.list.len() > 52 * n + 2 {
        return None;
    }
    let previous_winner = seat_ref(body.previous_winner, n)?;
    let first_leader = seat_ref(body.first_leader, n)?;
    let (has_declared, declared_winner, declared_left) = match body.result {
        None => (false, None, None),
        Some(res) => {
            let left = match res.cards_left {
                None => None,
                Some(values) => Some(counts(values)?),
            };
            (true, seat_ref(res.winner, n)?, left)
        }
    };
    Some(Record {
        game_id: head.game_id,
        game_kind: "big2".to_owned(),
        preset: head.preset,
        overrides: head.overrides,
        n_seats: n,
        hands,
        stock,
        start_counts,
        game_number: head.game_number,
        previous_winner,
        first_leader,
        declared_winner,
        declared_left,
        has_declared,
        actions: actions.list,
        ts: actions.ts,
        meta: head.meta,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The cards of a string read pair by pair are those read token by token (`fast_ids`),
    /// else those of any notation (`cards_in`: run together, a lone rank refused), on random
    /// strings of card letters, spaces, tabs, a symbol suit and repeats.
    #[test]
    fn cards_pairs_are_tokens() {
        let pieces = [
            "3d",
            "4c",
            "Td",
            "10h",
            "As",
            "2S",
            "dT",
            "xx",
            " ",
            " ",
            " ",
            "\t",
            "\u{2666}3",
            "3",
        ];
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def1);
        for round in 0..50_000 {
            let n = round % 9;
            let text: String = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            let want = crate::cards::fast_ids(&text).or_else(|| {
                let (mut ids, mut seen) = (Vec::new(), 0u64);
                cards_in(&text, |c| {
                    (seen >> c & 1 == 0).then(|| {
                        seen |= 1 << c;
                        ids.push(c);
                    })
                })
                .map(|()| ids)
            });
            let list = read_text::<Cards>(&text);
            assert_eq!(list.as_ref().map(|c| c.ids().to_vec()), want, "{text:?}");
            let set = read_text::<CardSet>(&text);
            assert_eq!(
                set.map(|c| (c.mask, c.len, c.exactly_empty)),
                want.map(|ids| (
                    crate::cards::mask_of(&ids),
                    ids.len() as u8,
                    text.is_empty()
                )),
                "{text:?}"
            );
        }
        let all: Vec<String> = (0..52u8)
            .map(|c| {
                format!(
                    "{}{}",
                    crate::cards::RANK_COMPACT[usize::from(c >> 2)],
                    crate::cards::SUIT_LETTER[usize::from(c & 3)]
                )
            })
            .collect();
        let full = all.join(" ");
        assert_eq!(read_text::<Cards>(&full).map(|c| c.ids().len()), Some(52));
        assert!(read_text::<Cards>(&(full + " 3d")).is_none());
    }

    /// The tree's numbers read as `str::parse` (and serde) read them, to the bit.
    #[test]
    fn decimals_read_exactly() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d_u64);
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
