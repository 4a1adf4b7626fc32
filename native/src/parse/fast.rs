//! The typed reader of a line's tree: the `Raw*` structs as serde's derived readers build them
//! from the same JSON, field for field, without serde's generic visitor. It answers `None`
//! wherever it is not sure that serde would read the same values (an unknown or repeated
//! field, a wrong type, a struct written as an array, …): the line is then read by serde, so
//! the answer (the record, or `None` for the Python reader) never depends on which read it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::tree::{Node, Tree};
use super::{
    AnyObject, Cards, RawAction, RawDeal, RawGame, RawResult, RawRuleset, RawSeat, RawSpec,
};
use crate::cards::token_card;

/// A number as `u64` (serde: a non-negative integer; a float or a negative number fails).
fn u64_of(t: &Tree<'_>, i: u32) -> Option<u64> {
    match t.node(i) {
        Node::Num(n) if !n.starts_with('-') && !n.contains('.') => n.parse().ok(),
        _ => None,
    }
}

/// A number as `f64` (serde reads any number; at most 15 digits and no exponent, as the tree
/// holds them, it reads them exactly, as `str::parse` does; `-0` is `-0.0` both ways).
fn f64_of(t: &Tree<'_>, i: u32) -> Option<f64> {
    match t.node(i) {
        Node::Num(n) => Some(decimal(n)),
        _ => None,
    }
}

const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// A number of the tree (`-?digits(.digits)?`, at most 15 digits) as the nearest double: its
/// digits as an integer below 2**53 and a power of ten up to 1e15 are both exact, so one
/// division rounds once, correctly (serde's reading of such a number, and `str::parse`'s).
pub(super) fn decimal(n: &str) -> f64 {
    let (negative, body) = match n.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, n),
    };
    let mut digits = 0u64;
    let mut frac = None;
    for (k, b) in body.bytes().enumerate() {
        if b == b'.' {
            frac = Some(body.len() - k - 1);
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

fn str_of<'a>(t: &Tree<'a>, i: u32) -> Option<Cow<'a, str>> {
    match t.node(i) {
        Node::Str(s) => Some(Cow::Borrowed(s)),
        _ => None,
    }
}

/// `Option<T>` (null is None), as an answer that may fail.
fn nullable<'a, T>(
    t: &Tree<'a>,
    i: u32,
    read: impl FnOnce(&Tree<'a>, u32) -> Option<T>,
) -> Option<Option<T>> {
    match t.node(i) {
        Node::Null => Some(None),
        _ => read(t, i).map(Some),
    }
}

fn cards_of(t: &Tree<'_>, i: u32) -> Option<Cards> {
    match t.node(i) {
        Node::Str(s) => Cards::of_text(s),
        Node::Arr { .. } => {
            let mut out = Cards::new();
            let mut seen = 0u64;
            for item in t.array(i)? {
                let Node::Str(s) = t.node(item) else {
                    return None;
                };
                out.add(token_card(s)?, &mut seen)?;
            }
            out.exactly_empty = out.len == 0;
            Some(out)
        }
        _ => None,
    }
}

fn u64_list(t: &Tree<'_>, i: u32) -> Option<Vec<u64>> {
    t.array(i)?.map(|v| u64_of(t, v)).collect()
}

/// The entries of an object whose fields are `names`: each entry's field index, once each
/// (an unknown or repeated field is None: `deny_unknown_fields`, serde's duplicate error).
fn fields<'a, 't>(
    t: &'t Tree<'a>,
    i: u32,
    names: &'static [&'static str],
) -> Option<impl Iterator<Item = Option<(usize, u32)>> + 't> {
    let entries = t.object(i)?;
    let mut seen = 0u64;
    Some(entries.iter().map(move |&(key, v)| {
        let k = names.iter().position(|&n| n == key)?;
        if seen >> k & 1 == 1 {
            return None;
        }
        seen |= 1 << k;
        Some((k, v))
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

fn deal_of(t: &Tree<'_>, i: u32) -> Option<RawDeal> {
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

fn result_of(t: &Tree<'_>, i: u32) -> Option<RawResult> {
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

fn action_of<'a>(t: &Tree<'a>, i: u32) -> Option<RawAction<'a>> {
    let (mut seat, mut action) = (None, None);
    let (mut cards, mut claim, mut drawn, mut ts) = (None, None, None, None);
    for f in fields(t, i, &["seat", "action", "cards", "claim", "drawn", "ts"])? {
        let (k, v) = f?;
        match k {
            0 => seat = Some(u64_of(t, v)?),
            1 => action = Some(str_of(t, v)?),
            2 => cards = nullable(t, v, cards_of)?,
            3 => claim = nullable(t, v, str_of)?,
            4 => drawn = nullable(t, v, str_of)?,
            _ => ts = nullable(t, v, f64_of)?,
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

const GAME_FIELDS: &[&str] = &[
    "format_version",
    "game_kind",
    "game_id",
    "ruleset",
    "match_id",
    "game_number",
    "table_id",
    "tournament_id",
    "tournament_kind",
    "tournament_round",
    "started_at",
    "seats",
    "deal",
    "start_counts",
    "previous_winner",
    "first_leader",
    "actions",
    "result",
    "truth",
];

/// The line's `RawGame`, as serde reads it; None when serde should read it.
pub(super) fn raw_game<'a>(t: &Tree<'a>) -> Option<RawGame<'a>> {
    let mut format_version = None;
    let mut game_kind = None;
    let mut game_id = None;
    let mut ruleset = None;
    let mut seats = None;
    let mut actions = None;
    let mut g = RawGame {
        format_version: 0,
        game_kind: Cow::Borrowed(""),
        game_id: String::new(),
        ruleset: RawRuleset::Name(Cow::Borrowed("")),
        match_id: None,
        game_number: None,
        table_id: None,
        tournament_id: None,
        tournament_kind: None,
        tournament_round: None,
        started_at: None,
        seats: Vec::new(),
        deal: None,
        start_counts: None,
        previous_winner: None,
        first_leader: None,
        actions: Vec::new(),
        result: None,
        truth: None,
    };
    for f in fields(t, t.root, GAME_FIELDS)? {
        let (k, v) = f?;
        match k {
            0 => format_version = Some(u64_of(t, v)?),
            1 => game_kind = Some(str_of(t, v)?),
            2 => game_id = Some(str_of(t, v)?.into_owned()),
            3 => ruleset = Some(ruleset_of(t, v)?),
            4 => g.match_id = nullable(t, v, str_of)?,
            5 => g.game_number = Some(u64_of(t, v)?),
            6 => g.table_id = nullable(t, v, str_of)?,
            7 => g.tournament_id = nullable(t, v, str_of)?,
            8 => g.tournament_kind = nullable(t, v, str_of)?,
            9 => g.tournament_round = nullable(t, v, u64_of)?,
            10 => g.started_at = nullable(t, v, str_of)?,
            11 => seats = Some(t.array(v)?.map(|s| seat_of(t, s)).collect::<Option<_>>()?),
            12 => g.deal = nullable(t, v, deal_of)?,
            13 => g.start_counts = nullable(t, v, u64_list)?,
            14 => g.previous_winner = nullable(t, v, u64_of)?,
            15 => g.first_leader = nullable(t, v, u64_of)?,
            16 => {
                let items = t.array(v)?;
                let mut out = Vec::with_capacity(items.size_hint().0);
                for a in items {
                    out.push(action_of(t, a)?);
                }
                actions = Some(out);
            }
            17 => g.result = nullable(t, v, result_of)?,
            _ => {
                g.truth = match t.node(v) {
                    Node::Null => None,
                    Node::Obj { .. } => Some(AnyObject),
                    _ => return None,
                }
            }
        }
    }
    g.format_version = format_version?;
    g.game_kind = game_kind?;
    g.game_id = game_id?;
    g.ruleset = ruleset?;
    g.seats = seats?;
    g.actions = actions?;
    Some(g)
}
