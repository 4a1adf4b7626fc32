"""Ad-hoc SQL on the warehouse: the sandboxed read-only connection shared by ``big2 sql`` and
the dashboards' SQL explorer, the statement check and the time limit.

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
from collections.abc import Iterator, Sequence

import duckdb

from pipeline.errors import Big2Error
from pipeline.warehouse.store import Warehouse, WarehouseError
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
#: ``big2 sql``'s default time limit (seconds; ``--timeout``).
DEFAULT_TIMEOUT_S = 60.0

_SKIP = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)


class SqlRefused(Big2Error):
    """An ad-hoc statement that could write or reach outside the warehouse's tables."""

    default_code = "E_SQL_QUERY"


class SqlTimeout(Big2Error):
    """An ad-hoc query stopped at its time limit."""

    default_code = "E_SQL_TIMEOUT"


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


def sandbox(con: duckdb.DuckDBPyConnection, paths: Sequence[str]) -> duckdb.DuckDBPyConnection:
    """Lock a *private* connection down: only ``paths`` can be read (or written: the statement
    check refuses every statement that writes), no other file, no extension, no spilling, and
    the configuration locked. Never call it on a connection to a shared database instance."""
    con.execute("set allowed_directories = []")
    con.execute("set allowed_paths = ?", [list(paths)])
    con.execute("set temp_directory = ''")
    con.execute("set autoinstall_known_extensions = false")
    con.execute("set autoload_known_extensions = false")
    con.execute("set enable_external_access = false")
    con.execute("set enable_progress_bar = false")  # drawn on stdout, into `big2 sql | ...`
    con.execute("set lock_configuration = true")
    return con


def open_readonly(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    """A private sandboxed connection with the warehouse's tables, views and macros (catalog
    ``warehouse``, the default one) for ad-hoc SQL; **close it** after use.

    It is :meth:`Warehouse.connect`'s private read-only connection (the base views current
    even when the marts are not, nothing written), then locked down by :func:`sandbox`.
    """
    con = wh.connect(read_only=True)
    try:
        sandbox(con, committed_paths(wh))
    except duckdb.Error as err:
        con.close()
        raise WarehouseError("E_WAREHOUSE", f"cannot open {wh.db_path} to read: {err}") from err
    except BaseException:
        con.close()
        raise
    return con


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
