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

import glob
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from pipeline.errors import Big2Error
from pipeline.logs import GameRecord, Reject, Source, log_shape, read_log
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES, iter_jsonl_lines, open_log, parse_line
from pipeline.replay import ReplayedGame, replay
from pipeline.warehouse import Added, RowBuffer, Table, Warehouse

CHUNK_GAMES = 2000
#: Below this many bytes of input, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 4 << 20

#: A unit of work: raw JSON lines with their sources, or records a reader already parsed.
ChunkItem = tuple[Source, str] | GameRecord | Reject


class IngestError(Big2Error):
    """Input that cannot be imported at all (no such file, nothing to read)."""

    default_code = "E_INGEST"


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

    ``workers``: processes to use (default: one per core when the input is large, else 1).
    """
    files = expand_paths(paths)
    sizes = {f: f.stat().st_size for f in files}
    total_bytes = sum(sizes.values())
    if workers is None:
        workers = (os.cpu_count() or 1) if total_bytes >= PARALLEL_MIN_BYTES else 1
    summary = IngestSummary(workers=workers)
    started = time.perf_counter()
    done_bytes = 0
    with warehouse.batch(meta={"inputs": [str(f) for f in files]}) as batch:
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
            with ProcessPoolExecutor(max_workers=workers) as pool:
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
    summary.seconds = time.perf_counter() - started
    return summary
