//! A Dou Dizhu ruleset as the Python loader built it from the preset TOML files
//! (`pipeline/doudizhu/rules.py`, `DdzRuleset.to_dict()`): the core reads no TOML itself,
//! Python resolves each distinct preset and overrides once and hands the values over.

use serde_json::Value;

pub const KITTY_SIZE: u32 = 3;
pub const DECK_SIZE: u32 = 54;
pub const MAX_BID: i64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bidding {
    Points,
    Call,
}

/// A number as Python holds it: `stake` and what is computed from it stay int or float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn mul_int(self, k: i64) -> Num {
        match self {
            Num::Int(a) => Num::Int(a * k),
            Num::Float(a) => Num::Float(a * k as f64),
        }
    }
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(a) => a as f64,
            Num::Float(a) => a,
        }
    }
}

#[derive(Debug, Clone)]
pub struct DdzRules {
    pub name: String,
    /// `repr(name)`, as the Python messages print it.
    pub name_repr: String,
    pub players: usize,
    pub bidding: Bidding,
    pub bid_reentry: bool,
    pub hand_size: u32,
    pub four_with_two: bool,
    pub spring_doubles: bool,
    pub multiplier_cap: Option<i64>,
    pub stake: Num,
}

/// The largest stake (or cap) the core computes with exactly; beyond, Python replays.
const BIG: i64 = 1 << 31;

impl DdzRules {
    /// From `to_dict()` plus `name_repr`; an error (the line is then Python's) for a value
    /// the core does not take.
    pub fn from_dict(d: &Value) -> Result<DdzRules, String> {
        let get = |k: &str| d.get(k).ok_or_else(|| format!("ruleset: no {k}"));
        let boolean = |k: &str| get(k)?.as_bool().ok_or_else(|| format!("{k}: not a bool"));
        let text = |k: &str| {
            get(k)?
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{k}: not a string"))
        };
        let players = get("players")?.as_u64().ok_or("players")? as usize;
        let bidding = match text("bidding")?.as_str() {
            "points" => Bidding::Points,
            "call" => Bidding::Call,
            other => return Err(format!("bidding {other:?}")),
        };
        let cap = match get("multiplier_cap")? {
            Value::String(s) if s == "none" => None,
            v => Some(
                v.as_i64()
                    .filter(|c| (1..BIG).contains(c))
                    .ok_or("multiplier_cap")?,
            ),
        };
        let stake = match get("stake")? {
            Value::Number(n) if n.is_i64() || n.is_u64() => {
                Num::Int(n.as_i64().filter(|s| (1..BIG).contains(s)).ok_or("stake")?)
            }
            Value::Number(n) => {
                let x = n.as_f64().ok_or("stake")?;
                // read exactly only with at most 15 significant digits (as `parse.rs` says)
                let shown = format!("{x:e}");
                let digits = shown.split('e').next().unwrap_or("").bytes();
                if digits.filter(u8::is_ascii_digit).count() > 15 {
                    return Err("stake: too many digits".into());
                }
                Num::Float(x)
            }
            _ => return Err("stake".into()),
        };
        Ok(DdzRules {
            name: text("name")?,
            name_repr: text("name_repr")?,
            players,
            bidding,
            bid_reentry: boolean("bid_reentry")?,
            hand_size: get("hand_size")?.as_u64().ok_or("hand_size")? as u32,
            four_with_two: boolean("four_with_two")?,
            spring_doubles: boolean("spring_doubles")?,
            multiplier_cap: cap,
            stake,
        })
    }

    pub fn set_aside_size(&self) -> u32 {
        DECK_SIZE - self.players as u32 * self.hand_size - KITTY_SIZE
    }

    pub fn capped(&self, m: i64) -> i64 {
        self.multiplier_cap.map_or(m, |c| m.min(c))
    }
}
