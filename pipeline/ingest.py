"""Import logs into the warehouse: read → parse → replay → rows, as one atomic batch.

The work is cut into chunks of one file's lines (JSON Lines) or parsed records (CSV). A
chunk is turned into Arrow rows by :func:`process_chunk`, in this process or in worker
processes (``workers > 1``), with at most two chunks in flight per worker so that memory
stays flat whatever the file size. The main process only reads lines and hands the rows to
one :class:`pipeline.warehouse.Batch`, which detects duplicates and conflicts and commits
everything at the end, or nothing.

This module holds no UI: progress goes to a callback, the summary is returned.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pyarrow as pa

from pipeline.errors import Big2Error
from pipeline.logs import GameRecord, Reject, Source, log_shape, read_log
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES, iter_jsonl_lines, open_log, parse_line
from pipeline.replay import ReplayedGame, replay
from pipeline.warehouse import Added, RowBuffer, Table, Warehouse, WarehouseError

CHUNK_GAMES = 2000
#: Below this many bytes of input, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 4 << 20

#: A unit of work: raw JSON lines with their sources, or records a reader already parsed.
ChunkItem = tuple[Source, str] | GameRecord | Reject


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


#: Linux prctl(2) option: the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _worker_init(parent: int | None) -> None:
    """Pool initializer: a worker dies with the main process (``PR_SET_PDEATHSIG`` on Linux,
    so a SIGKILLed import leaves no worker behind) and leaves SIGINT / SIGTERM to it.
    ``parent``: the main process's pid when workers are forked from it (else None)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued chunks cancelled, running workers killed (not awaited)."""
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
    """Worker processes that die with this one; stopped at once when the import fails."""
    forked = multiprocessing.get_start_method() == "fork"
    pool = ProcessPoolExecutor(
        max_workers=workers,
        initializer=_worker_init,
        initargs=(os.getpid() if forked else None,),
    )
    try:
        yield pool
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


class _Signals:
    """While an import runs (main thread only), SIGINT / SIGTERM raise :class:`Interrupted`,
    so that the batch aborts and the workers are stopped; during the commit they are held
    and raised once it is done."""

    def __init__(self) -> None:
        self.armed = True
        self.pending: int | None = None
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.armed:
            raise Interrupted(signum)
        self.pending = signum

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


def _disk_full(err: BaseException) -> bool:
    return isinstance(err, OSError) and err.errno == errno.ENOSPC


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
            if not _disk_full(err):
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


@dataclass
class IngestSummary:
    """The closing account of one import."""

    batch_id: str = ""
    files: dict[str, FileSummary] = field(default_factory=dict)
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    workers: int = 1

    def total(self) -> FileSummary:
        out = FileSummary("total")
        for f in self.files.values():
            out.read += f.read
            out.stored += f.stored
            out.duplicate += f.duplicate
            out.rejected += f.rejected
        return out


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
    """What a worker hands back for one chunk."""

    file: str
    tables: dict[Table, pa.Table]
    read: int
    reject_codes: list[str]
    repeats: list[ReplayedGame]  # game ids seen twice inside the chunk: the batch decides


def expand_paths(paths: Sequence[str]) -> list[Path]:
    """Files, folders (searched recursively for logs) and glob patterns → log files, sorted.

    Raises ``E_NO_INPUT`` for a path that names nothing and for an empty result.
    """
    out: set[Path] = set()
    for text in paths:
        path = Path(text)
        if path.is_dir():
            out.update(p for p in path.rglob("*") if p.is_file() and log_shape(p) is not None)
        elif path.is_file():
            out.add(path)
        elif glob.has_magic(text):
            matches = [Path(p) for p in glob.glob(text, recursive=True)]
            if not matches:
                raise IngestError("E_NO_INPUT", f"no file matches {text!r}", path=text)
            out.update(p for p in matches if p.is_file() and log_shape(p) is not None)
        else:
            raise IngestError("E_NO_INPUT", f"no such file or folder: {text!r}", path=text)
    if not out:
        raise IngestError("E_NO_INPUT", f"no log files (.jsonl, .jsonl.gz, .csv) in {list(paths)}")
    return sorted(out)


def process_chunk(file: str, items: list[ChunkItem], batch_id: str) -> ChunkResult:
    """Parse and replay one chunk into warehouse rows (runs in a worker process)."""
    rows = RowBuffer(batch_id)
    codes: list[str] = []
    repeats: list[ReplayedGame] = []
    for item in items:
        record = parse_line(item[1], item[0]) if isinstance(item, tuple) else item
        done = record if isinstance(record, Reject) else replay(record)
        if isinstance(done, Reject):
            rows.add_reject(done)
            codes.append(done.code)
        elif not rows.add_game(done):
            repeats.append(done)
    tables = rows.take()  # a game whose rows cannot be built is a reject there (rows.failed)
    codes.extend(reject.code for reject in rows.failed)
    return ChunkResult(file, tables, len(items), codes, repeats)


def _chunks(path: Path, max_line_bytes: int) -> Iterator[list[ChunkItem]]:
    """One file's work, ``CHUNK_GAMES`` items at a time."""
    items: Iterable[ChunkItem]
    if log_shape(path) == "jsonl":
        fh = open_log(path)
        items = iter_jsonl_lines(fh, str(path), max_line_bytes=max_line_bytes)
    else:
        fh = None
        items = read_log(path, max_line_bytes=max_line_bytes)
    try:
        chunk: list[ChunkItem] = []
        for item in items:
            chunk.append(item)
            if len(chunk) >= CHUNK_GAMES:
                yield chunk
                chunk = []
        if chunk:
            yield chunk
    finally:
        if fh is not None:
            fh.close()


def ingest(
    paths: Sequence[str],
    warehouse: Warehouse,
    *,
    workers: int | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    on_progress: Callable[[Progress], None] | None = None,
) -> IngestSummary:
    """Import every game of the given logs as one batch; return the summary.

    ``workers``: processes to use (default: one per core when the input is large, else 1);
    they die with this process. SIGINT / SIGTERM stop the import (:class:`Interrupted`); a
    dead worker is ``E_WORKER_DIED``, a full disk ``E_DISK_FULL``: in each case nothing of
    the batch is committed.
    """
    files = expand_paths(paths)
    sizes = {f: f.stat().st_size for f in files}
    total_bytes = sum(sizes.values())
    if workers is None:
        workers = (os.cpu_count() or 1) if total_bytes >= PARALLEL_MIN_BYTES else 1
    summary = IngestSummary(workers=workers)
    started = time.perf_counter()
    done_bytes = 0
    with (
        _failures(warehouse, files) as signals,
        warehouse.batch(meta={"inputs": [str(f) for f in files]}) as batch,
    ):
        summary.batch_id = batch.batch_id

        def absorb(result: ChunkResult) -> None:
            fs = summary.files.setdefault(result.file, FileSummary(result.file))
            counts = batch.add_rows(result.tables)
            for game in result.repeats:
                counts[batch.add_game(game)] += 1
            fs.read += result.read
            fs.stored += counts[Added.STORED]
            fs.duplicate += counts[Added.DUPLICATE]
            fs.rejected += len(result.reject_codes) + counts[Added.CONFLICT]
            summary.reasons.update(result.reject_codes)
            if counts[Added.CONFLICT]:
                summary.reasons["E_CONFLICT"] += counts[Added.CONFLICT]
            if on_progress is not None:
                total = summary.total()
                on_progress(
                    Progress(total.read, total.rejected, done_bytes, total_bytes, result.file)
                )

        if workers <= 1:
            for path in files:
                summary.files.setdefault(str(path), FileSummary(str(path)))
                for chunk in _chunks(path, max_line_bytes):
                    absorb(process_chunk(str(path), chunk, batch.batch_id))
                done_bytes += sizes[path]
        else:
            with _pool(workers) as pool:
                pending: deque[Future[ChunkResult]] = deque()
                for path in files:
                    summary.files.setdefault(str(path), FileSummary(str(path)))
                    for chunk in _chunks(path, max_line_bytes):
                        pending.append(pool.submit(process_chunk, str(path), chunk, batch.batch_id))
                        while len(pending) >= 2 * workers:
                            absorb(pending.popleft().result())
                    done_bytes += sizes[path]
                while pending:
                    absorb(pending.popleft().result())
        signals.armed = False  # a signal from here on waits for the commit to finish
    summary.seconds = time.perf_counter() - started
    return summary
