//! The PyO3 bindings: thin. `pipeline/native.py` is the only Python module that imports them.
//!
//! `Core(resolver)` replays game lines. `resolver(preset, overrides_json)` is called once per
//! distinct ruleset and answers `(True, json.dumps(ruleset.to_dict()), "", name, overrides)` or
//! `(False, code, message, "", "")` (the Python ruleset loader's reject); the last two of an
//! accepted ruleset are its name and overrides as the games row stores them. Each call answers `None`
//! when the line is for the Python reader to read (see `parse.rs`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyString, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::combos::ComboRules;
use crate::ddz::py::DdzCore;
use crate::lines::{cut, read_range, read_run, Line, RangeError, RunRead, RunRule, Span};
use crate::parquet::arrow::{batch, Array, FfiArray, FfiSchema, Field, Leaf};
use crate::parquet::py::capsule;
use crate::parse::tree::Tree;
use crate::parse::{read_line, Record};
use crate::replay::{replay, Rejected, Replayed};
use crate::rows::{content_hash, tree_hash, ChunkRows, ColumnRef, LineInfo, RowsBuffer};
use crate::rules::Ruleset;
use crate::sim::{match_lines, BotKind, Notation, Planted, RunSpec};
use crate::state::ActionRecord;

/// A resolved ruleset: the engine's, and its name and overrides as the games row stores them.
struct Resolved {
    rules: Result<Box<(Ruleset, ComboRules)>, (String, String)>,
    name: String,
    overrides: String,
}

#[pyclass(module = "big2_native")]
struct Core {
    resolver: PyObject,
    rulesets: HashMap<String, Resolved>,
    rows: ChunkRows,
    spare: Spare,
    /// The range [`Core::rows_read`] read or [`Core::rows_fill`] filled last
    /// (`lines[..lines_len]`; the vector keeps its memory from range to range).
    lines: Vec<u8>,
    lines_len: usize,
}

/// The resolver's answer for a ruleset (both cores': see the module's doc), asked with the GIL
/// taken: a core reads lines without it, and meets a new ruleset rarely.
pub(crate) fn resolve(
    resolver: &PyObject,
    preset: &str,
    overrides: &str,
) -> PyResult<(bool, String, String, String, String)> {
    Python::with_gil(|py| resolver.call1(py, (preset, overrides))?.extract(py))
}

/// A line's answer: the record, its tree (when the tree scanner read it), the replay and the
/// ruleset's key; or the game id and the reject; None for the Python reader.
type Outcome<'t> = Option<Result<(Record, Option<Tree<'t>>, Replayed, String), (String, Rejected)>>;

impl Core {
    /// A line's [`Outcome`]. Runs without the GIL (a range's lines are read with it let go);
    /// a ruleset met for the first time takes it to ask the resolver.
    fn run<'t>(&mut self, text: &'t str) -> PyResult<Outcome<'t>> {
        let Some((record, tree)) = read_line(text) else {
            return Ok(None);
        };
        let key = format!("{}\u{0}{}", record.preset, record.overrides);
        if !self.rulesets.contains_key(&key) {
            let (ok, payload, message, name, overrides) =
                resolve(&self.resolver, &record.preset, &record.overrides)?;
            let rules = if ok {
                let dict: serde_json::Value = serde_json::from_str(&payload)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
                let rs =
                    Ruleset::from_dict(&dict).map_err(pyo3::exceptions::PyValueError::new_err)?;
                let cr = ComboRules::new(&rs);
                Ok(Box::new((rs, cr)))
            } else {
                Err((payload, message))
            };
            let resolved = Resolved {
                rules,
                name,
                overrides,
            };
            self.rulesets.insert(key.clone(), resolved);
        }
        let done = match &self.rulesets[&key].rules {
            Err((code, message)) => Err(Rejected {
                code: code.clone(),
                message: message.clone(),
                action_index: None,
            }),
            Ok(both) => replay(&record, &both.0, &both.1),
        };
        Ok(Some(match done {
            Ok(replayed) => Ok((record, tree, replayed, key)),
            Err(rejected) => Err((record.game_id, rejected)),
        }))
    }
}

/// What became of a line handed to a rows buffer (both cores').
pub(crate) enum Added {
    /// Its rows are in the buffer.
    Rows,
    /// The chunk holds its game id already (the line read and replayed: not a reject): its
    /// game id and content hash, for the batch to judge it as a repeat.
    Repeat(String, String),
    /// The Python reader's line, or rows Python builds.
    Python,
    /// The game id and the reject.
    Rejected(String, Rejected),
}

/// What a Dou Dizhu line holds (its `game_kind`) and a Big Two line hardly ever (Python's
/// `pipeline.native.DDZ_MARK`): such a line goes to the Dou Dizhu core.
const DDZ_MARK: &[u8] = b"\"doudizhu\"";

impl Core {
    /// [`Core::rows_add`]'s work.
    fn add_line(&mut self, text: &str, file: &str, line: i64) -> PyResult<Added> {
        let (record, tree, done, key) = match self.run(text)? {
            None => return Ok(Added::Python),
            Some(Err((game_id, r))) => return Ok(Added::Rejected(game_id, r)),
            Some(Ok(got)) => got,
        };
        let hash = tree.and_then(|mut t| tree_hash(&mut t));
        let Some(hash) = hash.or_else(|| content_hash(text)) else {
            return Ok(Added::Python);
        };
        if self.rows.holds(&record.game_id) {
            return Ok(Added::Repeat(record.game_id, hash));
        }
        let rs = &self.rulesets[&key];
        let Ok(both) = &rs.rules else {
            return Ok(Added::Python);
        };
        let info = LineInfo {
            file,
            line,
            ruleset: &rs.name,
            overrides: &rs.overrides,
            players: both.0.players,
        };
        Ok(if self.rows.add(&record, &done, &hash, &info) {
            Added::Rows
        } else {
            Added::Python
        })
    }

    /// [`Core::rows_range`]'s work, on the range's bytes (`data`, out of `self` meanwhile):
    /// [`Core::lines_free`] with the GIL let go (an import's other threads replay their own
    /// ranges meanwhile), then its answer as Python objects.
    #[allow(clippy::too_many_arguments)]
    fn range_lines(
        &mut self,
        py: Python<'_>,
        data: &[u8],
        pos: usize,
        line: i64,
        file: &str,
        max_line_bytes: usize,
        ddz: Option<Bound<'_, DdzCore>>,
    ) -> PyResult<PyObject> {
        let mut ddz = ddz.as_ref().map(|d| d.borrow_mut());
        let ddz = ddz.as_deref_mut();
        let (pos, line, rows, left) =
            py.allow_threads(|| self.lines_free(data, pos, line, file, max_line_bytes, ddz))?;
        let left = match left {
            Left::Done => py.None(),
            Left::Raw(at, bytes) => (at, PyBytes::new(py, bytes), py.None()).into_py_any(py)?,
            Left::Line(at, text, None) => (at, text, py.None()).into_py_any(py)?,
            Left::Line(at, text, Some(Answer::Repeat(game_id, hash))) => {
                (at, text, repeat_tuple(py, game_id, hash)?).into_py_any(py)?
            }
            Left::Line(at, text, Some(Answer::Rejected(game_id, r))) => {
                (at, text, reject_tuple(py, game_id, r)?).into_py_any(py)?
            }
        };
        (pos, line, rows, left).into_py_any(py)
    }

    /// The lines of `data` from byte `pos` (line `line`) up to the first one the core leaves
    /// to Python, as [`Core::rows_range`] describes them, touching no Python object (a
    /// ruleset met for the first time takes the GIL to be resolved): `(pos, line, rows,
    /// left)`.
    fn lines_free<'d>(
        &mut self,
        data: &'d [u8],
        mut pos: usize,
        mut line: i64,
        file: &str,
        max_line_bytes: usize,
        mut ddz: Option<&mut DdzCore>,
    ) -> PyResult<(usize, i64, usize, Left<'d>)> {
        let mut rows = 0usize;
        while pos < data.len() {
            if data[pos] == b'\n' {
                // a run of empty lines: blank to the reader, skipped at once (not a cut each)
                let run = data[pos..].iter().take_while(|&&b| b == b'\n').count();
                (pos, line) = (pos + run, line + run as i64);
                continue;
            }
            let (start, at) = (pos, line);
            let (next, cut_line) = cut(data, pos, at == 1, max_line_bytes);
            (pos, line) = (next, line + 1);
            let text = match cut_line {
                Line::Blank => continue,
                Line::Text(text) => text,
                Line::Raw => return Ok((pos, line, rows, Left::Raw(at, &data[start..next]))),
            };
            let added = if memchr::memmem::find(text.as_bytes(), DDZ_MARK).is_some() {
                match ddz.as_mut() {
                    None => Added::Python,
                    Some(d) => d.add_line(text, file, at, &mut |id| Ok(self.rows.claim(id)))?,
                }
            } else {
                self.add_line(text, file, at)?
            };
            let answer = match added {
                Added::Rows => {
                    rows += 1;
                    continue;
                }
                Added::Python => None,
                Added::Repeat(game_id, hash) => Some(Answer::Repeat(game_id, hash)),
                Added::Rejected(game_id, r) => Some(Answer::Rejected(game_id, r)),
            };
            return Ok((pos, line, rows, Left::Line(at, text, answer)));
        }
        Ok((pos, line, rows, Left::Done))
    }
}

/// Where [`Core::lines_free`] stopped: at the range's end, or at a line it leaves to Python.
enum Left<'d> {
    Done,
    /// A line for the Python reader (`lines::cut` is not sure of it): its number, its bytes
    /// to its newline.
    Raw(i64, &'d [u8]),
    /// A line for Python to replay (a line the core does not read or build rows of), or
    /// what the core found (a repeat, a reject): its number, its text.
    Line(i64, &'d str, Option<Answer>),
}

/// What the core found of a line it leaves: a repeat (game id, content hash) or a reject.
enum Answer {
    Repeat(String, String),
    Rejected(String, Rejected),
}

/// One buffer of a column in the core's memory as `(address, size)` (Python wraps it with
/// `pa.foreign_buffer`, the [`RowsMemory`] of its take as the base that keeps it alive); an
/// empty one's address is never 0 (a vector's), which Arrow takes for a missing buffer.
fn buffer_tuple(py: Python<'_>, b: &[u8]) -> PyResult<PyObject> {
    (b.as_ptr() as usize, b.len()).into_py_any(py)
}

/// A column of the core's buffers as `(length, null_count, validity or None, [buffers],
/// [children])`, each buffer [`buffer_tuple`] (no copy).
fn column_tuple(py: Python<'_>, col: &ColumnRef<'_>) -> PyResult<PyObject> {
    let validity = col.validity.map(|v| buffer_tuple(py, v)).transpose()?;
    let buffers = col
        .buffers
        .iter()
        .map(|b| buffer_tuple(py, b))
        .collect::<PyResult<Vec<_>>>()?;
    let children = col
        .children
        .iter()
        .map(|c| column_tuple(py, c))
        .collect::<PyResult<Vec<_>>>()?;
    (col.len, col.nulls, validity, buffers, children).into_py_any(py)
}

/// The vectors of one take, back from Python once it dropped every array on them.
type Returned = Arc<Mutex<Option<Vec<Vec<u8>>>>>;

/// A core's memory for its rows between chunks (Big Two's or Dou Dizhu's): the spare column
/// vectors (an earlier take's, back from Python), and whether the buffer was left bare (its
/// last take found no spare to put in its place: the take before it was still Python's).
#[derive(Default)]
pub(crate) struct Spare {
    back: Returned,
    bare: bool,
}

/// The memory of one `rows_take`: the byte vectors its columns point into, alive while an
/// Arrow buffer wraps them (`pa.foreign_buffer(..., base=memory)`), never written; dropped,
/// they go back to their core as the spare buffers of a later chunk (no new pages to touch).
#[pyclass(module = "big2_native", frozen)]
struct RowsMemory {
    vecs: Vec<Vec<u8>>,
    back: Returned,
}

impl Drop for RowsMemory {
    fn drop(&mut self) {
        let vecs = std::mem::take(&mut self.vecs);
        if let Ok(mut spare) = self.back.lock() {
            if spare.is_none() {
                *spare = Some(vecs);
            }
        }
    }
}

/// A rows buffer's take (both cores' `rows_take`): `(memory, [(table, [(column, buffers)])])`
/// on the buffer's own memory, which it hands over (spare vectors in its place, else empty
/// ones); `(None, [])` when it holds no rows: then it only empties (a Big Two buffer's game
/// ids), at the start of a chunk (`CoreRows`), and a bare buffer takes the spare vectors back
/// if Python has dropped them meanwhile: from an import's second chunk on, a chunk's rows
/// are written into pages an earlier one touched (the second chunk's page faults: 15,511
/// → 19, ~0.05 s of its ~0.2 s, measured).
pub(crate) fn rows_take(
    py: Python<'_>,
    rows: &mut impl RowsBuffer,
    spare: &mut Spare,
) -> PyResult<PyObject> {
    let returned = || spare.back.lock().ok().and_then(|mut s| s.take());
    if rows.is_empty() {
        if std::mem::take(&mut spare.bare) {
            if let Some(vecs) = returned() {
                rows.hand_over(Some(vecs)); // the bare (empty) vectors go
            }
        }
        rows.clear();
        return (py.None(), Vec::<PyObject>::new()).into_py_any(py);
    }
    let mut out = Vec::with_capacity(4);
    for (table, columns) in rows.tables() {
        let cols = columns
            .iter()
            .map(|(name, col)| Ok((*name, column_tuple(py, col)?)))
            .collect::<PyResult<Vec<_>>>()?;
        out.push((table, cols));
    }
    let spare_vecs = returned();
    spare.bare = spare_vecs.is_none();
    // the columns' vectors move (their heap memory does not: the addresses hold)
    let vecs = rows.hand_over(spare_vecs);
    let memory = RowsMemory {
        vecs,
        back: Arc::clone(&spare.back),
    };
    (Py::new(py, memory)?, out).into_py_any(py)
}

fn reject_tuple(py: Python<'_>, game_id: String, r: Rejected) -> PyResult<PyObject> {
    ("reject", game_id, r.action_index, r.code, r.message).into_py_any(py)
}

/// A repeat as Python takes it: `("repeat", game_id, content_hash)`.
pub(crate) fn repeat_tuple(py: Python<'_>, game_id: String, hash: String) -> PyResult<PyObject> {
    ("repeat", game_id, hash).into_py_any(py)
}

fn action_tuple(py: Python<'_>, a: &ActionRecord) -> PyResult<PyObject> {
    let unchecked = PyTuple::new(py, a.unchecked.names())?;
    let cards_left = PyTuple::new(py, a.cards_left.as_slice())?;
    let fields: Vec<PyObject> = vec![
        a.action_index.into_py_any(py)?,
        a.seat.into_py_any(py)?,
        a.kind.as_str().into_py_any(py)?,
        a.cards.into_py_any(py)?,
        a.play_kind.map(|k| k.as_str()).into_py_any(py)?,
        a.rank_key().into_py_any(py)?,
        a.trick.into_py_any(py)?,
        a.is_lead.into_py_any(py)?,
        a.top_before.into_py_any(py)?,
        cards_left.into_py_any(py)?,
        a.hand_before().into_py_any(py)?,
        a.beating_play_existed.into_py_any(py)?,
        a.highest_single.into_py_any(py)?,
        a.next_seat.into_py_any(py)?,
        a.next_on_one.into_py_any(py)?,
        a.obligation.map(|o| o.as_str()).into_py_any(py)?,
        a.block.map(|b| b.as_str()).into_py_any(py)?,
        a.block_reason().as_ref().into_py_any(py)?,
        a.ends_trick.into_py_any(py)?,
        a.wins_game.into_py_any(py)?,
        a.drawn.into_py_any(py)?,
        a.claim.map(|c| c.as_str()).into_py_any(py)?,
        unchecked.into_py_any(py)?,
        a.last_call.map(|c| c.as_str()).into_py_any(py)?,
    ];
    PyTuple::new(py, fields)?.into_py_any(py)
}

/// Why a range or run could not be read, as Python words it (`pipeline.ingest._RANGE_CHANGED`'s
/// keys, and `io` for a read that failed): the word and the errno or missing bytes.
fn why_not(err: RangeError) -> (&'static str, i64) {
    match err {
        RangeError::Open(errno) => ("open", i64::from(errno)),
        RangeError::Replaced => ("replaced", 0),
        RangeError::NotCutBefore => ("before", 0),
        RangeError::Shorter(n) => ("shorter", n as i64),
        RangeError::NotCutAfter => ("after", 0),
        RangeError::Io(e) => ("io", i64::from(e.raw_os_error().unwrap_or(0))),
    }
}

#[pymethods]
impl Core {
    #[new]
    fn new(resolver: PyObject) -> Core {
        Core {
            resolver,
            rulesets: HashMap::new(),
            rows: ChunkRows::default(),
            spare: Spare::default(),
            lines: Vec::new(),
            lines_len: 0,
        }
    }

    /// A decoded game line into the core's rows buffer: `True` (its rows are in the buffer),
    /// `("repeat", game_id, content_hash)` (the buffer holds its game id already: the batch
    /// judges it), `None` (the Python reader's line, or rows Python builds), or the reject
    /// tuple.
    fn rows_add(
        &mut self,
        py: Python<'_>,
        text: &str,
        file: &str,
        line: i64,
    ) -> PyResult<PyObject> {
        match self.add_line(text, file, line)? {
            Added::Rows => true.into_py_any(py),
            Added::Repeat(game_id, hash) => repeat_tuple(py, game_id, hash),
            Added::Python => Ok(py.None()),
            Added::Rejected(game_id, r) => reject_tuple(py, game_id, r),
        }
    }

    /// Read one range of a plain JSON Lines file into the core's line buffer, for
    /// [`Core::rows_range`]: `path` (as `os.fsencode` gives it), the range's offset, length,
    /// whether it ends with a newline, and the device and inode of the file it was cut from.
    /// `None` when it was read; else why not: `("open", errno)`, `("replaced", 0)`,
    /// `("before", 0)` (the byte before it is no longer a newline), `("shorter", bytes)`,
    /// `("after", 0)` (its last byte is no longer a newline), or `("io", errno)` (a read
    /// failed: the Python reader reads the range instead).
    #[allow(clippy::too_many_arguments)]
    fn rows_read(
        &mut self,
        py: Python<'_>,
        path: &[u8],
        offset: u64,
        length: usize,
        ends_line: bool,
        device: u64,
        inode: u64,
    ) -> PyResult<PyObject> {
        let span = Span {
            offset,
            length,
            ends_line,
            device,
            inode,
        };
        let path = Path::new(OsStr::from_bytes(path));
        let read = py.allow_threads(|| read_range(path, &span, &mut self.lines));
        self.lines_len = if read.is_ok() { length } else { 0 };
        match read {
            Ok(()) => Ok(py.None()),
            Err(err) => why_not(err).into_py_any(py),
        }
    }

    /// Read the run of whole lines of a plain JSON Lines file from `offset` into the core's
    /// line buffer, for [`Core::rows_range`], cut where `pipeline.ingest._cut` cuts it (the
    /// rule's `games`, `bytes`, `scan` and `limit`: `lines::RunRule`), each byte read once:
    /// `("run", length, newlines, ends_line, at_end)`, `("end", 0)` (nothing from there),
    /// `("long", 0)` (a run longer than `limit`: not read whole), or why not, as
    /// [`Core::rows_read`] says it (`open`, `replaced`, `before`, `io`).
    #[allow(clippy::too_many_arguments)]
    fn rows_read_run(
        &mut self,
        py: Python<'_>,
        path: &[u8],
        offset: u64,
        device: u64,
        inode: u64,
        games: usize,
        bytes: usize,
        scan: usize,
        limit: usize,
    ) -> PyResult<PyObject> {
        let rule = RunRule {
            games,
            bytes,
            scan,
            limit,
        };
        let path = Path::new(OsStr::from_bytes(path));
        let read =
            py.allow_threads(|| read_run(path, offset, device, inode, &rule, &mut self.lines));
        self.lines_len = 0;
        let why = match read {
            Ok(RunRead::Run(run)) => {
                self.lines_len = run.length;
                let got = ("run", run.length, run.newlines, run.ends_line, run.at_end);
                return got.into_py_any(py);
            }
            Ok(RunRead::End) => ("end", 0),
            Ok(RunRead::Long) => ("long", 0),
            Err(err) => why_not(err),
        };
        why.into_py_any(py)
    }

    /// Fill the core's line buffer with given bytes, for [`Core::rows_range`], as
    /// [`Core::rows_read`] fills it from a file: whole lines of a stream the import's main
    /// process cut (a gzip file's, decompressed there), sent to a worker as one `bytes`.
    fn rows_fill(&mut self, data: &[u8]) {
        if self.lines.len() < data.len() {
            self.lines.resize(data.len(), 0);
        }
        self.lines[..data.len()].copy_from_slice(data);
        self.lines_len = data.len();
    }

    /// Fill the core's line buffer with JSON lines at given line numbers, blank lines between
    /// them, for [`Core::rows_range`] from line `first` on: a run of an actions CSV's games,
    /// each `(line of its first row, its JSON line)`, the lines rising, as the import's reader
    /// made them. The block the Python join of the lines and their gaps would make, without
    /// that join and without a Python object made of it.
    fn rows_fill_lines(
        &mut self,
        first: i64,
        games: Vec<(i64, Bound<'_, PyBytes>)>,
    ) -> PyResult<()> {
        let mut buf = std::mem::take(&mut self.lines);
        buf.clear();
        let size: usize = games
            .iter()
            .map(|(_, text)| text.as_bytes().len() + 1)
            .sum();
        buf.reserve(size + 1);
        let mut at = first;
        for (line, text) in &games {
            let Ok(gap) = usize::try_from(line - at) else {
                self.lines = buf;
                self.lines_len = 0;
                return Err(PyValueError::new_err("the games' lines do not rise"));
            };
            buf.resize(buf.len() + gap, b'\n');
            buf.extend_from_slice(text.as_bytes());
            at = *line;
        }
        buf.push(b'\n');
        self.lines_len = buf.len();
        self.lines = buf;
        Ok(())
    }

    /// The lines of the range [`Core::rows_read`] read (or [`Core::rows_fill`] filled), from
    /// byte `pos` (line `line` of the file) on, each as `CoreRows.add` takes a line (a Dou
    /// Dizhu line to `ddz`'s rows, or to Python when `ddz` is None), up to the first line the
    /// core leaves to Python:
    /// `(pos, line, rows, left)`, `pos` and `line` those of the line after it, `rows` the
    /// number of lines whose rows the core built, `left` None (the range is done) or the
    /// line left: `(line, bytes, None)` for the Python reader (a line `lines::cut` is not
    /// sure of: its bytes to its newline), `(line, text, None)` for Python to replay (a
    /// repeat, or a line the core does not read or build rows of), or `(line, text,
    /// reject)`. `max_line_bytes`: the reader's cap.
    #[pyo3(signature = (pos, line, file, max_line_bytes, ddz))]
    fn rows_range(
        &mut self,
        py: Python<'_>,
        pos: usize,
        line: i64,
        file: &str,
        max_line_bytes: usize,
        ddz: Option<Bound<'_, DdzCore>>,
    ) -> PyResult<PyObject> {
        let data = std::mem::take(&mut self.lines);
        let got = self.range_lines(
            py,
            &data[..self.lines_len],
            pos,
            line,
            file,
            max_line_bytes,
            ddz,
        );
        self.lines = data;
        got
    }

    /// Whether the rows buffer did not hold this game id (it does now): for a game whose
    /// rows Python builds, so that the chunk holds each game once.
    fn rows_claim(&mut self, game_id: &str) -> bool {
        self.rows.claim(game_id)
    }

    /// The buffered rows as `(memory, [(table, [(column, buffers)])])`, each column's
    /// buffers `(length, null_count, validity or None, [buffers], [children])`, each buffer
    /// `(address, size)` in `memory` (a `RowsMemory`: the base of `pa.foreign_buffer`) or
    /// `b""`; the buffer empties. `(None, [])` when it holds no rows.
    fn rows_take(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        rows_take(py, &mut self.rows, &mut self.spare)
    }

    /// A decoded game line → `None` (the Python reader's line), `("reject", game_id,
    /// action_index, code, message)`, or `("ok", game_id, result, actions)` with every fact.
    fn replay_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(text)? {
            None => Ok(py.None()),
            Some(Err((game_id, r))) => reject_tuple(py, game_id, r),
            Some(Ok((record, _, done, _))) => {
                let res = &done.result;
                let cards_left = PyTuple::new(py, &res.cards_left)?;
                let final_hands = match &res.final_hands {
                    Some(h) => PyTuple::new(py, h)?.into_py_any(py)?,
                    None => py.None(),
                };
                let result = (
                    res.outcome.as_str(),
                    res.winner,
                    res.claim.map(|c| c.as_str()),
                    cards_left,
                    final_hands,
                    res.first_leader,
                    res.n_tricks,
                    res.bao_seat,
                    res.bao_unknown_seat,
                )
                    .into_py_any(py)?;
                let actions = done
                    .actions
                    .iter()
                    .map(|a| action_tuple(py, a))
                    .collect::<PyResult<Vec<_>>>()?;
                ("ok", record.game_id, result, actions).into_py_any(py)
            }
        }
    }

    /// Validate only: `None`, the reject tuple, or `("ok", game_id, winner, n_actions)`.
    fn validate_line(&mut self, py: Python<'_>, text: &str) -> PyResult<PyObject> {
        match self.run(text)? {
            None => Ok(py.None()),
            Some(Err((game_id, r))) => reject_tuple(py, game_id, r),
            Some(Ok((record, _, done, _))) => {
                ("ok", record.game_id, done.result.winner, done.actions.len()).into_py_any(py)
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
                    None => left += 1,
                    Some(Err(_)) => rejected += 1,
                    Some(Ok(_)) => ok += 1,
                }
            }
            Ok((ok, rejected, left))
        })
    }
}

/// One simulation run (`pipeline.sim.simulate.SimConfig`): the ruleset as
/// `json.dumps(ruleset.to_dict())`, the options, and the JSON fragments Python renders once.
/// `match_lines(k, bots, seats_json, bots_json)` plays match `k` into its log lines, or
/// answers `None` when a bot is not one the core plays (the match is Python's then).
#[pyclass(module = "big2_native")]
struct Simulator {
    rs: Ruleset,
    cr: ComboRules,
    spec: RunSpec,
}

#[pymethods]
impl Simulator {
    #[new]
    #[pyo3(signature = (ruleset_json, *, seed, games, match_games, discipline, colluders, notation, prefix, ruleset_obj, discipline_json, colluders_json))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ruleset_json: &str,
        seed: i64,
        games: u64,
        match_games: u64,
        discipline: f64,
        colluders: Option<(usize, usize)>,
        notation: &str,
        prefix: String,
        ruleset_obj: String,
        discipline_json: String,
        colluders_json: String,
    ) -> PyResult<Simulator> {
        let dict: serde_json::Value = serde_json::from_str(ruleset_json)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let rs = Ruleset::from_dict(&dict).map_err(pyo3::exceptions::PyValueError::new_err)?;
        let cr = ComboRules::new(&rs);
        let notation = match notation {
            "compact" => Notation::Compact,
            "pretty" => Notation::Pretty,
            "list" => Notation::List,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "notation {other:?} is not known to the native core"
                )))
            }
        };
        Ok(Simulator {
            rs,
            cr,
            spec: RunSpec {
                seed: seed.to_string(),
                games,
                match_games: match_games.max(1),
                planted: Planted {
                    discipline,
                    colluders,
                },
                notation,
                prefix,
                ruleset_json: ruleset_obj,
                seed_json: seed.to_string(),
                discipline_json,
                colluders_json,
            },
        })
    }

    fn match_lines(
        &self,
        py: Python<'_>,
        k: u64,
        bots: Vec<String>,
        seats_json: &str,
        bots_json: &str,
    ) -> Option<Vec<String>> {
        let kinds = lineup(&bots, self.rs.players, BotKind::parse)?;
        Some(py.allow_threads(|| {
            match_lines(
                &self.rs, &self.cr, &self.spec, k, &kinds, seats_json, bots_json,
            )
        }))
    }
}

/// A match's bots, one per seat (`parse`: a bot's name to the kind the core plays), or None
/// when the core does not play one of them or they do not seat `players`: Python plays it.
pub(crate) fn lineup<K>(
    bots: &[String],
    players: usize,
    parse: impl Fn(&str) -> Option<K>,
) -> Option<Vec<K>> {
    let kinds: Vec<K> = bots.iter().map(|b| parse(b)).collect::<Option<_>>()?;
    (kinds.len() == players).then_some(kinds)
}

/// `pipeline.warehouse.known.game_keys` of a record batch (`__arrow_c_array__`'s capsules)
/// of two string columns, the games' ids and content hashes, no NULL: `keys::KEY_BYTES` a
/// game, in order; None when the batch is not that or a hash is not hex (Python computes
/// them then).
#[pyfunction]
fn game_keys<'py>(
    py: Python<'py>,
    schema: Bound<'py, PyCapsule>,
    array: Bound<'py, PyCapsule>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let schema: &FfiSchema = capsule(&schema, c"arrow_schema")?;
    let array: &FfiArray = capsule(&array, c"arrow_array")?;
    // SAFETY: the structs are live (the caller holds the capsules) and valid (the exporter's)
    let columns = unsafe { batch(schema, array) }.map_err(PyValueError::new_err)?;
    let [(id_field, ids), (hash_field, hashes)] = &columns[..] else {
        return Ok(None);
    };
    let strings = |f: &Field, a: &Array<'_>| f.leaf == Leaf::Utf8 && !f.list && a.nulls == 0;
    if !strings(id_field, ids) || !strings(hash_field, hashes) {
        return Ok(None);
    }
    let (mut id_strs, mut hash_strs) = (Vec::new(), Vec::new());
    ids.strs(0, ids.len, &mut id_strs);
    hashes.strs(0, hashes.len, &mut hash_strs);
    Ok(crate::keys::game_keys(id_strs, hash_strs).map(|k| PyBytes::new(py, &k)))
}

/// `pipeline.sim.tally`'s reading of a block of simulated lines (`data`, each ended by a
/// newline) on the core, with the GIL let go: [`crate::tally::results`], its numbers as
/// little-endian 64-bit floats; None when a line has no result of that shape.
#[pyfunction]
fn sim_results<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    players: usize,
    dou_dizhu: bool,
) -> Option<Bound<'py, PyBytes>> {
    let bytes = data.as_bytes();
    let numbers = py.allow_threads(|| crate::tally::results(bytes, players, dou_dizhu))?;
    let words: Vec<u8> = numbers.iter().flat_map(|n| n.to_le_bytes()).collect();
    Some(PyBytes::new(py, &words))
}

/// What [`CsvGames::games`] answers: bytes read, the line after them, why it stopped, and the
/// games read: `(game_id, line, text, rows, quoted)`, the text and rows as UTF-8 bytes (no
/// text object made of them: the text goes back to the core, the rows only into a reject),
/// `quoted` whether a cell of the rows is in quotes (`crate::csv::Game`).
type CsvRead<'py> = (
    usize,
    i64,
    &'static str,
    Vec<(String, i64, Bound<'py, PyBytes>, Bound<'py, PyBytes>, bool)>,
);

/// The plain rows of an actions CSV as their games' JSON lines (`crate::csv`), for
/// `pipeline.logs.csv_logs.read_csv_lines`: the header's layout, and the games read in one
/// call (the reader counts those of the calls before as seen: `head` answers None for them,
/// so the core holds no id past a call, however many games the file has).
#[pyclass(module = "big2_native")]
struct CsvGames {
    layout: crate::csv::Layout,
    seen: HashSet<String>,
}

/// The game ids a CSV reader has met (`crate::ids::IdTable`), each with a number: answers
/// `get`, `[id] = n` and `setdefault` as a dict of `str` → `int` does, in ~31 bytes an id.
#[pyclass(module = "big2_native")]
struct GameIds {
    table: crate::ids::IdTable,
}

/// An id's UTF-8 bytes (a lone surrogate as `surrogatepass` writes it: no UTF-8 text has
/// those bytes).
fn id_bytes<'a>(id: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, [u8]>> {
    match id.to_str() {
        Ok(text) => Ok(Cow::Borrowed(text.as_bytes())),
        Err(_) => {
            let raw = id.call_method1("encode", ("utf-8", "surrogatepass"))?;
            Ok(Cow::Owned(raw.extract::<Vec<u8>>()?))
        }
    }
}

#[pymethods]
impl GameIds {
    #[new]
    fn new() -> GameIds {
        GameIds {
            table: crate::ids::IdTable::new(),
        }
    }

    fn get<'py>(
        &self,
        id: &Bound<'py, PyString>,
        default: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.table.get(&id_bytes(id)?) {
            Some(n) => n.into_bound_py_any(id.py()),
            None => Ok(default),
        }
    }

    fn __setitem__(&mut self, id: &Bound<'_, PyString>, n: u64) -> PyResult<()> {
        self.table.set(&id_bytes(id)?, n);
        Ok(())
    }

    fn setdefault(&mut self, id: &Bound<'_, PyString>, n: u64) -> PyResult<u64> {
        Ok(self.table.set_default(&id_bytes(id)?, n))
    }

    fn __len__(&self) -> usize {
        self.table.len()
    }
}

/// A games CSV's Big Two and Dou Dizhu rows as their games' JSON objects
/// (`crate::csv::game_head`), under one header ([`CsvGames::game_heads`]).
#[pyclass(frozen)]
struct CsvGameHeads {
    layout: crate::csv::GamesLayout,
}

#[pymethods]
impl CsvGameHeads {
    /// A games-CSV row's JSON object without its closing brace, or None (the Python reader's;
    /// a text with a lone surrogate too).
    fn head(&self, text: &Bound<'_, PyString>) -> Option<String> {
        let line = text.to_str().ok()?;
        crate::csv::game_head(&self.layout, line)
    }

    /// `crate::csv::game_rows` of `data` (whole lines of the games CSV after its header,
    /// `line` the first's number; `at_eof`: the file ends with them; `cap`: the line cap):
    /// `(bytes read, the line after them, "end" | "more" | "python", [(game_id, line, text,
    /// head)])`, each row's head as [`CsvGameHeads::head`] answers.
    fn rows(&self, data: &[u8], at_eof: bool, line: i64, cap: usize) -> CsvGameRows {
        let mut out = Vec::new();
        let (read, next, stop) =
            crate::csv::game_rows(data, at_eof, line, &self.layout, cap, &mut out);
        let rows = out
            .into_iter()
            .map(|r| (r.id, r.line, r.text, r.head))
            .collect();
        (read, next, stop_name(stop), rows)
    }
}

/// What [`CsvGameHeads::rows`] answers: bytes read, the line after them, why it stopped, and
/// the rows read: `(game_id, line, text, head)`.
type CsvGameRows = (
    usize,
    i64,
    &'static str,
    Vec<(String, i64, String, Option<String>)>,
);

/// How Python names why a reader of plain rows stopped.
fn stop_name(stop: crate::csv::Stop) -> &'static str {
    match stop {
        crate::csv::Stop::End => "end",
        crate::csv::Stop::More => "more",
        crate::csv::Stop::Python => "python",
    }
}

#[pymethods]
impl CsvGames {
    /// `optional`: (name, column, whole number) of the cards and each optional column the
    /// header has, in the order the reader writes them; `unnamed`: the columns it names not
    /// (a row with a value in one is the Python reader's).
    #[new]
    #[pyo3(signature = (width, seq, seat, action, ts, optional, max_rows, cap, unnamed = Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        width: usize,
        seq: usize,
        seat: usize,
        action: usize,
        ts: usize,
        optional: Vec<(String, usize, bool)>,
        max_rows: usize,
        cap: usize,
        unnamed: Vec<usize>,
    ) -> PyResult<CsvGames> {
        let columns = [seq, seat, action, ts];
        if optional.len() > 64
            || columns
                .iter()
                .chain(optional.iter().map(|o| &o.1))
                .chain(&unnamed)
                .any(|&c| c >= width)
        {
            return Err(PyValueError::new_err(
                "a column past the header's width, or over 64 optional ones",
            ));
        }
        let layout = crate::csv::Layout {
            width,
            seq,
            seat,
            action,
            ts,
            optional,
            max_rows,
            cap,
            unnamed,
        };
        Ok(CsvGames {
            layout,
            seen: HashSet::new(),
        })
    }

    /// The maker of games-CSV objects for a games header ([`CsvGameHeads`]): its width, the
    /// column of each name (the last of a name written twice), the columns it has of games
    /// other than Big Two and other than Dou Dizhu, and those it names not. A static method:
    /// [`CsvGames::games`]' `head` calls it while this reader reads.
    #[staticmethod]
    #[pyo3(signature = (width, columns, foreign, foreign_ddz, unnamed = Vec::new()))]
    fn game_heads(
        width: usize,
        columns: Vec<(String, usize)>,
        foreign: Vec<usize>,
        foreign_ddz: Vec<usize>,
        unnamed: Vec<usize>,
    ) -> PyResult<CsvGameHeads> {
        let layout =
            crate::csv::GamesLayout::new(width, &columns, foreign, foreign_ddz, unnamed)
                .ok_or_else(|| PyValueError::new_err("a column past the games header's width"))?;
        Ok(CsvGameHeads { layout })
    }

    /// `crate::csv::games` of `data` (whole lines from a game's first row; `line`: the first's
    /// number; `at_eof`: the file ends with them), `head(game_id)` giving a game's
    /// `(prefix, allowed)` or None: `(bytes read, the line after them, "end" | "more" |
    /// "python", [(game_id, line, text, rows, quoted)])`.
    fn games<'py>(
        &mut self,
        data: &[u8],
        at_eof: bool,
        line: i64,
        head: &Bound<'py, PyAny>,
    ) -> PyResult<CsvRead<'py>> {
        let mut failed = None;
        let mut out = Vec::new();
        self.seen.clear();
        let heads = |id: &str| -> Option<crate::csv::Head> {
            if failed.is_some() {
                return None;
            }
            match head
                .call1((id,))
                .and_then(|h| h.extract::<Option<(String, u64)>>())
            {
                Ok(h) => h.map(|(prefix, allowed)| crate::csv::Head { prefix, allowed }),
                Err(err) => {
                    failed = Some(err);
                    None
                }
            }
        };
        let (read, next, stop) = crate::csv::games(
            data,
            at_eof,
            line,
            &self.layout,
            &mut self.seen,
            heads,
            &mut out,
        );
        if let Some(err) = failed {
            return Err(err);
        }
        let stop = stop_name(stop);
        let py = head.py();
        let games = out
            .into_iter()
            .map(|g| {
                let text = PyBytes::new(py, g.text.as_bytes());
                (
                    g.id,
                    g.line,
                    text,
                    PyBytes::new(py, g.rows.as_bytes()),
                    g.quoted,
                )
            })
            .collect();
        Ok((read, next, stop, games))
    }
}

#[pymodule]
fn big2_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Core>()?;
    m.add_function(wrap_pyfunction!(crate::replay::replay_parsed, m)?)?;
    m.add_class::<RowsMemory>()?;
    m.add_class::<Simulator>()?;
    m.add_class::<crate::ddz::py::DdzCore>()?;
    m.add_class::<crate::ddz::py::DdzSimulator>()?;
    m.add_function(wrap_pyfunction!(crate::ddz::py::ddz_legal_plays, m)?)?;
    m.add_function(wrap_pyfunction!(crate::parquet::py::write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(game_keys, m)?)?;
    m.add_function(wrap_pyfunction!(sim_results, m)?)?;
    m.add_class::<CsvGames>()?;
    m.add_class::<CsvGameHeads>()?;
    m.add_class::<GameIds>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // how native/build.sh built it: `profile-guided`, `instrumented`, or a plain `release`
    m.add(
        "__build__",
        option_env!("BIG2_NATIVE_BUILD").unwrap_or("release"),
    )?;
    Ok(())
}
