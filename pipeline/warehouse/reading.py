"""Reading the warehouse: the named queries of ``sql/queries/`` (one runner for ``big2 report``,
``big2 export`` and the dashboards), the readers' short-lived connections (the dashboards'),
and ad-hoc SQL: the sandboxed read-only connection shared by ``big2 sql`` and the dashboards'
SQL explorer, the statement check and the time limit.

**Named queries** (:func:`execute`, :func:`run_query`): ``sql/queries/<name>.sql``, each
opening with a header that states its grain and parameters; the parameters are bound
(``$name``), never formatted into the text, and those a query does not name are dropped. A
warehouse whose SQL layers predate a query (no ``big2 build`` yet) is ``E_SQL_NOT_BUILT``.

**Readers' connections** (:func:`stamp`, :func:`connect_waiting`, :func:`reader`): a key that
changes with every commit and build (cache key), a read-only connection that waits a moment
for a writer, and one connection shared by the queries of a block (one script run of a page).

A query may read the warehouse's tables and nothing else. Two locks, each enough for the
common attacks, together for the rest:

1. **The statement kind** (:func:`check_query`): exactly one statement, and it is a ``SELECT``
   (``with``, ``from``-first, ``values``, ``describe``, ``show``, ``summarize`` are parsed as
   one), an ``EXPLAIN`` / ``EXPLAIN ANALYZE`` of a ``SELECT`` (``EXPLAIN ANALYZE`` runs what it
   wraps, so the wrapped statement is checked too) or one of the read-only pragmas of
   :data:`READ_PRAGMAS`. ``COPY``, ``EXPORT``, ``ATTACH``, ``INSTALL`` / ``LOAD``, ``SET``,
   ``CREATE``, ``INSERT`` … are refused before anything runs (:class:`SqlRefused`).
2. **The files** (:func:`open_readonly`): each query runs in a private in-memory DuckDB
   database with ``warehouse.duckdb`` attached read-only, whose only reachable files are the
   committed Parquet files the views read (``allowed_paths``; external access off, extension
   autoloading off, no spilling to a temporary directory, the configuration locked). A file
   function (``read_csv``, ``read_text``, ``glob`` …) on any other path is refused by DuckDB.
   The database is private because DuckDB connections to one file in one process share one
   instance and its settings: the dashboards' own connections stay as they are.

:func:`time_limit` interrupts a query that runs too long (:class:`SqlTimeout`).

>>> check_query("select 1 as one")
'select 1 as one'
>>> check_query("explain analyze select 1")
'explain analyze select 1'
>>> check_query("copy (select 1) to 'x.csv'")
Traceback (most recent call last):
...
pipeline.warehouse.reading.SqlRefused: E_SQL_QUERY: read-only: only SELECT queries run here (or EXPLAIN [ANALYZE] of one, or a read-only PRAGMA); this is a COPY statement
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb

from pipeline import shipped
from pipeline.errors import Big2Error
from pipeline.warehouse.store import MANIFEST, Warehouse, WarehouseError
from pipeline.warehouse.tables import Table

#: The catalog name of ``warehouse.duckdb`` in an ad-hoc query (as when it is opened directly).
CATALOG = "warehouse"
#: Pragmas that only read the catalog (``pragma table_info('games')`` …); any other is refused.
READ_PRAGMAS = frozenset(
    {
        "database_size",
        "functions",
        "metadata_info",
        "platform",
        "show",
        "show_databases",
        "show_tables",
        "show_tables_expanded",
        "storage_info",
        "table_info",
        "version",
    }
)

_SKIP = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)


class SqlRefused(Big2Error):
    """An ad-hoc statement that could write or reach outside the warehouse's tables."""

    default_code = "E_SQL_QUERY"


class SqlTimeout(Big2Error):
    """An ad-hoc query stopped at its time limit."""

    default_code = "E_SQL_TIMEOUT"


class SqlMemoryLimit(Big2Error):
    """A query of the sandbox stopped at its memory limit (a user's never spills to disk;
    ``big2 rescore``'s only to the folder it was given, :func:`sandbox`)."""

    default_code = "E_SQL_MEMORY_LIMIT"


#: The environment variable with the memory limit of ad-hoc reads (``big2 sql``, ``big2
#: rescore``, the SQL explorer), as DuckDB reads a ``memory_limit``: ``2GB``, ``25%``.
MEMORY_ENV = "BIG2_SQL_MEMORY"


def _skip(text: str, pos: int) -> int:
    """The position after the whitespace and comments at ``pos``."""
    match = _SKIP.match(text, pos)
    return match.end() if match else pos


def _word(text: str, pos: int) -> tuple[str, int]:
    """The keyword at ``pos`` (lower case) and the position after it and what follows it."""
    pos = _skip(text, pos)
    match = re.compile(r"[A-Za-z_]+").match(text, pos)
    if not match:
        return "", pos
    return match.group(0).lower(), _skip(text, match.end())


def _explained(text: str) -> str:
    """The statement an ``EXPLAIN [ANALYZE] [(options)]`` wraps (its text)."""
    word, pos = _word(text, 0)
    if word != "explain":
        raise SqlRefused("E_SQL_QUERY", f"cannot read this EXPLAIN: {text[:80]!r}")
    nxt, after = _word(text, pos)
    if nxt in ("analyze", "analyse"):
        pos = after
    if text.startswith("(", pos):  # (FORMAT json, ...): options, no parentheses inside
        end = text.find(")", pos)
        if end < 0 or "(" in text[pos + 1 : end]:
            raise SqlRefused("E_SQL_QUERY", f"cannot read this EXPLAIN: {text[:80]!r}")
        pos = end + 1
    return text[pos:]


def check_query(sql: str) -> str:
    """The one statement of ``sql`` when it only reads; else :class:`SqlRefused` naming its kind.

    >>> check_query("/* a view */ EXPLAIN (FORMAT json) with t as (select 1) from t")
    '/* a view */ EXPLAIN (FORMAT json) with t as (select 1) from t'
    >>> check_query("pragma table_info('games')")
    "pragma table_info('games')"
    >>> check_query("select 1; select 2")
    Traceback (most recent call last):
    ...
    pipeline.warehouse.reading.SqlRefused: E_SQL_QUERY: give exactly one statement (got 2)
    >>> check_query("explain analyze copy (select 1) to 'x.csv'")
    Traceback (most recent call last):
    ...
    pipeline.warehouse.reading.SqlRefused: E_SQL_QUERY: EXPLAIN runs only on a SELECT; this one wraps a COPY statement
    """
    statements = _parse(sql)
    (statement,) = statements
    kind = _kind(statement)
    if kind == "SELECT":
        return sql
    if kind == "EXPLAIN":
        inner = _parse(_explained(statement.query))
        inner_kind = _kind(inner[0])
        if inner_kind != "SELECT":
            raise SqlRefused(
                "E_SQL_QUERY",
                f"EXPLAIN runs only on a SELECT; this one wraps a {inner_kind} statement",
            )
        return sql
    if kind == "PRAGMA":
        word, pos = _word(statement.query, 0)
        name, _ = _word(statement.query, pos)
        if word == "pragma" and name in READ_PRAGMAS:
            return sql
        raise SqlRefused(
            "E_SQL_QUERY",
            f"only the read-only pragmas run here ({', '.join(sorted(READ_PRAGMAS))})",
        )
    article = "an" if kind[:1] in "AEIOU" else "a"
    raise SqlRefused(
        "E_SQL_QUERY",
        "read-only: only SELECT queries run here (or EXPLAIN [ANALYZE] of one, or a read-only "
        f"PRAGMA); this is {article} {kind} statement",
    )


def _parse(sql: str) -> list[duckdb.Statement]:
    try:
        statements = duckdb.extract_statements(sql)
    except (duckdb.Error, ValueError) as err:  # ValueError: a statement type unknown to Python
        raise SqlRefused("E_SQL_QUERY", str(err).splitlines()[0]) from err
    if len(statements) != 1:
        raise SqlRefused("E_SQL_QUERY", f"give exactly one statement (got {len(statements)})")
    return statements


def _kind(statement: duckdb.Statement) -> str:
    return str(statement.type.name)


def committed_paths(wh: Warehouse) -> list[str]:
    """The absolute paths (as the views name them) of every committed Parquet file."""
    tables = {t.value for t in Table}
    return [  # the manifest read once, not once per table
        (wh.root / f.path).as_posix() for e in wh.entries() for f in e.files if f.table in tables
    ]


def sandbox(
    con: duckdb.DuckDBPyConnection,
    paths: Sequence[str],
    *,
    memory: str | None = None,
    spill: Path | None = None,
) -> duckdb.DuckDBPyConnection:
    """Lock a *private* connection down: only ``paths`` can be read (or written: the statement
    check refuses every statement that writes), no other file, no extension, at most
    ``memory`` (DuckDB's ``memory_limit``; None: its default, 80 % of the machine's), no
    spilling past it unless to the folder ``spill`` (for big2's own queries, never a user's),
    and the configuration locked. Never call it on a connection to a shared database
    instance."""
    if memory:
        con.execute("set memory_limit = ?", [memory])
    con.execute("set allowed_directories = []")
    con.execute("set allowed_paths = ?", [list(paths)])
    con.execute("set temp_directory = ?", [spill.as_posix() if spill else ""])
    con.execute("set autoinstall_known_extensions = false")
    con.execute("set autoload_known_extensions = false")
    con.execute("set enable_external_access = false")
    # DuckDB draws its progress bar on stdout once a query runs past 2 s: in the middle of
    # `big2 sql --format csv` output (a line "100% ▕███▏" among the rows, seen under load)
    con.execute("set enable_progress_bar = false")
    con.execute("set lock_configuration = true")
    return con


def open_readonly(
    wh: Warehouse, *, memory: str | None = None, spill: Path | None = None
) -> duckdb.DuckDBPyConnection:
    """A private sandboxed connection with the warehouse's tables, views and macros (catalog
    ``warehouse``, the default one) for ad-hoc SQL, using at most ``memory`` (spilling past it
    to the folder ``spill`` only when given: :func:`sandbox`); **close it** after use.

    It is :meth:`Warehouse.connect`'s private read-only connection (the base views current
    even when the marts are not, nothing written), then locked down by :func:`sandbox`.
    """
    con = wh.connect(read_only=True)
    try:
        sandbox(con, committed_paths(wh), memory=memory, spill=spill)
    except duckdb.Error as err:
        con.close()
        raise WarehouseError("E_WAREHOUSE", f"cannot open {wh.db_path} to read: {err}") from err
    except BaseException:
        con.close()
        raise
    return con


def run_adhoc(
    wh: Warehouse, sql: str, *, max_rows: int, timeout_s: float | None, memory: str | None = None
) -> tuple[list[str], list[tuple[Any, ...]], bool]:
    """One checked ad-hoc query (:func:`check_query`) on the sandbox (:func:`open_readonly`)
    with a row limit, a time limit and a memory limit: the column names, the first
    ``max_rows`` rows, and whether there were more. Refused: :class:`SqlRefused`; too long:
    :class:`SqlTimeout`; too big: :class:`SqlMemoryLimit`; a writer holding the file:
    :class:`WarehouseBusy`; a committed file missing: ``E_WAREHOUSE``
    (:func:`missing_files_said`); DuckDB's errors as they come."""
    check_query(sql)
    connect_waiting(wh).close()  # the views are fresh (or busy while a writer holds the file)
    try:
        cur = open_readonly(wh, memory=memory)
    except WarehouseError as err:
        if is_lock_error(err):
            raise WarehouseBusy("E_WAREHOUSE_BUSY", f"{err.message}; retry shortly") from err
        raise
    try:
        with time_limit(cur, timeout_s), memory_bound(cur), missing_files_said(wh):
            names = [d[0] for d in cur.execute(sql).description or []]
            rows = cur.fetchmany(max_rows + 1)
    finally:
        cur.close()
    return names, rows[:max_rows], len(rows) > max_rows


@contextlib.contextmanager
def time_limit(con: duckdb.DuckDBPyConnection, seconds: float | None) -> Iterator[None]:
    """Interrupt what ``con`` runs inside the block after ``seconds`` (``None`` or 0: no limit),
    raising :class:`SqlTimeout`.

    >>> con = duckdb.connect()
    >>> with time_limit(con, 0.2):
    ...     con.execute("select count(*) from range(10000000000000)").fetchall()
    Traceback (most recent call last):
    ...
    pipeline.warehouse.reading.SqlTimeout: E_SQL_TIMEOUT: stopped at the time limit of 0.2 s
    """
    if not seconds:
        yield
        return
    fired = threading.Event()

    def stop() -> None:
        fired.set()
        con.interrupt()

    timer = threading.Timer(seconds, stop)
    timer.daemon = True
    timer.start()
    try:
        yield
    except Exception as err:  # the interrupt surfaces as a duckdb, Arrow or wrapped error
        if fired.is_set() or isinstance(err, duckdb.InterruptException):
            raise SqlTimeout(
                "E_SQL_TIMEOUT", f"stopped at the time limit of {seconds:g} s"
            ) from err
        raise
    finally:
        timer.cancel()


@contextlib.contextmanager
def memory_bound(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Raise :class:`SqlMemoryLimit` when what ``con`` runs inside the block runs out of the
    memory it may use (its ``memory_limit``, past which it spills only when it has a
    ``temp_directory``: the message says which).

    >>> con = duckdb.connect()
    >>> _ = con.execute("set memory_limit = '32MB'; set temp_directory = ''")
    >>> with memory_bound(con):  # doctest: +ELLIPSIS
    ...     con.execute("select list(range) from range(10000000)").fetchall()
    Traceback (most recent call last):
    ...
    pipeline.warehouse.reading.SqlMemoryLimit: E_SQL_MEMORY_LIMIT: stopped at the memory limit of 30.5 MiB: an ad-hoc query never spills to disk; ...
    """
    ((limit, spills),) = con.execute(  # fetched whole: a result left open blocks the next
        "select current_setting('memory_limit'), current_setting('temp_directory') <> ''"
    ).fetchall()
    try:
        yield
    except Exception as err:  # DuckDB's own, or wrapped by an Arrow stream
        if not isinstance(err, duckdb.OutOfMemoryException) and "Out of Memory" not in str(err):
            raise
        first = str(err).split("\n", 1)[0]
        where = "" if spills else ": an ad-hoc query never spills to disk"
        raise SqlMemoryLimit(
            "E_SQL_MEMORY_LIMIT",
            f"stopped at the memory limit of {limit}{where}; a higher --memory-limit (or"
            f" ${MEMORY_ENV}) lets it use more. DuckDB: {first}",
        ) from err


# ----- named queries (sql/queries/) ---------------------------------------------------------


class NamedQueryError(Big2Error):
    """A named query that has no file, or that the warehouse cannot run."""

    default_code = "E_REPORT_QUERY"


def queries_dir() -> Path:
    """The folder of the named queries (``sql/queries``, shipped with the package)."""
    return shipped.sql_dir() / "queries"


def query_text(name: str) -> str:
    """The SQL of ``sql/queries/<name>.sql``.

    >>> query_text("report_players").startswith("-- Grain: one row per player per unit")
    True
    >>> query_text("nope")
    Traceback (most recent call last):
    ...
    pipeline.warehouse.reading.NamedQueryError: E_REPORT_QUERY: no query 'nope' in sql/queries
    """
    path = queries_dir() / f"{name}.sql"
    if not re.fullmatch(r"\w+", name) or not path.is_file():
        raise NamedQueryError("E_REPORT_QUERY", f"no query {name!r} in sql/queries")
    return path.read_text(encoding="utf-8")


def bound(text: str, params: dict[str, Any]) -> dict[str, Any]:
    """The ``params`` that ``text`` names as ``$name`` (DuckDB refuses unused ones).

    >>> bound("select $player_id, $limit", {"player": 1, "player_id": 2, "limit": 3})
    {'player_id': 2, 'limit': 3}
    """
    return {k: v for k, v in params.items() if re.search(rf"\${k}\b", text)}


def execute(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> duckdb.DuckDBPyConnection:
    """Run the named query ``name`` on ``con`` with its bound ``params``; the result is read
    from the returned connection (``fetchall()``, ``df()``)."""
    text = query_text(name)
    try:
        return con.execute(text, bound(text, params))
    except duckdb.CatalogException as err:
        raise NamedQueryError(
            "E_SQL_NOT_BUILT",
            f"{name}: the warehouse's SQL layers are missing or older than this query; "
            f"run `big2 build` ({str(err).splitlines()[0]})",
        ) from err
    except duckdb.Error as err:  # e.g. a time zone DuckDB does not know
        raise NamedQueryError("E_REPORT_QUERY", f"{name}: {str(err).splitlines()[0]}") from err


def run_query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    """:func:`execute`, the rows as dicts."""
    rel = execute(con, name, **params)
    names = [d[0] for d in rel.description or []]
    return [dict(zip(names, r, strict=True)) for r in rel.fetchall()]


# ----- the readers' connections -------------------------------------------------------------

#: How long :func:`connect_waiting` waits for a writer (``big2 ingest`` / ``big2 build``).
BUSY_WAIT_S = 3.0


class WarehouseBusy(WarehouseError):
    """The warehouse file is held by a writer (an import or a build is running)."""

    default_code = "E_WAREHOUSE_BUSY"


def stamp(wh: Warehouse) -> str:
    """A key that changes whenever a batch is committed, the marts are rebuilt (the DuckDB
    file changes) or the warehouse appears (``<root>|missing`` before); its first field is the
    warehouse's folder."""
    try:
        st_ = (wh.root / MANIFEST).stat()
    except FileNotFoundError:
        return f"{wh.root}|missing"
    try:
        db = wh.db_path.stat()
        built = f"{db.st_size}|{db.st_mtime_ns}"
    except FileNotFoundError:
        built = "-"
    return f"{wh.root}|{st_.st_size}|{st_.st_mtime_ns}|{built}"


def is_lock_error(err: BaseException) -> bool:
    """Whether ``err`` says another process holds the file."""
    text = str(err).lower()
    return "lock" in text or "conflicting" in text


@contextlib.contextmanager
def missing_files_said(wh: Warehouse) -> Iterator[None]:
    """A query of a reader of ``wh`` that fails (DuckDB's error, or big2's error of one, such
    as a named query's) on a committed file that is missing raises
    :meth:`Warehouse.missing_files_error` instead, one line naming the file and the way out:
    DuckDB's own error echoes the view's paths, or, in the sandbox, says that file access is
    disabled. Other failures (one that names no missing file: a typo) pass as they are.

    >>> import tempfile
    >>> with missing_files_said(Warehouse(tempfile.mkdtemp())):
    ...     duckdb.connect().execute("select * from gamez")
    Traceback (most recent call last):
    ...
    _duckdb.CatalogException: Catalog Error: Table with name gamez does not exist!
    ...
    """
    try:
        yield
    except (duckdb.Error, Big2Error) as err:
        missing = wh.missing_files_error()
        if missing is None or not any(
            (wh.root / p.path).as_posix() in str(err) for p in missing.context["problems"] if p.path
        ):
            raise
        raise missing from err


def connect_waiting(wh: Warehouse, wait_s: float | None = None) -> duckdb.DuckDBPyConnection:
    """A fresh read-only connection (:meth:`Warehouse.connect`: it never writes, and builds
    replace the file atomically, so a reader never blocks ``big2 ingest`` or ``big2 build``).
    Should a foreign process hold the file read-write, it is retried for up to ``wait_s``
    (:data:`BUSY_WAIT_S`), then :class:`WarehouseBusy`. **Close it** after use."""
    deadline = time.monotonic() + (BUSY_WAIT_S if wait_s is None else wait_s)
    while True:
        try:
            return wh.connect(read_only=True)
        except (WarehouseError, duckdb.Error) as err:
            if not is_lock_error(err):
                raise
            if time.monotonic() >= deadline:
                raise WarehouseBusy(
                    "E_WAREHOUSE_BUSY",
                    f"{wh.root} is being written (an import or a build is running); retry shortly",
                ) from err
            time.sleep(0.1)


_local = threading.local()


@contextlib.contextmanager
def one_connection() -> Iterator[None]:
    """Within this block the :func:`reader` connections of this thread are one, opened at the
    first use and closed when the block ends (a fresh connection of a large file costs ~0.1 s
    of catalogue load, of a small one ~30 ms; nothing stays open after the block). A block
    within another is the outer one's: its end closes nothing."""
    if getattr(_local, "scoped", False):
        yield
        return
    _local.scoped = True
    try:
        yield
    finally:
        _local.scoped = False
        con, _local.con = getattr(_local, "con", None), None
        if con is not None:
            con.close()


@contextlib.contextmanager
def reader(wh: Warehouse, key: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to ``wh`` as of ``key`` (:func:`stamp`): the block's of
    :func:`one_connection` (reopened when the key changed), else a fresh one closed after. A
    query of the block failing on a committed file that is missing is ``E_WAREHOUSE`` naming
    it (:func:`missing_files_said`: the dashboards' status line and pages)."""
    if not getattr(_local, "scoped", False):
        con = connect_waiting(wh)
        try:
            with missing_files_said(wh):
                yield con
        finally:
            con.close()
        return
    shared: duckdb.DuckDBPyConnection | None = getattr(_local, "con", None)
    if shared is None or getattr(_local, "key", None) != key:
        if shared is not None:
            _local.con = None
            shared.close()
        shared = connect_waiting(wh)
        _local.con, _local.key = shared, key
    with missing_files_said(wh):
        yield shared
