//! One JSON Lines game line → a typed record, on the common shapes only.
//!
//! The checks are those of `pipeline.logs.records.record_from_obj`; but where a line is
//! unusual (any schema problem, a card spelling outside the common table, an ISO time as `ts`,
//! a number at the edge of its range) the parser answers `None`: the Python reader then reads
//! the line and gives the reject with its exact message. So a line the core accepts is one the
//! Python reader accepts, with the same values, and no reader message is written twice.

use crate::cards::{fast_ids, mask_of, token_card};
use crate::state::{Action, ActionType, Claim};
use serde_json::{Map, Value};

pub const TS_MIN: f64 = 631_152_000.0; // 1990-01-01T00:00:00Z
pub const TS_MAX: f64 = 4_102_444_800.0; // 2100-01-01T00:00:00Z
const INT32_MAX: u64 = (1 << 31) - 1;
const BALANCE_MAX: f64 = 9_007_199_254_740_992.0; // 2**53

const TOP_KEYS: [&str; 19] = [
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
const REQUIRED: [&str; 6] = [
    "format_version",
    "game_kind",
    "game_id",
    "ruleset",
    "seats",
    "actions",
];
const SEAT_KEYS: [&str; 4] = ["seat", "player_id", "name", "balance"];
const ACTION_KEYS: [&str; 6] = ["seat", "action", "cards", "claim", "drawn", "ts"];

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
}

fn known(obj: &Map<String, Value>, keys: &[&str]) -> bool {
    obj.keys().all(|k| keys.contains(&k.as_str()))
}

fn absent(obj: &Map<String, Value>, key: &str) -> bool {
    obj.get(key).is_none_or(Value::is_null)
}

fn non_empty_str(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

fn opt_str(obj: &Map<String, Value>, key: &str) -> Option<()> {
    match obj.get(key) {
        None | Some(Value::Null) => Some(()),
        Some(v) => non_empty_str(v).map(|_| ()),
    }
}

fn small_int(v: &Value, min: u64, max: u64) -> Option<u64> {
    v.as_u64().filter(|x| (min..=max).contains(x))
}

fn opt_seat(obj: &Map<String, Value>, key: &str, n: usize) -> Option<Option<usize>> {
    match obj.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(v) => small_int(v, 0, n as u64 - 1).map(|s| Some(s as usize)),
    }
}

fn cards_mask(v: &Value) -> Option<u64> {
    ids(v).map(|ids| mask_of(&ids))
}

fn ids(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::String(s) => fast_ids(s),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            let mut seen = 0u64;
            for item in items {
                let c = token_card(item.as_str()?)?;
                if seen >> c & 1 == 1 {
                    return None;
                }
                seen |= 1 << c;
                out.push(c);
            }
            Some(out)
        }
        _ => None,
    }
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

fn timestamp(v: Option<&Value>) -> Option<Option<f64>> {
    match v {
        None | Some(Value::Null) => Some(None),
        Some(Value::Number(n)) => {
            let x = n.as_f64()?;
            (TS_MIN..=TS_MAX).contains(&x).then_some(Some(x))
        }
        _ => None,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f][Z|±HH:MM]` within 1990 … 2100 (else the Python reader decides).
fn started_at_ok(text: &str) -> bool {
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

fn action(raw: &Value) -> Option<(Action, Option<f64>)> {
    let obj = raw.as_object()?;
    if !known(obj, &ACTION_KEYS) {
        return None;
    }
    let seat = obj.get("seat")?.as_u64()?;
    let kind = match obj.get("action")?.as_str()? {
        "play" => ActionType::Play,
        "pass" => ActionType::Pass,
        "claim" => ActionType::Claim,
        "swap" => ActionType::Swap,
        "announce" => ActionType::Announce,
        _ => return None,
    };
    let mut cards = 0;
    match obj.get("cards") {
        None | Some(Value::Null) => {
            if kind == ActionType::Play {
                return None;
            }
        }
        Some(v) => {
            if kind == ActionType::Play {
                cards = cards_mask(v)?;
                if cards == 0 {
                    return None;
                }
            } else {
                let empty = match v {
                    Value::String(s) => s.is_empty(),
                    Value::Array(a) => a.is_empty(),
                    _ => false,
                };
                if !empty {
                    return None;
                }
            }
        }
    }
    let claim = match obj.get("claim") {
        None | Some(Value::Null) => {
            if kind == ActionType::Claim {
                return None;
            }
            None
        }
        Some(v) => {
            if kind != ActionType::Claim {
                return None;
            }
            Some(Claim::parse(v.as_str()?)?)
        }
    };
    let drawn = match obj.get("drawn") {
        None | Some(Value::Null) => None,
        Some(v) => {
            if kind != ActionType::Pass {
                return None;
            }
            Some(token_card(v.as_str()?.trim_matches(|c: char| c.is_ascii_whitespace()))? as u32)
        }
    };
    let ts = timestamp(obj.get("ts"))?;
    Some((
        Action {
            seat,
            kind,
            cards,
            claim,
            drawn,
        },
        ts,
    ))
}

/// A game line → its record, or `None` for the Python reader to decide.
pub fn parse_line(text: &str) -> Option<Record> {
    let value: Value = serde_json::from_str(text).ok()?;
    let top = value.as_object()?;
    if !REQUIRED.iter().all(|k| top.contains_key(*k)) || !known(top, &TOP_KEYS) {
        return None;
    }
    if top["format_version"].as_u64()? != 1 {
        return None;
    }
    let game_kind = top["game_kind"].as_str()?;
    if game_kind != "big2" {
        return None; // doudizhu: the Python replay names it (E_GAME_KIND)
    }
    let game_id = non_empty_str(&top["game_id"])?.to_owned();
    let (preset, overrides) = match &top["ruleset"] {
        Value::String(s) if !s.is_empty() => (s.clone(), "{}".to_string()),
        Value::Object(rs) => {
            if !known(rs, &["preset", "overrides"]) {
                return None;
            }
            let preset = non_empty_str(rs.get("preset")?)?.to_owned();
            let overrides = match rs.get("overrides") {
                None => Value::Object(Map::new()),
                Some(v @ Value::Object(_)) => v.clone(),
                Some(_) => return None,
            };
            if !numbers_in_range(&overrides) {
                return None;
            }
            (preset, serde_json::to_string(&overrides).ok()?)
        }
        _ => return None,
    };
    let seats = top["seats"].as_array()?;
    let n = seats.len();
    if !(2..=52).contains(&n) {
        return None;
    }
    for (i, raw) in seats.iter().enumerate() {
        let obj = raw.as_object()?;
        if !known(obj, &SEAT_KEYS) || obj.get("seat")?.as_u64()? != i as u64 {
            return None;
        }
        match obj.get("balance") {
            None | Some(Value::Null) => {}
            Some(Value::Number(b)) => {
                if !b
                    .as_f64()
                    .is_some_and(|x| (-BALANCE_MAX..=BALANCE_MAX).contains(&x))
                {
                    return None;
                }
            }
            Some(_) => return None,
        }
        if !matches!(
            obj.get("name"),
            None | Some(Value::Null) | Some(Value::String(_))
        ) {
            return None;
        }
        non_empty_str(obj.get("player_id")?)?;
    }
    let (hands, stock) = match top.get("deal") {
        None | Some(Value::Null) => (None, Vec::new()),
        Some(Value::Object(deal)) => {
            if !known(deal, &["hands", "stock"]) {
                return None;
            }
            let hands = deal
                .get("hands")?
                .as_array()?
                .iter()
                .map(cards_mask)
                .collect::<Option<Vec<u64>>>()?;
            let stock = match deal.get("stock") {
                None => Vec::new(),
                Some(v) => ids(v)?.into_iter().map(u32::from).collect(),
            };
            (Some(hands), stock)
        }
        Some(_) => return None,
    };
    let start_counts = match top.get("start_counts") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_array()?
                .iter()
                .map(|x| small_int(x, 0, 52).map(|c| c as u32))
                .collect::<Option<Vec<u32>>>()?,
        ),
    };
    if let Some(v) = top.get("started_at").filter(|v| !v.is_null()) {
        if !started_at_ok(v.as_str()?) {
            return None;
        }
    }
    let logged = top["actions"].as_array()?;
    if logged.len() > 52 * n + 2 {
        return None;
    }
    let mut actions = Vec::with_capacity(logged.len());
    let mut last = TS_MIN;
    for raw in logged {
        let (a, ts) = action(raw)?;
        if let Some(ts) = ts {
            if ts < last {
                return None; // E_TS_ORDER: the Python reader words it
            }
            last = ts;
        }
        actions.push(a);
    }
    if let Some(truth) = top.get("truth") {
        if !truth.is_null() && !truth.is_object() {
            return None;
        }
    }
    for key in ["match_id", "table_id", "tournament_id", "tournament_kind"] {
        opt_str(top, key)?;
    }
    let game_number = match top.get("game_number") {
        None => 1,
        Some(v) => small_int(v, 1, INT32_MAX)?,
    };
    if !absent(top, "tournament_round") {
        small_int(&top["tournament_round"], 1, INT32_MAX)?;
    }
    let previous_winner = opt_seat(top, "previous_winner", n)?;
    let first_leader = opt_seat(top, "first_leader", n)?;
    let (has_declared, declared_winner, declared_left) = match top.get("result") {
        None | Some(Value::Null) => (false, None, None),
        Some(Value::Object(res)) => {
            if !known(res, &["winner", "cards_left"]) {
                return None;
            }
            let winner = opt_seat(res, "winner", n)?;
            let left = match res.get("cards_left") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_array()?
                        .iter()
                        .map(|x| small_int(x, 0, 52).map(|c| c as u32))
                        .collect::<Option<Vec<u32>>>()?,
                ),
            };
            (true, winner, left)
        }
        Some(_) => return None,
    };
    Some(Record {
        game_id,
        game_kind: game_kind.to_owned(),
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
    }

    #[test]
    fn fast_path_or_none() {
        let line = r#"{"format_version":1,"game_kind":"big2","game_id":"g","ruleset":"hk",
            "seats":[{"seat":0,"player_id":"a"},{"seat":1,"player_id":"b"}],
            "actions":[{"seat":0,"action":"play","cards":"3d"},{"seat":1,"action":"pass"}]}"#;
        let r = parse_line(line).unwrap();
        assert_eq!((r.actions.len(), r.actions[0].cards, r.n_seats), (2, 1, 2));
        assert!(parse_line(&line.replace("\"3d\"", "\"3x\"")).is_none());
        assert!(
            parse_line(&line.replace("\"seat\":1,\"action\"", "\"seat\":1.0,\"action\"")).is_none()
        );
    }
}
