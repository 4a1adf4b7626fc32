//! The Dou Dizhu core's PyO3 class, `DdzCore(resolver)` (`pipeline/native.py` is its one
//! user). `resolver(preset, overrides_json)` is called once per distinct ruleset and answers
//! `(True, json of DdzRuleset.to_dict() plus name_repr, "", name, overrides)` or `(False,
//! code, message, "", "")` (the Python loader's reject); an accepted ruleset's last two are
//! its name and overrides as the games row stores them. Each call answers `None` for a line
//! the Python reader reads. `rows_add` / `rows_take` build a chunk's warehouse rows
//! (`super::rows`). `DdzSimulator` plays simulation matches (`super::sim`).

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;

use super::bots::DdzBotKind;
use super::combos::{Kind, KINDS};
use super::parse::{read_ddz_line, DdzLine};
use super::replay::{replay, Rejected, Replay};
use super::rows::{buildable, DdzChunkRows};
use super::rules::{DdzRules, Num};
use super::sim::{match_lines, DdzRunSpec};
use super::state::{ActionRecord, ActionType, GameResult, Phase};
use crate::parse::tree::Tree;
use crate::py::{resolve, rows_take, Added, Spare};
use crate::rows::{tree_hash, LineInfo};

/// A resolved ruleset: the rules, the loader's reject, or None (rules the core does not
/// take); and its name and overrides as the games row stores them.
struct Resolved {
    rules: Option<Result<DdzRules, (String, String)>>,
    name: String,
    overrides: String,
}

/// The Python objects the records hold for the engine's enums (`ActionType`, `Phase`,
/// `Kind` members), in the order of the Rust enums; or their strings when not given.
struct Enums {
    types: Vec<PyObject>,
    phases: Vec<PyObject>,
    kinds: Vec<PyObject>,
}

#[pyclass(module = "big2_native")]
pub struct DdzCore {
    resolver: PyObject,
    rulesets: HashMap<String, Resolved>,
    enums: Enums,
    rows: DdzChunkRows,
    spare: Spare,
}

const TYPES: [ActionType; 5] = [
    ActionType::Bid,
    ActionType::Call,
    ActionType::NoCall,
    ActionType::Play,
    ActionType::Pass,
];
const PHASES: [Phase; 3] = [Phase::Auction, Phase::Play, Phase::Over];

fn members(
    py: Python<'_>,
    table: Option<&Bound<'_, PyDict>>,
    names: &[&'static str],
) -> PyResult<Vec<PyObject>> {
    names
        .iter()
        .map(|name| match table {
            None => name.into_py_any(py),
            Some(t) => t
                .get_item(name)?
                .map(Bound::unbind)
                .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(*name)),
        })
        .collect()
}

impl Enums {
    fn kind(&self, py: Python<'_>, k: Option<Kind>) -> PyObject {
        k.map_or_else(|| py.None(), |k| self.kinds[k as usize].clone_ref(py))
    }
}

enum Done<'t> {
    Python,
    Rejected(String, Rejected),
    /// The line, its records and result, its ruleset's key, and its tree when the typed
    /// reader read it from there.
    Ok(
        Box<(DdzLine, Vec<ActionRecord>, GameResult)>,
        String,
        Option<Tree<'t>>,
    ),
}

impl DdzCore {
    /// [`DdzCore::rows_add`]'s work (also the Big Two core's `rows_range`'s, for the Dou Dizhu
    /// lines of a range), `claim` asked once the core knows it builds the rows.
    pub(crate) fn add_line(
        &mut self,
        text: &str,
        file: &str,
        line: i64,
        claim: &mut dyn FnMut(&str) -> PyResult<bool>,
    ) -> PyResult<Added> {
        let (done, key, tree) = match self.run(text)? {
            Done::Python => return Ok(Added::Python),
            Done::Rejected(game_id, r) => {
                let r = crate::replay::Rejected {
                    code: r.code,
                    message: r.message,
                    action_index: r.action_index,
                };
                return Ok(Added::Rejected(game_id, r));
            }
            Done::Ok(done, key, tree) => (done, key, tree),
        };
        let (record, actions, result) = &*done;
        let rs = &self.rulesets[&key];
        let Some(Ok(rules)) = &rs.rules else {
            return Ok(Added::Python);
        };
        // the hash from the tree: the numbers as logged (a line the tree scanner does not
        // read, one with an escaped key, is Python's); a line serde read with a long number
        // too: its values (a `ts`, a balance the rows store) may be a unit off
        if !record.exact {
            return Ok(Added::Python);
        }
        let tree = tree.or_else(|| Tree::read(text)); // serde read it: scanned once more
        let Some(hash) = tree.and_then(|mut t| tree_hash(&mut t)) else {
            return Ok(Added::Python);
        };
        let Some(tricks) = buildable(record, actions, result, rules.players) else {
            return Ok(Added::Python);
        };
        if !claim(record.game_id.as_str())? {
            return Ok(Added::Repeat(record.game_id.clone(), hash));
        }
        let info = LineInfo {
            file,
            line,
            ruleset: &rs.name,
            overrides: &rs.overrides,
            players: rules.players,
        };
        self.rows
            .add(record, actions, result, &tricks, &hash, &info);
        Ok(Added::Rows)
    }

    /// A line's [`Done`], without the GIL (as the Big Two core's `run`): a ruleset met for the
    /// first time takes it to ask the resolver.
    fn run<'t>(&mut self, text: &'t str) -> PyResult<Done<'t>> {
        let Some((line, tree)) = read_ddz_line(text) else {
            return Ok(Done::Python);
        };
        let key = format!("{}\u{0}{}", line.preset, line.overrides);
        if !self.rulesets.contains_key(&key) {
            let (ok, payload, message, name, overrides) =
                resolve(&self.resolver, &line.preset, &line.overrides)?;
            let rules = if ok {
                serde_json::from_str(&payload)
                    .ok()
                    .and_then(|d| DdzRules::from_dict(&d).ok())
                    .map(Ok)
            } else {
                Some(Err((payload, message)))
            };
            let resolved = Resolved {
                rules,
                name,
                overrides,
            };
            self.rulesets.insert(key.clone(), resolved);
        }
        let rs = match &self.rulesets[&key].rules {
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
            Replay::Ok(actions, result) => Done::Ok(Box::new((line, actions, result)), key, tree),
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

fn action_tuple(py: Python<'_>, e: &Enums, a: &ActionRecord) -> PyResult<PyObject> {
    let unchecked: &[&str] = if a.unchecked_hand { &["hand"] } else { &[] };
    let fields: Vec<PyObject> = vec![
        a.action_index.into_py_any(py)?,
        a.seat.into_py_any(py)?,
        e.types[a.kind as usize].clone_ref(py),
        e.phases[a.phase as usize].clone_ref(py),
        a.bid.into_py_any(py)?,
        a.cards.into_py_any(py)?,
        e.kind(py, a.play_kind),
        a.key.into_py_any(py)?,
        a.units.into_py_any(py)?,
        a.round.into_py_any(py)?,
        a.is_lead.into_py_any(py)?,
        a.top_before.into_py_any(py)?,
        e.kind(py, a.top_kind),
        a.top_seat.into_py_any(py)?,
        PyTuple::new(py, a.cards_left.as_slice())?.into_py_any(py)?,
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
    /// `enums`: `{"types": …, "phases": …, "kinds": …}`, each a dict from the value to the
    /// engine's enum member, for the records to hold them (else their strings).
    #[new]
    #[pyo3(signature = (resolver, enums=None))]
    fn new(
        py: Python<'_>,
        resolver: PyObject,
        enums: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<DdzCore> {
        let table = |name: &str| -> PyResult<Option<Bound<'_, PyDict>>> {
            match enums {
                None => Ok(None),
                Some(e) => Ok(Some(
                    e.get_item(name)?
                        .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(name.to_owned()))?
                        .downcast_into::<PyDict>()?,
                )),
            }
        };
        // the members are indexed by the Rust enums' discriminants: the arrays are in their order
        debug_assert!(TYPES.iter().enumerate().all(|(i, &t)| t as usize == i));
        debug_assert!(PHASES.iter().enumerate().all(|(i, &p)| p as usize == i));
        let type_names: Vec<&'static str> = TYPES.iter().map(|t| t.as_str()).collect();
        let phase_names: Vec<&'static str> = PHASES.iter().map(|p| p.as_str()).collect();
        let kind_names: Vec<&'static str> = KINDS.iter().map(|k| k.as_str()).collect();
        let enums = Enums {
            types: members(py, table("types")?.as_ref(), &type_names)?,
            phases: members(py, table("phases")?.as_ref(), &phase_names)?,
            kinds: members(py, table("kinds")?.as_ref(), &kind_names)?,
        };
        Ok(DdzCore {
            resolver,
            rulesets: HashMap::new(),
            enums,
            rows: DdzChunkRows::default(),
            spare: Spare::default(),
        })
    }

    /// A decoded line → `None` (the Python reader's line), `("reject", game_id,
    /// action_index, code, message)`, or `("ok", game_id, result, actions, moves, deal)`:
    /// the engine's records and result, each logged action as `(seat, type, cards, value,
    /// kind)`, and the deal as read, `(hands or None, kitty, set_aside, face_up_card)`.
    fn replay_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(text)? {
            Done::Python => Ok(py.None()),
            Done::Rejected(game_id, r) => reject_tuple(py, game_id, r),
            Done::Ok(done, ..) => {
                let (line, actions, result) = *done;
                let e = &self.enums;
                let records = actions
                    .iter()
                    .map(|a| action_tuple(py, e, a))
                    .collect::<PyResult<Vec<_>>>()?;
                let moves = line
                    .actions
                    .iter()
                    .map(|a| {
                        (
                            a.seat,
                            e.types[a.kind as usize].clone_ref(py),
                            a.cards,
                            a.value,
                            e.kind(py, a.named),
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

    /// A decoded line into the core's rows buffer: `True` (its rows are in the buffer),
    /// `("repeat", game_id, content_hash)` (`claim(game_id)` answered False: the chunk holds
    /// the id already; the batch judges it), `None` (the Python reader's line, or rows Python
    /// builds), or
    /// the reject tuple. `claim` is the chunk's one set of game ids (the Big Two core's
    /// `rows_claim`), asked once the core knows it builds the rows.
    fn rows_add(
        &mut self,
        py: Python<'_>,
        text: &str,
        file: &str,
        line: i64,
        claim: PyObject,
    ) -> PyResult<PyObject> {
        let mut ask = |id: &str| claim.call1(py, (id,))?.extract::<bool>(py);
        match self.add_line(text, file, line, &mut ask)? {
            Added::Rows => true.into_py_any(py),
            Added::Repeat(game_id, hash) => crate::py::repeat_tuple(py, game_id, hash),
            Added::Python => Ok(py.None()),
            Added::Rejected(game_id, r) => {
                ("reject", game_id, r.action_index, r.code, r.message).into_py_any(py)
            }
        }
    }

    /// The buffered rows as the Big Two core's `rows_take` hands them over: `(memory,
    /// [(table, [(column, buffers)])])`, each buffer `(address, size)` in `memory` (no copy;
    /// the buffers go back to this core for a later chunk once Python dropped them); the
    /// buffer empties. `(None, [])` when it holds no rows.
    fn rows_take(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        rows_take(py, &mut self.rows, &mut self.spare)
    }

    /// Validate only: `None`, the reject tuple, or `("ok", game_id, winner, n_actions)`.
    fn validate_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(text)? {
            Done::Python => Ok(py.None()),
            Done::Rejected(game_id, r) => reject_tuple(py, game_id, r),
            Done::Ok(done, ..) => {
                let (line, actions, result) = *done;
                ("ok", line.game_id, result.winner, actions.len()).into_py_any(py)
            }
        }
    }

    /// Validate many lines; the number that replayed, were rejected, and were left to Python
    /// (with the GIL let go).
    fn validate_lines(
        &mut self,
        py: Python<'_>,
        lines: Vec<String>,
    ) -> PyResult<(usize, usize, usize)> {
        py.allow_threads(|| {
            let (mut ok, mut rejected, mut left) = (0, 0, 0);
            for line in &lines {
                match self.run(line)? {
                    Done::Python => left += 1,
                    Done::Rejected(..) => rejected += 1,
                    Done::Ok(..) => ok += 1,
                }
            }
            Ok((ok, rejected, left))
        })
    }
}

/// One Dou Dizhu simulation run on the core (`pipeline.native.ddz_simulator` builds it):
/// `match_lines` plays a whole match into its log lines, as `ddz_simulate.match_lines` does.
#[pyclass(module = "big2_native")]
pub struct DdzSimulator {
    rs: DdzRules,
    spec: DdzRunSpec,
}

#[pymethods]
impl DdzSimulator {
    /// `ruleset_json`: `DdzRuleset.to_dict()` plus `name_repr`; the `*_json` arguments: the
    /// run's fixed values as `dumps` writes them; `prefix`: `{id_prefix}-{seed}` JSON-escaped.
    /// A ruleset the core does not take is a `ValueError` (Python then plays the run).
    #[new]
    #[pyo3(signature = (ruleset_json, *, seed, games, match_games, feeder, feed_rate, prefix, ruleset_obj, generator_json, seed_json, feeder_json, feed_rate_json))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ruleset_json: &str,
        seed: i64,
        games: u64,
        match_games: u64,
        feeder: Option<usize>,
        feed_rate: f64,
        prefix: String,
        ruleset_obj: String,
        generator_json: String,
        seed_json: String,
        feeder_json: String,
        feed_rate_json: String,
    ) -> PyResult<DdzSimulator> {
        let value = |e: String| pyo3::exceptions::PyValueError::new_err(e);
        let dict: serde_json::Value =
            serde_json::from_str(ruleset_json).map_err(|e| value(e.to_string()))?;
        let rs = DdzRules::from_dict(&dict).map_err(value)?;
        Ok(DdzSimulator {
            rs,
            spec: DdzRunSpec {
                seed: seed.to_string(),
                games,
                match_games: match_games.max(1),
                feeder,
                feed_rate,
                prefix,
                ruleset_json: ruleset_obj,
                generator_json,
                seed_json,
                feeder_json,
                feed_rate_json,
            },
        })
    }

    /// Match `k`'s lines, or None when the core does not play one of `bots` (or leaves the
    /// match to Python: see `super::sim::match_lines`).
    fn match_lines(
        &self,
        py: Python<'_>,
        k: u64,
        bots: Vec<String>,
        seats_json: &str,
        bots_json: &str,
    ) -> Option<Vec<String>> {
        let kinds = crate::py::lineup(&bots, self.rs.players, DdzBotKind::parse)?;
        py.allow_threads(|| match_lines(&self.rs, &self.spec, k, &kinds, seats_json, bots_json))
    }
}

/// `ddz_legal_plays(hand, four_with_two, top)`: the legal plays of `hand` on `top` (`(kind,
/// key, units, mask)`, None on a lead) as `(kind, key, units, mask)` tuples, in the order of
/// `pipeline.doudizhu.moves.plays_from` (for the differential test of the generator; an
/// unknown kind is a `ValueError`).
#[pyfunction]
#[pyo3(signature = (hand, four_with_two, top))]
pub fn ddz_legal_plays(
    hand: u64,
    four_with_two: bool,
    top: Option<(String, usize, usize, u64)>,
) -> PyResult<Vec<(&'static str, usize, usize, u64)>> {
    let top = match top {
        None => None,
        Some((kind, key, units, mask)) => {
            let kind = Kind::parse(&kind)
                .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("kind {kind:?}")))?;
            Some(super::combos::Play {
                kind,
                key,
                units,
                counts: super::cards::counts_of(mask),
                mask,
            })
        }
    };
    let plays = super::moves::plays_from(hand, four_with_two, top.as_ref());
    Ok(plays
        .iter()
        .map(|p| (p.kind.as_str(), p.key, p.units, p.mask))
        .collect())
}
