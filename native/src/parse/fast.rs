//! The typed reader of a line's tree: the envelope and a game's body as serde's readers build
//! them from the same JSON, field for field, without serde's generic visitor. It answers `None`
//! wherever it is not sure that serde would read the same values (an unknown or repeated
//! field, a wrong type, a struct written as an array, …): the line is then read by serde, so
//! the answer (the record, or `None` for the Python reader) never depends on which read it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::envelope::{
    field_index, iso_seconds, repeated, Body, Envelope, RawGame, RawRuleset, RawSeat, RawSpec,
    ENVELOPE_FIELDS,
};
use super::tree::{esc_text, Node, Tree};
use super::{read_text, Actions, Collect, RawAction, RawDeal, RawResult};
use crate::cards::token_card;

/// A number as `u64` (serde: a non-negative integer; a float or a negative number fails).
/// The tree's integers have at most 15 digits: read digit by digit, they always fit.
pub(crate) fn u64_of(t: &Tree<'_>, i: u32) -> Option<u64> {
    let Node::Num(n) = t.node(i) else {
        return None;
    };
    let mut x = 0u64;
    for &b in n.as_bytes() {
        if !b.is_ascii_digit() {
            return None; // a sign or a point
        }
        x = x.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    (!n.is_empty()).then_some(x)
}

/// A number as `f64`: at most 15 digits and no exponent ([`decimal`]) as serde and
/// `str::parse` read it; a longer one, or one with an exponent, as `str::parse` reads it (one
/// correct rounding, as Python's `float` and orjson round; `-0` is `-0.0` each way).
fn f64_of(t: &Tree<'_>, i: u32) -> Option<f64> {
    match t.node(i) {
        Node::Num(n) => Some(decimal(n)),
        Node::Long(n) => n.parse().ok(),
        _ => None,
    }
}

const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// A number of the tree (`-?digits(.digits)?`, at most 15 digits) as the nearest double: its
/// digits as an integer below 2**53 and a power of ten up to 1e15 are both exact, so one
/// division rounds once, correctly (serde's reading of such a number, and `str::parse`'s).
/// Eight leading digits are read at once (a logged time has ten before its point).
pub(super) fn decimal(n: &str) -> f64 {
    let (negative, body) = match n.as_bytes() {
        [b'-', body @ ..] => (true, body),
        body => (false, body),
    };
    let (mut digits, mut rest) = (0u64, body);
    if let Some((head, tail)) = body.split_first_chunk::<8>() {
        let w = u64::from_le_bytes(*head);
        if eight_digits(w) {
            digits = eight_value(w);
            rest = tail;
        }
    }
    let mut frac = None;
    for (k, &b) in rest.iter().enumerate() {
        if b == b'.' {
            frac = Some(rest.len() - k - 1);
        } else {
            digits = digits * 10 + u64::from(b - b'0');
        }
    }
    let x = match frac {
        Some(f) => digits as f64 / POW10[f],
        None => digits as f64,
    };
    if negative {
        -x
    } else {
        x
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// Whether the eight bytes of `w` are all ASCII digits: each byte's high nibble is 3, and
/// still 3 with 6 added (`:` to `?` carry into 4). Only a byte from 0xfa carries into the
/// next, and its own nibble already fails.
fn eight_digits(w: u64) -> bool {
    (w & (ONES * 0xf0)) | ((w.wrapping_add(ONES * 6) & (ONES * 0xf0)) >> 4) == ONES * 0x33
}

/// Eight ASCII digits (the first in the lowest byte) as their value: pairs, then fours,
/// then the eight combined by multiplications that keep each partial sum in its own lane.
fn eight_value(w: u64) -> u64 {
    let v = w - ONES * u64::from(b'0');
    // each byte's lane: ten times itself plus the next digit (the low byte of each pair)
    let v = v * 10 + (v >> 8);
    const PAIRS: u64 = 0x0000_00ff_0000_00ff;
    (v & PAIRS)
        .wrapping_mul(100 + (1_000_000 << 32))
        .wrapping_add(((v >> 16) & PAIRS).wrapping_mul(1 + (10_000 << 32)))
        >> 32
}

pub(crate) fn str_of<'a>(t: &Tree<'a>, i: u32) -> Option<Cow<'a, str>> {
    match t.node(i) {
        Node::Str(s) => Some(Cow::Borrowed(s)),
        Node::Esc(s) => esc_text(s).map(Cow::Owned),
        _ => None,
    }
}

/// `Option<T>` (null is None), as an answer that may fail.
pub(crate) fn nullable<'a, T>(
    t: &Tree<'a>,
    i: u32,
    read: impl FnOnce(&Tree<'a>, u32) -> Option<T>,
) -> Option<Option<T>> {
    match t.node(i) {
        Node::Null => Some(None),
        _ => read(t, i).map(Some),
    }
}

fn cards_of<C: Collect>(t: &Tree<'_>, i: u32) -> Option<C> {
    match t.node(i) {
        Node::Str(s) => read_text(s),
        Node::Esc(s) => read_text(&esc_text(s)?), // `"\u9ed1\u6843A"` (黑桃A)
        Node::Arr { .. } => {
            let mut out = C::empty();
            for item in t.array(i)? {
                out.add(token_card(&str_of(t, item)?)?)?;
            }
            let empty = out.is_empty();
            out.set_exactly_empty(empty);
            Some(out)
        }
        _ => None,
    }
}

pub(super) fn u64_list(t: &Tree<'_>, i: u32) -> Option<Vec<u64>> {
    t.array(i)?.map(|v| u64_of(t, v)).collect()
}

/// The entries of an object whose fields are `names`: each entry's field index, once each
/// (an unknown or repeated field is None: `deny_unknown_fields`, serde's duplicate error).
pub(crate) fn fields<'a, 't>(
    t: &'t Tree<'a>,
    i: u32,
    names: &'static [&'static str],
) -> Option<impl Iterator<Item = Option<(usize, u32)>> + 't> {
    keyed(t, i, move |key| names.iter().position(|&n| n == key))
}

/// As `fields`, the field numbers given by `index`.
fn keyed<'a, 't>(
    t: &'t Tree<'a>,
    i: u32,
    index: impl Fn(&str) -> Option<usize> + 't,
) -> Option<impl Iterator<Item = Option<(usize, u32)>> + 't> {
    let entries = t.object(i)?;
    let mut seen = 0u64;
    Some(entries.iter().map(move |&(key, v)| {
        let k = index(key)?;
        (!repeated(&mut seen, k)).then_some((k, v))
    }))
}

fn seat_of<'a>(t: &Tree<'a>, i: u32) -> Option<RawSeat<'a>> {
    let (mut seat, mut player_id, mut name, mut balance) = (None, None, None, None);
    for f in fields(t, i, &["seat", "player_id", "name", "balance"])? {
        let (k, v) = f?;
        match k {
            0 => seat = Some(u64_of(t, v)?),
            1 => player_id = Some(str_of(t, v)?),
            2 => name = nullable(t, v, str_of)?,
            _ => balance = nullable(t, v, f64_of)?,
        }
    }
    Some(RawSeat {
        seat: seat?,
        player_id: player_id?,
        name,
        balance,
    })
}

fn ruleset_of<'a>(t: &Tree<'a>, i: u32) -> Option<RawRuleset<'a>> {
    if let Node::Str(s) = t.node(i) {
        return Some(RawRuleset::Name(Cow::Borrowed(s)));
    }
    let (mut preset, mut overrides) = (None, None);
    for f in fields(t, i, &["preset", "overrides"])? {
        let (k, v) = f?;
        match k {
            0 => preset = Some(str_of(t, v)?),
            _ => {
                let map = match t.object(v)? {
                    [] => Map::new(),
                    _ => serde_json::from_str::<Map<String, Value>>(t.span(v)).ok()?,
                };
                overrides = Some(map);
            }
        }
    }
    Some(RawRuleset::Spec(RawSpec {
        preset: preset?,
        overrides,
    }))
}

pub(super) fn deal_of(t: &Tree<'_>, i: u32) -> Option<RawDeal> {
    let (mut hands, mut stock) = (None, None);
    for f in fields(t, i, &["hands", "stock"])? {
        let (k, v) = f?;
        match k {
            0 => hands = Some(t.array(v)?.map(|h| cards_of(t, h)).collect::<Option<_>>()?),
            _ => stock = Some(cards_of(t, v)?),
        }
    }
    Some(RawDeal {
        hands: hands?,
        stock,
    })
}

pub(super) fn result_of(t: &Tree<'_>, i: u32) -> Option<RawResult> {
    let (mut winner, mut cards_left) = (None, None);
    for f in fields(t, i, &["winner", "cards_left"])? {
        let (k, v) = f?;
        match k {
            0 => winner = nullable(t, v, u64_of)?,
            _ => cards_left = nullable(t, v, u64_list)?,
        }
    }
    Some(RawResult { winner, cards_left })
}

/// An action's `ts`: a number, or an ISO time of the shapes the core reads
/// ([`iso_seconds`]: the Python reader's seconds for it).
pub(crate) fn ts_of(t: &Tree<'_>, i: u32) -> Option<f64> {
    match t.node(i) {
        Node::Str(s) => iso_seconds(s),
        _ => f64_of(t, i),
    }
}

fn action_key(key: &str) -> Option<usize> {
    Some(match key {
        "seat" => 0,
        "action" => 1,
        "cards" => 2,
        "claim" => 3,
        "drawn" => 4,
        "ts" => 5,
        _ => return None,
    })
}

fn action_of<'a>(t: &Tree<'a>, i: u32) -> Option<RawAction<'a>> {
    let (mut seat, mut action) = (None, None);
    let (mut cards, mut claim, mut drawn, mut ts) = (None, None, None, None);
    for f in keyed(t, i, action_key)? {
        let (k, v) = f?;
        match k {
            0 => seat = Some(u64_of(t, v)?),
            1 => action = Some(str_of(t, v)?),
            2 => cards = nullable(t, v, cards_of)?,
            3 => claim = nullable(t, v, str_of)?,
            4 => drawn = nullable(t, v, str_of)?,
            _ => ts = nullable(t, v, ts_of)?,
        }
    }
    Some(RawAction {
        seat: seat?,
        action: action?,
        cards,
        claim,
        drawn,
        ts,
    })
}

/// The actions list, each action read straight into the record's.
pub(super) fn actions_of(t: &Tree<'_>, i: u32) -> Option<Actions> {
    let items = t.array(i)?;
    let n = items.size_hint().0;
    let mut out = Actions {
        list: Vec::with_capacity(n),
        ts: Vec::with_capacity(n),
        last: 0.0,
    };
    for a in items {
        out.push(action_of(t, a)?)?;
    }
    Some(out)
}

/// The line's envelope and body `B`, as serde reads them; None when serde should read it.
pub(crate) fn raw_game<'a, B: Body<'a>>(t: &Tree<'a>) -> Option<RawGame<'a, B>> {
    let (mut e, mut body) = (Envelope::default(), B::default());
    for f in keyed(t, t.root, |key| field_index(key, B::FIELDS))? {
        let (k, v) = f?;
        match k {
            0 => e.format_version = Some(u64_of(t, v)?),
            1 => e.game_kind = Some(str_of(t, v)?),
            2 => e.game_id = Some(str_of(t, v)?),
            3 => e.ruleset = Some(ruleset_of(t, v)?),
            4 => e.match_id = nullable(t, v, str_of)?,
            5 => e.game_number = Some(u64_of(t, v)?),
            6 => e.table_id = nullable(t, v, str_of)?,
            7 => e.tournament_id = nullable(t, v, str_of)?,
            8 => e.tournament_kind = nullable(t, v, str_of)?,
            9 => e.tournament_round = nullable(t, v, u64_of)?,
            10 => e.started_at = nullable(t, v, str_of)?,
            11 => e.seats = Some(t.array(v)?.map(|s| seat_of(t, s)).collect::<Option<_>>()?),
            12 => {
                if !matches!(t.node(v), Node::Null | Node::Obj { .. }) {
                    return None;
                }
            }
            k => body.read_tree(k - ENVELOPE_FIELDS, t, v)?,
        }
    }
    let required = e.format_version.is_some()
        && e.game_kind.is_some()
        && e.game_id.is_some()
        && e.ruleset.is_some()
        && e.seats.is_some();
    (required && body.complete()).then_some(RawGame { env: e, body })
}
