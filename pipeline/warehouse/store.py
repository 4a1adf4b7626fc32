"""The warehouse on disk: Parquet files per batch, a manifest, DuckDB views, and a check.

Layout of a warehouse directory (default ``data/warehouse/``; the ``BIG2_WAREHOUSE``
environment variable or an argument moves it)::

    manifest.jsonl                 one JSON line per committed import batch
    ledger.jsonl                   append-only: every file a batch ever committed
    games/batch-<id>.parquet       per table per batch (tables with rows only): one file,
    games/batch-<id>.part-<n>.parquet                  and one per chunk its workers wrote
    seats/ actions/ tricks/ rejects/
    quarantine/<table>/            files set aside, never deleted (orphans, repaired batches)
    warehouse.duckdb               views over the manifest's files and the marts, as built
    .lock                          held by the one import running
    .build.lock                    held by the one writer of warehouse.duckdb

An import is one :class:`Batch`. Its workers write their chunks' rows as part files
``<table>/batch-<id>.part-<n>.parquet.tmp`` (:func:`write_part`), the rows it adds itself
stream into ``<table>/batch-<id>.parquet.tmp``; :meth:`Batch.commit` closes and fsyncs
them, renames them to their final names (without ``.tmp``), then
appends the batch's manifest line (with each file's sha256 and row count) and fsyncs it,
then records the files in the ledger. Readers only see files named in the manifest, so a
process killed at any point leaves the warehouse readable with the earlier batches; files it
left behind are *orphans*, which :meth:`Warehouse.verify` reports and the next import clears:
it deletes ``.tmp`` files (never a committed name) and moves the others to ``quarantine/``.

Before writing anything an import checks the manifest's files (:meth:`Warehouse.damage`:
present, their size, a readable Parquet footer with the manifest's row count, and the sha256
of the files the duplicate indexes read) and refuses a damaged warehouse with
``E_WAREHOUSE_DAMAGED``, as it refuses files the ledger names that the manifest lost.
:meth:`Warehouse.verify` makes the same check of each file with every file hashed
(``damage(full=True)``), and :meth:`Warehouse.repair` (``big2 verify --repair``) sets aside
each batch with a file it finds damaged, of any table.

One writer, many readers (docs/warehouse.md, "Concurrency"): ``warehouse.duckdb`` is never
written in place. :meth:`Warehouse.publish` (``big2 build``) writes a new file and
``os.replace``-s it; :meth:`Warehouse.connect` attaches the file read-only and, when it is
stale, adds TEMP views over the manifest's files to its own session. So no reader blocks a
writer, and a reader never writes.

>>> import tempfile
>>> wh = Warehouse(tempfile.mkdtemp())
>>> with wh.batch() as batch:
...     pass
>>> len(wh.entries()), wh.verify()
(1, [])
>>> con = wh.connect()
>>> con.execute("select count(*) from games").fetchone()
(0,)
>>> con.close()
"""

from __future__ import annotations

import base64
import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import secrets
import shutil
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline import native
from pipeline.errors import Big2Error
from pipeline.logs.model import Source
from pipeline.warehouse.known import (
    NEW,
    U64,
    KnownGames,
    KnownRejects,
    file_digest,
    game_keys,
    hex_prefix,
    reject_key,
)
from pipeline.warehouse.tables import (
    COLUMNS,
    PRINTER,
    SCHEMAS,
    RejectLike,
    ReplayedGameLike,
    RowBuffer,
    Table,
    empty,
)
from pipeline.wording import plural

ENV_VAR = "BIG2_WAREHOUSE"
DEFAULT_DIR = Path("data") / "warehouse"
MANIFEST = "manifest.jsonl"
LEDGER = "ledger.jsonl"
QUARANTINE = "quarantine"
DB_FILE = "warehouse.duckdb"
LOCK_FILE = ".lock"
#: The games index an import leaves at its commit for the next one (:class:`KnownGames`,
#: NumPy's ``.npy``), and what it is the index of (``KNOWN_STAMP``, JSON: a digest of the
#: committed games files, their games, the index file's BLAKE2b): the next import maps it
#: instead of reading every games file's ids and hashes (:meth:`Warehouse.known_index`).
KNOWN_FILE = "known-games.npy"
KNOWN_STAMP = "known-games.json"
#: How long taking the import lock retries before E_WAREHOUSE_BUSY (see _flock_soon).
LOCK_PATIENCE_S = 1.0
#: Held by the one process writing ``warehouse.duckdb`` (a build, or an import and its build).
BUILD_LOCK_FILE = ".build.lock"
META_TABLE = "_warehouse_meta"
#: Games buffered in memory before their rows are written as one Parquet row group.
FLUSH_EVERY = 5_000
#: The code of the reject written when a game id is already stored with other content.
CONFLICT_CODE = "E_CONFLICT"
#: The code of the error that refuses to import into a damaged warehouse.
DAMAGED_CODE = "E_WAREHOUSE_DAMAGED"
#: Tables whose files an import hashes (sha256) before it starts: the duplicate indexes read
#: them, so a damaged one would store games or rejects again. The others are checked by size
#: and Parquet footer (row count) only; ``big2 verify`` hashes every file.
HASHED_TABLES = frozenset({"games", "rejects"})
_MAX_EXAMPLES = 20


class WarehouseError(Big2Error):
    """A warehouse that cannot be used: busy, unreadable, or a batch used after it ended."""

    default_code = "E_WAREHOUSE"


class Added(StrEnum):
    """What :meth:`Batch.add_game` / :meth:`Batch.add_reject` did with a record."""

    STORED = "stored"
    DUPLICATE = "duplicate"  # already stored (same game id and content hash), or same reject
    CONFLICT = "conflict"  # game id stored with other content: written as an E_CONFLICT reject


@dataclass(frozen=True, slots=True)
class ManifestFile:
    """One committed Parquet file."""

    table: str
    path: str  # relative to the warehouse root, '/'-separated
    sha256: str
    rows: int
    bytes: int
    #: :func:`schema_tag` of the schema the file was written with ("": not recorded, a file
    #: committed before the tags); files of one tag are read without ``union_by_name``.
    schema: str = ""


@dataclass(frozen=True, slots=True)
class BatchEntry:
    """One committed import batch: one line of ``manifest.jsonl``."""

    batch_id: str
    committed_at: str
    files: tuple[ManifestFile, ...]
    counts: dict[str, int] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        data = asdict(self)
        data["files"] = [asdict(f) for f in self.files]
        return json.dumps(data, sort_keys=True, ensure_ascii=False)

    @staticmethod
    def from_json(line: str) -> BatchEntry:
        data = json.loads(line)
        return BatchEntry(
            batch_id=data["batch_id"],
            committed_at=data["committed_at"],
            files=tuple(ManifestFile(**f) for f in data["files"]),
            counts=dict(data.get("counts", {})),
            meta=dict(data.get("meta", {})),
        )


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing :meth:`Warehouse.verify` found wrong."""

    code: str
    message: str
    path: str | None = None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What :meth:`Warehouse.verify_report` found: the problems, and what is in progress."""

    problems: list[Problem]
    in_progress: tuple[str, ...] = ()  # files of the import running now (relative paths)
    import_running: bool = False
    build_running: bool = False  # stale marts are being rebuilt now (not a problem)


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What one committed batch stored, and whether the DuckDB views were refreshed."""

    batch_id: str
    stored: int
    duplicates: int
    conflicts: int
    rejects: int
    duplicate_rejects: int
    files: tuple[ManifestFile, ...]
    views_error: str | None = None  # why warehouse.duckdb could not be refreshed, if so


@dataclass(frozen=True, slots=True)
class Repair:
    """What :meth:`Warehouse.repair` found and did."""

    problems: tuple[Problem, ...]
    dropped_batches: tuple[str, ...]  # removed from the manifest
    quarantined: tuple[Path, ...]  # where the files went
    #: The sha256 of every file the manifest named, by its path, as the repair hashed them:
    #: ``verify --repair``'s check after it reads them here instead of hashing them again.
    digests: Mapping[Path, str] = field(default_factory=dict, repr=False, compare=False)
    #: What a stopped build left beside ``warehouse.duckdb`` (:meth:`Warehouse.build_leftovers`),
    #: deleted: no data, nothing reads it.
    deleted: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class ReadBack:
    """A record read back from its log for an ``E_CONFLICT`` reject (:meth:`Batch.read_back`):
    the game id and content hash (hex) it has, and its text as a reject keeps it."""

    game_id: str | None
    digest: str
    raw: str | bytes


@dataclass(frozen=True, slots=True)
class _Conflict:
    """The reject row of a game-id conflict (shaped like the parsers' ``Reject``)."""

    source: Source | None
    game_id: str | None
    action_index: int | None
    code: str
    message: str
    raw: str | bytes | None


def resolve_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The warehouse directory: the argument, else ``$BIG2_WAREHOUSE``, else ``data/warehouse``.

    >>> resolve_dir("/tmp/wh").as_posix()
    '/tmp/wh'
    """
    if path is not None:
        return Path(path)
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else DEFAULT_DIR


def new_batch_id() -> str:
    """A sortable, unique batch id: UTC time to the microsecond plus 6 random hex digits."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + "-" + secrets.token_hex(3)


def sha256_file(path: Path) -> str:
    """The sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _sha256_files(paths: Iterable[Path]) -> dict[Path, str]:
    """:func:`sha256_file` of each of ``paths`` that is a file, two at a time (hashlib lets
    the GIL go: `big2 verify` at 1M games hashes its 1.1 GB in 0.6 s instead of 1.2)."""
    files = [p for p in dict.fromkeys(paths) if p.is_file()]
    with ThreadPoolExecutor(2, thread_name_prefix="sha256") as pool:
        return dict(zip(files, pool.map(sha256_file, files), strict=True))


def _fsync(path: Path) -> None:
    """Fsync a file or a folder by its path."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: This process's thread that fsyncs the part files it wrote (:func:`_sync_soon`), made on
#: first use (in the process that writes, never in a forkserver that forks workers).
_SYNCER: list[ThreadPoolExecutor] = []
#: The files this process wrote whose fsync no one has waited for yet (path → its fsync).
_SYNCING: dict[str, Future[None]] = {}
#: Held while ``_SYNCER`` or ``_SYNCING`` changes (an import's worker threads write parts).
_SYNC_LOCK = threading.Lock()


def _sync_soon(path: Path) -> None:
    """Have ``path`` fsynced by this process's syncing thread and return at once: the process
    replays its next chunk while the disk takes these bytes (the wait is the disk's, ~5 ms a
    file, not the CPU's). :func:`synced` waits for it later."""
    fd = os.open(path, os.O_RDONLY)
    try:
        with _SYNC_LOCK:
            if not _SYNCER:
                _SYNCER.append(ThreadPoolExecutor(1, thread_name_prefix="fsync"))
            _SYNCING[str(path)] = _SYNCER[0].submit(_fsync_close, fd)
    except BaseException:
        os.close(fd)
        raise


def _fsync_close(fd: int) -> None:
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def synced() -> tuple[str, ...]:
    """The files this process wrote (:func:`_sync_soon`) since the last call (any thread's),
    each fsynced:
    waits for their fsyncs, started when they were written (done by now, but for the last
    few), and raises the error one met (ENOSPC from a delayed allocation: ``E_DISK_FULL``).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _sync_soon(Path(f.name))
    ...     synced() == (f.name,), synced()
    (True, ())
    """
    with _SYNC_LOCK:
        syncing = list(_SYNCING.items())
        _SYNCING.clear()
    for _path, fsync in syncing:
        fsync.result()
    return tuple(path for path, _ in syncing)


def _append_line(path: Path, line: str) -> None:
    """Append one line to a JSON Lines file and fsync it (and its folder), first dropping a
    torn last line that an earlier, interrupted append left."""
    data = (line + "\n").encode("utf-8")
    with path.open("ab") as f:
        if f.tell() > 0:
            with path.open("rb") as r:
                r.seek(-1, os.SEEK_END)
                torn = r.read(1) != b"\n"
            if torn:  # drop the torn tail of an append that never completed
                whole = path.read_bytes()
                f.truncate(whole.rfind(b"\n") + 1)
                f.seek(0, os.SEEK_END)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    _fsync(path.parent)


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def schema_tag(table: Table | str) -> str:
    """16 hex digits naming the schema a table's files are written with (``SCHEMAS``): what a
    manifest file records (:attr:`ManifestFile.schema`), so that the views read the files of
    one schema as they are, without opening each file's footer.

    >>> schema_tag("games") == schema_tag(Table.GAMES) != schema_tag("seats")
    True
    """
    text = SCHEMAS[Table(table)].to_string(show_schema_metadata=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def parquet_source(files: Sequence[tuple[str, str]]) -> str:
    """A query over Parquet files (``(path, schema tag)`` pairs, in order), columns matched by
    name: the files of one tag read as one ``read_parquet`` (DuckDB then reads one footer to
    bind it, each file's own only when a query scans it), the groups joined by ``union all by
    name``; files without a tag (committed before the tags) read with ``union_by_name``, which
    opens every one of their footers up front (about 20 KB and 20 ms a file, at each
    publish). A column some files lack is NULL on their rows either way.

    >>> print(parquet_source([("a.parquet", "t1"), ("b.parquet", ""), ("c.parquet", "t1")]))
    select * from read_parquet(['a.parquet', 'c.parquet']) union all by name select * from read_parquet(['b.parquet'], union_by_name = true)
    """
    groups: dict[str, list[str]] = {}
    for path, tag in files:
        groups.setdefault(tag, []).append(path)
    selects = []
    for tag, paths in groups.items():
        listed = ", ".join(_sql_str(p) for p in paths)
        by_name = "" if tag else ", union_by_name = true"
        selects.append(f"select * from read_parquet([{listed}]{by_name})")
    return " union all by name ".join(selects)


#: Roots whose build lock this process holds (the lock is re-entrant within a process).
_BUILD_LOCKS_HELD: set[str] = set()


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a ``warehouse.duckdb`` covers: written by :meth:`Warehouse.publish`."""

    root: str
    n_batches: int
    last_batch: str
    batch_ids: tuple[str, ...]
    games: int
    marts: bool
    built_at: str
    #: What the marts were built by (:func:`pipeline.sqlbuild.build_key`: the SQL, DuckDB's
    #: version): a build may add new batches' games to marts of the same key. Empty in files
    #: stamped before it, or without marts.
    build_key: str = ""

    def views_match(self, root: Path, entries: list[BatchEntry]) -> bool:
        """Whether the file's base views name exactly these batches' files under ``root``."""
        last = entries[-1].batch_id if entries else ""
        return (self.root, self.n_batches, self.last_batch) == (root.as_posix(), len(entries), last)


def _stamp_rows(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[Any, ...]]:
    """The stamp's rows, ``build_key`` last ('' in a file stamped before it)."""
    columns = "root, n_batches, last_batch, batch_ids, games, marts, built_at"
    try:
        return con.execute(f"select {columns}, build_key from {table}").fetchall()
    except duckdb.BinderException:
        return con.execute(f"select {columns}, '' from {table}").fetchall()


def _read_stamp(con: duckdb.DuckDBPyConnection, database: str) -> FileStamp | None:
    """The stamp of an attached database file, None when it has none. A file stamped before
    stamps named their batches counts as marts over no known batch (stale once any exists)."""
    table = f"{database}.main.{META_TABLE}"
    try:
        rows = _stamp_rows(con, table)
    except duckdb.Error:
        try:
            old = con.execute(f"select root, n_batches, last_batch from {table}").fetchall()
            built = con.execute(
                "select count(*) from duckdb_tables() "
                "where database_name = ? and table_name = 'mart_game_scores'",
                [database],
            ).fetchall()
        except duckdb.Error:
            return None
        if not old:
            return None
        root, n, last = old[0]
        return FileStamp(root, n, last, (), 0, bool(built[0][0]), "before stamps")
    if not rows:
        return None
    root, n, last, ids, games, marts, built_at, key = rows[0]
    return FileStamp(root, n, last, tuple(ids or ()), int(games), bool(marts), built_at, key or "")


def _flock_soon(fd: int, seconds: float = LOCK_PATIENCE_S) -> bool:
    """Take an exclusive flock, retrying for ``seconds``: a reader asking whether a lock is
    held (:func:`_lock_held`) holds a shared lock for microseconds and must not make a
    writer fail."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)


def is_disk_full(err: BaseException) -> bool:
    """An OS or DuckDB error that says the device is full (DuckDB gives no errno).

    >>> import errno
    >>> is_disk_full(OSError(errno.ENOSPC, "No space left on device")), is_disk_full(OSError(2, "x"))
    (True, False)
    """
    if isinstance(err, OSError) and err.errno == errno.ENOSPC:
        return True
    return "no space left on device" in str(err).lower()


def _lock_held(path: Path) -> bool:
    """Whether another open file description holds an flock on ``path`` (opened read-only:
    asking never creates or writes the file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class Warehouse:
    """A warehouse directory: committed batches, imports, DuckDB views and a consistency check."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.root = resolve_dir(path).resolve()

    @classmethod
    def existing(cls, path: str | os.PathLike[str] | None = None) -> Warehouse:
        """The warehouse at ``path``, which an import must have made (its ``manifest.jsonl``):
        only an import creates a warehouse, so a mistyped path to any reader or to a build is
        ``E_NO_WAREHOUSE`` naming it, never a new empty warehouse.

        >>> import tempfile
        >>> Warehouse.existing(tempfile.mkdtemp() + "/typo")
        Traceback (most recent call last):
        ...
        pipeline.warehouse.store.WarehouseError: E_NO_WAREHOUSE: ...typo is not a warehouse (no manifest.jsonl): check the path; `big2 ingest` makes one
        """
        wh = cls(path)
        if not wh.manifest_path.is_file():
            raise WarehouseError(
                "E_NO_WAREHOUSE",
                f"{wh.root} is not a warehouse (no {MANIFEST}): check the path; "
                "`big2 ingest` makes one",
            )
        return wh

    # ----- paths ------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def db_path(self) -> Path:
        return self.root / DB_FILE

    # ----- the manifest -----------------------------------------------------------------
    def _read_manifest(self) -> tuple[list[BatchEntry], list[Problem]]:
        entries: list[BatchEntry] = []
        problems: list[Problem] = []
        try:
            data = self.manifest_path.read_bytes()
        except FileNotFoundError:
            return entries, problems
        except OSError as err:
            raise WarehouseError("E_WAREHOUSE", f"cannot read {self.manifest_path}: {err}") from err
        lines = data.split(b"\n")
        # the last element is b"" when the file ends with a newline; anything else there is
        # a torn append (killed mid-commit): that batch never committed, so it is ignored
        for number, raw in enumerate(lines[:-1], start=1):
            if not raw.strip():
                continue
            try:
                entries.append(BatchEntry.from_json(raw.decode("utf-8")))
            except (ValueError, KeyError, TypeError) as err:
                problems.append(
                    Problem(
                        "E_MANIFEST",
                        f"{MANIFEST} line {number} cannot be read ({err}): {raw[:200]!r}",
                        MANIFEST,
                    )
                )
        return entries, problems

    def entries(self) -> list[BatchEntry]:
        """The committed batches, oldest first (an unreadable line raises)."""
        entries, problems = self._read_manifest()
        if problems:
            raise WarehouseError("E_MANIFEST", str(problems[0]))
        return entries

    def files(self, table: Table | str) -> list[Path]:
        """The committed Parquet files of one table (absolute paths), oldest batch first."""
        name = Table(table).value
        return [self.root / f.path for e in self.entries() for f in e.files if f.table == name]

    def _commit_manifest(self, entry: BatchEntry) -> None:
        """Append one batch line and fsync: the moment a batch becomes visible."""
        _append_line(self.manifest_path, entry.to_json())

    # ----- the ledger: every file ever committed ----------------------------------------
    @property
    def ledger_path(self) -> Path:
        return self.root / LEDGER

    def ledger(self) -> dict[str, str]:
        """Every file a batch ever committed (path → batch id), from ``ledger.jsonl``; a
        warehouse from before the ledger reads as its manifest's files. Unreadable lines
        are skipped: the ledger only ever makes orphan cleaning more careful."""
        try:
            data = self.ledger_path.read_bytes()
        except FileNotFoundError:
            entries, _ = self._read_manifest()
            return {f.path: e.batch_id for e in entries for f in e.files}
        except OSError as err:
            raise WarehouseError("E_WAREHOUSE", f"cannot read {self.ledger_path}: {err}") from err
        out: dict[str, str] = {}
        for raw in data.split(b"\n")[:-1]:  # a torn last line never completed
            try:
                line = json.loads(raw)
                out.update(dict.fromkeys(line["files"], str(line["batch_id"])))
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def _record_in_ledger(self, entry: BatchEntry) -> None:
        """Append a committed batch's files to the ledger (written whole the first time)."""
        if not self.ledger_path.exists():
            entries, _ = self._read_manifest()
            lines = [
                json.dumps({"batch_id": e.batch_id, "files": [f.path for f in e.files]})
                for e in entries
                if e.batch_id != entry.batch_id
            ]
            tmp = self.ledger_path.with_name(LEDGER + ".tmp")
            with tmp.open("w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.ledger_path)
        line = json.dumps({"batch_id": entry.batch_id, "files": [f.path for f in entry.files]})
        _append_line(self.ledger_path, line)

    # ----- what is stored ---------------------------------------------------------------
    def known_index(self) -> KnownGames:
        """Every stored game id with its content hash's first 64 bits, 24 bytes a game: what
        an import checks for duplicates and conflicts (:class:`KnownGames`), read at each
        import's start: the index the last import left (:meth:`save_known`) when it is that
        of the games committed now, else from every games file (the keys made on the core
        when it is built: :func:`_keys`)."""
        saved = self.saved_known()
        return saved if saved is not None else self.read_known()

    def read_known(self) -> KnownGames:
        """:meth:`known_index` read from every committed games file (O(games): 1.5 s at 1M
        games on the Intel machine, against 0.06 s for the saved index)."""
        known = KnownGames()
        for path in self.files(Table.GAMES):
            for part in pq.ParquetFile(path).iter_batches(
                batch_size=65_536, columns=["game_id", "content_hash"]
            ):
                known.add_keys(_keys(pa.Table.from_batches([part])))
        return known

    def _games_stamp(self) -> dict[str, Any]:
        """What the games index of the committed games is the index of: a digest of the
        games files (path, sha256, rows, in the manifest's order) and their games."""
        digest = hashlib.sha256()
        games = 0
        for f in (f for e in self.entries() for f in e.files if f.table == Table.GAMES.value):
            digest.update(f"{f.path}\n{f.sha256}\n{f.rows}\n".encode())
            games += f.rows
        return {"games_files": digest.hexdigest(), "games": games}

    def saved_known(self) -> KnownGames | None:
        """The index :meth:`save_known` left, memory-mapped, when its stamp is that of the
        games committed now and its file's bytes are the ones saved; else None."""
        try:
            stamp = json.loads((self.root / KNOWN_STAMP).read_text(encoding="utf-8"))
            path = self.root / KNOWN_FILE
            if {k: stamp.get(k) for k in ("games_files", "games")} != self._games_stamp():
                return None
            if file_digest(path) != stamp.get("blake2b"):
                return None
            known = KnownGames.load(path)
        except (OSError, ValueError, AttributeError):
            return None  # none left, or not readable as saved: read the games files
        return known if len(known) == stamp["games"] else None

    def save_known(self, known: KnownGames) -> bool:
        """Leave ``known``, the index of every committed game, for the next import: the
        array written beside the manifest and fsynced, then its stamp, each renamed into
        place. Best effort (whether it was saved): without it the next import reads the
        games files, as before. Only while holding the import lock."""
        stamp = self._games_stamp()
        if len(known) != stamp["games"]:  # not the index of what is committed: not saved
            return False
        path, stamp_path = self.root / KNOWN_FILE, self.root / KNOWN_STAMP
        try:
            stamp_path.unlink(missing_ok=True)  # no stamp names a file being rewritten
            tmp = path.with_name(KNOWN_FILE + ".tmp")
            stamp["blake2b"] = known.save(tmp)
            _fsync(tmp)
            os.replace(tmp, path)
            tmp = stamp_path.with_name(KNOWN_STAMP + ".tmp")
            tmp.write_text(json.dumps(stamp), encoding="utf-8")
            _fsync(tmp)
            os.replace(tmp, stamp_path)
            _fsync(self.root)
        except (OSError, MemoryError):  # a full disk, no room for the merge: read next time
            return False
        return True

    def known_rejects(
        self, files: Collection[str | None] | None = None, *, into: KnownRejects | None = None
    ) -> KnownRejects:
        """The :func:`reject_key` of every stored reject (of ``files`` only, when given: a
        filter on ``file`` pushed down to the Parquet scan, ``None`` standing for rejects
        without a file), 24 bytes a reject: what keeps a re-import from storing one twice."""
        known = KnownRejects() if into is None else into
        paths = self.files(Table.REJECTS)
        if not paths or (files is not None and not files):
            return known
        import pyarrow.dataset as ds  # here: it imports pandas, ~1.4 s a CLI start

        where: ds.Expression | None = None
        if files is not None:
            names = sorted(f for f in files if f is not None)
            where = pc.field("file").isin(pa.array(names, pa.string()))
            if None in files:
                where = where | pc.field("file").is_null()
        columns = ["file", "line", "code", "message"]
        dataset = ds.dataset([p.as_posix() for p in paths], format="parquet")
        for part in dataset.to_batches(columns=columns, filter=where, batch_size=65_536):
            cols = [part.column(c).to_pylist() for c in columns]
            known.add([reject_key(*row) for row in zip(*cols, strict=True)])
        return known

    def damage(self, *, full: bool = False) -> list[Problem]:
        """What would make an import into this warehouse store games or rejects again, or
        build on a broken file; ``[]`` when it may be imported into.

        Per manifest file (:meth:`_file_problem`): present (``E_FILE_MISSING``), of the
        manifest's size (``E_CHECKSUM``), the manifest's sha256 (``E_CHECKSUM``), a readable
        Parquet footer with the manifest's row count (``E_ROW_COUNT``); and a file the ledger
        says a batch committed that the manifest no longer names (``E_UNLISTED_FILE``).
        The sha256 of every file when ``full`` (what :meth:`verify` and :meth:`repair`
        check); else, the check before each import, only of the tables the duplicate
        indexes read (:data:`HASHED_TABLES`: games, rejects), so a flipped byte in an
        actions, seats or tricks file of the right size is left to the full check.
        """
        return self._damage(full=full)[0]

    def _damage(self, *, full: bool) -> tuple[list[Problem], dict[Path, str]]:
        """:meth:`damage`, and the sha256 of the files it hashed, by path."""
        entries = self.entries()
        digests = _sha256_files(
            self.root / f.path for e in entries for f in e.files if full or f.table in HASHED_TABLES
        )
        problems: list[Problem] = []
        for entry in entries:
            for f in entry.files:
                path = self.root / f.path
                problem = self._file_problem(
                    entry, f, hashed=full or f.table in HASHED_TABLES, digest=digests.get(path)
                )
                if problem is not None:
                    problems.append(problem)
        ledger = self.ledger()
        for path in self.orphans():
            rel = path.relative_to(self.root).as_posix()
            if rel in ledger:
                problems.append(_unlisted(rel, ledger[rel]))
        return problems, digests

    def _file_problem(
        self, entry: BatchEntry, f: ManifestFile, *, hashed: bool, digest: str | None = None
    ) -> Problem | None:
        """What is wrong with one file of the manifest, or None: missing
        (``E_FILE_MISSING``), of another size than the manifest's or, when ``hashed``,
        another sha256 (``E_CHECKSUM``; ``digest``: the file's, hashed already by the
        caller, else it is hashed here), a Parquet footer that does not read
        (``E_CHECKSUM``) or gives another row count (``E_ROW_COUNT``). The one test of a
        damaged file, for :meth:`damage` and :meth:`verify` alike; a batch with such a file
        is what :meth:`repair` sets aside."""
        where = f"{f.path} (batch {entry.batch_id}, {f.rows:,} {f.table} rows)"
        path = self.root / f.path
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return Problem("E_FILE_MISSING", f"{where} is missing", f.path)
        except OSError as err:
            return Problem("E_FILE_MISSING", f"{where}: {err}", f.path)
        if size != f.bytes:
            text = f"{where} has {size:,} bytes, the manifest says {f.bytes:,}"
            return Problem("E_CHECKSUM", text, f.path)
        if hashed:
            digest = digest or sha256_file(path)
        if digest is not None and digest != f.sha256:
            text = f"{f.path} has sha256 {digest[:16]}…, the manifest says {f.sha256[:16]}…"
            return Problem("E_CHECKSUM", text, f.path)
        try:
            rows = pq.read_metadata(path).num_rows
        except (OSError, pa.ArrowException) as err:
            text = f"{where} is not a readable Parquet file ({err})"
            return Problem("E_CHECKSUM", text, f.path)
        if rows != f.rows:
            return Problem(
                "E_ROW_COUNT", f"{f.path} holds {rows} rows, the manifest says {f.rows}", f.path
            )
        return None

    def orphans(self) -> list[Path]:
        """Files in the table folders that no committed batch names (left by a killed import)."""
        entries, _ = self._read_manifest()
        named = {self.root / f.path for e in entries for f in e.files}
        out: list[Path] = []
        for table in Table:
            folder = self.root / table.value
            if folder.is_dir():
                out.extend(p for p in sorted(folder.iterdir()) if p.is_file() and p not in named)
        return out

    def clean_orphans(self) -> list[Path]:
        """Clear the orphan files (only while holding the import lock); the paths cleared.

        A ``.tmp`` file (a batch's Parquet being written, its part files, the games index its
        workers read) is deleted: the manifest never names one. Any other orphan is
        moved to ``quarantine/<table>/``, never deleted, and a file the ledger says was
        committed is left where it is (:meth:`damage` reports it, the import refuses).
        """
        ledger = self.ledger()
        gone: list[Path] = []
        for path in self.orphans():
            rel = path.relative_to(self.root).as_posix()
            if rel in ledger:
                continue
            if path.name.endswith(".tmp"):
                path.unlink(missing_ok=True)
            else:
                self._quarantine(path)
            gone.append(path)
        return gone

    def repair(self) -> Repair:
        """Set the damage :meth:`damage` finds with every file hashed (``full``: as
        :meth:`verify` finds it) aside, so that imports and builds work again: every batch
        with a damaged file of any table leaves the manifest (rewritten atomically) and its
        files move to ``quarantine/``, as do the files the manifest lost; nothing is deleted.
        Takes the import lock. The logs of the dropped batches can then be imported again.
        What a stopped build left (:meth:`build_leftovers`) is deleted, unless a build runs.
        """
        with self._locked():
            problems, digests = self._damage(full=True)
            by_path = {f.path: e.batch_id for e in self.entries() for f in e.files}
            dropped = sorted({by_path[p.path] for p in problems if p.path in by_path})
            moved: list[Path] = []
            if dropped:
                keep: list[bytes] = []
                for raw in self.manifest_path.read_bytes().split(b"\n")[:-1]:
                    if raw.strip() and BatchEntry.from_json(raw.decode()).batch_id in dropped:
                        continue
                    keep.append(raw + b"\n")
                tmp = self.manifest_path.with_name(MANIFEST + ".tmp")
                with tmp.open("wb") as f:
                    f.write(b"".join(keep))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.manifest_path)
                _fsync(self.root)
                for rel in sorted(p for p, b in by_path.items() if b in dropped):
                    if (self.root / rel).is_file():
                        moved.append(self._quarantine(self.root / rel))
            for problem in problems:
                lost = self.root / (problem.path or "")
                if problem.code == "E_UNLISTED_FILE" and lost.is_file():
                    moved.append(self._quarantine(lost))
            deleted: list[Path] = []
            with self._build_locked(wait=False) as free:
                if free:  # else they are the running build's
                    deleted = self._clear_build_leftovers()
            return Repair(tuple(problems), tuple(dropped), tuple(moved), digests, tuple(deleted))

    def _quarantine(self, path: Path) -> Path:
        """Move one file of the warehouse to ``quarantine/<its folder>/`` (a free name)."""
        folder = self.root / QUARANTINE / path.parent.relative_to(self.root)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        n = 1
        while target.exists():
            target = folder / f"{path.name}.{n}"
            n += 1
        os.replace(path, target)
        _fsync(folder)
        _fsync(path.parent)
        return target

    # ----- imports ----------------------------------------------------------------------
    @contextlib.contextmanager
    def _usable(self, doing: str) -> Iterator[None]:
        """Turn an OS or DuckDB failure into a :class:`WarehouseError` naming the warehouse."""
        try:
            yield
        except (OSError, duckdb.Error) as err:
            code = "E_DISK_FULL" if is_disk_full(err) else "E_WAREHOUSE"
            raise WarehouseError(code, f"cannot {doing} {self.root}: {err}") from err

    def make_folder(self) -> None:
        """Create the warehouse's folder if it is missing, as an import does before it takes
        its locks; ``E_WAREHOUSE`` naming it when it cannot be (a file there, no permission).
        ``big2 simulate --ingest`` calls it before it simulates, so a bad ``-w`` is said
        before the run, not after.

        >>> import tempfile
        >>> Warehouse(tempfile.mkstemp()[1]).make_folder()
        Traceback (most recent call last):
        ...
        pipeline.warehouse.store.WarehouseError: E_WAREHOUSE: cannot write to ...: [Errno 17] File exists: ...
        """
        with self._usable("write to"):
            self.root.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[IO[str]]:
        self.make_folder()
        with self._usable("write to"):
            lock = (self.root / LOCK_FILE).open("a")
        with lock as f:
            if not _flock_soon(f.fileno()):
                raise WarehouseError(
                    "E_WAREHOUSE_BUSY", f"another import is writing to {self.root}"
                )
            try:
                yield f
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def batch(
        self,
        *,
        meta: Mapping[str, Any] | None = None,
        batch_id: str | None = None,
        flush_every: int = FLUSH_EVERY,
        reject_files: Collection[str] | None = None,
    ) -> Batch:
        """Start one import batch: takes the import lock, refuses a damaged warehouse
        (:meth:`damage`, ``E_WAREHOUSE_DAMAGED``), then clears the orphans.

        ``meta`` (JSON-able: input files, command line ...) is stored in the manifest line.
        ``reject_files``: the input files, whose stored rejects are read up front in one
        scan (those of other files are read when one of their rejects comes).
        Use as a context manager: a clean exit commits, an exception aborts.
        """
        return Batch(
            self, meta=meta, batch_id=batch_id, flush_every=flush_every, reject_files=reject_files
        )

    # ----- DuckDB -----------------------------------------------------------------------
    def _create_views(
        self, con: duckdb.DuckDBPyConnection, entries: list[BatchEntry], *, temp: bool = False
    ) -> None:
        """The base views (one per table, over exactly the manifest's files, or an empty
        table ``_empty_<table>`` of its columns when it has none) and the ``batches`` table;
        ``temp``: as TEMP objects of this session only (a reader's overlay over a stale file,
        which it must not write). An empty table is made only where a view needs one (each
        costs ~2 ms: the Arrow schema registered, copied and unregistered)."""
        kind = "temp " if temp else ""
        for table in Table:
            files = [
                ((self.root / f.path).as_posix(), f.schema)
                for e in entries
                for f in e.files
                if f.table == table.value
            ]
            if files:
                source = f"({parquet_source(files)})"
            else:
                source = f"_empty_{table.value}"
                con.register("_empty", empty(table))
                con.execute(f"create or replace {kind}table {source} as select * from _empty")
                con.unregister("_empty")
            con.execute(f"create or replace {kind}view {table.value} as select * from {source}")
        batches = [
            (e.batch_id, e.committed_at, json.dumps(e.counts), json.dumps(e.meta)) for e in entries
        ]
        con.execute(
            f"create or replace {kind}table batches "
            "(batch_id varchar, committed_at varchar, counts json, meta json)"
        )
        if batches:
            con.executemany("insert into batches values (?, ?, ?, ?)", batches)

    def _write_stamp(
        self,
        con: duckdb.DuckDBPyConnection,
        entries: list[BatchEntry],
        *,
        marts: bool,
        build_key: str = "",
    ) -> None:
        """Stamp a database file with the batches its views and marts cover (and what built
        the marts: :attr:`FileStamp.build_key`)."""
        con.execute(
            f"create or replace table {META_TABLE} (root varchar, n_batches integer, "
            "last_batch varchar, batch_ids varchar[], games bigint, marts boolean, "
            "built_at varchar, build_key varchar)"
        )
        con.execute(
            f"insert into {META_TABLE} values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                self.root.as_posix(),
                len(entries),
                entries[-1].batch_id if entries else "",
                [e.batch_id for e in entries],
                sum(int(e.counts.get("stored", 0)) for e in entries),
                marts,
                datetime.now(UTC).isoformat(timespec="seconds"),
                build_key if marts else "",
            ],
        )

    @contextlib.contextmanager
    def _build_locked(
        self, *, wait: bool = True, on_wait: Callable[[], None] | None = None
    ) -> Iterator[bool]:
        """Hold ``.build.lock``, the one writer of ``warehouse.duckdb`` (re-entrant in a
        process). Yields False, without holding it, when ``wait`` is False and it is busy;
        else waits for it, calling ``on_wait`` first."""
        key = self.root.as_posix()
        if key in _BUILD_LOCKS_HELD:
            yield True
            return
        self.make_folder()
        with self._usable("write to"):
            lock = (self.root / BUILD_LOCK_FILE).open("a")
        with lock as f:
            if not _flock_soon(f.fileno(), 0.05):
                if not wait:
                    yield False
                    return
                if on_wait is not None:
                    on_wait()
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            _BUILD_LOCKS_HELD.add(key)
            try:
                yield True
            finally:
                _BUILD_LOCKS_HELD.discard(key)
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def building(
        self, on_wait: Callable[[], None] | None = None
    ) -> contextlib.AbstractContextManager[bool]:
        """Hold the build lock around several steps, e.g. an import then its mart build, so
        that builds queue behind it and ``verify`` knows the marts are being rebuilt. Waits
        for a running build (calling ``on_wait`` first, e.g. to say so)."""
        return self._build_locked(wait=True, on_wait=on_wait)

    def publish(
        self,
        fill: Callable[[duckdb.DuckDBPyConnection], None] | None = None,
        *,
        wait: bool = True,
        on_wait: Callable[[], None] | None = None,
        from_current: bool = False,
        build_key: str = "",
    ) -> bool:
        """Write a new ``warehouse.duckdb`` and atomically put it in place.

        The new file (``warehouse.duckdb.new-…`` beside it; ``from_current``: a copy of the
        current file, whose marts ``fill`` then adds to) gets the base views over the
        manifest's files as read now, then ``fill(con)`` (the marts: ``big2 build``), then a
        stamp naming the batches covered (whether marts were built, and ``build_key``:
        :attr:`FileStamp.build_key`); it is checkpointed,
        fsynced and renamed over the old file with :func:`os.replace`. A reader that holds the
        old file keeps reading it (its open inode); a reader that opens afterwards gets the new
        one; no reader ever blocks this, nor is blocked. On any failure the new file is deleted
        and the old one stays. Only one publisher runs at a time (``.build.lock``; ``wait``
        False: return False at once when another holds it; else wait, calling ``on_wait``
        first). True when published.
        """
        with self._build_locked(wait=wait, on_wait=on_wait) as got:
            if not got:
                return False
            entries = self.entries()
            self._clear_build_leftovers()
            tmp = self.root / f"{DB_FILE}.new-{os.getpid()}-{secrets.token_hex(3)}"
            try:
                with self._usable("write the DuckDB database of"):
                    if from_current:
                        shutil.copyfile(self.db_path, tmp)
                    con = duckdb.connect(str(tmp))
                    try:
                        con.execute("begin transaction")
                        self._create_views(con, entries)
                        con.execute("commit")
                        if fill is not None:
                            fill(con)
                        con.execute("begin transaction")
                        self._write_stamp(con, entries, marts=fill is not None, build_key=build_key)
                        con.execute("commit")
                        con.execute("checkpoint")
                    finally:
                        con.close()
                    _fsync(tmp)
                    os.replace(tmp, self.db_path)
                    _fsync(self.root)
            except BaseException as err:
                tmp.unlink(missing_ok=True)
                Path(f"{tmp}.wal").unlink(missing_ok=True)
                shutil.rmtree(f"{tmp}.tmp", ignore_errors=True)  # DuckDB's, if it left it
                cause = err.__cause__
                full = cause is not None and is_disk_full(cause)  # e.g. a mart's SqlError
                if isinstance(err, Big2Error) and err.code != "E_DISK_FULL" and full:
                    raise WarehouseError(
                        "E_DISK_FULL",
                        f"cannot write the DuckDB database of {self.root}: {err.message}",
                    ) from err
                raise
            return True

    def overlay_views(self, con: duckdb.DuckDBPyConnection, batch_ids: Collection[str]) -> None:
        """TEMP base views (and ``batches``) over these committed batches' files only, which
        shadow the file's on ``con`` (its staging views and macros read them): what an
        incremental build (:func:`pipeline.sqlbuild.build`) computes the new games' rows of
        its per-game marts from. Drop them (the TEMP views and tables) to read every batch
        again."""
        self._create_views(con, [e for e in self.entries() if e.batch_id in batch_ids], temp=True)

    def refresh_views(self) -> None:
        """Publish a views-only ``warehouse.duckdb`` if it is missing or stale and holds no
        marts (a file with marts is left for the build to replace: readers overlay fresh views
        meanwhile, :meth:`connect`). Skipped while a build runs (that build, or the next one,
        covers the new batches)."""
        stamp = self.file_stamp()
        if stamp is not None and (stamp.marts or stamp.views_match(self.root, self.entries())):
            return
        self.publish(wait=False)

    def file_stamp(self) -> FileStamp | None:
        """What ``warehouse.duckdb`` covers, read without writing; None without a file (or
        a file written before stamps listed their batches)."""
        if not self.db_path.is_file():
            return None
        con = duckdb.connect()
        try:
            with self._usable("open the DuckDB database of"):
                con.execute(f"attach {_sql_str(self.db_path.as_posix())} as db (read_only)")
            return _read_stamp(con, "db")
        finally:
            con.close()

    def connect(self, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
        """A read-only connection to the warehouse: ``warehouse.duckdb`` attached read-only
        (as database ``warehouse``, the default one), with the base views made fresh.

        It never writes: when the file's views do not cover exactly the committed batches
        (an import committed since the last build, or the warehouse moved), or there is no
        file yet, this session gets TEMP views over the manifest's files that shadow the
        file's (the file's staging views and macros read them too; its marts stay as built:
        :meth:`verify` reports marts that are stale). Each call opens the file anew, so it
        sees the latest build even if this process holds an older connection.
        """
        if not read_only:
            raise WarehouseError(
                "E_WAREHOUSE_READ_ONLY",
                f"{self.db_path} is written only by a build (Warehouse.publish), never in place",
            )
        entries = self.entries()
        with self._usable("open the DuckDB database of"):
            con = duckdb.connect()
            try:
                stamp: FileStamp | None = None
                if self.db_path.is_file():
                    con.execute(
                        f"attach {_sql_str(self.db_path.as_posix())} as warehouse (read_only)"
                    )
                    con.execute("use warehouse")
                    stamp = _read_stamp(con, "warehouse")
                if stamp is None or not stamp.views_match(self.root, entries):
                    try:
                        self._create_views(con, entries, temp=True)
                    except duckdb.Error as err:  # DuckDB's many lines, echoing the views
                        raise self.missing_files_error(entries) or err from err
            except BaseException:
                con.close()
                raise
            return con

    def missing_files_error(self, entries: list[BatchEntry] | None = None) -> WarehouseError | None:
        """``E_WAREHOUSE`` in one line naming the first committed file of ``entries`` (default
        the manifest's) that is not on disk, how many more, and the way out (``big2 verify``,
        ``big2 verify --repair``); None when every file is there. For a reader whose query
        failed: a missing file is why, rather than DuckDB's error echoing the views.

        >>> import tempfile
        >>> Warehouse(tempfile.mkdtemp()).missing_files_error() is None
        True
        """
        entries = self.entries() if entries is None else entries
        missing = [
            self._file_problem(entry, f, hashed=False)
            for entry in entries
            for f in entry.files
            if not (self.root / f.path).is_file()
        ]
        problems = [p for p in missing if p is not None]
        if not problems:
            return None
        more = f" (and {plural(len(problems) - 1, 'more file')})" if len(problems) > 1 else ""
        return WarehouseError(
            "E_WAREHOUSE",
            f"{self.root} is damaged: {problems[0].message}{more}; `big2 verify` lists every "
            f"problem, `big2 verify --repair` moves the damaged batches' files to {QUARANTINE}/ "
            f"and drops those batches from {MANIFEST} (then import their logs again)",
            problems=problems,
        )

    def import_running(self) -> bool:
        """Whether an import holds the lock now (checked without creating or writing a file)."""
        return _lock_held(self.root / LOCK_FILE)

    def build_leftovers(self) -> list[Path]:
        """What a stopped build left beside ``warehouse.duckdb`` (its new file, the file's WAL,
        the folder DuckDB spilled to: ``warehouse.duckdb.new-…``), sorted; the running build's
        own while one runs. The next build deletes them (:meth:`publish`)."""
        return sorted(self.root.glob(f"{DB_FILE}.new-*"))

    def _clear_build_leftovers(self) -> list[Path]:
        """Delete :meth:`build_leftovers` (only while holding the build lock); those deleted."""
        gone = self.build_leftovers()
        for stale in gone:
            if stale.is_dir():  # DuckDB's temporary folder: what a build spilled
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)
        return gone

    def build_running(self) -> bool:
        """Whether a build (or an import followed by its build) holds the build lock now."""
        return _lock_held(self.root / BUILD_LOCK_FILE)

    def marts_problem(self, entries: list[BatchEntry] | None = None) -> Problem | None:
        """``E_MARTS_STALE`` when ``warehouse.duckdb`` holds marts built over other batches
        than the manifest's (a build failed or was skipped after an import, or a batch was
        dropped by a repair), or holds no marts (none built yet: ``ingest --no-build``) while
        a batch committed files; else None. A batch that committed no file (a re-import that
        stored nothing new) changes no mart and is not counted, so a warehouse whose batches
        stored nothing needs no build.

        >>> import tempfile
        >>> wh = Warehouse(tempfile.mkdtemp())
        >>> with wh.batch() as batch:
        ...     pass
        >>> wh.marts_problem() is None
        True
        """
        entries = self.entries() if entries is None else entries
        with_files = {e.batch_id for e in entries if e.files}
        stamp = self.file_stamp()
        covered = set(stamp.batch_ids) if stamp is not None and stamp.marts else set()
        if with_files <= covered <= {e.batch_id for e in entries}:
            return None
        total = sum(int(e.counts.get("stored", 0)) for e in entries)
        if stamp is None or not stamp.marts:
            return Problem(
                "E_MARTS_STALE",
                f"no marts are built in {DB_FILE}: they cover 0 of {total:,} games (0 of "
                f"{len(entries)} batches): run `big2 build`",
                DB_FILE,
            )
        games = sum(int(e.counts.get("stored", 0)) for e in entries if e.batch_id in covered)
        n_covered = sum(1 for e in entries if e.batch_id in covered)
        gone = sorted(covered - {e.batch_id for e in entries})
        dropped = (
            f" and {plural(len(gone), 'batch')} no longer in {MANIFEST} ({', '.join(gone[:3])}"
            f"{', …' if len(gone) > 3 else ''}: dropped by `big2 verify --repair`?)"
            if gone
            else ""
        )
        return Problem(
            "E_MARTS_STALE",
            f"the marts in {DB_FILE} cover {games:,} of {total:,} games ({n_covered} of "
            f"{len(entries)} batches; built {stamp.built_at}){dropped}: run `big2 build`",
            DB_FILE,
        )

    # ----- verify -----------------------------------------------------------------------
    def verify(self, *, marts: bool = True) -> list[Problem]:
        """Check the warehouse; every problem found (an empty list when all is well).

        Checks: the manifest reads; every manifest file is present, with its sha256 and row
        count; no game is stored twice; per game, the actions rows match ``n_actions``, the
        seats rows match ``players`` and the tricks rows match ``n_tricks``; no child row
        without its game; no orphan file (while no import runs), a file the ledger says a batch
        committed being ``E_UNLISTED_FILE`` as for an import; and unless ``marts`` is
        False (the stored data only), marts built over the manifest's batches (while no
        build runs; :meth:`marts_problem`: stale, or none built). See :meth:`verify_report`.
        """
        return self.verify_report(marts=marts).problems

    def verify_report(
        self, *, marts: bool = True, hashed: Mapping[Path, str] | None = None
    ) -> VerifyReport:
        """:meth:`verify`'s problems, plus what is in progress: while an import holds the lock,
        the files no committed batch names are that import's (not orphans), and while a build
        holds the build lock, stale marts are being rebuilt (not a problem). Reads only.
        ``hashed``: the sha256 of files, by path, that this check may take instead of hashing
        them again (:attr:`Repair.digests`, hashed by the repair just before it; a committed
        file is never written again); the others are hashed here."""
        importing = self.import_running()
        entries, problems = self._read_manifest()
        known = hashed or {}
        digests = {
            **known,
            **_sha256_files(
                self.root / f.path
                for e in entries
                for f in e.files
                if self.root / f.path not in known
            ),
        }
        good: dict[str, list[tuple[str, str]]] = {t.value: [] for t in Table}
        seen_paths: set[str] = set()
        for entry in entries:
            for f in entry.files:
                path = self.root / f.path
                if f.path in seen_paths:
                    problems.append(
                        Problem("E_MANIFEST", f"{f.path} is named by two batches", f.path)
                    )
                    continue
                seen_paths.add(f.path)
                if f.table not in good:
                    problems.append(
                        Problem("E_MANIFEST", f"{f.path}: unknown table {f.table!r}", f.path)
                    )
                    continue
                problem = self._file_problem(entry, f, hashed=True, digest=digests.get(path))
                if problem is not None:
                    problems.append(problem)
                    continue
                good[f.table].append((path.as_posix(), f.schema))
        problems.extend(self._verify_rows(good))
        orphans = [p.relative_to(self.root).as_posix() for p in self.orphans()]
        importing = importing or self.import_running()
        if not importing:
            ledger = self.ledger() if orphans else {}
            problems.extend(
                _unlisted(rel, ledger[rel])  # what the next import refuses, not an orphan
                if rel in ledger
                else Problem(
                    "E_ORPHAN_FILE",
                    f"{rel} is in no committed batch "
                    "(left by an interrupted import; the next import deletes it if it is a "
                    "`.tmp`, else moves it to quarantine/)",
                    rel,
                )
                for rel in orphans
            )
        left = self.build_leftovers()
        if left and not self.build_running():  # else they are the running build's
            problems.extend(_leftover(self.root, path) for path in left if path.exists())
        building = False
        stale = None
        if marts:
            with self._usable("open the DuckDB database of"):
                stale = self.marts_problem(entries)
        if stale is not None:
            building = self.build_running()
            if not building:
                problems.append(stale)
        return VerifyReport(
            problems=problems,
            in_progress=tuple(orphans) if importing else (),
            import_running=importing,
            build_running=building,
        )

    def _verify_rows(self, files: dict[str, list[tuple[str, str]]]) -> list[Problem]:
        con = duckdb.connect()
        try:
            for table in Table:
                paths = files[table.value]
                if paths:
                    src = f"({parquet_source(paths)})"
                else:
                    src = f"_empty_{table.value}"
                    con.register(src, empty(table))
                con.execute(f"create view {table.value} as select * from {src}")
            problems = _examples(
                con,
                "E_DUPLICATE_GAME",
                "select game_id, count(*) from games group by game_id having count(*) > 1 order by 1",
                "game {0!r} is stored {1} times",
            )
            # each child table counted per game once, for both its checks (at 1M games 3.5 →
            # 2.1 s against a count and an orphan scan apiece)
            children = {
                "actions": ("n_actions", "E_ACTION_ROWS"),
                "seats": ("players", "E_SEAT_ROWS"),
                "tricks": ("n_tricks", "E_TRICK_ROWS"),
            }
            for child, (column, _) in children.items():
                con.execute(f"create temp table {child}_problems as {_rows_check(child, column)}")
            for child, (column, code) in children.items():
                problems.extend(
                    _examples(
                        con,
                        code,
                        f"select game_id, want, n from {child}_problems where not is_orphan "
                        "order by game_id",
                        f"game {{0!r}} has {{2}} {child} rows, games.{column} says {{1}}",
                    )
                )
            for child in ("seats", "actions", "tricks"):
                problems.extend(
                    _examples(
                        con,
                        "E_ORPHAN_ROWS",
                        f"select game_id, n from {child}_problems where is_orphan order by 1",
                        f"game {{0!r}} has {{1}} {child} rows but no games row",
                    )
                )
            return problems
        finally:
            con.close()


def _unlisted(rel: str, batch_id: str) -> Problem:
    """``E_UNLISTED_FILE``: ``rel``, which the ledger says batch ``batch_id`` committed, is
    named by no manifest line (the one wording of :meth:`Warehouse.damage` and
    :meth:`Warehouse.verify`).

    >>> print(_unlisted("games/b.parquet", "b1"))
    E_UNLISTED_FILE: games/b.parquet was committed by batch b1, but manifest.jsonl no longer names it (a lost or edited manifest line)
    """
    text = (
        f"{rel} was committed by batch {batch_id}, but {MANIFEST} no longer "
        "names it (a lost or edited manifest line)"
    )
    return Problem("E_UNLISTED_FILE", text, rel)


def _leftover(root: Path, path: Path) -> Problem:
    """``E_BUILD_LEFTOVER``: ``path``, beside ``warehouse.duckdb``, was left by a build that
    was stopped (killed, or the machine went down) and takes disk space; nothing reads it.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "warehouse.duckdb.new-7-abc123").write_bytes(b"x" * 3_000_000)
    3000000
    >>> print(_leftover(root, root / "warehouse.duckdb.new-7-abc123"))
    E_BUILD_LEFTOVER: warehouse.duckdb.new-7-abc123 (3.0 MB) was left by a build that was stopped; nothing reads it: the next build deletes it, or `big2 verify --repair` now
    """
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files if p.exists())
    rel = path.relative_to(root).as_posix()
    text = (
        f"{rel} ({size / 1e6:,.1f} MB) was left by a build that was stopped; nothing reads it: "
        "the next build deletes it, or `big2 verify --repair` now"
    )
    return Problem("E_BUILD_LEFTOVER", text, rel)


def damaged_error(warehouse: Warehouse, problems: list[Problem]) -> WarehouseError:
    """The ``E_WAREHOUSE_DAMAGED`` error of an import refused: the first problems, and how
    to repair the warehouse."""
    shown = "; ".join(str(p) for p in problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    lost = any(p.code == "E_UNLISTED_FILE" for p in problems)
    how = (
        "restore the file(s) from a backup"
        + (f", or {MANIFEST} if it lost lines (the files are still in place)" if lost else "")
        + "; or run `big2 verify --repair` to move the damaged batches' files to "
        f"{QUARANTINE}/ and drop those batches from {MANIFEST}, then import their logs again"
    )
    return WarehouseError(
        DAMAGED_CODE,
        f"{warehouse.root} is damaged, nothing was imported: {shown}{more}. "
        f"`big2 verify` lists every problem. To repair: {how}",
        problems=problems,
    )


def _rows_check(child: str, column: str) -> str:
    """The games whose ``child`` rows are not as many as ``games.column`` says (``want``, summed
    over a game's ``games`` rows), and the games of ``child`` rows that no ``games`` row has
    (``is_orphan``); ``n`` the ``child`` rows of each."""
    return (
        f"with g as (select game_id, sum({column}) as want, true as known from games "
        "group by game_id), "
        f"c as (select game_id, count(*) as n from {child} where game_id is not null "
        "group by game_id) "
        "select coalesce(g.game_id, c.game_id) as game_id, g.known is null as is_orphan, "
        "g.want, coalesce(c.n, 0) as n "
        "from g full join c on c.game_id = g.game_id "
        "where g.known is null or coalesce(c.n, 0) <> g.want"
    )


def _examples(con: duckdb.DuckDBPyConnection, code: str, sql: str, text: str) -> list[Problem]:
    rows = con.execute(sql + f" limit {_MAX_EXAMPLES + 1}").fetchall()
    out = [Problem(code, text.format(*row)) for row in rows[:_MAX_EXAMPLES]]
    if len(rows) > _MAX_EXAMPLES:
        (total,) = con.execute(f"select count(*) from ({sql})").fetchone() or (0,)
        out.append(Problem(code, f"… {total - _MAX_EXAMPLES} more like these"))
    return out


#: Numbers stored delta-encoded (increasing numbers: 12% smaller actions files).
DELTA_COLUMNS: dict[Table, tuple[str, ...]] = {Table.ACTIONS: ("ts",)}


#: Columns stored without a dictionary: about one distinct value a row in a chunk (a game's
#: id and hash in its one games row, a deal, a hand before an action). Their dictionary was
#: built and thrown away (pyarrow falls back to plain past 1 MB of it); without it, writing
#: costs ~9 % less CPU and the files are ~8 % smaller, queries alike (docs/warehouse.md).
#: Their texts are DELTA_LENGTH_BYTE_ARRAY: the lengths apart from the values, which zstd then
#: finds longer repeats in (the columns 3-7 % smaller, written and read faster).
NO_DICTIONARY: dict[Table, frozenset[str]] = {
    Table.GAMES: frozenset({"game_id", "content_hash", "started_at", "source_line"}),
    Table.SEATS: frozenset({"deal_mask", "deal_text", "final_hand_mask", "final_hand_text"}),
    Table.ACTIONS: frozenset({"hand_before_mask", "hand_before_text"}),
}
#: Columns stored without min/max statistics: card masks and texts, hashes, messages and lists,
#: on which no query filters by range (DuckDB prunes row groups by the others' statistics).
NO_STATISTICS = frozenset(
    {"content_hash", "overrides", "raw", "message", "unchecked", "cards_left"}
)


#: Each table's card-text columns and the mask or card each is printed from (``COLUMNS``: a
#: column read with the card printer): the core's writer takes a text's dictionary from its
#: mask's instead of hashing the texts (the same bytes).
TEXT_OF: dict[Table, dict[str, str]] = {
    table: {c.name: c.inputs[0] for c in columns if PRINTER in c.inputs}
    for table, columns in COLUMNS.items()
}


def _has_statistics(column: str) -> bool:
    return column not in NO_STATISTICS and not column.endswith(("_mask", "_text"))


def _writer_options(table: Table) -> dict[str, Any]:
    """The Parquet writer's options of a table's files: zstd (level 1), a dictionary and
    statistics per column except ``NO_DICTIONARY`` / ``NO_STATISTICS`` (and the masks and
    texts), ``DELTA_COLUMNS`` delta-encoded, the texts of ``NO_DICTIONARY`` with their
    lengths apart.

    >>> options = _writer_options(Table.ACTIONS)
    >>> "ts" in options["use_dictionary"], "hand_before_text" in options["write_statistics"]
    (False, False)
    >>> options["column_encoding"]
    {'ts': 'DELTA_BINARY_PACKED', 'hand_before_text': 'DELTA_LENGTH_BYTE_ARRAY'}
    """
    names = SCHEMAS[table].names
    delta = DELTA_COLUMNS.get(table, ())
    plain = NO_DICTIONARY.get(table, frozenset())
    lists = {f.name for f in SCHEMAS[table] if pa.types.is_list(f.type)}
    options: dict[str, Any] = {
        "compression": "zstd",
        # a list's values by their path: pyarrow takes no dictionary for the list's name
        "use_dictionary": [
            f"{n}.list.element" if n in lists else n
            for n in names
            if n not in delta and n not in plain
        ],
        "write_statistics": [n for n in names if _has_statistics(n)],
    }
    texts = [f.name for f in SCHEMAS[table] if f.name in plain and pa.types.is_string(f.type)]
    encodings = dict.fromkeys(delta, "DELTA_BINARY_PACKED")
    encodings.update(dict.fromkeys(texts, "DELTA_LENGTH_BYTE_ARRAY"))
    if encodings:
        options["column_encoding"] = encodings
    return options


@dataclass(frozen=True, slots=True)
class PartSpec:
    """What an import worker needs to write part files of a batch (picklable, small): the
    warehouse root, the batch id, and the games index the batch started with (a ``.npy``
    file, :meth:`KnownGames.save`; ``""`` when the warehouse held no game)."""

    root: str
    batch_id: str
    known: str


@dataclass(frozen=True, slots=True)
class PartFile:
    """One Parquet part file of a batch, written but not committed (``path`` + ``.tmp``)."""

    table: str
    path: str  # the committed name, relative to the root
    sha256: str
    rows: int
    bytes: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game a worker found in the warehouse already (same id): a duplicate when ``known``
    (the stored content prefix) equals ``digest``, else a conflict; what the batch needs to
    count it and to write the conflict's reject."""

    game_id: str
    digest: str  # 16 hex digits
    known: str
    source: Source | None


@dataclass(frozen=True, slots=True)
class Part:
    """What a worker hands back for the games of one chunk (:func:`write_part`): its files,
    the keys of the games written (:func:`game_keys` rows, in the order of the games rows)
    and the games it left out because the warehouse holds them."""

    number: int
    files: tuple[PartFile, ...]
    keys: U64
    stored: tuple[StoredGame, ...] = ()
    #: Part files the worker wrote before this chunk's, fsynced (:func:`synced`): the commit
    #: need not fsync them again (each fsync costs a flush of the disk's cache, synced or not).
    synced: tuple[str, ...] = ()
    #: the file each key's game was read from (its ``source_file``), for a part of several
    #: files' games (``write_part(..., by_file=True)``); else None
    key_files: tuple[str | None, ...] | None = None


#: The tables of a part file (the rejects stay with the batch: they are deduplicated there).
PART_TABLES = (Table.GAMES, Table.SEATS, Table.ACTIONS, Table.TRICKS)

#: The games index a worker process read last (path → the file's inode and change time, and the
#: index): read once per batch, again when the file at that path is another (the saved index,
#: :data:`KNOWN_FILE`, is replaced at each commit).
_WORKER_KNOWN: dict[str, tuple[tuple[int, int], KnownGames]] = {}
_KNOWN_LOCK = threading.Lock()


def _part_rel(table: Table | str, batch_id: str, number: int) -> str:
    return f"{Table(table).value}/batch-{batch_id}.part-{number:05d}.parquet"


@functools.cache
def _footer_metadata(schema: pa.Schema) -> list[tuple[str, str]]:
    """The key-value pairs pyarrow writes in the footer of a file of this schema: the
    schema's own, then ``ARROW:schema`` (base64 of the schema's IPC serialisation), which gives
    a reader the exact Arrow types back. (Computed, not read off a file pyarrow writes: its
    first write in a process imports pandas, ~0.25 s of each import worker's time.)"""
    own = [(k.decode(), v.decode()) for k, v in (schema.metadata or {}).items()]
    return [*own, ("ARROW:schema", base64.b64encode(schema.serialize().to_pybytes()).decode())]


def _write_file(path: Path, table: Table, rows: pa.Table) -> tuple[str, int]:
    """Write one Parquet file whole and start its fsync (:func:`_sync_soon`); its sha256 and
    size. On the native core (:func:`pipeline.native.write_parquet`, about half pyarrow's
    CPU: ``bench native.parquet``), else with pyarrow: the same options
    (:func:`_writer_options`), files read alike by pyarrow and DuckDB
    (``tests/native/test_parquet.py``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    options = _writer_options(table)
    # the record batches as the core reads them (none to export on the pure Python path)
    batches = [b.__arrow_c_array__() for b in rows.to_batches()] if native.available() else []
    written = None
    if batches:
        written = native.write_parquet(
            str(path),
            batches,
            dictionary=options["use_dictionary"],
            statistics=options["write_statistics"],
            delta=options.get("column_encoding", {}),
            follows=TEXT_OF.get(table, {}),
            metadata=_footer_metadata(rows.schema),
        )
    if written is None:
        pq.write_table(rows, path, **options)
    _sync_soon(path)  # here, not in the core: every durable step is os.fsync's
    return written or (sha256_file(path), path.stat().st_size)


def _spec_known(spec: PartSpec) -> KnownGames | None:
    if not spec.known:
        return None
    with _KNOWN_LOCK:  # read once, whichever of an import's threads asks first
        st = os.stat(spec.known)
        which = (st.st_ino, st.st_ctime_ns)
        held = _WORKER_KNOWN.get(spec.known)
        if held is not None and held[0] == which:
            return held[1]
        _WORKER_KNOWN.clear()
        known = KnownGames.load(Path(spec.known))
        _WORKER_KNOWN[spec.known] = (which, known)
    return known


def _keys(games: pa.Table) -> U64:
    """:func:`game_keys` of the games' ``game_id`` and ``content_hash`` columns: on the core
    when it is built (no Python string a game), else in Python."""
    batch = games.combine_chunks().to_batches()
    if len(batch) == 1 and (raw := native.game_keys(batch[0].__arrow_c_array__())) is not None:
        return np.frombuffer(raw, dtype="<u8").reshape(-1, 3).astype(np.uint64)
    ids, hashes = (c.to_pylist() for c in games.columns)
    return game_keys(ids, hashes)


def write_part(
    spec: PartSpec, number: int, tables: Mapping[Table, pa.Table], *, by_file: bool = False
) -> Part:
    """Write the games, seats, actions and tricks rows of one chunk as part ``number`` of a
    batch (in an import worker, or in the import's own process: the same way): the games the
    warehouse holds already are left out (judged against the batch's games index, the one
    rule :meth:`KnownGames.judge`) and handed back for the batch to count; the rest go to
    ``<table>/batch-<id>.part-<n>.parquet.tmp``, their fsyncs started, which only
    :meth:`Batch.commit` renames and names in the manifest. The part hands back the files
    this process wrote before, now fsynced (:func:`synced`). ``by_file``: the part also names
    the file of each game it wrote (``Part.key_files``: the games of several files)."""
    done = synced()
    games = tables.get(Table.GAMES)
    if games is None or not games.num_rows:
        return Part(number, (), np.empty((0, 3), np.uint64), synced=done)
    keys = _keys(games.select(["game_id", "content_hash"]))
    stored: list[StoredGame] = []
    wanted: pa.Array | None = None
    known = _spec_known(spec)
    files: list[str | None] = games["source_file"].to_pylist() if by_file else []
    if known is not None:
        verdicts, prefixes = known.judge(keys)
        new = verdicts == NEW
        if not new.all():
            ids, hashes = (games[c].to_pylist() for c in ("game_id", "content_hash"))
            files = files if by_file else games["source_file"].to_pylist()
            lines = games["source_line"].to_pylist()
            for i in np.flatnonzero(~new).tolist():
                file = files[i]
                src = None if file is None else Source(file, lines[i] or 0)
                stored.append(StoredGame(ids[i], hashes[i][:16], hex_prefix(prefixes[i]), src))
            keys = keys[new]
            wanted = pa.array([g for g, n in zip(ids, new.tolist(), strict=True) if n], pa.string())
            files = [f for f, n in zip(files, new.tolist(), strict=True) if n]
    root = Path(spec.root)
    out: list[PartFile] = []
    for table in PART_TABLES:
        rows = tables.get(table)
        if rows is None or not rows.num_rows:
            continue
        if wanted is not None:
            rows = rows.filter(pc.is_in(rows["game_id"], value_set=wanted))
            if not rows.num_rows:
                continue
        rows = rows.select(SCHEMAS[table].names).cast(SCHEMAS[table])
        rel = _part_rel(table, spec.batch_id, number)
        digest, size = _write_file(root / (rel + ".tmp"), table, rows)
        out.append(PartFile(table.value, rel, digest, rows.num_rows, size))
    return Part(number, tuple(out), keys, tuple(stored), done, tuple(files) if by_file else None)


class Batch:
    """One import: add games and rejects, then :meth:`commit` (all visible) or :meth:`abort`.

    Rows are buffered and written as row groups every ``flush_every`` games, so memory does
    not grow with the batch. Duplicate detection covers the warehouse and the batch itself.
    An import's workers write their own part files instead (:meth:`part_spec`,
    :func:`write_part`, :meth:`add_part`): the batch then handles only their games' keys.
    """

    def __init__(
        self,
        warehouse: Warehouse,
        *,
        meta: Mapping[str, Any] | None = None,
        batch_id: str | None = None,
        flush_every: int = FLUSH_EVERY,
        reject_files: Collection[str] | None = None,
    ) -> None:
        self.warehouse = warehouse
        self.batch_id = batch_id or new_batch_id()
        self.meta = dict(meta or {})
        self.flush_every = flush_every
        self._lock_cm = warehouse._locked()
        self._lock_cm.__enter__()
        self._open = True
        self._committing = False  # the manifest append began: whether it landed is unknown
        try:
            warehouse.entries()  # refuse an unreadable manifest before writing anything
            problems = warehouse.damage()
            if problems:
                raise damaged_error(warehouse, problems)
            warehouse.clean_orphans()
            saved = warehouse.saved_known()
            self._known = saved if saved is not None else warehouse.read_known()
            # the games of the saved index the batch started from (None: read from the files,
            # saved at the commit even with no game stored); while the batch's index holds no
            # more, the workers read that file itself (part_spec), not a copy
            self._saved_games = None if saved is None else len(saved)
            # the stored rejects of the files being imported; those of any other file are
            # read the first time one of its rejects comes (see _load_rejects)
            self._reject_files: set[str | None] = set(reject_files or ())
            self._known_rejects = warehouse.known_rejects(self._reject_files)
        except BaseException:
            self._release()
            raise
        self._rows = RowBuffer(self.batch_id)
        self._spec: PartSpec | None = None
        self._parts: list[PartFile] = []
        self._synced: set[str] = set()  # part files fsynced by their writers
        self._part_numbers = 0
        self._writers: dict[Table, pq.ParquetWriter] = {}
        self._counts: dict[Table, int] = {t: 0 for t in Table}
        self.stored = self.duplicates = self.conflicts = 0
        self.rejects = self.duplicate_rejects = 0
        # E_CONFLICT rejects whose record is not at hand (a part's game), by the file their
        # source names, with the content prefix the record hashed to: stored by read_back,
        # else by the commit without it
        self._unread: dict[str, list[tuple[_Conflict, str]]] = {}

    # ----- paths ------------------------------------------------------------------------
    def _rel(self, table: Table) -> str:
        return f"{table.value}/batch-{self.batch_id}.parquet"

    def _tmp(self, table: Table) -> Path:
        return self.warehouse.root / (self._rel(table) + ".tmp")

    # ----- adding -----------------------------------------------------------------------
    def _check_open(self) -> None:
        if not self._open:
            raise WarehouseError("E_BATCH_CLOSED", f"batch {self.batch_id} is already closed")

    def add_game(
        self,
        game: ReplayedGameLike,
        *,
        source: Source | None = None,
        raw: str | bytes | None = None,
    ) -> Added:
        """Store a replayed game unless its id is known: same content is a duplicate, other
        content a conflict (an ``E_CONFLICT`` reject; ``source`` and ``raw`` default to the
        record's own). :meth:`_admit` decides, as for :meth:`add_rows`."""
        self._check_open()
        record = game.record
        src = source if source is not None else record.source
        (verdict,) = self._admit(
            game_keys([record.game_id], [record.content_hash]),
            lambda _: record.game_id,
            lambda _: src,
            lambda _: raw if raw is not None else record.raw,
        )
        if verdict is Added.STORED:
            self._rows.add_game(game)
            if self._rows.n_games >= self.flush_every:
                self._flush()
        return verdict

    def add_known(
        self, games: Sequence[tuple[str, str, Source | None, str | bytes | None]]
    ) -> list[Added | None]:
        """Games whose ids the batch or the warehouse hold already, ``(game_id, content_hash,
        source, raw)``, judged by id and content hash alone, in one look-up (no rows): each a
        duplicate or a conflict (its reject keeps ``raw``), counted as :meth:`add_game`
        counts it; None, not counted, for a game whose id is new (then :meth:`add_game` it,
        replayed). An id may come more than once."""
        self._check_open()
        out: list[Added | None] = [None] * len(games)
        if not games:
            return out
        keys = game_keys([g[0] for g in games], [g[1] for g in games])
        held = np.flatnonzero(self._known.judge(keys)[0] != NEW).tolist()
        # through the one door: ids it holds already, so none is remembered (twice or not)
        verdicts = self._admit(
            keys[held],
            lambda k: games[held[k]][0],
            lambda k: games[held[k]][2],
            lambda k: games[held[k]][3],
        )
        for i, verdict in zip(held, verdicts, strict=True):
            out[i] = verdict
        return out

    def add_rows(self, tables: Mapping[Table, pa.Table]) -> dict[Added, int]:
        """Store rows built elsewhere, e.g. by :meth:`RowBuffer.take` in a worker process.

        The games table must not repeat a game id (a :class:`RowBuffer` never does). Games
        already stored are dropped with their seats, actions and tricks rows, as duplicates
        or conflicts (``E_CONFLICT`` rejects naming the games row's source file and line;
        ``raw`` is not available here): :meth:`_admit` decides, as for :meth:`add_game`.
        Rejects rows (as a :class:`RowBuffer` builds them) are deduplicated like
        :meth:`add_reject` and stored as they are. Returns how many games were stored /
        duplicate / conflicting.
        """
        self._check_open()
        counts = dict.fromkeys(Added, 0)
        games = tables.get(Table.GAMES)
        wanted: pa.Array | None = None
        if games is not None and games.num_rows:
            cols = games.select(["game_id", "content_hash", "source_file", "source_line"])
            ids, hashes, files, lines = (c.to_pylist() for c in cols.columns)

            def source(i: int) -> Source | None:
                return None if files[i] is None else Source(files[i], lines[i] or 0)

            if len(set(ids)) != len(ids):
                raise WarehouseError("E_BATCH_ROWS", "add_rows: the games table repeats a game id")
            verdicts = self._admit(game_keys(ids, hashes), ids.__getitem__, source, lambda _: None)
            for verdict in verdicts:
                counts[verdict] += 1
            if counts[Added.STORED] < len(ids):
                keep = [g for g, v in zip(ids, verdicts, strict=True) if v is Added.STORED]
                wanted = pa.array(keep, pa.string())
        self._flush()
        for table in (Table.GAMES, Table.SEATS, Table.ACTIONS, Table.TRICKS):
            rows = tables.get(table)
            if rows is None or not rows.num_rows:
                continue
            if wanted is not None:
                rows = rows.filter(pc.is_in(rows["game_id"], value_set=wanted))
            self._write(table, rows.select(SCHEMAS[table].names).cast(SCHEMAS[table]))
        rejects = tables.get(Table.REJECTS)
        if rejects is not None and rejects.num_rows:
            self._add_reject_rows(rejects)
        return counts

    def _admit(
        self,
        keys: U64,
        game_id: Callable[[int], str],
        source: Callable[[int], Source | None],
        raw: Callable[[int], str | bytes | None],
    ) -> list[Added]:
        """The one door for games (:func:`game_keys` rows, no id twice): per game, whether it
        is new (remembered now), a duplicate (stored with the same content hash) or a
        conflict (stored with another: its ``E_CONFLICT`` reject is added, from
        ``game_id(i)``, ``source(i)`` and ``raw(i)``); counted. The verdict is
        :meth:`KnownGames.judge`'s; a game with no id in the batch costs no Python step."""
        verdicts, known = self._known.judge(keys)
        new = verdicts == NEW
        self._known.add_keys(keys[new])
        out = [Added.STORED] * len(new)
        for i in np.flatnonzero(~new).tolist():
            digest = hex_prefix(keys[i, 2])
            out[i] = self._settle(
                StoredGame(game_id(i), digest, hex_prefix(known[i]), source(i)), raw(i)
            )
        self.stored += out.count(Added.STORED)
        return out

    def _settle(self, game: StoredGame, raw: str | bytes | None) -> Added:
        """Count a game whose id is stored already: a duplicate, or a conflict (its reject)."""
        if game.known == game.digest:
            self.duplicates += 1
            return Added.DUPLICATE
        self.conflicts += 1
        conflict = self._conflict(game.game_id, game.known, game.digest, game.source, raw)
        if raw is None and game.source is not None:  # its record is read back (read_back)
            self._unread.setdefault(game.source.file, []).append((conflict, game.digest))
        else:
            self.add_reject(conflict)
        return Added.CONFLICT

    def unread(self) -> dict[str, int]:
        """The ``E_CONFLICT`` rejects waiting for their record (:meth:`read_back`), by file."""
        return {file: len(waiting) for file, waiting in self._unread.items()}

    def read_back(self, file: str, read: Callable[[list[int]], Mapping[int, ReadBack]]) -> None:
        """Store the ``E_CONFLICT`` rejects of ``file`` that wait for their record (a game a
        worker's part held: the batch has its id, hash and source, not its text). ``read``
        gets their lines, in order, and answers what it reads there; a record is kept when
        its game id and content hash are the conflict's (the file unchanged since), else
        the reject is stored without it, as it is by the commit when nothing reads it."""
        waiting = self._unread.pop(file, [])
        if not waiting:
            return
        found = read(sorted({c.source.line for c, _ in waiting if c.source is not None}))
        rejects = []
        for conflict, digest in waiting:
            got = None if conflict.source is None else found.get(conflict.source.line)
            if got is not None and got.game_id == conflict.game_id and got.digest[:16] == digest:
                c = conflict
                conflict = _Conflict(
                    c.source, c.game_id, c.action_index, c.code, c.message, got.raw
                )
            rejects.append(conflict)
        self._add_rejects(rejects)

    def _add_rejects(self, rejects: Sequence[RejectLike]) -> None:
        """:meth:`add_reject` for several: one look-up for them all."""
        sources = [r.source for r in rejects]
        for i in self._fresh_rejects(
            [None if s is None else s.file for s in sources],
            [None if s is None else s.line for s in sources],
            [r.code for r in rejects],
            [r.message for r in rejects],
        ):
            self._rows.add_reject(rejects[i])
            if self._rows.n_rejects >= self.flush_every:
                self._flush()

    # ----- part files written by workers --------------------------------------------------
    def part_spec(self) -> PartSpec:
        """What a worker needs to write this batch's part files (:func:`write_part`); the
        first call names the warehouse's games index where the workers read it: the saved
        index (:meth:`Warehouse.save_known`) when the batch mapped it and has added nothing to
        it yet, else a copy it saves (a ``.tmp`` file in ``games/``, deleted by the commit, or
        as an orphan by the next import)."""
        self._check_open()
        if self._spec is None:
            known = ""
            if len(self._known) and self._saved_games == len(self._known):
                known = (self.warehouse.root / KNOWN_FILE).as_posix()  # as the batch mapped it
            elif len(self._known):
                path = self.warehouse.root / f"{Table.GAMES.value}/batch-{self.batch_id}.known.tmp"
                path.parent.mkdir(parents=True, exist_ok=True)
                self._known.save(path)
                known = path.as_posix()
            self._spec = PartSpec(self.warehouse.root.as_posix(), self.batch_id, known)
        return self._spec

    def new_part(self) -> int:
        """A part number not used yet in this batch."""
        self._part_numbers += 1
        return self._part_numbers

    def add_part(self, part: Part) -> dict[Added, int]:
        """Take a part :func:`write_part` wrote: its games found in the warehouse are counted
        (duplicates, conflicts with their rejects), the others go through :meth:`_admit`
        against the batch's own games. When some of them were in the batch already (a game
        twice in one import), their rows are removed from the part's files here (rare); else
        the files are taken as they are, for :meth:`commit` to rename. Returns how many
        games were stored / duplicate / conflicting, as :meth:`add_rows`."""
        counts = dict.fromkeys(Added, 0)
        counts.update(Counter(map(itemgetter(0), self._take_part(part, by_file=False))))
        return counts

    def add_part_by_file(self, part: Part) -> dict[str | None, dict[Added, int]]:
        """:meth:`add_part` for a part of several files' games (an import's small files, read
        as one chunk, written by ``write_part(..., by_file=True)``): the counts of each file,
        by the name its games store (``source_file``)."""
        out: dict[str | None, dict[Added, int]] = {}
        for verdict, file in self._take_part(part, by_file=True):
            out.setdefault(file, dict.fromkeys(Added, 0))[verdict] += 1
        return out

    def _take_part(self, part: Part, *, by_file: bool) -> list[tuple[Added, str | None]]:
        """:meth:`add_part`'s work: each game's verdict, and its file when ``by_file`` (the
        part's ``key_files``; else None)."""
        self._check_open()
        self._parts.extend(part.files)  # the batch's now: deleted by an abort
        self._synced.update(part.synced)
        out = [
            (self._settle(game, None), None if game.source is None else game.source.file)
            for game in part.stored
        ]
        if not len(part.keys):
            return out
        games: pa.Table | None = None

        def row(i: int) -> dict[str, Any]:
            nonlocal games
            if games is None:
                path = self._part_tmp(part, Table.GAMES)
                columns = ["game_id", "source_file", "source_line"]
                games = pq.read_table(path, columns=columns, memory_map=False)
            return {c: games[c][i].as_py() for c in games.column_names}

        def source(i: int) -> Source | None:
            r = row(i)
            return None if r["source_file"] is None else Source(r["source_file"], r["source_line"])

        verdicts = self._admit(part.keys, lambda i: str(row(i)["game_id"]), source, lambda _: None)
        if by_file:
            assert part.key_files is not None, "write_part(..., by_file=True) names them"
            out.extend(zip(verdicts, part.key_files, strict=True))
        else:
            out.extend(zip(verdicts, repeat(None)))
        if verdicts.count(Added.STORED) != len(verdicts):
            assert games is not None
            ids = games["game_id"].to_pylist()
            drop = [g for g, v in zip(ids, verdicts, strict=True) if v is not Added.STORED]
            self._drop_games(part, pa.array(drop, pa.string()))
        return out

    def _part_tmp(self, part: Part, table: Table) -> Path:
        return self.warehouse.root / (_part_rel(table, self.batch_id, part.number) + ".tmp")

    def _drop_games(self, part: Part, drop: pa.Array) -> None:
        """Rewrite a part's files without the rows of the games ``drop``."""
        for f in part.files:
            table = Table(f.table)
            path = self.warehouse.root / (f.path + ".tmp")
            rows = pq.read_table(path, memory_map=False)
            rows = rows.filter(pc.invert(pc.is_in(rows["game_id"], value_set=drop)))
            self._parts.remove(f)
            if not rows.num_rows:
                path.unlink()
                continue
            digest, size = _write_file(path, table, rows.cast(SCHEMAS[table]))
            self._parts.append(PartFile(f.table, f.path, digest, rows.num_rows, size))

    def _add_reject_rows(self, rejects: pa.Table) -> None:
        """:meth:`add_reject` for a table of rows: one look-up for them all, the new rows
        kept as Arrow."""
        columns = [rejects[c].to_pylist() for c in ("file", "line", "code", "message")]
        fresh = self._fresh_rejects(*columns)
        if len(fresh) < rejects.num_rows:
            rejects = rejects.take(pa.array(fresh, pa.int64()))
        self._rows.add_reject_rows(rejects)
        if self._rows.n_rejects >= self.flush_every:
            self._flush()

    def _fresh_rejects(
        self,
        files: Sequence[str | None],
        lines: Sequence[int | None],
        codes: Sequence[str],
        messages: Sequence[str],
    ) -> list[int]:
        """The one door for rejects: the positions of those not stored yet (nor earlier in
        the list), by (file, line, code, message); remembered now and counted."""
        self._load_rejects(set(files))
        keys = [reject_key(*row) for row in zip(files, lines, codes, messages, strict=True)]
        fresh: list[int] = []
        new_keys: set[bytes] = set()
        for i, (key, known) in enumerate(
            zip(keys, self._known_rejects.contains(keys), strict=True)
        ):
            if known or key in new_keys:
                self.duplicate_rejects += 1
                continue
            new_keys.add(key)
            fresh.append(i)
        self._known_rejects.add(new_keys)
        self.rejects += len(fresh)
        return fresh

    def _conflict(
        self, gid: str, known: str, digest: str, source: Source | None, raw: str | bytes | None
    ) -> _Conflict:
        return _Conflict(
            source=source,
            game_id=gid,
            action_index=None,
            code=CONFLICT_CODE,
            message=(
                f"game {gid!r} is already stored with content hash "
                f"{known[:16]}…; this record hashes to {digest[:16]}…"
            ),
            raw=raw,
        )

    def _load_rejects(self, files: Collection[str | None]) -> None:
        """Read the stored rejects of the files not read yet into the index (one scan)."""
        missing = set(files) - self._reject_files
        if missing:
            self.warehouse.known_rejects(missing, into=self._known_rejects)
            self._reject_files |= missing

    def add_reject(self, reject: RejectLike) -> Added:
        """Store a reject, unless the same (file, line, code, message) is stored already."""
        self._check_open()
        stored = self.rejects
        self._add_rejects([reject])
        return Added.STORED if self.rejects > stored else Added.DUPLICATE

    def _flush(self) -> None:
        for table, arrow in self._rows.take().items():
            self._write(table, arrow)

    def _write(self, table: Table, arrow: pa.Table) -> None:
        if not arrow.num_rows:
            return
        writer = self._writers.get(table)
        if writer is None:
            tmp = self._tmp(table)
            tmp.parent.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(tmp, SCHEMAS[table], **_writer_options(table))
            self._writers[table] = writer
        writer.write_table(arrow)
        self._counts[table] += arrow.num_rows

    # ----- ending -----------------------------------------------------------------------
    def commit(self) -> BatchSummary:
        """Write the remaining rows, move the files into place and commit the manifest line."""
        self._check_open()
        wh = self.warehouse
        try:
            for file in list(self._unread):  # not read back: stored without their record
                self.read_back(file, lambda _: {})
            self._flush()
            files: list[ManifestFile] = []
            for table in Table:
                writer = self._writers.pop(table, None)
                if writer is None:
                    continue
                writer.close()
                tmp = self._tmp(table)
                _fsync(tmp)
                final = wh.root / self._rel(table)
                os.replace(tmp, final)
                _fsync(final.parent)
                files.append(
                    ManifestFile(
                        table=table.value,
                        path=self._rel(table),
                        sha256=sha256_file(final),
                        rows=self._counts[table],
                        bytes=final.stat().st_size,
                        schema=schema_tag(table),
                    )
                )
            files.extend(self._commit_parts())
            entry = BatchEntry(
                batch_id=self.batch_id,
                committed_at=datetime.now(UTC).isoformat(timespec="seconds"),
                files=tuple(files),
                counts={
                    "stored": self.stored,
                    "duplicates": self.duplicates,
                    "conflicts": self.conflicts,
                    "rejects": self.rejects,
                    "duplicate_rejects": self.duplicate_rejects,
                },
                meta=self.meta,
            )
            self._committing = True
            wh._commit_manifest(entry)
            # committed: a ledger line that fails to land only makes a later orphan cleaning
            # quarantine this batch's files (should the manifest lose it) instead of refusing
            with contextlib.suppress(OSError):
                wh._record_in_ledger(entry)
        except BaseException:
            self.abort()
            raise
        try:
            if self.stored or self._saved_games is None:  # the next import's start
                wh.save_known(self._known)
        finally:
            self._release()
        self._drop_known()
        # the batch's indexes (24 bytes a game, a reject) are not needed past the commit:
        # freed before the views are published, so that the commit's peak does not add them
        self._known = KnownGames()
        self._known_rejects = KnownRejects()
        views_error: str | None = None
        try:
            wh.refresh_views()
        except WarehouseError as err:  # e.g. a dashboard holds the file: connect() refreshes later
            views_error = err.message
        return BatchSummary(
            batch_id=self.batch_id,
            stored=self.stored,
            duplicates=self.duplicates,
            conflicts=self.conflicts,
            rejects=self.rejects,
            duplicate_rejects=self.duplicate_rejects,
            files=tuple(files),
            views_error=views_error,
        )

    def _commit_parts(self) -> list[ManifestFile]:
        """Make the part files durable: those this process wrote by waiting for their fsyncs
        (:func:`synced`), those a worker said it fsynced as they are, the others (each
        worker's last) by an fsync here; then rename them to their committed names (one
        folder fsync per table), by table then part; their manifest entries."""
        order = {t.value: i for i, t in enumerate(Table)}
        parts = sorted(self._parts, key=lambda f: (order[f.table], f.path))
        root = self.warehouse.root
        done = self._synced.union(synced())
        for f in parts:
            tmp = root / (f.path + ".tmp")
            if str(tmp) not in done:
                _fsync(tmp)
        for f in parts:
            os.replace(root / (f.path + ".tmp"), root / f.path)
        for folder in sorted({(root / f.path).parent for f in parts}):
            _fsync(folder)
        return [
            ManifestFile(f.table, f.path, f.sha256, f.rows, f.bytes, schema_tag(f.table))
            for f in parts
        ]

    def _drop_known(self) -> None:
        if self._spec is not None and self._spec.known:
            _WORKER_KNOWN.pop(self._spec.known, None)  # with one worker, this process read it
            if Path(self._spec.known).name != KNOWN_FILE:  # the batch's copy, not the saved one
                Path(self._spec.known).unlink(missing_ok=True)

    def abort(self) -> None:
        """Drop what this batch wrote; the warehouse is as before.

        After a failed manifest append the renamed files are kept: if the line did land they
        are the batch, else they are orphans that :meth:`Warehouse.verify` reports and the
        next import deletes.
        """
        if not self._open:
            return
        for table, writer in list(self._writers.items()):
            with contextlib.suppress(OSError):  # best effort: a leftover is an orphan anyway
                writer.close()
            self._tmp(table).unlink(missing_ok=True)
        if not self._committing:
            for table in Table:
                self._tmp(table).unlink(missing_ok=True)
                (self.warehouse.root / self._rel(table)).unlink(missing_ok=True)
                # part files, also those of chunks not handed in (their workers are stopped)
                folder = self.warehouse.root / table.value
                for path in folder.glob(f"batch-{self.batch_id}.part-*"):
                    path.unlink(missing_ok=True)
        self._drop_known()
        self._writers.clear()
        self._release()

    def _release(self) -> None:
        if self._open:
            self._open = False
            self._lock_cm.__exit__(None, None, None)

    def __enter__(self) -> Batch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            if self._open:
                self.commit()
        else:
            self.abort()
