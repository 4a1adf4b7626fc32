//! The envelope of a game line, one reader for every game: the fields and checks of
//! `pipeline.logs.records.read_envelope` (version, kind, id, ruleset, seats, match and
//! tournament fields, `started_at`, `truth`), read by serde or from the line's tree
//! (`super::fast`). A game adds only its own top-level fields (its deal, actions, result …)
//! as a [`Body`]. As everywhere in the core, a check the core is not sure of answers `None`
//! and the Python reader reads the line, so every reject message is Python's.
//!
//! Numbers: a Big Two line with a long number reaches here from the tree, read exactly
//! (`Node::Long`, `str::parse`), never from serde (`super::risky_number`); a Dou Dizhu line
//! may come from serde, so a number is used only where a reading a unit off in the last place
//! cannot change the answer (`near_edge`, `overrides_ok`); on lines of short numbers those
//! checks are the plain range checks.

use std::borrow::Cow;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

pub const TS_MIN: f64 = 631_152_000.0; // 1990-01-01T00:00:00Z
pub const TS_MAX: f64 = 4_102_444_800.0; // 2100-01-01T00:00:00Z
const INT32_MAX: u64 = (1 << 31) - 1;
const BALANCE_MAX: f64 = 9_007_199_254_740_992.0; // 2**53

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

/// A time `iso_time` reads, in the shape the core reads: its UTC offset in seconds (0 without
/// a zone, which the reader takes for UTC), its local date and time, its microseconds, and
/// whether it names a zone.
struct IsoTime {
    year: i64,
    month: i64,
    day: i64,
    seconds: i64,
    micros: i64,
    offset: i64,
    zoned: bool,
}

/// `YYYY-MM-DD`, or that and `(T| )HH[:MM[:SS[(.|,)f…]]](Z|±HH[[:]MM[[:]SS]])?` (a
/// second's fraction of any number of digits, those past the sixth cut), a year strictly
/// inside 1990 … 2100 (no zone moves it across an end), read as Python 3.11's
/// `datetime.fromisoformat` reads it (a date alone is its midnight, no minutes or seconds are
/// 0); any other text is the Python reader's (`fromisoformat` reads more: a fraction after
/// the minutes or the hour, a fraction of the offset's seconds, compact times, any separator
/// character).
fn iso_parts(text: &str) -> Option<IsoTime> {
    let b = text.as_bytes();
    if b.len() < 10 || !text.is_ascii() {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10)) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text[r].parse::<i64>().unwrap_or(99);
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    // the time: none (a date alone), an hour, hours and minutes, or those and seconds; where
    // it ends, and whether it has seconds (only then a fraction)
    let at = |k: usize, c: u8| b.get(k) == Some(&c);
    let (hour, minute, second, time_end, seconds) = if b.len() == 10 {
        (0, 0, 0, 10, false)
    } else if b.len() >= 13 && (b[10] == b'T' || b[10] == b' ') && digits(11..13) {
        if b.len() >= 16 && at(13, b':') && digits(14..16) {
            if b.len() >= 19 && at(16, b':') && digits(17..19) {
                (num(11..13), num(14..16), num(17..19), 19, true)
            } else {
                (num(11..13), num(14..16), 0, 16, false)
            }
        } else if at(13, b':') {
            return None;
        } else {
            (num(11..13), 0, 0, 13, false)
        }
    } else {
        return None;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [
        31,
        28 + i64::from(leap),
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
        || !(1991..=2098).contains(&year)
    {
        return None;
    }
    let mut rest = &text[time_end..];
    let mut micros = 0;
    let point = rest.strip_prefix('.').or_else(|| rest.strip_prefix(','));
    if let (Some(frac), true) = (point, seconds) {
        // digits past the sixth are cut, as `fromisoformat` cuts them (.NET's `o` writes 7)
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        let kept = n.min(6);
        micros = frac[..kept].parse::<i64>().ok()? * 10_i64.pow(6 - kept as u32);
        rest = &frac[n..];
    }
    let offset = match rest.as_bytes() {
        [] | [b'Z'] => 0,
        [sign @ (b'+' | b'-'), zone @ ..] => {
            let (h, m, s) = match zone {
                [h1, h2] => ([*h1, *h2], [b'0'; 2], [b'0'; 2]),
                [h1, h2, m1, m2] | [h1, h2, b':', m1, m2] => ([*h1, *h2], [*m1, *m2], [b'0'; 2]),
                [h1, h2, m1, m2, s1, s2] | [h1, h2, b':', m1, m2, b':', s1, s2] => {
                    ([*h1, *h2], [*m1, *m2], [*s1, *s2])
                }
                _ => return None,
            };
            let two = |d: [u8; 2]| {
                d.iter()
                    .all(u8::is_ascii_digit)
                    .then(|| i64::from(d[0] - b'0') * 10 + i64::from(d[1] - b'0'))
            };
            let (h, m, s) = (two(h)?, two(m)?, two(s)?);
            if h > 23 || m > 59 || s > 59 {
                return None;
            }
            (h * 3600 + m * 60 + s) * if *sign == b'-' { -1 } else { 1 }
        }
        _ => return None,
    };
    Some(IsoTime {
        year,
        month,
        day,
        seconds: hour * 3600 + minute * 60 + second,
        micros,
        offset,
        zoned: !rest.is_empty(),
    })
}

/// Whether the core reads `started_at` itself ([`iso_parts`]' shapes).
pub(crate) fn started_at_ok(text: &str) -> bool {
    iso_parts(text).is_some()
}

/// An ISO time of [`iso_parts`]' shapes as seconds since the epoch, the double the Python
/// reader's `iso_time(text).timestamp()` gives: the time's whole microseconds since the epoch
/// (exact in an `i64`, below 2**53 within the years read) divided by 10**6 once, as
/// `timedelta.total_seconds` divides them (one correctly rounded division both ways).
pub(crate) fn iso_seconds(text: &str) -> Option<f64> {
    let t = iso_parts(text)?;
    // days from 1970-01-01 to the date (the proleptic Gregorian calendar, as datetime's)
    let (y, m) = if t.month <= 2 {
        (t.year - 1, t.month + 9)
    } else {
        (t.year, t.month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + t.day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let micros = (days * 86_400 + t.seconds - t.offset) * 1_000_000 + t.micros;
    Some(micros as f64 / 1e6)
}

/// `started_at` as the Python reader stores it (`_started_at`): as logged when it names a
/// zone, else with `+00:00` made explicit as `datetime.isoformat` writes it (the date, a `T`,
/// hours, minutes and seconds, microseconds, six digits, only when not zero). Only for a text
/// `started_at_ok` accepted.
fn started_at_stored(text: &str) -> String {
    let Some(t) = iso_parts(text).filter(|t| !t.zoned) else {
        return text.to_owned();
    };
    let (h, m, s) = (t.seconds / 3600, t.seconds / 60 % 60, t.seconds % 60);
    let mut out = format!(
        "{:04}-{:02}-{:02}T{h:02}:{m:02}:{s:02}",
        t.year, t.month, t.day
    );
    if t.micros != 0 {
        out.push_str(&format!(".{:06}", t.micros));
    }
    out.push_str("+00:00");
    out
}

/// Whether serde read this float exactly: a number written with at most 15 significant
/// digits is (one rounding); its shortest digits are then at most 15 too. A value with more
/// may be a unit off in the last place (serde's fast float reading, without
/// `float_roundtrip`, which would double the parse).
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
pub(crate) fn near_edge(x: f64, lo: f64, hi: f64, margin: f64) -> bool {
    (x - lo).abs() <= margin || (x - hi).abs() <= margin
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
pub(crate) struct Obj<T>(pub T);

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

/// A field that may be absent but not null (`game_number`, `overrides`, `stock`).
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A text, borrowed from the line when it holds no escape.
#[derive(Deserialize)]
pub(crate) struct Text<'a>(#[serde(borrow)] pub Cow<'a, str>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSeat<'a> {
    pub seat: u64,
    #[serde(borrow)]
    pub player_id: Cow<'a, str>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub balance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSpec<'a> {
    #[serde(borrow)]
    pub preset: Cow<'a, str>,
    #[serde(default, deserialize_with = "present")]
    pub overrides: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum RawRuleset<'a> {
    #[serde(borrow)]
    Name(Cow<'a, str>),
    #[serde(borrow, deserialize_with = "object")]
    Spec(RawSpec<'a>),
}

/// A game's own top-level fields (`FIELDS`, read after the envelope's names), by serde and
/// from the line's tree.
pub(crate) trait Body<'de>: Default {
    const FIELDS: &'static [&'static str];
    /// Field `k` of `FIELDS`, its value next in `map`.
    fn read<A: MapAccess<'de>>(&mut self, k: usize, map: &mut A) -> Result<(), A::Error>;
    /// Field `k`, node `v` of the tree; None: serde reads the line.
    fn read_tree(&mut self, k: usize, t: &super::tree::Tree<'de>, v: u32) -> Option<()>;
    /// Whether the required fields were there (a missing one is serde's error).
    fn complete(&self) -> bool;
}

/// The envelope's names, in `Envelope`'s field order; a body's `k` counts on from here.
pub(crate) const ENVELOPE_FIELDS: usize = 13;

/// A top-level key's field number: the envelope's, then the body's `names`.
pub(crate) fn field_index(key: &str, names: &[&str]) -> Option<usize> {
    Some(match key {
        "format_version" => 0,
        "game_kind" => 1,
        "game_id" => 2,
        "ruleset" => 3,
        "match_id" => 4,
        "game_number" => 5,
        "table_id" => 6,
        "tournament_id" => 7,
        "tournament_kind" => 8,
        "tournament_round" => 9,
        "started_at" => 10,
        "seats" => 11,
        "truth" => 12,
        _ => ENVELOPE_FIELDS + names.iter().position(|&n| n == key)?,
    })
}

/// The envelope's values as logged (required ones None until read).
#[derive(Default)]
pub(crate) struct Envelope<'a> {
    pub format_version: Option<u64>,
    pub game_kind: Option<Cow<'a, str>>,
    pub game_id: Option<Cow<'a, str>>,
    pub ruleset: Option<RawRuleset<'a>>,
    pub match_id: Option<Cow<'a, str>>,
    pub game_number: Option<u64>,
    pub table_id: Option<Cow<'a, str>>,
    pub tournament_id: Option<Cow<'a, str>>,
    pub tournament_kind: Option<Cow<'a, str>>,
    pub tournament_round: Option<u64>,
    pub started_at: Option<Cow<'a, str>>,
    pub seats: Option<Vec<RawSeat<'a>>>,
}

/// A line's envelope and its game's body.
pub(crate) struct RawGame<'a, B> {
    pub env: Envelope<'a>,
    pub body: B,
}

/// Whether a field number was seen already (serde's duplicate field), marking it seen.
pub(crate) fn repeated(seen: &mut u64, k: usize) -> bool {
    let again = *seen >> k & 1 == 1;
    *seen |= 1 << k;
    again
}

impl<'de, B: Body<'de>> Deserialize<'de> for RawGame<'de, B> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<B>(std::marker::PhantomData<B>);
        impl<'de, B: Body<'de>> Visitor<'de> for V<B> {
            type Value = RawGame<'de, B>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a game object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut e, mut body) = (Envelope::default(), B::default());
                let text = |t: Option<Text<'de>>| t.map(|t| t.0);
                let mut seen = 0u64;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    let k = field_index(&key.0, B::FIELDS)
                        .ok_or_else(|| de::Error::custom("unknown field"))?;
                    if repeated(&mut seen, k) {
                        return Err(de::Error::custom("duplicate field"));
                    }
                    match k {
                        0 => e.format_version = Some(map.next_value()?),
                        1 => e.game_kind = Some(map.next_value::<Text>()?.0),
                        2 => e.game_id = Some(map.next_value::<Text>()?.0),
                        3 => e.ruleset = Some(map.next_value()?),
                        4 => e.match_id = text(map.next_value()?),
                        5 => e.game_number = Some(map.next_value()?),
                        6 => e.table_id = text(map.next_value()?),
                        7 => e.tournament_id = text(map.next_value()?),
                        8 => e.tournament_kind = text(map.next_value()?),
                        9 => e.tournament_round = map.next_value()?,
                        10 => e.started_at = text(map.next_value()?),
                        11 => {
                            let seats: Vec<Obj<RawSeat>> = map.next_value()?;
                            e.seats = Some(seats.into_iter().map(|s| s.0).collect());
                        }
                        12 => {
                            map.next_value::<Option<AnyObject>>()?;
                        }
                        k => body.read(k - ENVELOPE_FIELDS, &mut map)?,
                    }
                }
                let required = e.format_version.is_some()
                    && e.game_kind.is_some()
                    && e.game_id.is_some()
                    && e.ruleset.is_some()
                    && e.seats.is_some();
                if !(required && body.complete()) {
                    return Err(de::Error::custom("missing field"));
                }
                Ok(RawGame { env: e, body })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// What the envelope gives a game's record, checked.
pub(crate) struct Header {
    pub game_id: String,
    pub preset: String,
    /// The overrides as canonical JSON (sorted keys): the ruleset cache's key.
    pub overrides: String,
    pub n_seats: usize,
    pub game_number: u64,
    pub meta: Meta,
}

impl Envelope<'_> {
    /// `read_envelope`'s checks for a line of `kind` (another kind: the Python reader names
    /// it, `E_GAME_KIND`); None for the Python reader to decide.
    pub fn check(self, kind: &str) -> Option<Header> {
        let game_id = self.game_id?;
        if self.format_version? != 1 || self.game_kind? != kind || game_id.is_empty() {
            return None;
        }
        let (preset, overrides) = match self.ruleset? {
            RawRuleset::Name(name) => (name.into_owned(), "{}".to_string()),
            RawRuleset::Spec(spec) => {
                let overrides = Value::Object(spec.overrides.unwrap_or_default());
                if !overrides_ok(&overrides) {
                    return None;
                }
                let text = serde_json::to_string(&overrides).ok()?;
                (spec.preset.into_owned(), text)
            }
        };
        let seats = self.seats?;
        let n = seats.len();
        if preset.is_empty() || !(2..=52).contains(&n) {
            return None;
        }
        for (i, seat) in seats.iter().enumerate() {
            let balance_ok = |b: f64| {
                (-BALANCE_MAX..=BALANCE_MAX).contains(&b)
                    && !near_edge(b, -BALANCE_MAX, BALANCE_MAX, 1.0)
            };
            if seat.seat != i as u64
                || seat.player_id.is_empty()
                || !seat.balance.is_none_or(balance_ok)
            {
                return None;
            }
        }
        let texts = [
            &self.match_id,
            &self.table_id,
            &self.tournament_id,
            &self.tournament_kind,
        ];
        if !texts
            .iter()
            .all(|t| t.as_ref().is_none_or(|s| !s.is_empty()))
        {
            return None;
        }
        let game_number = self.game_number.unwrap_or(1);
        let in_int32 = |x: u64| (1..=INT32_MAX).contains(&x);
        if !in_int32(game_number) || !self.tournament_round.is_none_or(in_int32) {
            return None;
        }
        if !self.started_at.as_deref().is_none_or(started_at_ok) {
            return None;
        }
        let text = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
        let meta = Meta {
            match_id: text(self.match_id),
            table_id: text(self.table_id),
            tournament_id: text(self.tournament_id),
            tournament_kind: text(self.tournament_kind),
            tournament_round: self.tournament_round,
            started_at: self.started_at.as_deref().map(started_at_stored),
            seats: seats
                .into_iter()
                .map(|s| SeatMeta {
                    player_id: s.player_id.into_owned(),
                    name: s.name.map(Cow::into_owned),
                    balance: s.balance,
                })
                .collect(),
        };
        Some(Header {
            game_id: game_id.into_owned(),
            preset,
            overrides,
            n_seats: n,
            game_number,
            meta,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert!(started_at_ok("2026-11-01T20:00:00+08:00"));
        assert!(started_at_ok("2026-11-01T20:00:00"));
        assert!(started_at_ok("2026-11-01T12:07:00Z"));
        assert!(started_at_ok("2028-02-29T20:00:00"));
        assert!(!started_at_ok("2026-02-29T20:00:00"));
        assert!(!started_at_ok("2026-02-30T20:00:00"));
        assert!(!started_at_ok("2100-01-01T00:00:00"));
        // the Python reader's `iso_time(text).timestamp()` for each, to the bit
        for (text, seconds) in [
            ("2026-11-01T20:00:00Z", 1793563200.0),
            ("2026-11-01T20:00:00+08:00", 1793534400.0),
            ("2026-07-31T03:14:21.900000+00:00", 1785467661.9),
            ("1991-01-01T00:00:00", 662688000.0),
            ("2028-02-29T12:00:00.125-05:30", 1835458200.125),
            ("2098-12-31T23:59:59.999999+23:59", 4070822459.999999),
            ("2026-11-01 20:00:00.9+0800", 1793534400.9),
            ("2026-11-01 20:00:00.12345-08", 1793592000.12345),
            ("2026-11-01", 1793491200.0),
            ("2026-11-01T20:00", 1793563200.0),
            ("2026-11-01 20:00+08:00", 1793534400.0),
            ("2026-11-01T20:00Z", 1793563200.0),
            ("2026-11-01T20:00-0530", 1793583000.0),
            ("2026-11-01T20:00:00.1234567Z", 1793563200.123456),
            ("2026-11-01T20:00:00.99999999999", 1793563200.999999),
            ("2026-11-01T20:00:00,5+08:00", 1793534400.5),
            ("2026-11-01T20", 1793563200.0),
            ("2026-11-01 20+08:00", 1793534400.0),
            ("2026-11-01T20:00:00+08:00:30", 1793534370.0),
            ("2026-11-01T20:00-083015", 1793593815.0),
        ] {
            assert_eq!(
                iso_seconds(text).map(f64::to_bits),
                Some(f64::to_bits(seconds))
            );
        }
        for text in [
            "2026-11-01x20:00:00",
            "2026-11-01T20:00:00.",
            "2026-11-01T20:00:00,",
            "2026-11-01T20:00:00.,5",
            "2026-11-01T20:00:00+8:00",
            "2026-11-01T20:00:00+08:00:30.5",
            "2026-11-01T20:00:00+08:00:60",
            "2026-11-01T20:00:00+08:0030",
            "2026-11-01T20:00:00+080",
            "2026-11-01T20:00:00+24",
            "2026-11-01T20:00:00z",
            "2026-11-01T20.5",
            "2026-11-01T2",
            "2026-11-01T20:",
            "2026-11-01T2000",
            "2026-11-01T20:00.5",
            "2026-11-01T20:00:0",
            "2026-11-01T20:0",
            "2026-11-01Z",
            "2026-11-01+08:00",
            "2026-11-01T",
        ] {
            assert_eq!(iso_seconds(text), None); // the Python reader's
        }
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00"),
            "2026-11-01T20:00:00+00:00"
        );
        assert_eq!(started_at_stored("2026-11-01"), "2026-11-01T00:00:00+00:00");
        assert_eq!(
            started_at_stored("2026-11-01T20:00:00.1234567"),
            "2026-11-01T20:00:00.123456+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01 20:00"),
            "2026-11-01T20:00:00+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01 20:00+08:00"),
            "2026-11-01 20:00+08:00"
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
        assert_eq!(
            started_at_stored("2026-11-01 20:00:00.5"),
            "2026-11-01T20:00:00.500000+00:00"
        );
        assert_eq!(
            started_at_stored("2026-11-01 20:00:00+0800"),
            "2026-11-01 20:00:00+0800"
        );
    }
}
