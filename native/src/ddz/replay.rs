//! Replay one Dou Dizhu line, as `pipeline.doudizhu.game.replay_record`: the seat count,
//! the deal, every action (`actions[i]: …`), `E_UNFINISHED`, and the declared result
//! cross-checked (`E_RESULT_MISMATCH`, with Python's `repr` of the values).

use super::parse::{exact_float, DdzLine};
use super::rules::{DdzRules, Num};
use super::state::{ActionRecord, Game, GameResult};
use serde_json::Value;

/// A log the rules do not accept: code, message, the action at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub code: String,
    pub message: String,
    pub action_index: Option<usize>,
}

#[derive(Debug)]
pub enum Replay {
    Ok(Vec<ActionRecord>, GameResult),
    Rejected(Rejected),
    /// A case whose message the core leaves to Python (an unusual declared value).
    Python,
}

fn rejected(code: &str, message: String, action_index: Option<usize>) -> Replay {
    Replay::Rejected(Rejected {
        code: code.to_owned(),
        message,
        action_index,
    })
}

pub fn replay(line: &DdzLine, rs: &DdzRules) -> Replay {
    if line.n_seats != rs.players {
        return rejected(
            "E_SEAT_COUNT",
            format!(
                "{} seats listed; ruleset {} plays {} players",
                line.n_seats, rs.name_repr, rs.players
            ),
            None,
        );
    }
    let game = Game::new(
        rs,
        line.hands.as_deref(),
        line.kitty,
        line.set_aside,
        line.first_bidder,
        line.face_up_card,
    );
    let mut game = match game {
        Ok(g) => g,
        Err(b) => return rejected(b.code, b.message, None),
    };
    for (i, a) in line.actions.iter().enumerate() {
        if let Err(b) = game.act(a) {
            return rejected(b.code, format!("actions[{i}]: {}", b.message), Some(i));
        }
    }
    let Some(result) = game.result.take() else {
        let left: Vec<String> = game.counts.iter().map(u32::to_string).collect();
        return rejected(
            "E_UNFINISHED",
            format!(
                "the log ends after {} action(s) with no winner (cards left [{}])",
                line.actions.len(),
                left.join(", ")
            ),
            None,
        );
    };
    if let Some(declared) = &line.declared {
        let mut problems = Vec::new();
        for (key, value) in declared {
            let replayed = replayed_field(&result, key);
            if !same(value, &replayed) {
                match (py_repr(value), replayed.repr()) {
                    (Some(d), Some(r)) => problems.push(format!("declared {key} {d}, replay: {r}")),
                    _ => return Replay::Python,
                }
            }
        }
        if !problems.is_empty() {
            return rejected("E_RESULT_MISMATCH", problems.join("; "), None);
        }
    }
    Replay::Ok(std::mem::take(&mut game.history), result)
}

/// A replayed result field as Python holds it (`_replayed_fields`).
enum PyVal {
    None,
    Bool(bool),
    Num(Num),
    Str(&'static str),
    List(Vec<PyVal>),
}

impl PyVal {
    fn repr(&self) -> Option<String> {
        Some(match self {
            PyVal::None => "None".to_owned(),
            PyVal::Bool(b) => py_bool(*b).to_owned(),
            PyVal::Num(Num::Int(i)) => i.to_string(),
            PyVal::Num(Num::Float(x)) => float_repr(*x)?,
            PyVal::Str(s) => format!("'{s}'"),
            PyVal::List(items) => {
                let parts: Option<Vec<String>> = items.iter().map(PyVal::repr).collect();
                format!("[{}]", parts?.join(", "))
            }
        })
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn opt_int(v: Option<usize>) -> PyVal {
    v.map_or(PyVal::None, |x| PyVal::Num(Num::Int(x as i64)))
}

fn replayed_field(r: &GameResult, key: &str) -> PyVal {
    let int = |x: i64| PyVal::Num(Num::Int(x));
    match key {
        "outcome" => PyVal::Str(r.outcome),
        "landlord" => opt_int(r.landlord),
        "base" => int(r.base),
        "winner" => opt_int(r.winner),
        "landlord_won" => r.landlord_won.map_or(PyVal::None, PyVal::Bool),
        "bombs" => int(r.bombs),
        "rockets" => int(r.rockets),
        "spring" => r.spring.map_or(PyVal::None, PyVal::Str),
        "multiplier" => int(r.multiplier),
        "amount" => PyVal::Num(r.amount),
        _ => PyVal::List(r.scores.iter().map(|&s| PyVal::Num(s)).collect()),
    }
}

/// `_same`: lists item by item; a bool, or a None replayed, by identity; numbers within 1e-9.
fn same(declared: &Value, replayed: &PyVal) -> bool {
    match (declared, replayed) {
        (Value::Array(ds), PyVal::List(rs)) => {
            ds.len() == rs.len() && ds.iter().zip(rs).all(|(d, r)| same(d, r))
        }
        (Value::Bool(a), PyVal::Bool(b)) => a == b,
        (Value::Bool(_), _) | (_, PyVal::Bool(_)) | (_, PyVal::None) => false,
        (Value::Number(d), PyVal::Num(r)) => {
            let (a, b) = (d.as_f64().unwrap_or(f64::NAN), r.as_f64());
            a == b || (a - b).abs() <= 1e-9
        }
        (Value::String(d), PyVal::Str(r)) => d == r,
        _ => false,
    }
}

/// Python's `repr` of a JSON value as orjson reads it; None for a shape the core leaves to
/// Python (an object, a string needing escapes or of non-ASCII text).
fn py_repr(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "None".to_owned(),
        Value::Bool(b) => py_bool(*b).to_owned(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            // a long number may be read a unit off, or be an integer beyond 64 bits: Python's
            _ => {
                let x = n.as_f64()?;
                if !exact_float(x) || x.abs() >= 1e15 {
                    return None;
                }
                float_repr(x)?
            }
        },
        Value::String(s) => {
            let plain = s
                .bytes()
                .all(|b| (0x20..0x7f).contains(&b) && b != b'\'' && b != b'\\');
            if !plain {
                return None;
            }
            format!("'{s}'")
        }
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items.iter().map(py_repr).collect();
            format!("[{}]", parts?.join(", "))
        }
        Value::Object(_) => return None,
    })
}

/// Python's `repr(float)`: the shortest digits that read back, fixed notation for decimal
/// exponents -4 … 15, else `d.ddde±XX`.
pub fn float_repr(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let e = exp as usize;
            let (int_part, frac) = if digits.len() > e + 1 {
                (digits[..e + 1].to_owned(), digits[e + 1..].to_owned())
            } else {
                (format!("{digits:0<width$}", width = e + 1), "0".to_owned())
            };
            format!("{int_part}.{frac}")
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        }
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let s = if exp < 0 { '-' } else { '+' };
        format!("{m}e{s}{:02}", exp.abs())
    };
    Some(format!("{sign}{body}"))
}

#[cfg(test)]
mod tests {
    use super::float_repr;

    #[test]
    fn python_float_repr() {
        let cases = [
            (3.0, "3.0"),
            (0.5, "0.5"),
            (24.75, "24.75"),
            (-6.0, "-6.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.0, "0.0"),
        ];
        for (x, want) in cases {
            assert_eq!(float_repr(x).as_deref(), Some(want), "{x}");
        }
    }
}
