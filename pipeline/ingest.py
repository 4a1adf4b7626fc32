"""Import logs into the warehouse: read → parse → replay → rows, as one atomic batch.

The work is cut into chunks of one file's lines (JSON Lines) or parsed records (CSV), at
most ``CHUNK_GAMES`` items or ``CHUNK_BYTES`` of text. A plain (uncompressed) JSON Lines file
is not read here: the main process only scans it for newlines and cuts it into byte ranges of
whole lines (:class:`LineRange`: path, offset, length, first line number), and the worker
reads, decodes and processes its range itself (:func:`process_range`), with the same sources,
rejects and caps as one reader of the whole file. A range is read as it was cut or not at all:
a file replaced, shortened or shifted in between is ``E_FILE_CHANGED``, nothing committed.
A gzip JSON Lines file is inflated here (:func:`pipeline.logs.gz.open_gzip`) and cut the same
way, each block of whole lines sent as one ``bytes`` (:class:`LineBlock`, :func:`process_block`;
a block holding a line over the cap, and what is left when the stream fails, are read here and
sent as lines); on the core even one worker is a thread then, so that the next block is
inflated while the worker replays one. CSV and
score sheets are read here and their records sent to the workers; on the core a CSV file's
games go as JSON lines, each run of them to the core in one call (:func:`_core_csv`), and its
workers are threads (one too: the next games are read here while a worker replays some).
A chunk (or range) is turned into Arrow rows by :func:`process_chunk`, in this process or in
worker processes (``workers > 1``), with at most two in flight per worker so that memory stays
flat whatever the file size. Each
chunk writes its own Parquet part files into the batch's temporary area, leaving out the
games the warehouse holds already (:func:`pipeline.warehouse.store.write_part`), and hands
back only counts, the keys of the games it wrote, those it left out, and its rejects. The
main process hands each chunk's part to one :class:`pipeline.warehouse.Batch`,
which decides new / duplicate / conflict (a game twice in one import: the part's files are
rewritten without it) and commits everything at the end, or nothing.

Memory stays bounded whatever the input holds: the first ``max_rejects_per_file`` rejects of
a file are stored in full, the rest are counted by code into one ``E_TOO_MANY_REJECTS`` row
per file; the batch reads only the stored rejects of the files being imported. Files are
named by their resolved path (absolute, symbolic links followed), so a relative and an
absolute path to one file are the same file.

This module holds no UI: progress goes to a callback, the summary is returned.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import glob
import io
import itertools
import math
import os
import signal
import sys
import threading
import time
import zlib
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any, TypeVar, cast

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import native
from pipeline.errors import Big2Error, LogFormatError
from pipeline.logs import GameRecord, Reject, Source, log_shape, read_log
from pipeline.logs.csv_logs import (
    CsvGame,
    SharedGames,
    games_csv_for,
    is_games_csv,
    is_shared_games_csv,
    read_csv,
    read_csv_lines,
)
from pipeline.logs.encodings import utf16_advice
from pipeline.logs.gz import open_gzip
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES, iter_jsonl_lines, parse_line
from pipeline.logs.model import DEFAULT_MAX_REJECTS_PER_FILE, file_label
from pipeline.logs.reader import CSV_SUFFIXES, LOG_NAMES
from pipeline.logs.records import content_hash
from pipeline.logs.scoresheet import SHEET_SHAPES, SheetRules
from pipeline.replay import ReplayedGame, replay
from pipeline.warehouse import Added, RowBuffer, Table, Warehouse, WarehouseError, is_disk_full
from pipeline.warehouse.core_rows import core_tables, merged
from pipeline.warehouse.known import game_keys
from pipeline.warehouse.store import Part, PartSpec, ReadBack, write_part
from pipeline.warehouse.tables import not_stored, rows_for
from pipeline.workers import in_order
from pipeline.workers import pool as worker_pool
from pipeline.workers import warm as warm_workers

#: Games a chunk holds at most: a worker's unit of work and of part files (one per table per
#: chunk: 800 files per million games; the commit's views and the manifest grow with them).
CHUNK_GAMES = 5000
#: The fewest games of a run cut smaller at the end of an import on worker threads
#: (:func:`_run_games`): a part's own cost (four files, each fsynced) is ~2 ms.
TAIL_GAMES = 500
#: A chunk is also cut when its text passes this many bytes (2,000 lines of 1 MiB are 2 GB).
CHUNK_BYTES = 32 << 20
#: The code of a file's summary row of the rejects past the cap.
TOO_MANY_REJECTS = "E_TOO_MANY_REJECTS"
#: Seconds between progress reports while a file is read without a chunk to show.
PROGRESS_EVERY = 0.25
#: Below this many bytes of input, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 4 << 20
#: How much of a plain JSON Lines file the main process reads at a time to cut it into ranges.
SCAN_BYTES = 1 << 20
#: A log file (JSON Lines, plain or gzip; an actions CSV with its own games CSV) of at most
#: this many bytes is small: the small files an import reads one after the other are read as
#: one chunk (:func:`process_files`), up to ``GROUP_BYTES`` of their lines, not a chunk and a
#: part (four Parquet files) each.
SMALL_FILE_BYTES = CHUNK_BYTES // 8
GROUP_BYTES = CHUNK_BYTES // 2
#: A run of newlines to compare a block with (:func:`_newlines_end`).
_NEWLINES = memoryview(b"\n" * SCAN_BYTES)

T = TypeVar("T")

#: A unit of work: raw JSON lines with their sources, CSV games as their JSON lines, or records
#: a reader already parsed.
ChunkItem = tuple[Source, str] | CsvGame | GameRecord | Reject


class IngestError(Big2Error):
    """Input that cannot be imported at all (no such file, nothing to read), or an import
    that could not finish (disk full, a worker process died): nothing of it is committed."""

    default_code = "E_INGEST"


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM reached a running import: it stops, its workers with it. ``committed``
    tells whether the batch had committed already (the signal came during the commit)."""

    def __init__(self, signum: int, *, committed: bool = False) -> None:
        self.signum = signum
        self.committed = committed
        super().__init__(signal.Signals(signum).name)


#: What the import's worker processes import before their first chunk (once in the
#: forkserver, while the main process reads, not once per worker on its first chunk): on the
#: pure Python path pandas too, which pyarrow imports on a worker's first ``pa.array`` (~0.25
#: CPU-s); the core's path converts no Python object to Arrow, so its workers start without it.
WORKER_MODULES = ("pipeline.ingest",) if native.available() else ("pipeline.ingest", "pandas")


def _worker_init() -> None:
    """Pool initializer: a worker leaves SIGINT / SIGTERM to the main process (it dies with
    it: :func:`pipeline.workers.die_with`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


#: Set when a pool was stopped part-way (a worker died, a signal): see :func:`pool_was_stopped`.
_STOPPED: list[bool] = [False]


def pool_was_stopped(*, reset: bool = False) -> bool:
    """Whether this process stopped a worker pool part-way since the last reset. Such a
    process should end with ``os._exit`` once its message is out: Python before 3.11.5
    can deadlock at exit when a pool's workers died while a chunk was being sent to them
    (its manager thread joins a feeder thread blocked writing into their pipe).

    >>> pool_was_stopped(reset=True)
    False
    """
    was = _STOPPED[0]
    if reset:
        _STOPPED[0] = False
    return was


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued chunks cancelled, running workers killed (not awaited)."""
    _STOPPED[0] = True
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        with contextlib.suppress(OSError, ValueError):
            proc.kill()
    for proc in workers:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            proc.join(timeout=5)


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """Worker processes that die with this one; stopped at once when the import fails. Once
    every chunk is back the workers are left to end by themselves (the interpreter's exit
    waits for them): the commit does not wait for their exit (~0.1 s: their last fsyncs, their
    interpreters' teardown)."""
    pool = worker_pool(workers, preload=WORKER_MODULES, initializer=_worker_init)
    try:
        yield pool
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=False)


@contextlib.contextmanager
def _threads(workers: int) -> Iterator[ThreadPoolExecutor]:
    """Worker threads of this process, for the chunks the core reads, replays and writes with
    the GIL let go (:func:`_on_threads`). However the import ends, the threads' queued chunks
    are cancelled and their running ones awaited (a chunk, ~0.25 s): none writes into a batch
    that has aborted."""
    pool = ThreadPoolExecutor(workers, thread_name_prefix="import")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_threads(files: Sequence[Path], log_format: str | None, workers: int) -> bool:
    """Whether an import's workers are threads of its own process rather than processes: on
    the native core, for JSON Lines files (plain or gzip) and CSV logs, whose chunks the core
    reads, replays and writes with the GIL let go. Threads start at once and hand back their
    parts without pickling them; a pool of processes starts in ~0.5 s (the forkserver's
    imports). Score sheets among them take the threads too: their chunks are the Python
    engine's (the GIL held: one at a time), but a worker process would get each game pickled,
    which costs about what replaying it does (two worker processes ran at ~0.55x one worker).
    One worker is a thread too when a file is gzip or CSV: this thread inflates and cuts the
    next block, or reads the next games, meanwhile (a plain file's cut is too light to gain
    from it); else it is this thread."""
    if not native.available() or not all(log_shape(f, log_format) is not None for f in files):
        return False  # every shape of log (JSON Lines, CSV, score sheets), or none
    return workers > 1 or any(
        _is_gzip_jsonl(f, log_format) or _is_csv(f, log_format) for f in files
    )


class _Signals:
    """While an import runs (main thread only), SIGINT / SIGTERM raise :class:`Interrupted`,
    so that the batch aborts and the workers are stopped; during the commit they are held
    and raised once it is done. While worker threads of this process run chunks
    (``threads``), a signal is held until :meth:`check`, between two chunks' results: raised
    wherever this thread is, it may leave a lock held that a worker thread then waits for
    (a future's condition is entered by Python code, between whose lines a handler runs), and
    the import would wait for that thread forever."""

    def __init__(self) -> None:
        self.armed = True
        self.threads = False
        self.pending: int | None = None
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.armed and not self.threads:
            raise Interrupted(signum)
        self.pending = signum

    def check(self) -> None:
        """Raise :class:`Interrupted` for a signal held while the import runs."""
        if self.armed and self.pending is not None:
            raise Interrupted(self.pending)

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def _failures(warehouse: Warehouse, files: Sequence[Path]) -> Iterator[_Signals]:
    """Around one import: signals stop it (:class:`_Signals`), and a dead worker or a full
    disk becomes a named error; in each case the batch has aborted, nothing is committed."""
    with _Signals() as signals:
        try:
            yield signals
        except BrokenProcessPool:
            raise IngestError(
                "E_WORKER_DIED",
                f"a worker process died (killed, or out of memory) while importing "
                f"{len(files)} file(s) into {warehouse.root}: nothing of this import was "
                "committed; run it again (--workers 1 replays in this process)",
            ) from None
        except OSError as err:
            if not is_disk_full(err):
                raise
            raise IngestError(
                "E_DISK_FULL",
                f"no space left on the device of {warehouse.root} ({err.strerror or err}): "
                "nothing of this import was committed; free some space and run it again",
            ) from None
        except WarehouseError as err:
            if err.code != "E_DISK_FULL":
                raise
            raise IngestError(
                "E_DISK_FULL", f"{err.message}: nothing of this import was committed"
            ) from None
    if signals.pending is not None:
        raise Interrupted(signals.pending, committed=True)


@dataclass
class FileSummary:
    """What happened to one file's games."""

    file: str
    read: int = 0
    stored: int = 0
    duplicate: int = 0
    rejected: int = 0

    @classmethod
    def summed(cls, name: str, files: Iterable[FileSummary]) -> FileSummary:
        """The counts of ``files`` added up, under ``name``.

        >>> FileSummary.summed("both", [FileSummary("a", 2, 1, 1), FileSummary("b", 3, 3)])
        FileSummary(file='both', read=5, stored=4, duplicate=1, rejected=0)
        """
        out = cls(name)
        for f in files:
            out.read += f.read
            out.stored += f.stored
            out.duplicate += f.duplicate
            out.rejected += f.rejected
        return out


@dataclass
class IngestSummary:
    """The closing account of one import."""

    batch_id: str = ""
    files: dict[str, FileSummary] = field(default_factory=dict)
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    workers: int = 1
    #: the rejects of ``reasons`` the warehouse held already (stored by an earlier import,
    #: not again by this one)
    repeated_rejects: int = 0

    def total(self) -> FileSummary:
        return FileSummary.summed("total", self.files.values())


@dataclass(frozen=True)
class Progress:
    """Counts so far, for a progress bar."""

    games: int
    rejected: int
    bytes_done: int
    bytes_total: int
    file: str


@dataclass
class ChunkResult:
    """What a worker hands back for one chunk: no games rows, those are in its part files."""

    file: str
    part: Part
    rejects: pa.Table | None
    read: int
    reject_codes: list[str]
    repeats: list[ReplayedGame | Repeat]  # ids seen twice in the chunk: the batch decides
    changed: str | None = None  # a range whose file changed since it was cut: why (no rows)
    #: a chunk of several small files (:func:`process_files`): each file and the items read
    #: in it, in order (``file``: the first); empty for a chunk of one file
    shares: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class LineRange:
    """Whole lines of a plain JSON Lines file, which a worker reads itself (:func:`process_range`)
    instead of being sent them: ``length`` bytes from ``offset``, the first of them line
    ``first_line`` of the file. It ends with a newline (``ends_line``) or where the file ended
    when it was cut; ``device`` and ``inode`` name the file that was cut (a file replaced since
    is not read)."""

    path: str
    offset: int
    length: int
    first_line: int
    ends_line: bool
    device: int
    inode: int


@dataclass(frozen=True, slots=True)
class LineBlock:
    """Whole lines of a stream the main process read and cut (a gzip file's, decompressed
    there), sent to a worker as one ``bytes`` (:func:`process_block`): ``data``, the first of
    its lines line ``first_line`` of ``path``."""

    path: str
    data: bytes
    first_line: int


def _named(path: Path) -> Path:
    """The name a log file is stored under: its resolved path (absolute, ``..`` and symbolic
    links resolved), so that every way of typing it names the same file; a link whose
    target is not named like a log keeps its own name, in its resolved folder.

    >>> _named(Path("/tmp/../tmp")).as_posix()
    '/tmp'
    """
    real = path.resolve()
    if log_shape(real) != log_shape(path):
        return path.parent.resolve() / path.name
    return real


def _no_input(text: str) -> IngestError:
    """Why a path names nothing: no such file, a symbolic link loop, or a dangling link."""
    path = Path(text)
    try:
        path.stat()
    except OSError as err:
        if err.errno == errno.ELOOP:
            return IngestError(
                "E_NO_INPUT",
                f"{text!r} is a symbolic link loop (it never reaches a file)",
                path=text,
            )
        if path.is_symlink():
            target = os.readlink(path)
            return IngestError(
                "E_NO_INPUT",
                f"{text!r} is a symbolic link to {target!r}, which does not exist",
                path=text,
            )
        if err.errno != errno.ENOENT:
            return IngestError("E_NO_INPUT", f"cannot read {text!r}: {err.strerror}", path=text)
    return IngestError("E_NO_INPUT", f"no such file or folder: {text!r}", path=text)


def expand_paths(paths: Sequence[str]) -> list[Path]:
    """Files, folders (searched recursively for logs) and glob patterns → log files, sorted,
    each named by its resolved path (a file typed twice, or relative and absolute, is one).

    Raises ``E_NO_INPUT`` for a path that names nothing (saying when it is a symbolic link
    loop or a link to nothing) and for an empty result.
    """
    out: set[Path] = set()
    for text in paths:
        path = Path(text)
        if path.is_dir():
            out.update(
                _named(p) for p in path.rglob("*") if p.is_file() and log_shape(p) is not None
            )
        elif path.is_file():
            out.add(_named(path))
        elif glob.has_magic(text):
            matches = [Path(p) for p in glob.glob(text, recursive=True)]
            if not matches:
                raise IngestError("E_NO_INPUT", f"no file matches {text!r}", path=text)
            out.update(_named(p) for p in matches if p.is_file() and log_shape(p) is not None)
        else:
            raise _no_input(text)
    if not out:
        raise IngestError(
            "E_NO_INPUT",
            f"no log files ({LOG_NAMES}) in {list(paths)}{utf16_advice(skipped_files(paths))}",
        )
    return sorted(out)


def skipped_files(paths: Sequence[str]) -> list[Path]:
    """The files in the folders of ``paths`` that an import passes over: not a log (a games
    CSV is read with its actions CSV, so it is not one of them; hidden files such as
    ``.gitkeep`` are not counted).

    >>> skipped_files(["data/samples"])
    []
    """
    out: set[Path] = set()
    for text in paths:
        path = Path(text)
        if path.is_dir():
            out.update(
                p
                for p in path.rglob("*")
                if p.is_file()
                and log_shape(p) is None
                and not is_games_csv(p)
                and not p.name.startswith(".")
            )
    return sorted(out)


class _Replaying:
    """The chunks this process replays now (its worker threads' too), and whether the
    collector was on before the first of them (:func:`_no_gc`)."""

    lock = threading.Lock()
    chunks = 0
    gc_was_on = False


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a chunk's games are replayed: they are tuples of
    plain values (no cycles), built by the million, and each collection would re-scan the
    chunk's live ones; what cycles a chunk leaves (a caught error's traceback) are collected
    when it is back on. At most ``CHUNK_GAMES`` games, so memory stays bounded. The collector
    is the process's: off from the first chunk of its threads that starts to the last that
    ends, then as it was."""
    with _Replaying.lock:
        if _Replaying.chunks == 0:
            _Replaying.gc_was_on = gc.isenabled()
            gc.disable()
        _Replaying.chunks += 1
    try:
        yield
    finally:
        with _Replaying.lock:
            _Replaying.chunks -= 1
            if _Replaying.chunks == 0 and _Replaying.gc_was_on:
                gc.enable()


@dataclass(slots=True)
class ChunkRows:
    """One chunk's warehouse rows (:func:`chunk_rows`), before they are written."""

    tables: dict[Table, pa.Table]
    reject_codes: list[str]
    repeats: list[ReplayedGame | Repeat]  # ids seen twice in the chunk: the batch decides
    read: int = 0  # the chunk's items (games and rejects)


def process_chunk(file: str, items: list[ChunkItem], spec: PartSpec, number: int) -> ChunkResult:
    """Parse and replay one chunk into warehouse rows (:func:`chunk_rows`) and write them as
    part ``number`` of the batch (runs in a worker process, or in the import's own with one
    worker)."""
    done = chunk_rows(items, spec.batch_id)
    return _written(file, done, spec, number)


def _written(
    file: str, done: ChunkRows, spec: PartSpec, number: int, *, by_file: bool = False
) -> ChunkResult:
    part = write_part(spec, number, done.tables, by_file=by_file)
    rejects = done.tables.get(Table.REJECTS)
    return ChunkResult(file, part, rejects, done.read, done.reject_codes, done.repeats)


@dataclass(frozen=True, slots=True)
class RepeatRecord:
    """What the batch judges a repeat by (the fields of a :class:`GameRecord` it reads):
    ``raw``, what a reject of it keeps (the line; a CSV game's rows)."""

    game_id: str
    content_hash: str
    source: Source
    raw: str


@dataclass(frozen=True, slots=True)
class Repeat:
    """A game whose id its chunk held already, read and replayed by the core (not a reject):
    the batch judges it by its id and content hash, a duplicate or a conflict of the copy it
    holds, and it is replayed again in full (:meth:`replayed`) only when the batch holds no
    copy (the first one's rows could not be built). Before, each repeat was replayed again in
    Python and its rows never used: ~250 µs a line of a log that writes each line twice."""

    record: RepeatRecord
    item: tuple[Source, str] | CsvGame

    def replayed(self) -> ReplayedGame | Reject:
        """The game replayed as a chunk replays it in Python."""
        if isinstance(self.item, CsvGame):
            record = self.item.record()
            return record if isinstance(record, Reject) else replay(record)
        return native.replay_game(self.item[1], self.item[0])


class _Rows:
    """One chunk's rows as they are built (:func:`chunk_rows`, :func:`range_rows`): on the
    core for the JSON lines it reads and replays itself, else in Python."""

    def __init__(self, batch_id: str) -> None:
        self.batch_id = batch_id
        self.rows = RowBuffer(batch_id)
        # the core builds the rows of the lines it reads (None: Python); Dou Dizhu's while stored
        self.core = native.core_rows(ddz=rows_for("doudizhu") is not None)
        self.codes: list[str] = []
        self.repeats: list[ReplayedGame | Repeat] = []

    def add(self, item: ChunkItem, got: bool | Reject | native.CoreRepeat | None = None) -> None:
        """One item; ``got``: what the core answered for a JSON line already (``CoreRows.add``)."""
        core = self.core
        if isinstance(item, CsvGame):  # a CSV game as its JSON line: on the core as one
            if core is not None and core.add(item.text.decode(), item.source) is True:
                return
            item = item.record()  # else read in Python, its reject keeping the CSV rows
        if isinstance(item, tuple):  # a JSON line: on the native core when it is built
            if got is None:
                got = False if core is None else core.add(item[1], item[0])
            if got is True:
                return
            if isinstance(got, native.CoreRepeat):  # the batch judges it by its id and hash
                record = RepeatRecord(got.game_id, got.content_hash, item[0], item[1])
                self.repeats.append(Repeat(record, item))
                return
            done = got if isinstance(got, Reject) else native.replay_game(item[1], item[0])
        else:
            done = item if isinstance(item, Reject) else replay(item)
        if not isinstance(done, Reject):  # a game kind with no row filling (tables.ROWS)
            done = not_stored(done.record) or done
        if isinstance(done, Reject):
            self.rows.add_reject(done)
            self.codes.append(done.code)
        elif (core is not None and not core.claim(done.record.game_id)) or not self.rows.add_game(
            done
        ):
            self.repeats.append(done)

    def add_all(self, items: Iterable[ChunkItem]) -> int:
        """Each of ``items`` (:meth:`add`); how many there were."""
        n = 0
        for item in items:
            self.add(item)
            n += 1
        return n

    def done(self, read: int) -> ChunkRows:
        """The chunk's tables (``read``: its items)."""
        # a game whose rows cannot be built is a reject there (rows.failed)
        tables = self.rows.take()
        core = self.core
        if core is not None:  # the core's Big Two rows, its Dou Dizhu rows, then Python's
            batch_id = self.batch_id
            on_core = merged(
                core_tables(core.take(), batch_id), core_tables(core.take_ddz(), batch_id)
            )
            tables = merged(on_core, tables)
        self.codes.extend(reject.code for reject in self.rows.failed)
        return ChunkRows(tables, self.codes, self.repeats, read)


def chunk_rows(items: list[ChunkItem], batch_id: str) -> ChunkRows:
    """One chunk's warehouse rows. JSON lines (Big Two and Dou Dizhu) are read and replayed
    by the native core when it is built (it builds their rows itself:
    :func:`pipeline.native.core_rows`), else, line by line, by
    :func:`pipeline.native.replay_game`; parsed records (CSV) by the Python engine; the same
    rows either way. On the core, each run of CSV games goes to it in one call
    (:func:`_core_csv`)."""
    rows = _Rows(batch_id)
    with _no_gc():
        return rows.done(_items_rows(rows, items))


def _items_rows(rows: _Rows, items: list[ChunkItem]) -> int:
    """Items into ``rows`` (:func:`chunk_rows`): how many."""
    core = rows.core
    if core is None:
        return rows.add_all(items)
    read, run = 0, list[CsvGame]()
    for item in items:
        if run and not _next_in_run(run[-1], item):
            read += _core_csv(rows, core, run)
            run = []
        if isinstance(item, CsvGame):
            run.append(item)
        else:
            rows.add(item)
            read += 1
    if run:
        read += _core_csv(rows, core, run)
    return read


def _next_in_run(game: CsvGame, then: ChunkItem) -> bool:
    """Whether ``then`` is a CSV game of ``game``'s file after it (the runs of
    :func:`_core_csv`)."""
    return (
        isinstance(then, CsvGame)
        and then.source.file == game.source.file
        and then.source.line > game.source.line
    )


def _core_csv(rows: _Rows, core: native.CoreRows, games: list[CsvGame]) -> int:
    """A run of CSV games (one file's, in its order) to the core in one call, as a block of
    JSON Lines (:meth:`pipeline.native.CoreRows.fill_lines`): each game's JSON line at its first
    row's line, blank lines between (the core skips them), so that the core reads, replays and
    builds the rows of all of them with the GIL let go, the sources those of :meth:`_Rows.add`.
    A game the core rejects is the core's reject with the game's CSV rows; one it leaves (a
    repeat) is read in Python, as :meth:`_Rows.add` reads it. The games read (all of them)."""
    first = games[0].source.line
    at = {game.source.line: game for game in games}
    core.fill_lines(first, [(line, game.text) for line, game in at.items()])

    def left(source: Source, got: bool | Reject | native.CoreRepeat) -> ChunkItem | Repeat:
        """A game the core leaves: its reject (the core's code and message, the same as
        Python's: tested) keeping the game's CSV rows, a repeat, else the game read in
        Python."""
        game = at[source.line]
        if isinstance(got, native.CoreRepeat):
            return Repeat(RepeatRecord(got.game_id, got.content_hash, game.source, game.raw), game)
        if isinstance(got, Reject):
            return Reject(
                got.source, got.game_id, got.action_index, got.code, got.message, game.raw
            )
        return game.record()

    # no cap on a line: the CSV reader capped the rows a game was read from
    return _core_lines(rows, core, games[0].source.file, first, sys.maxsize, left)


class _Counted(io.RawIOBase):
    """A binary file that tells a callback how many bytes were read from it so far."""

    def __init__(self, raw: IO[bytes], on_read: Callable[[int], None]) -> None:
        self._raw = raw
        self._on_read = on_read
        self.done = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = self._raw.readinto(buffer)  # type: ignore[attr-defined]
        self.done += n or 0
        self._on_read(self.done)
        return cast(int, n)

    def close(self) -> None:
        self._raw.close()
        super().close()


def _open_counted(path: Path, on_read: Callable[[int], None]) -> IO[bytes]:
    """Open a log file like :func:`pipeline.logs.jsonl.open_log` (inflated for ``.gz``),
    reporting the bytes read from the file itself (compressed ones) to ``on_read``."""
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 (closed by the returned stream)
    except OSError as err:
        raise LogFormatError(
            "E_FILE", f"cannot open {str(path)!r}: {err}", file=str(path)
        ) from None
    counted = io.BufferedReader(_Counted(raw, on_read), buffer_size=1 << 16)
    if path.name.endswith(".gz"):
        return open_gzip(path, cast(IO[bytes], counted))
    return cast(IO[bytes], counted)


def _size(item: ChunkItem) -> int:
    if isinstance(item, tuple):
        return len(item[1])
    if isinstance(item, CsvGame):
        return len(item.text)
    return len(item.raw or "")


def _shared_games(files: Sequence[Path], log_format: str | None) -> dict[Path, SharedGames]:
    """The ``games.csv`` files that several actions CSVs of an import share
    (:func:`pipeline.logs.csv_logs.games_csv_for`: a folder's, for the actions files without a
    ``<stem>.games.csv``), each read once for them all (:class:`SharedGames`): per actions
    file, its shared games CSV."""
    users: dict[Path, list[Path]] = {}
    for f in files:
        if _is_csv(f, log_format) and is_shared_games_csv(g := games_csv_for(f)):
            users.setdefault(g, []).append(f)
    id_numbers = native.game_ids if native.available() else dict
    of: dict[Path, SharedGames] = {}
    for g, fs in users.items():
        if len(fs) > 1:
            shared = SharedGames(g, fs, id_numbers)
            of.update(dict.fromkeys(fs, shared))
    return of


def _chunks(
    path: Path,
    max_line_bytes: int,
    on_read: Callable[[int], None] | None = None,
    *,
    log_format: str | None = None,
    rules: SheetRules | None = None,
    shared: SharedGames | None = None,
) -> Iterator[list[ChunkItem]]:
    """One file's work, ``CHUNK_GAMES`` items or ``CHUNK_BYTES`` of text at a time.

    ``on_read`` gets the bytes read from the file so far (JSON Lines, and an actions CSV), also
    while a long run of blank lines yields nothing. ``shared``: the games CSV the actions CSV
    shares with others of the import (:func:`_shared_games`).
    """
    items: Iterable[ChunkItem]
    shape = log_shape(path, log_format)
    if shape == "jsonl":
        fh = _open_counted(path, on_read or (lambda _: None))
        items = iter_jsonl_lines(fh, str(path), max_line_bytes=max_line_bytes)
    elif shape == "csv":  # the actions file counted as it is read; on the core, JSON lines
        fh = _open_counted(path, on_read or (lambda _: None))
        if native.available():
            items = read_csv_lines(
                path,
                max_line_bytes=max_line_bytes,
                plain_rows=native.csv_games,
                fh=fh,
                shared=shared,
                id_numbers=native.game_ids,
            )
        else:
            items = read_csv(path, max_line_bytes=max_line_bytes, fh=fh, shared=shared)
    else:
        fh = None
        items = read_log(path, max_line_bytes=max_line_bytes, log_format=log_format, rules=rules)
    try:
        chunk: list[ChunkItem] = []
        size = 0
        for item in items:
            chunk.append(item)
            size += _size(item)
            if len(chunk) >= CHUNK_GAMES or size >= CHUNK_BYTES:
                yield chunk
                chunk, size = [], 0
        if chunk:
            yield chunk
    finally:
        if fh is not None:
            fh.close()


def process_range(
    span: LineRange, spec: PartSpec, number: int, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ChunkResult:
    """Read one range of a plain JSON Lines file and process its lines as
    :func:`process_chunk` does (:func:`range_rows`): what a worker does with a range the main
    process cut. When the file changed since the range was cut, nothing is written and
    ``changed`` says why."""
    done = range_rows(span, spec.batch_id, max_line_bytes)
    if isinstance(done, str):
        return _changed(span.path, number, done)
    return _written(span.path, done, spec, number)


@dataclass(frozen=True, slots=True)
class FileItems:
    """A small actions CSV's items, read here (its games as JSON lines on the core), for a
    chunk of several small files."""

    path: str
    items: list[ChunkItem]


#: A small file whole, for a chunk of several (:func:`process_files`): a plain file's range,
#: which the worker reads, a gzip file's lines, decompressed here, or an actions CSV's items.
SmallFile = LineRange | LineBlock | FileItems


def process_files(
    pieces: Sequence[SmallFile],
    spec: PartSpec,
    number: int,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> ChunkResult:
    """Process several small files whole as one chunk: one part holds the rows of them all
    (what :func:`process_range` does with a range, :func:`process_block` with a block), and
    ``shares`` says how many items each file held. When a plain file changed since it was
    cut, nothing is written and ``changed`` says why (``file`` names it)."""
    rows = _Rows(spec.batch_id)
    shares: list[tuple[str, int]] = []
    with _no_gc():
        for piece in pieces:
            if isinstance(piece, LineBlock):
                read: int | str = _block_rows(rows, piece, max_line_bytes)
            elif isinstance(piece, FileItems):
                read = _items_rows(rows, piece.items)
            else:
                read = _span_rows(rows, piece, max_line_bytes)
            if isinstance(read, str):
                return _changed(piece.path, number, read)
            shares.append((piece.path, read))
        done = rows.done(sum(read for _, read in shares))
    result = _written(pieces[0].path, done, spec, number, by_file=True)
    result.shares = tuple(shares)
    return result


def _changed(file: str, number: int, why: str) -> ChunkResult:
    """The result of a chunk of ``file`` that changed since it was cut: no rows."""
    return ChunkResult(file, Part(number, (), game_keys([], [])), None, 0, [], [], changed=why)


def range_rows(
    span: LineRange, batch_id: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ChunkRows | str:
    """One range's rows, the same as :func:`chunk_rows` of :func:`range_items` (rows,
    rejects, repeats and items read), or why the range cannot be trusted (``range_items``'
    reasons). On the core, the core reads the range itself and cuts its lines as
    :func:`pipeline.logs.jsonl.iter_jsonl_lines` does (``native/src/lines.rs``), building the
    rows of those it reads and replays without a Python object per line; the few lines it
    leaves (its rejects, repeats, lines it does not read or is not sure how the reader cuts)
    come back one at a time, in order, as :func:`chunk_rows` takes them. A range longer than
    a chunk and a line (it holds a line over the cap) is read by the streaming reader, so
    that such a line is never held whole."""
    rows = _Rows(batch_id)
    with _no_gc():
        read = _span_rows(rows, span, max_line_bytes)
        return read if isinstance(read, str) else rows.done(read)


def _span_rows(rows: _Rows, span: LineRange, max_line_bytes: int) -> int | str:
    """One range's lines into ``rows`` (:func:`range_rows`): the items read, or why the range
    cannot be trusted."""
    core = rows.core
    why = None
    if core is not None and span.length <= CHUNK_BYTES + max_line_bytes + 1:
        why = core.read(
            span.path, span.offset, span.length, span.ends_line, span.device, span.inode
        )
        if why is None:
            return _core_lines(rows, core, span.path, span.first_line, max_line_bytes)
    if why is not None and why[0] != "io":  # a failed read: the streaming reader says what
        return _RANGE_CHANGED[why[0]](span, why[1])
    items = range_items(span, max_line_bytes)
    if isinstance(items, str):
        return items
    return rows.add_all(items)


#: ``range_items``' reasons, by the core's word for them (``CoreRows.read``).
_RANGE_CHANGED: dict[str, Callable[[LineRange, int], str]] = {
    "open": lambda span, errno: f"it cannot be opened again ({os.strerror(errno)})",
    "replaced": lambda span, _: "another file has replaced it",
    "before": lambda span, _: f"byte {span.offset - 1:,} is no longer the newline it was",
    "shorter": lambda span, left: f"it is {left:,} bytes shorter than it was",
    "after": lambda span, _: (
        f"byte {span.offset + span.length - 1:,} is no longer the newline it was"
    ),
}


@dataclass
class _Cursor:
    """Where the workers stand in a plain JSON Lines file whose runs they read and cut
    themselves on the core (:func:`process_run`): the next run's offset and first line,
    whether the file is done, the tickets handed out with the tasks and the one whose turn it
    is to cut the next run (``turns`` guards the three)."""

    path: str
    device: int
    inode: int
    size: int = 0  # the file's bytes when the import began
    split: int = 1  # the workers the file's last runs are shared among (:func:`_run_games`)
    offset: int = 0
    line: int = 1
    done: bool = False
    tickets: int = 0
    turn: int = 0
    turns: threading.Condition = field(default_factory=threading.Condition)


def process_run(
    cursor: _Cursor,
    ticket: int,
    spec: PartSpec,
    number: int,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> ChunkResult:
    """Read and cut the next run of a plain JSON Lines file at ``cursor`` when ``ticket``'s turn
    comes (the runs are cut in the order the tasks were handed out, which is the order their
    results are taken in: the file's), move the cursor past it, and process it as
    :func:`process_range` processes the range :func:`_ranges` would have cut there: each byte
    is read once, by the core, as it is cut, and nothing scans the file ahead of the workers.
    The read and cut wait for the tickets before (a few ms each); the replay and the writing
    do not. A run longer than the core holds, or one the core could not read, is cut here and
    processed by :func:`process_range` (the streaming reader); a file replaced since the
    import began, or no longer cut at a newline where the run starts, is ``changed``; past the
    file's end, an empty result."""
    rows = _Rows(spec.batch_id)
    core = rows.core
    assert core is not None, "process_run is the native core's path"
    span: LineRange | None = None
    with cursor.turns:
        cursor.turns.wait_for(lambda: cursor.turn == ticket)
        try:
            rule = (_run_games(cursor), CHUNK_BYTES, SCAN_BYTES, CHUNK_BYTES + max_line_bytes + 1)
            here = LineRange(
                cursor.path, cursor.offset, 0, cursor.line, True, cursor.device, cursor.inode
            )
            got = (
                ("end", 0)
                if cursor.done
                else core.read_run(cursor.path, cursor.offset, cursor.device, cursor.inode, rule)
            )
            length, newlines, ends = 0, 0, True
            if len(got) == 5:
                _, length, newlines, ends_line, at_end = got
                ends = at_end or not ends_line
            elif got[0] in ("long", "io"):  # cut here; the streaming reader reads it
                span, newlines = _run_at(here)
                length, ends = span.length, newlines < 0 or not span.ends_line
            cursor.offset += length
            cursor.line += newlines
            cursor.done = ends
        except BaseException:
            cursor.done = True  # no ticket after this one reads on from an unknown place
            raise
        finally:
            cursor.turn += 1
            cursor.turns.notify_all()
    if len(got) == 5:
        with _no_gc():
            done = rows.done(_core_lines(rows, core, here.path, here.first_line, max_line_bytes))
        return _written(here.path, done, spec, number)
    if span is not None:
        return process_range(span, spec, number, max_line_bytes)
    why, errno_or_bytes = got
    empty = Part(number, (), game_keys([], []))
    if why == "end":
        return ChunkResult(here.path, empty, None, 0, [], [])
    changed = _RANGE_CHANGED[why](here, errno_or_bytes)
    return ChunkResult(here.path, empty, None, 0, [], [], changed=changed)


def _run_games(cursor: _Cursor) -> int:
    """The most games the next run at ``cursor`` holds: ``CHUNK_GAMES``, but for the last runs
    of a file whose workers have no other file's runs to take after it (``cursor.split``
    of them), the games left shared among them (guided self-scheduling), at least
    ``TAIL_GAMES``. Runs of a whole chunk until the end would leave one worker idle while
    another replays its last run, up to a chunk's time (~0.2 s): the workers do not go
    equally fast (one shares its core with the main thread). The games left are estimated
    from the bytes left at the bytes a line read so far; past the size the file had when the
    import began (it grew since), runs are whole again.

    >>> c = _Cursor("g.jsonl", 0, 0, size=100_000, split=2, offset=90_000, line=9_001)
    >>> _run_games(c), _run_games(_Cursor("g.jsonl", 0, 0, size=100_000, split=2))
    (500, 5000)
    >>> c.offset, c.line = 40_000, 4_001
    >>> _run_games(c), _run_games(_Cursor("g.jsonl", 0, 0, 100_000, 1, 40_000, 4_001))
    (3000, 5000)
    >>> c.offset, c.line = 100_000, 10_001
    >>> _run_games(c)
    5000
    """
    if cursor.split < 2 or cursor.line <= 1 or cursor.offset >= cursor.size:
        return CHUNK_GAMES
    left = (cursor.size - cursor.offset) * (cursor.line - 1) / cursor.offset
    return max(min(CHUNK_GAMES, math.ceil(left / cursor.split)), min(TAIL_GAMES, CHUNK_GAMES))


def _run_at(here: LineRange) -> tuple[LineRange, int]:
    """The run of whole lines from ``here`` as :func:`_ranges` cuts it (read in the blocks it
    reads, from the file's start), and the newlines in it (-1: the file ends with it)."""
    with open(here.path, "rb", buffering=0) as fh:
        runs = _cut(_scan_blocks(fh, here.offset), here.first_line)
        _, length, line, ends_line = next(runs)
        after = next(runs, None)
    span = LineRange(here.path, here.offset, length, line, ends_line, here.device, here.inode)
    return span, -1 if after is None else after[2] - line


def _small_pieces(
    path: Path, size: int, log_format: str | None, max_line_bytes: int
) -> list[SmallFile | list[ChunkItem]] | None:
    """A small log file's pieces, as its tasks would take them (a single piece may join the
    chunk of several small files, :func:`process_files`): a plain JSON Lines file's ranges, a
    gzip file's blocks (decompressed here, as its blocks are) and the items read after its
    stream failed, or an actions CSV's items (read here, as its chunks are; the CSV with its
    own games CSV, both small); ``[]``: a file of no line; None for any other file (a large
    one, a score sheet, an actions CSV that shares a folder's ``games.csv``)."""
    if size > SMALL_FILE_BYTES:
        return None
    if _is_plain_jsonl(path, log_format):
        return list(_ranges(path))
    if _is_gzip_jsonl(path, log_format):
        return list(_blocks(path, max_line_bytes))
    if _is_csv(path, log_format) and _own_small_games_csv(path):
        return [
            FileItems(str(path), c) for c in _chunks(path, max_line_bytes, log_format=log_format)
        ]
    return None


def _own_small_games_csv(path: Path) -> bool:
    """Whether an actions CSV's games CSV is its own (``<stem>.games.csv``, not a folder's
    ``games.csv``) and small."""
    games = games_csv_for(path)
    try:
        return not is_shared_games_csv(games) and games.stat().st_size <= SMALL_FILE_BYTES
    except OSError:
        return False  # none: read alone, its reject as before


def _labels_of(file: str) -> tuple[str, ...]:
    """The names a file's games and rejects store: its own, and an actions CSV's games CSV's
    (its rejects name that file)."""
    path = Path(file)
    if path.name.lower().endswith(CSV_SUFFIXES) and not is_games_csv(path):
        return file_label(file), file_label(games_csv_for(path))
    return (file_label(file),)


def _piece_task(
    path: Path,
    piece: SmallFile | list[ChunkItem],
    spec: PartSpec,
    number: int,
    max_line_bytes: int,
) -> tuple[Callable[..., ChunkResult], tuple[Any, ...]]:
    """The task of one piece of a small file read here (:func:`_small_pieces`), alone."""
    if isinstance(piece, LineBlock):
        return process_block, (piece, spec, number, max_line_bytes)
    if isinstance(piece, LineRange):
        return process_range, (piece, spec, number, max_line_bytes)
    if isinstance(piece, FileItems):
        return process_chunk, (piece.path, piece.items, spec, number)
    return process_chunk, (str(path), piece, spec, number)


def _piece_bytes(piece: SmallFile) -> int:
    """A small file's bytes of lines (an actions CSV's: its games' JSON lines)."""
    if isinstance(piece, FileItems):
        return sum(_size(item) for item in piece.items)
    return len(piece.data) if isinstance(piece, LineBlock) else piece.length


def _core_runs(
    path: Path,
    spec: PartSpec,
    new_part: Callable[[], int],
    max_line_bytes: int,
    on_read: Callable[[int], None],
    split: int = 1,
) -> Iterator[tuple[Callable[..., ChunkResult], tuple[Any, ...]]]:
    """The tasks of a plain JSON Lines file on the core (one worker in this thread, or worker
    threads): each reads and cuts the next run itself, in the order of its ticket
    (:func:`process_run`), so that the file is read once, not scanned here first and read
    again by the workers. Tasks start in the order they are handed out (a thread pool's queue
    is first in, first out), so a ticket's turn always comes. ``split``: the workers the
    file's last runs are shared among (:func:`_run_games`; the import's last file)."""
    with _open_plain(path) as fh:
        st = os.fstat(fh.fileno())
    cursor = _Cursor(str(path), *_file_id(st), size=st.st_size, split=split)
    cursor.done = st.st_size == 0
    while not cursor.done:  # on threads, a few tasks may be handed out past the end: empty
        ticket = cursor.tickets
        cursor.tickets += 1
        yield process_run, (cursor, ticket, spec, new_part(), max_line_bytes)
        on_read(cursor.offset)


def process_block(
    block: LineBlock, spec: PartSpec, number: int, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ChunkResult:
    """Process the lines of one block (:func:`block_rows`) as :func:`process_chunk` processes
    the same lines sent one by one: what a worker does with a block of a gzip file."""
    return _written(block.path, block_rows(block, spec.batch_id, max_line_bytes), spec, number)


def block_rows(
    block: LineBlock, batch_id: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ChunkRows:
    """One block's rows, the same as :func:`chunk_rows` of its lines as
    :func:`pipeline.logs.jsonl.iter_jsonl_lines` reads them: on the core, the block's bytes go
    to the core in one call (``CoreRows.fill``) and are cut and read there as
    :func:`range_rows` has a range read (no Python object per line); else the Python reader
    reads them.

    >>> done = block_rows(LineBlock("g.jsonl", b"[1]\\n\\n{", 4), "b1")
    >>> done.read, done.reject_codes
    (2, ['E_SCHEMA', 'E_JSON'])
    """
    rows = _Rows(batch_id)
    with _no_gc():
        return rows.done(_block_rows(rows, block, max_line_bytes))


def _block_rows(rows: _Rows, block: LineBlock, max_line_bytes: int) -> int:
    """One block's lines into ``rows`` (:func:`block_rows`): the items read."""
    core = rows.core
    if core is not None:
        core.fill(block.data)
        return _core_lines(rows, core, block.path, block.first_line, max_line_bytes)
    return rows.add_all(_lines_of(block.data, block.path, block.first_line, max_line_bytes))


def _lines_of(data: bytes, file: str, first_line: int, max_line_bytes: int) -> Iterator[ChunkItem]:
    """The items of ``data``, whole lines of ``file`` from line ``first_line``, as the
    streaming reader (:func:`pipeline.logs.jsonl.iter_jsonl_lines`) reads them (through a
    buffered reader, whose ``peek`` lets the reader pass over a run of blank lines a buffer at
    a time)."""
    stream = io.BufferedReader(io.BytesIO(data))
    return iter_jsonl_lines(stream, file, max_line_bytes=max_line_bytes, first_line=first_line)


def _core_lines(
    rows: _Rows,
    core: native.CoreRows,
    file: str,
    first_line: int,
    max_line_bytes: int,
    left_as: Callable[[Source, bool | Reject | native.CoreRepeat], ChunkItem | Repeat]
    | None = None,
) -> int:
    """The lines the core read or was given (a range of ``file`` from line ``first_line``)
    into ``rows``; the items read. ``left_as``: the item a line the core leaves stands for
    (its source and the core's answer given: its reject, a repeat, or False), else that line
    itself."""
    file = file_label(file)
    pos, line, read = 0, first_line, 0
    while True:
        pos, line, built, left = core.add_lines(pos, line, file, max_line_bytes)
        read += built
        if left is None:
            return read
        source, text, got = left
        if left_as is not None:
            item = left_as(source, got)
            if isinstance(item, Repeat):
                rows.repeats.append(item)
            else:
                rows.add(item)
            read += 1
        elif isinstance(text, bytes):  # the Python reader's line
            read += rows.add_all(_lines_of(text, file, source.line, max_line_bytes))
        else:
            rows.add((source, text), got)
            read += 1


class _Window(io.RawIOBase):
    """At most ``left`` bytes of a binary file, from where it stands."""

    def __init__(self, raw: IO[bytes], left: int) -> None:
        self._raw = raw
        self.left = left
        self.last = b""  # the last byte read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        want = min(len(buffer), self.left)
        if want <= 0:
            return 0
        n = cast(int, self._raw.readinto(memoryview(buffer)[:want]))  # type: ignore[attr-defined]
        if n:
            self.left -= n
            self.last = bytes(buffer[n - 1 : n])
        return n


def range_items(
    span: LineRange, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> list[ChunkItem] | str:
    """The lines of one range as :func:`pipeline.logs.jsonl.iter_jsonl_lines` reads them (the
    same sources, rejects and caps as reading the whole file), or why they cannot be trusted:
    the file was replaced, shrank, or no longer has a newline where the range was cut.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
    ...     _ = f.write(b'{"a": 1}\\n\\n[2]\\n'); f.flush()
    ...     spans = list(_ranges(Path(f.name)))
    ...     [(s.line, t) for s, t in range_items(spans[0])]  # type: ignore[union-attr]
    [(1, '{"a": 1}'), (3, '[2]')]
    """
    try:
        fd = os.open(span.path, os.O_RDONLY)
    except OSError as err:
        return f"it cannot be opened again ({err.strerror})"
    with open(fd, "rb", buffering=0) as raw:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (span.device, span.inode):
            return _RANGE_CHANGED["replaced"](span, 0)
        if span.offset and os.pread(fd, 1, span.offset - 1) != b"\n":
            return _RANGE_CHANGED["before"](span, 0)
        raw.seek(span.offset)
        window = _Window(raw, span.length)
        stream = io.BufferedReader(window, buffer_size=1 << 16)
        items: list[ChunkItem] = list(
            iter_jsonl_lines(
                cast(IO[bytes], stream),
                span.path,
                max_line_bytes=max_line_bytes,
                first_line=span.first_line,
            )
        )
    if window.left:
        return _RANGE_CHANGED["shorter"](span, window.left)
    if span.ends_line and window.last != b"\n":
        return _RANGE_CHANGED["after"](span, 0)
    return items


def _ranges(path: Path, on_read: Callable[[int], None] | None = None) -> Iterator[LineRange]:
    """Cut a plain JSON Lines file into ranges of whole lines (:func:`_cut`), read a
    ``SCAN_BYTES`` block at a time for its newlines, not decoded; ``on_read`` gets the bytes
    scanned so far.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
    ...     _ = f.write(b"{}\\n" * 5500 + b"\\n" * 10 + b"[]"); f.flush()
    ...     [(r.offset, r.length, r.first_line, r.ends_line) for r in _ranges(Path(f.name))]
    [(0, 15000, 1, True), (15000, 1512, 5001, False)]
    """
    fh = _open_plain(path)

    def blocks() -> Iterator[bytes]:
        done = 0
        for block in _scan_blocks(fh, 0, os.fstat(fh.fileno()).st_size):
            yield block
            done += len(block)
            if on_read is not None:
                on_read(done)

    with fh:
        st = os.fstat(fh.fileno())
        for start, length, line, ends_line in _cut(blocks()):
            yield LineRange(str(path), start, length, line, ends_line, *_file_id(st))


def _scan_blocks(fh: IO[bytes], offset: int, size: int | None = None) -> Iterator[bytes]:
    """The blocks of an unbuffered file from ``offset`` as :func:`_ranges` reads them: the
    ``SCAN_BYTES`` blocks of the file from its start (the first one from ``offset`` on), where
    :func:`_cut` ends a run of blank lines, so that a run cut from ``offset`` ends where one cut
    from the start does (the core's ``lines::read_run`` reads the same blocks). ``size``: the
    file's size as last seen: no read asks for more than one byte past it (a read allocates
    what it asks for: 1 MiB twice for a file of a few kB, ~38 µs each), the blocks the same if
    the file grew.

    >>> [len(b) for b in _scan_blocks(io.BytesIO(bytes(SCAN_BYTES + 10)), 6)]
    [1048570, 10]
    >>> [len(b) for b in _scan_blocks(io.BytesIO(bytes(SCAN_BYTES + 10)), 6, 100)]
    [1048570, 10]
    """
    fh.seek(offset)
    at, want = offset, SCAN_BYTES - offset % SCAN_BYTES
    while True:
        ask = want if size is None else min(want, max(size - at, 0) + 1)
        block = fh.read(ask)
        if len(block) == ask < want:  # more than ``size``: the rest of the block
            block += fh.read(want - ask)
        if not block:
            return
        yield block
        at += len(block)
        want = SCAN_BYTES


def _open_plain(path: Path) -> IO[bytes]:
    """A plain file opened unbuffered for reading, or the import's ``E_FILE`` error."""
    try:
        return open(path, "rb", buffering=0)
    except OSError as err:
        raise LogFormatError(
            "E_FILE", f"cannot open {str(path)!r}: {err}", file=str(path)
        ) from None


def _newlines_end(block: bytes, i: int) -> int:
    """Where the run of newlines at ``block[i]`` (a newline) ends: a few ``startswith`` (each a
    ``memcmp``) against a run of newlines, doubling then halving, not a step per byte.

    >>> _newlines_end(b"x\\n\\n\\ny", 1), _newlines_end(b"\\n" * 9, 0)
    (4, 9)
    """
    most = min(len(block) - i, len(_NEWLINES))
    lo, hi = 1, 2  # block[i : i + lo] are newlines; block[i : i + hi] may not be
    while hi <= most and block.startswith(_NEWLINES[:hi], i):
        lo, hi = hi, hi * 2
    hi = min(hi, most + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if block.startswith(_NEWLINES[:mid], i):
            lo = mid
        else:
            hi = mid
    return i + lo


def _cut(blocks: Iterable[bytes], line: int = 1) -> Iterator[tuple[int, int, int, bool]]:
    """Cut a stream, given as its successive blocks, into runs of whole lines, like
    :func:`_chunks` cuts its lines: a run ends at the newline of about its ``CHUNK_GAMES``-th
    non-blank line or past ``CHUNK_BYTES`` (blank lines are not counted; lines of only spaces
    are). Each run as ``(offset, length, first line number, whether it ends with a newline)``
    (the last one may not), yielded as soon as its block is scanned: nothing is decoded, and
    no Python step is taken per byte. ``line``: the number of the stream's first line.

    >>> list(_cut([b"[1]\\n\\n[2", b"]\\n[3]"], line=4))
    [(0, 12, 4, False)]
    """
    start = 0  # the run's offset
    items = newlines = 0  # in the run so far
    pos = 0  # the block's offset
    at_start = True  # the scan stands at the start of a line
    for block in blocks:
        size, i = len(block), 0
        while i < size:
            if at_start and block[i] == 10:  # blank lines: skipped a run at a time
                end = _newlines_end(block, i)
                newlines += end - i
            else:  # a line (bytes.find: no Python step per byte)
                end = block.find(b"\n", i) + 1
                if not end:
                    at_start = False
                    break
                newlines += 1
                items += 1
                at_start = True
            i = end
            if items >= CHUNK_GAMES or pos + i - start >= CHUNK_BYTES:
                yield start, pos + i - start, line, True
                start, line, items, newlines = pos + i, line + newlines, 0, 0
        pos += size
    if pos > start:
        yield start, pos - start, line, at_start


def _file_id(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _parallel_bytes(sizes: dict[Path, int], log_format: str | None) -> int:
    """The bytes of the files that gain from more workers than one: all but score sheets,
    whose games are read and replayed in Python (on threads, one at a time: the GIL; in worker
    processes, each game pickled there: two workers imported 100,000 sheet games at ~0.55x
    one worker's rate, ``bench --only ingest.sheets``)."""
    return sum(n for f, n in sizes.items() if log_shape(f, log_format) not in SHEET_SHAPES)


def _is_plain_jsonl(path: Path, log_format: str | None) -> bool:
    """Whether a file is uncompressed JSON Lines: cut into ranges its workers read themselves."""
    return log_shape(path, log_format) == "jsonl" and not path.name.endswith(".gz")


def _is_csv(path: Path, log_format: str | None) -> bool:
    """Whether a file is an actions CSV: read here, its games handed to the workers' core as
    JSON lines (:func:`_core_csv`)."""
    return log_shape(path, log_format) == "csv"


def _is_gzip_jsonl(path: Path, log_format: str | None) -> bool:
    """Whether a file is gzip JSON Lines: decompressed and cut into blocks here (:func:`_blocks`)."""
    return log_shape(path, log_format) == "jsonl" and path.name.endswith(".gz")


class _Held:
    """The bytes of a stream read since its last cut, fed to :func:`_cut` a block at a time:
    it stops feeding when the stream fails (``error``) or when what it holds passes ``limit``
    (``over``: the run holds a line over the cap, whose end is not read yet). The blocks are
    kept as read and joined once, by :meth:`take` (one copy of each byte)."""

    def __init__(self, fh: IO[bytes], limit: int) -> None:
        self.fh = fh
        self.limit = limit
        self._blocks: deque[bytes] = deque()
        self._skip = 0  # bytes of the first block taken already
        self._size = 0  # bytes held
        self.over = False
        self.error: Exception | None = None

    def blocks(self) -> Iterator[bytes]:
        while True:
            if self._size > self.limit:
                self.over = True
                return
            try:
                block = self.fh.read1(SCAN_BYTES)  # type: ignore[attr-defined]
            except (EOFError, OSError, zlib.error) as err:  # the reader says what (its reject)
                self.error = err
                return
            if not block:
                return
            self._blocks.append(block)
            self._size += len(block)
            yield block

    def take(self, length: int) -> bytes:
        """The first ``length`` bytes held, no longer held.

        >>> import io
        >>> held = _Held(io.BytesIO(b"abcdef"), 10)
        >>> held._blocks.extend([b"ab", b"cde", b"f"]); held._size = 6
        >>> held.take(1), held.take(3), held.rest(), held.rest()
        (b'a', b'bcd', b'ef', b'')
        """
        parts: list[memoryview] = []
        self._size -= length
        while length:
            block = self._blocks[0]
            end = min(len(block), self._skip + length)
            parts.append(memoryview(block)[self._skip : end])
            length -= end - self._skip
            if end == len(block):
                self._blocks.popleft()
                self._skip = 0
            else:
                self._skip = end
        return b"".join(parts)

    def rest(self) -> bytes:
        """Every byte held, no longer held."""
        return self.take(self._size)


class _Tail(io.RawIOBase):
    """The bytes held when :class:`_Held` stopped, then the stream's (to the end of the line
    it stands in: ``rest``) or its error again: what the streaming reader reads of a run that
    is not sent as a block."""

    def __init__(self, held: bytes, fh: IO[bytes], error: Exception | None) -> None:
        self._held = io.BytesIO(held)
        self._fh = fh
        self._error = error
        self.ended = False  # the line's newline was read, or the stream ended
        self.failed = False  # the stream failed

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = self._held.readinto(buffer)
        if n:
            return n
        if self._error is not None:
            self.failed = True
            raise self._error
        if self.ended:
            return 0
        try:
            got = self._fh.readline(len(buffer))
        except (EOFError, OSError, zlib.error):
            self.failed = True
            raise
        if not got or got.endswith(b"\n"):
            self.ended = True
        buffer[: len(got)] = got
        return len(got)


def _blocks(
    path: Path, max_line_bytes: int, on_read: Callable[[int], None] | None = None
) -> Iterator[LineBlock | list[ChunkItem]]:
    """Decompress a gzip JSON Lines file and cut it into blocks of whole lines (:func:`_cut`,
    as :func:`_ranges` cuts a plain file), each a :class:`LineBlock` for a worker. A run that
    passes ``CHUNK_BYTES`` and a line (it holds a line over the cap) is not held whole: the
    streaming reader reads it here, its items a chunk (:func:`_chunks`' kind), as it reads
    what is left when the stream fails (its ``E_GZIP`` / ``E_GZIP_TRUNCATED`` / ``E_READ``
    reject last). ``on_read`` gets the compressed bytes read so far.

    >>> import gzip, tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".jsonl.gz") as f:
    ...     _ = f.write(gzip.compress(b"{}\\n" * 5500 + b"\\n" * 10 + b"[]")); f.flush()
    ...     [(len(b.data), b.first_line) for b in _blocks(Path(f.name), 100)]  # type: ignore[union-attr]
    [(15000, 1), (1512, 5001)]
    """
    fh = _open_counted(path, on_read or (lambda _: None))
    name = str(path)
    limit = CHUNK_BYTES + max_line_bytes + 1
    line = 1
    with fh:
        while True:
            held = _Held(fh, limit)
            last: LineBlock | None = None  # its lines are counted only if the feed stops
            for _, length, first, _ in _cut(held.blocks(), line):
                if held.over or held.error is not None:
                    break  # what was held when the feed stopped: read below
                last = LineBlock(name, held.take(length), first)
                yield last
            if not held.over and held.error is None:
                return
            if last is not None:
                line = last.first_line + last.data.count(b"\n")
            rest = held.rest()
            tail = _Tail(rest, fh, held.error)
            stream = io.BufferedReader(tail, buffer_size=1 << 16)
            yield list(
                iter_jsonl_lines(
                    cast(IO[bytes], stream), name, max_line_bytes=max_line_bytes, first_line=line
                )
            )
            if tail.failed or held.error is not None:
                return
            line += rest.count(b"\n") + 1


@dataclass
class _RejectCap:
    """One file's rejects: the first ``limit`` pass in full, the rest are counted by code."""

    limit: int
    passed: int = 0
    over: Counter[str] = field(default_factory=Counter)
    first_line: int | None = None
    last_line: int | None = None

    def admit(self, rejects: pa.Table) -> pa.Table:
        """The rows of a chunk's rejects table still under the cap (the rest are counted)."""
        room = max(self.limit - self.passed, 0)
        kept, rest = rejects.slice(0, room), rejects.slice(room)
        self.passed += kept.num_rows
        if rest.num_rows:
            self.over.update(rest["code"].to_pylist())
            low, high = pc.min_max(rest["line"]).values()
            if low.is_valid:
                first, last = int(low.as_py()), int(high.as_py())
                self.first_line = first if self.first_line is None else min(self.first_line, first)
                self.last_line = last if self.last_line is None else max(self.last_line, last)
        return kept

    def summary(self, file: str) -> Reject | None:
        """The file's ``E_TOO_MANY_REJECTS`` row, or None when the cap was not reached.
        The same file gives the same row, so a re-import does not store it twice."""
        n = sum(self.over.values())
        if not n:
            return None
        counts = ", ".join(
            f"{code} {k:,}" for code, k in sorted(self.over.items(), key=lambda c: (-c[1], c[0]))
        )
        lines = (
            f", lines {self.first_line:,}-{self.last_line:,}" if self.first_line is not None else ""
        )
        return Reject(
            Source(file, self.first_line or 0),
            None,
            None,
            TOO_MANY_REJECTS,
            f"{n:,} more rejects of this file are counted here, not stored one by one (the "
            f"first {self.limit:,} are; --max-rejects-per-file){lines}: {counts}",
            "",
        )


class _Here(Future[Any]):
    """A task's result this process made itself (:func:`_in_order`), not the pool."""


def _submit_soon(
    pool: Executor, task: Callable[..., T], args: tuple[Any, ...], workers: int
) -> tuple[Future[T], threading.Thread]:
    """``pool.submit(task, *args)`` from a thread, and that thread: a pool's first submission
    starts its first worker, which waits for the forkserver's imports (~0.4 s), and the
    caller goes on meanwhile. The thread then has the pool start its other workers (a pool
    starts one a submission: it is given ``workers - 1`` empty tasks). The future answers as
    the pool's does."""
    slot: Future[T] = Future()

    def copy(done: Future[T]) -> None:
        if done.cancelled():
            slot.cancel()
        elif (err := done.exception()) is not None:
            slot.set_exception(err)
        else:
            slot.set_result(done.result())

    def submit() -> None:
        try:
            real = pool.submit(task, *args)
        except BaseException as err:
            slot.set_exception(err)
            return
        real.add_done_callback(copy)
        # a pool the import stopped meanwhile refuses these (RuntimeError): nothing to start
        with contextlib.suppress(RuntimeError):
            for _ in range(workers - 1):
                pool.submit(os.getpid)

    thread = threading.Thread(target=submit, name="pool-start", daemon=True)
    thread.start()
    return slot, thread


def _in_order(
    pool: Executor, tasks: Iterable[tuple[Callable[..., T], tuple[Any, ...]]], workers: int
) -> Iterator[T]:
    """Run ``tasks`` on ``pool`` (``workers`` processes), at most ``2 × workers`` of them
    queued in the pool, and yield their results in the tasks' order. A pool starts in ~0.4 s
    (the forkserver imports the workers' modules), which this process spends working: while
    the pool's first worker starts (:func:`_submit_soon`), and then until a worker has
    answered whenever each has its next tasks queued, the next task runs here (those run here
    do not count as queued: the workers never wait for this process's task to end before they
    get more).

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     list(_in_order(pool, [(pow, (2, k)) for k in range(10)], 2))
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    """
    pending: deque[Future[T]] = deque()
    first: Future[T] | None = None
    starting: threading.Thread | None = None
    queued = 0  # the pool's tasks among the pending ones
    for task, args in tasks:
        if (starting is not None and starting.is_alive()) or (
            queued >= 2 * workers and first is not None and not first.done()
        ):
            here: Future[T] = _Here()
            here.set_result(task(*args))
            pending.append(here)
            continue
        if first is None:
            first, starting = _submit_soon(pool, task, args, workers)
            future = first
        else:
            future = pool.submit(task, *args)
        pending.append(future)
        queued += 1
        while queued >= 2 * workers and first.done():
            done = pending.popleft()
            queued -= not isinstance(done, _Here)
            yield done.result()
    while pending:
        yield pending.popleft().result()


#: E_CONFLICT rejects of one file waiting for their records, at most (then read back mid-file)
READ_BACK_AT = 4096


class _ReadBack:
    """An import's files read again for the records of their ``E_CONFLICT`` rejects that the
    batch holds without them (a worker's part carries a game's id, hash and source, not its
    text: :meth:`pipeline.warehouse.store.Batch.read_back`). A file is read by the reader that
    read it (:func:`_chunks`), from its start, once for all its conflicts: the batch asks for a
    file's lines in order, when the file is done or ``READ_BACK_AT`` of them wait, and the
    reader goes on from where it stopped. A record is answered with its game id and content
    hash, which the batch checks against the conflict's (a file changed since: no record); a
    file that cannot be read again answers what it read."""

    def __init__(
        self,
        paths: Mapping[str, Path],
        max_line_bytes: int,
        log_format: str | None,
        rules: SheetRules | None,
    ) -> None:
        self.paths = paths
        self.max_line_bytes = max_line_bytes
        self.log_format = log_format
        self.rules = rules
        self.file: str | None = None
        self.items: Iterator[ChunkItem] = iter(())
        self.next: ChunkItem | None = None  # the item read and not yet passed

    def reader(self, file: str) -> Callable[[list[int]], dict[int, ReadBack]]:
        """What :meth:`Batch.read_back` calls for ``file``'s lines."""
        return lambda lines: self.read(file, lines)

    def read(self, file: str, lines: list[int]) -> dict[int, ReadBack]:
        """The records at ``lines`` (ascending) of ``file`` (its label), as far as found."""
        path = self.paths.get(file)
        if path is None or not lines:
            return {}
        if file != self.file or (self.next is not None and _line_of(self.next) > lines[0]):
            self.close()
            self.file = file
            self.items = itertools.chain.from_iterable(
                _chunks(path, self.max_line_bytes, log_format=self.log_format, rules=self.rules)
            )
        out: dict[int, ReadBack] = {}
        try:
            for line in lines:
                while self.next is None or _line_of(self.next) < line:
                    self.next = next(self.items)
                if _line_of(self.next) == line and (got := _read_back(self.next)) is not None:
                    out[line] = got
        except (StopIteration, OSError, Big2Error):
            self.close()  # read to its end, or no longer readable: what was found
        return out

    def close(self) -> None:
        close = getattr(self.items, "close", None)
        if close is not None:
            close()
        self.file, self.items, self.next = None, iter(()), None


def _line_of(item: ChunkItem) -> int:
    """The line an item of :func:`_chunks` starts at (-1: none)."""
    source = item[0] if isinstance(item, tuple) else item.source
    return -1 if source is None else source.line


def _read_back(item: ChunkItem) -> ReadBack | None:
    """An item's game id, content hash and record as its reject keeps it (None: a reject, or
    a line that is no JSON object)."""
    if isinstance(item, Reject):
        return None
    if isinstance(item, GameRecord):
        return ReadBack(item.game_id, item.content_hash, item.raw)
    # a JSON line is its own record; a CSV game's JSON line keeps its CSV rows
    source, text, raw = (
        (item.source, item.text, item.raw) if isinstance(item, CsvGame) else (*item, item[1])
    )
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:  # what orjson refuses (a lone surrogate): the line's reader
        got = parse_line(text if isinstance(text, str) else text.decode(), source)
        return None if isinstance(got, Reject) else ReadBack(got.game_id, got.content_hash, got.raw)
    if not isinstance(obj, dict):
        return None
    game_id = obj.get("game_id")
    return ReadBack(game_id if isinstance(game_id, str) else None, content_hash(obj), raw)


def ingest(
    paths: Sequence[str],
    warehouse: Warehouse,
    *,
    workers: int | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_rejects_per_file: int = DEFAULT_MAX_REJECTS_PER_FILE,
    on_progress: Callable[[Progress], None] | None = None,
    log_format: str | None = None,
    rules: SheetRules | None = None,
    files: Sequence[Path] | None = None,
) -> IngestSummary:
    """Import every game of the given logs as one batch; return the summary.

    ``workers``: how many chunks run at once, 1 or more (default: one per core when the input
    other than score sheets is large, else 1: :func:`_parallel_bytes`): threads of this process on
    the native core (:func:`_on_threads`), else worker processes, which die with this one. SIGINT / SIGTERM stop the import (:class:`Interrupted`); a dead
    worker process is ``E_WORKER_DIED``, a full disk ``E_DISK_FULL``: in each case nothing of
    the batch is committed.
    ``max_rejects_per_file``: rejects of one file stored in full; the others are counted,
    by code, in one ``E_TOO_MANY_REJECTS`` row per file (0: that row only). The summary's
    counts and reasons count every reject.
    ``log_format``: the shape of every file (``--format``; default: told by name or content);
    ``rules``: the ruleset of the score sheets, which name none (``--ruleset``, ``--set``).
    ``files``: the logs of ``paths`` as :func:`expand_paths` gave them, when the caller has
    expanded them already (``big2 ingest`` does, to refuse a path that names nothing before
    the warehouse is touched): a folder of many logs is not walked a second time.
    """
    if max_rejects_per_file < 0:
        raise IngestError(
            "E_INGEST", f"max_rejects_per_file must be 0 or more, got {max_rejects_per_file}"
        )
    if workers is not None and workers < 1:
        raise IngestError("E_INGEST", f"workers must be 1 or more, got {workers}")
    files = expand_paths(paths) if files is None else files
    sizes = {f: f.stat().st_size for f in files}
    total_bytes = sum(sizes.values())
    if workers is None:
        workers = (
            (os.cpu_count() or 1) if _parallel_bytes(sizes, log_format) >= PARALLEL_MIN_BYTES else 1
        )
    summary = IngestSummary(workers=workers)
    on_threads = _on_threads(files, log_format, workers)
    shared = _shared_games(files, log_format)
    if workers > 1 and not on_threads:
        warm_workers(WORKER_MODULES)
    started = time.perf_counter()
    done_bytes = 0
    caps: dict[str, _RejectCap] = {}
    names = [file_label(f) for f in files]  # as the readers store them (no lone surrogates)
    last_shown = time.monotonic()

    so_far = FileSummary("total")  # the files' counts summed as they come (summary.total())

    def show(file: str, extra_bytes: int = 0) -> None:
        nonlocal last_shown
        if on_progress is not None:
            last_shown = time.monotonic()
            done = done_bytes + extra_bytes
            on_progress(Progress(so_far.read, so_far.rejected, done, total_bytes, file))

    def reading(file: str) -> Callable[[int], None]:
        def on_read(done: int) -> None:
            if on_progress is not None and time.monotonic() - last_shown >= PROGRESS_EVERY:
                show(file, min(done, sizes[Path(file)]))

        return on_read

    with (
        _failures(warehouse, files) as signals,
        warehouse.batch(meta={"inputs": names}, reject_files=names) as batch,
        contextlib.ExitStack() as open_games,
    ):
        summary.batch_id = batch.batch_id
        for games in set(shared.values()):  # closed by their last file, else here
            open_games.callback(games.close)
        again = _ReadBack(dict(zip(names, files, strict=True)), max_line_bytes, log_format, rules)
        open_games.callback(again.close)

        def read_back(now: Collection[str] = ()) -> None:
            """Store the E_CONFLICT rejects waiting for their records (_ReadBack): those of
            the files done (any but ``now``'s: results come in the files' order), and of a
            file with ``READ_BACK_AT`` of them."""
            for file, waiting in batch.unread().items():
                if file not in now or waiting >= READ_BACK_AT:
                    batch.read_back(file, again.reader(file))

        def absorb(result: ChunkResult) -> None:
            if result.changed is not None:
                raise IngestError(
                    "E_FILE_CHANGED",
                    f"{result.file!r} changed while it was imported ({result.changed}): "
                    "nothing of this import was committed; run it again once the file is "
                    "complete",
                    path=result.file,
                )
            if not result.shares:
                counts = batch.add_part(result.part)
                tally(result.file, result.read, counts, result.rejects, result.reject_codes)
                repeats(result.repeats, lambda _: result.file)
                read_back(_labels_of(result.file))
                show(result.file)
                return
            # several small files' chunk: each file's share of it, told by the name its games
            # and rejects store (any other name, which none has, counts for the first file)
            named = {label: file for file, _ in result.shares for label in _labels_of(file)}

            def owner(label: str | None) -> str:
                return named.get(label or "", result.file)

            by_label = batch.add_part_by_file(result.part)
            rejects = result.rejects
            at: dict[str, list[int]] = {}  # each file's rejects (their rows)
            for i, label in enumerate([] if rejects is None else rejects["file"].to_pylist()):
                at.setdefault(owner(label), []).append(i)
            for file, read in result.shares:
                mine = None
                if rejects is not None and file in at:
                    mine = rejects.take(pa.array(at[file], pa.int64()))
                codes = [] if mine is None else mine["code"].to_pylist()
                tally(file, read, by_label.pop(file_label(file), {}), mine, codes)
            for counts in by_label.values():  # a name no file of the chunk has (none has)
                tally(result.file, 0, counts, None, [])
            repeats(result.repeats, lambda source: owner(None if source is None else source.file))
            read_back(named)
            show(result.shares[-1][0])

        def repeats(
            games: list[ReplayedGame | Repeat], file_of: Callable[[Source | None], str]
        ) -> None:
            """Games whose ids their chunk held already: each a duplicate or a conflict of the
            copy the batch holds (the core's repeats judged in one look-up); a repeat is
            replayed again only when the batch holds no copy (the first one's rows could not
            be built). ``file_of``: the file a game's source counts for."""
            light = [g.record for g in games if isinstance(g, Repeat)]
            verdicts = iter(
                batch.add_known([(r.game_id, r.content_hash, r.source, r.raw) for r in light])
            )
            for game in games:
                file = file_of(game.record.source)
                if isinstance(game, Repeat):  # its verdict the next, in the same order
                    verdict = next(verdicts)
                    if verdict is not None:
                        tally(file, 0, {verdict: 1}, None, [])
                        continue
                    done = game.replayed()
                    if isinstance(done, Reject):
                        batch.add_reject(done)
                        tally(file, 0, {}, None, [done.code])
                        continue
                    game = done
                tally(file, 0, {batch.add_game(game): 1}, None, [])

        def tally(
            file: str,
            read: int,
            counts: Mapping[Added, int],
            rejects: pa.Table | None,
            codes: list[str],
        ) -> None:
            """One file's items read, games added (``counts``) and rejects, into the summary;
            the rejects stored as far as the file's cap allows."""
            fs = summary.files.setdefault(file, FileSummary(file))
            if rejects is not None and rejects.num_rows:
                cap = caps.setdefault(file, _RejectCap(max_rejects_per_file))
                batch.add_rows({Table.REJECTS: cap.admit(rejects)})
            conflicts = counts.get(Added.CONFLICT, 0)
            for into in (fs, so_far):
                into.read += read
                into.stored += counts.get(Added.STORED, 0)
                into.duplicate += counts.get(Added.DUPLICATE, 0)
                into.rejected += len(codes) + conflicts
            summary.reasons.update(codes)
            if conflicts:
                summary.reasons["E_CONFLICT"] += conflicts

        spec = batch.part_spec()

        def work(path: Path) -> Iterator[tuple[Callable[..., ChunkResult], tuple[Any, ...]]]:
            """A file's tasks: runs the workers read and cut themselves, in turn (plain JSON
            Lines on the core), or ranges cut here that a worker process reads (plain JSON
            Lines otherwise), else chunks of the lines or records read here (gzip, CSV, score
            sheets)."""
            if _is_plain_jsonl(path, log_format):
                if native.available() and (workers <= 1 or on_threads):  # read once, as cut
                    last = on_threads and path == files[-1]
                    yield from _core_runs(
                        path,
                        spec,
                        batch.new_part,
                        max_line_bytes,
                        reading(str(path)),
                        split=workers if last else 1,
                    )
                    return
                for span in _ranges(path, reading(str(path))):
                    yield process_range, (span, spec, batch.new_part(), max_line_bytes)
                return
            if _is_gzip_jsonl(path, log_format):
                for piece in _blocks(path, max_line_bytes, reading(str(path))):
                    if isinstance(piece, LineBlock):
                        yield process_block, (piece, spec, batch.new_part(), max_line_bytes)
                    else:
                        yield process_chunk, (str(path), piece, spec, batch.new_part())
                return
            for chunk in _chunks(
                path,
                max_line_bytes,
                reading(str(path)),
                log_format=log_format,
                rules=rules,
                shared=shared.get(path),
            ):
                yield process_chunk, (str(path), chunk, spec, batch.new_part())

        def tasks() -> Iterator[tuple[Callable[..., ChunkResult], tuple[Any, ...]]]:
            """Each file's tasks in turn; small JSON Lines files one after the other (each
            whole) as one chunk, a part for them all (:func:`process_files`)."""
            nonlocal done_bytes
            group: list[tuple[Path, SmallFile]] = []
            group_bytes = 0
            # the names the group's games and rejects store, each file's its own (two names
            # stored alike, which only bytes that are not UTF-8 make, do not share a chunk)
            labels: set[str] = set()

            def grouped() -> Iterator[tuple[Callable[..., ChunkResult], tuple[Any, ...]]]:
                nonlocal group_bytes
                if len(group) == 1:  # alone: its own task
                    yield _piece_task(*group[0], spec, batch.new_part(), max_line_bytes)
                elif group:
                    pieces = tuple(piece for _, piece in group)
                    yield process_files, (pieces, spec, batch.new_part(), max_line_bytes)
                group.clear()
                labels.clear()
                group_bytes = 0

            for path in files:
                summary.files.setdefault(str(path), FileSummary(str(path)))
                pieces = None
                if len(files) > 1:
                    pieces = _small_pieces(path, sizes[path], log_format, max_line_bytes)
                if pieces == []:
                    continue  # nothing to read (its summary says so), no group to break
                # a file read here whole in one piece may join the group (a gzip file's items
                # read after its stream failed may not: they are no piece of a file whole)
                one = pieces[0] if pieces is not None and len(pieces) == 1 else None
                one = None if isinstance(one, list) else one
                label = None if one is None else file_label(one.path)
                if group and (label is None or label in labels):
                    yield from grouped()
                if one is None or label is None:
                    if pieces is None:  # not small: its tasks as any file's
                        yield from work(path)
                    for piece in pieces or ():  # read here, each piece its task
                        yield _piece_task(path, piece, spec, batch.new_part(), max_line_bytes)
                else:
                    group.append((path, one))
                    labels.add(label)
                    group_bytes += _piece_bytes(one)
                    if group_bytes >= GROUP_BYTES:
                        yield from grouped()
                done_bytes += sizes[path]
            yield from grouped()

        if on_threads:
            signals.threads = True
            with _threads(workers) as threads:
                for result in in_order(threads, tasks(), 2 * workers):
                    signals.check()
                    absorb(result)
        elif workers <= 1:
            for task, args in tasks():
                absorb(task(*args))
        else:
            with _pool(workers) as pool:
                for result in _in_order(pool, tasks(), workers):
                    absorb(result)
        read_back()
        for file, cap in caps.items():
            row = cap.summary(file)
            if row is not None:
                batch.add_reject(row)
        signals.check()
        signals.armed = False  # a signal from here on waits for the commit to finish
    summary.repeated_rejects = batch.duplicate_rejects
    summary.seconds = time.perf_counter() - started
    return summary
