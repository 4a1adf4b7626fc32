//! The Dou Dizhu core's PyO3 class, `DdzCore(resolver)` (`pipeline/native.py` is its one
//! user). `resolver(preset, overrides_json)` is called once per distinct ruleset and answers
//! `(True, json of DdzRuleset.to_dict() plus name_repr, "")` or `(False, code, message)` (the
//! Python loader's reject). Each call answers `None` for a line the Python reader reads.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::IntoPyObjectExt;

use super::parse::{parse_ddz_line, DdzLine};
use super::replay::{replay, Rejected, Replay};
use super::rules::{DdzRules, Num};
use super::state::{ActionRecord, GameResult};

/// A resolved ruleset: the rules, the loader's reject, or None (rules the core does not take).
type Resolved = Option<Result<DdzRules, (String, String)>>;

#[pyclass(module = "big2_native")]
pub struct DdzCore {
    resolver: PyObject,
    rulesets: HashMap<String, Resolved>,
}

enum Done {
    Python,
    Rejected(String, Rejected),
    Ok(Box<(DdzLine, Vec<ActionRecord>, GameResult)>),
}

impl DdzCore {
    fn run(&mut self, py: Python<'_>, text: &str) -> PyResult<Done> {
        let Some(line) = parse_ddz_line(text) else {
            return Ok(Done::Python);
        };
        let key = format!("{}\u{0}{}", line.preset, line.overrides);
        if !self.rulesets.contains_key(&key) {
            let answer = self
                .resolver
                .call1(py, (line.preset.as_str(), line.overrides.as_str()))?;
            let (ok, payload, message): (bool, String, String) = answer.extract(py)?;
            let resolved = if ok {
                serde_json::from_str(&payload)
                    .ok()
                    .and_then(|d| DdzRules::from_dict(&d).ok())
                    .map(Ok)
            } else {
                Some(Err((payload, message)))
            };
            self.rulesets.insert(key.clone(), resolved);
        }
        let rs = match &self.rulesets[&key] {
            None => return Ok(Done::Python),
            Some(Err((code, message))) => {
                let r = Rejected {
                    code: code.clone(),
                    message: message.clone(),
                    action_index: None,
                };
                return Ok(Done::Rejected(line.game_id, r));
            }
            Some(Ok(rs)) => rs,
        };
        Ok(match replay(&line, rs) {
            Replay::Python => Done::Python,
            Replay::Rejected(r) => Done::Rejected(line.game_id, r),
            Replay::Ok(actions, result) => Done::Ok(Box::new((line, actions, result))),
        })
    }
}

fn num(py: Python<'_>, n: Num) -> PyResult<PyObject> {
    match n {
        Num::Int(i) => i.into_py_any(py),
        Num::Float(x) => x.into_py_any(py),
    }
}

fn reject_tuple(py: Python<'_>, game_id: String, r: Rejected) -> PyResult<PyObject> {
    ("reject", game_id, r.action_index, r.code, r.message).into_py_any(py)
}

fn action_tuple(py: Python<'_>, a: &ActionRecord) -> PyResult<PyObject> {
    let unchecked: &[&str] = if a.unchecked_hand { &["hand"] } else { &[] };
    let fields: Vec<PyObject> = vec![
        a.action_index.into_py_any(py)?,
        a.seat.into_py_any(py)?,
        a.kind.as_str().into_py_any(py)?,
        a.phase.as_str().into_py_any(py)?,
        a.bid.into_py_any(py)?,
        a.cards.into_py_any(py)?,
        a.play_kind.map(|k| k.as_str()).into_py_any(py)?,
        a.key.into_py_any(py)?,
        a.units.into_py_any(py)?,
        a.round.into_py_any(py)?,
        a.is_lead.into_py_any(py)?,
        a.top_before.into_py_any(py)?,
        a.top_kind.map(|k| k.as_str()).into_py_any(py)?,
        a.top_seat.into_py_any(py)?,
        PyTuple::new(py, &a.cards_left)?.into_py_any(py)?,
        a.hand_before.into_py_any(py)?,
        a.beating_play_existed.into_py_any(py)?,
        a.ends_round.into_py_any(py)?,
        a.ends_auction.into_py_any(py)?,
        a.landlord.into_py_any(py)?,
        a.multiplier.into_py_any(py)?,
        a.wins_game.into_py_any(py)?,
        PyTuple::new(py, unchecked)?.into_py_any(py)?,
    ];
    PyTuple::new(py, fields)?.into_py_any(py)
}

fn result_tuple(py: Python<'_>, r: &GameResult) -> PyResult<PyObject> {
    let scores = r
        .scores
        .iter()
        .map(|&s| num(py, s))
        .collect::<PyResult<Vec<_>>>()?;
    let fields: Vec<PyObject> = vec![
        r.outcome.into_py_any(py)?,
        r.landlord.into_py_any(py)?,
        r.base.into_py_any(py)?,
        r.winner.into_py_any(py)?,
        r.landlord_won.into_py_any(py)?,
        r.bombs.into_py_any(py)?,
        r.rockets.into_py_any(py)?,
        r.spring.into_py_any(py)?,
        r.multiplier.into_py_any(py)?,
        num(py, r.amount)?,
        PyTuple::new(py, scores)?.into_py_any(py)?,
    ];
    PyTuple::new(py, fields)?.into_py_any(py)
}

#[pymethods]
impl DdzCore {
    #[new]
    fn new(resolver: PyObject) -> DdzCore {
        DdzCore {
            resolver,
            rulesets: HashMap::new(),
        }
    }

    /// A decoded line → `None` (the Python reader's line), `("reject", game_id,
    /// action_index, code, message)`, or `("ok", game_id, result, actions, moves, deal)`:
    /// the engine's records and result, each logged action as `(seat, type, cards, value,
    /// kind)`, and the deal as read, `(hands or None, kitty, set_aside, face_up_card)`.
    fn replay_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(py, text)? {
            Done::Python => Ok(py.None()),
            Done::Rejected(game_id, r) => reject_tuple(py, game_id, r),
            Done::Ok(done) => {
                let (line, actions, result) = *done;
                let records = actions
                    .iter()
                    .map(|a| action_tuple(py, a))
                    .collect::<PyResult<Vec<_>>>()?;
                let moves = line
                    .actions
                    .iter()
                    .map(|a| {
                        (
                            a.seat,
                            a.kind.as_str(),
                            a.cards,
                            a.value,
                            a.named.map(|k| k.as_str()),
                        )
                            .into_py_any(py)
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                let result = result_tuple(py, &result)?;
                let hands = match &line.hands {
                    Some(h) => PyTuple::new(py, h)?.into_py_any(py)?,
                    None => py.None(),
                };
                let deal = (hands, line.kitty, line.set_aside, line.face_up_card);
                ("ok", line.game_id, result, records, moves, deal).into_py_any(py)
            }
        }
    }

    /// Validate only: `None`, the reject tuple, or `("ok", game_id, winner, n_actions)`.
    fn validate_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(py, text)? {
            Done::Python => Ok(py.None()),
            Done::Rejected(game_id, r) => reject_tuple(py, game_id, r),
            Done::Ok(done) => {
                let (line, actions, result) = *done;
                ("ok", line.game_id, result.winner, actions.len()).into_py_any(py)
            }
        }
    }

    /// Validate many lines; the number that replayed, were rejected, and were left to Python.
    fn validate_lines(
        &mut self,
        py: Python<'_>,
        lines: Vec<String>,
    ) -> PyResult<(usize, usize, usize)> {
        let (mut ok, mut rejected, mut left) = (0, 0, 0);
        for line in &lines {
            match self.run(py, line)? {
                Done::Python => left += 1,
                Done::Rejected(..) => rejected += 1,
                Done::Ok(..) => ok += 1,
            }
        }
        Ok((ok, rejected, left))
    }
}
