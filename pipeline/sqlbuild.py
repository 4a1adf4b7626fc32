"""Build the SQL layers (``sql/``) into the warehouse's DuckDB file, run SQL tests, rescore.

The order of a build (``big2 build``, also run at the end of ``big2 ingest``):

1. each game's rulesets table (:mod:`pipeline.games`: ``rulesets`` for Big Two,
   ``ddz_rulesets`` for Dou Dizhu, ``<Game.sql_prefix>rulesets``): every preset of the game,
   and every preset + overrides a stored game of it uses, each as the JSON its SQL reads
   (``Game.sql_params``: ``to_dict()`` plus what scoring needs), so that SQL and the engine
   read the same preset TOML files; then the game's constant tables (``Game.sql_seeds``: Big
   Two's ``rank_ladder``);
2. the constant tables of ``sql/seeds/`` (the tournament prize and fee tables of seed 002),
   scalar macros (``sql/macros/``, those not reading a table), then the staging views
   (``sql/staging/stg_*.sql``), then the table macros (``score_seats`` …);
3. the marts (``sql/marts/*.sql``) as tables, each after the marts it reads; then the
   macros that read marts (``rescore_players`` …).

Everything is ``create or replace``: a build is idempotent. Each statement commits on its own
(not one transaction, which would hold every new table in memory until its end); the build is
atomic all the same, as :func:`build` writes a new file that replaces the old one only when
every step passed.

>>> json.loads(ruleset_json("mainland", {"settlement": "winner_takes_all"}))["settlement"]
'winner_takes_all'
>>> order_marts({"b": "select * from a", "a": "select 1", "c": "select * from b join a"})
['a', 'b', 'c']
"""

from __future__ import annotations

import json
import re
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipeline.errors import Big2Error
from pipeline.games import DEFAULT_KIND, Game, game_for, kinds, preset_game
from pipeline.shipped import sql_dir
from pipeline.warehouse import Warehouse
from pipeline.warehouse.reading import open_readonly as open_readonly  # ad-hoc SQL

#: The SQL folder (``sql/seeds``, ``sql/staging``, ``sql/marts``, ``sql/macros``, ``sql/tests``,
#: ``sql/columns.toml``): the checkout's, or the installed package data (:mod:`pipeline.shipped`).
SQL_DIR = sql_dir()
#: The column descriptions written as comments (the docs' column tables say the same).
COLUMNS_FILE = "columns.toml"
#: Macros that read no table: created before the staging views (which use them).
SCALAR_MACROS = (
    "ruleset_fields",
    "capped_payments",
    "balances_after",
    "ddz_ruleset_fields",
    "ddz_score",
    "ddz_hand",
)
#: DuckDB settings a mart is built under first (reset after it; out of memory, it is built
#: again under DuckDB's own: :func:`_step_with_settings`). ``stats_player_games``: DuckDB
#: estimates the staging views' Big Two games at about a quarter of their number (their
#: ``game_kind`` filter), and its ``build_side_probe_side`` optimizer then turns the mart's left
#: joins around, building their hash tables on the seats' side; under a memory limit of ~0.4-0.5
#: GB at 100,000 games, or 2-4 GB at 1M, that ran out of memory where a smaller or a larger
#: limit passed. With the joins as written it spills, in the same time, and passes there, but
#: not at 256 MB for 1M games, where DuckDB's own plan passes (docs/sql.md, Build time).
MART_SETTINGS: dict[str, dict[str, str]] = {
    "stats_player_games": {"disabled_optimizers": "build_side_probe_side"},
}


class SqlError(Big2Error):
    """A SQL layer that does not build, or an ad-hoc query that fails."""

    default_code = "E_SQL"


#: What a build calls as each step starts (:func:`build`'s ``on_step``): the step's name (a
#: file of ``sql/``, or ``rulesets`` / ``comments``), the steps done before it, and all of them.
OnStep = Callable[[str, int, int], None]


@dataclass
class _Steps:
    """A build's steps as they start: the one running (DuckDB may run out of memory outside a
    statement's too), how many are done, and whom to tell (``on_step``)."""

    total: int
    on_step: OnStep | None = None
    running: str = ""
    done: int = 0

    def start(self, name: str) -> None:
        if name == self.running:  # built again (_step_with_settings): the same step
            return
        if self.running:
            self.done += 1
        self.running = name
        if self.on_step is not None:
            self.on_step(name, self.done, self.total)


@dataclass
class BuildSummary:
    """What a build created, and how long each step took (seconds); ``retried``: the marts
    that ran out of memory under their :data:`MART_SETTINGS` and were built again, with the
    seconds the first try took."""

    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    retried: dict[str, float] = field(default_factory=dict)


def ruleset_json(preset: str, overrides: Mapping[str, Any] | None = None) -> str:
    """The JSON a preset plus overrides is to its game's SQL (``Game.sql_params``), for the
    what-if macros (``score_seats(whatif := ...)``, ``ddz_score_seats(whatif := ...)``); the
    game is the one the preset belongs to (:func:`pipeline.games.preset_game`).

    >>> json.loads(ruleset_json("ddz", {"multiplier_cap": 8}))["multiplier_cap"]
    8
    """
    game = preset_game(preset)
    return json.dumps(game.sql_params(game.load_ruleset(preset, dict(overrides or {}))))


def sql_files(folder: str) -> dict[str, str]:
    """``{stem: text}`` of ``sql/<folder>/*.sql``, by name."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted((SQL_DIR / folder).glob("*.sql"))}


def _strip_comments(text: str) -> str:
    return re.sub(r"--[^\n]*", "", text)


def order_marts(marts: Mapping[str, str]) -> list[str]:
    """Mart names so that each comes after the marts its SQL names (then by name)."""
    deps = {
        name: {
            other
            for other in marts
            if other != name and re.search(rf"\b{other}\b", _strip_comments(text))
        }
        for name, text in marts.items()
    }
    done: list[str] = []
    pending = sorted(marts)
    while pending:
        ready = [n for n in pending if deps[n] <= set(done)]
        if not ready:
            raise SqlError("E_SQL_CYCLE", f"the marts {pending} name each other in a cycle")
        done.extend(ready)
        pending = [n for n in pending if n not in ready]
    return done


def _used_rulesets(con: duckdb.DuckDBPyConnection, kind: str) -> list[tuple[str, str]]:
    """The (preset, overrides) pairs the stored games of one game use (a NULL game_kind, from
    batches written before Dou Dizhu, is :data:`pipeline.games.DEFAULT_KIND`)."""
    rows = con.execute(
        "select distinct ruleset, overrides from games "
        "where coalesce(game_kind, ?) = ? order by all",
        [DEFAULT_KIND, kind],
    ).fetchall()
    return [(str(preset), str(overrides)) for preset, overrides in rows]


def _ruleset_rows(game: Game, used: Sequence[tuple[str, str]]) -> list[tuple[str, str, str, str]]:
    """``(ruleset_id, preset, overrides, params JSON)``: every preset, then every used pair."""
    pairs = {f"{p} {{}}": (p, "{}") for p in game.preset_names()}
    pairs.update({f"{p} {o}": (p, o) for p, o in used})
    return [
        (
            rid,
            preset,
            overrides,
            json.dumps(
                game.sql_params(game.load_ruleset(preset, json.loads(overrides))),
                ensure_ascii=False,
            ),
        )
        for rid, (preset, overrides) in pairs.items()
    ]


def _write_rulesets(con: duckdb.DuckDBPyConnection) -> None:
    for kind in kinds():
        game = game_for(kind)
        table = f"{game.sql_prefix}rulesets"
        con.execute(
            f"create or replace table {table} "
            "(ruleset_id varchar primary key, preset varchar, overrides varchar, params json)"
        )
        con.executemany(
            f"insert into {table} values (?, ?, ?, ?)",
            _ruleset_rows(game, _used_rulesets(con, kind)),
        )
        for name, (columns, rows) in game.sql_seeds().items():
            con.execute(f"create or replace table {name} ({columns})")
            if rows:
                marks = ", ".join(["?"] * len(rows[0]))
                con.executemany(f"insert into {name} values ({marks})", rows)


def build_step(con: duckdb.DuckDBPyConnection, name: str, sql: str, memory: str) -> None:
    """Run one statement of the build (``name``: the file it comes from). A failure is
    ``E_SQL_BUILD`` naming the file, unless DuckDB ran out of the memory it may use
    (``memory``: its ``memory_limit`` when the build began): that is ``E_SQL_MEMORY``, the
    file being fine (the build's memory grows with the games: docs/sql.md).

    >>> con = duckdb.connect()
    >>> build_step(con, "x.sql", "select 1", "1 GiB")
    >>> build_step(con, "y.sql", "select nothing", "1 GiB")
    Traceback (most recent call last):
    pipeline.sqlbuild.SqlError: E_SQL_BUILD: y.sql: Binder Error: ...
    """
    try:
        con.execute(sql)
    except duckdb.OutOfMemoryException as err:
        raise _out_of_memory(name, memory, err) from err
    except duckdb.Error as err:
        raise SqlError("E_SQL_BUILD", f"{name}: {err}", object=name) from err


def _out_of_memory(name: str, memory: str, err: duckdb.Error) -> SqlError:
    """``E_SQL_MEMORY`` for the build's step ``name`` (DuckDB's own advice left out: it names
    settings as SQL, where big2 has options)."""
    first = str(err).split("\n", 1)[0]
    return SqlError(
        "E_SQL_MEMORY",
        f"{name}: DuckDB ran out of the memory it may use (memory_limit {memory}; by default"
        f" 80 % of the machine's; --memory-limit or BIG2_BUILD_MEMORY sets it), so the build"
        f" stopped and the old warehouse.duckdb stays. Past the limit the build spills to"
        f" disk, and 1M games build in 512 MB (docs/sql.md, Build time). DuckDB: {first}",
        object=name,
    )


def build_sql(
    con: duckdb.DuckDBPyConnection,
    summary: BuildSummary | None = None,
    on_step: OnStep | None = None,
) -> BuildSummary:
    """Create or replace every SQL object on a writable connection, each statement committed
    on its own (:func:`build` publishes them as one new file); ``on_step`` as each starts."""
    summary = summary or BuildSummary()
    started = time.perf_counter()
    memory = "?"
    steps = _Steps(build_steps(), on_step)

    def step(name: str, sql: str) -> None:
        steps.start(name)
        t0 = time.perf_counter()
        build_step(con, name, sql, memory)
        summary.timings[name] = time.perf_counter() - t0

    try:
        (memory,) = con.execute("select current_setting('memory_limit')").fetchone() or ("?",)
        _build_steps(con, summary, step, steps)
    except duckdb.OutOfMemoryException as err:
        raise _out_of_memory(steps.running or "rulesets", memory, err) from err
    summary.seconds = time.perf_counter() - started
    return summary


def build_steps() -> int:
    """The steps of a build, as :func:`build`'s ``on_step`` counts them: the rulesets, each
    file of ``sql/`` built (seeds, macros, staging views, marts), the column comments.

    >>> build_steps() == 2 + sum(len(sql_files(f)) for f in ("seeds", "macros", "staging", "marts"))
    True
    """
    files = sum(len(sql_files(folder)) for folder in ("seeds", "macros", "staging", "marts"))
    return files + 2  # the rulesets first, the comments last


def _build_steps(
    con: duckdb.DuckDBPyConnection,
    summary: BuildSummary,
    step: Callable[[str, str], None],
    steps: _Steps,
) -> None:
    """The steps of :func:`build_sql`, each statement through ``step`` (name, SQL); the parts
    that are no statement of a file start through ``steps``."""
    macros = sql_files("macros")
    marts = sql_files("marts")
    # each statement commits on its own: a build publishes a new file
    # (:meth:`Warehouse.publish`), which replaces the old one only when every step passed, so
    # one transaction would add nothing but memory: DuckDB holds a transaction's new tables
    # until it commits (1M games: a build under a 2 GB limit fails in one transaction and
    # passes in 1 GB this way; docs/sql.md, Build time)
    t0 = time.perf_counter()
    steps.start("rulesets")
    _write_rulesets(con)
    summary.timings["rulesets"] = time.perf_counter() - t0
    for name, text in sql_files("seeds").items():  # small constant tables (seed 002)
        step(name, f"create or replace table {name} as\n{text}")
    for name in SCALAR_MACROS:
        step(name, macros[name])
    for name, text in sql_files("staging").items():
        step(name, f"create or replace view {name} as\n{text}")
    after = {
        name
        for name, text in macros.items()
        if any(re.search(rf"\b{m}\b", _strip_comments(text)) for m in marts)
    }
    for name, text in macros.items():
        if name not in SCALAR_MACROS and name not in after:
            step(name, text)
    for name in order_marts(marts):
        sql = f"create or replace table {name} as\n{marts[name]}"
        if name in MART_SETTINGS:
            lost = _step_with_settings(con, step, name, sql, MART_SETTINGS[name])
            if lost is not None:
                summary.retried[name] = lost
        else:
            step(name, sql)
        (n,) = con.execute(f"select count(*) from {name}").fetchone() or (0,)
        summary.rows[name] = int(n)
    for name in sorted(after):  # macros over the marts (what-if side-by-sides)
        step(name, macros[name])
    t0 = time.perf_counter()
    steps.start("comments")
    write_comments(con)
    summary.timings["comments"] = time.perf_counter() - t0


def _step_with_settings(
    con: duckdb.DuckDBPyConnection,
    step: Callable[[str, str], None],
    name: str,
    sql: str,
    settings: Mapping[str, str],
) -> float | None:
    """``step`` under ``settings`` (:data:`MART_SETTINGS`), reset after it; out of memory
    there, once more under DuckDB's own settings, whose plan may fit where that one did not:
    then the seconds the first try took, else None."""
    for key, value in settings.items():  # keys are this module's own: not user text
        con.execute(f"set {key} = ?", [value])
    t0 = time.perf_counter()
    try:
        step(name, sql)
    except SqlError as err:
        if err.code != "E_SQL_MEMORY":
            raise
    else:
        return None
    finally:
        for key in settings:
            con.execute(f"reset {key}")
    lost = time.perf_counter() - t0
    step(name, sql)
    return lost


def memory_limit(text: str) -> str:
    """``text`` as DuckDB reads a ``memory_limit`` (``2GB``, ``1.5GiB``, ``50%``), in its
    words; ``E_SQL_USAGE`` if it reads none.

    >>> memory_limit("1.5GiB")
    '1.5 GiB'
    >>> memory_limit("lots")
    Traceback (most recent call last):
    pipeline.sqlbuild.SqlError: E_SQL_USAGE: memory limit 'lots': ...
    """
    con = duckdb.connect()
    try:
        con.execute("set memory_limit = ?", [text])
        (read,) = con.execute("select current_setting('memory_limit')").fetchone() or ("",)
    except duckdb.Error as err:
        message = str(err).removeprefix("Parser Error: ")
        raise SqlError("E_SQL_USAGE", f"memory limit {text!r}: {message}") from None
    finally:
        con.close()
    return str(read)


def build(
    wh: Warehouse,
    *,
    threads: int | None = None,
    memory: str | None = None,
    on_wait: Callable[[], None] | None = None,
    on_step: OnStep | None = None,
) -> BuildSummary:
    """Build the SQL layers into a new ``warehouse.duckdb`` that replaces the old one
    atomically (:meth:`Warehouse.publish`): readers are never blocked and never block it;
    the file is stamped with the batches its marts cover. Another build (or an import with
    its build) running: waits for it, calling ``on_wait`` first. ``timings["publish"]`` is
    what writing a new file costs beyond the SQL (views, stamp, checkpoint, fsync, rename).
    ``threads``, ``memory``: DuckDB's for the build (default: DuckDB's, one thread a core and
    80 % of the machine's memory); past ``memory`` it spills to a temporary folder beside the
    new file (:func:`memory_limit` reads it). ``on_step(name, done, total)``: as each step
    starts (a command's progress bar; :func:`build_steps` counts them)."""
    summary = BuildSummary()

    def fill(con: duckdb.DuckDBPyConnection) -> None:
        if threads:
            con.execute("set threads = ?", [int(threads)])
        if memory:
            con.execute("set memory_limit = ?", [memory])
        build_sql(con, summary, on_step)

    started = time.perf_counter()
    wh.publish(fill, on_wait=on_wait)
    summary.timings["publish"] = time.perf_counter() - started - summary.seconds
    return summary


def is_built(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the scoring marts exist on this connection (:meth:`Warehouse.marts_problem`
    tells whether they cover every committed batch)."""
    found = con.execute(
        "select count(*) from duckdb_tables() where table_name = 'mart_game_scores'"
    ).fetchone()
    return bool(found and found[0])


def run_tests(con: duckdb.DuckDBPyConnection, names: Sequence[str] | None = None) -> dict[str, int]:
    """Run ``sql/tests/*.sql`` (each must return no rows): ``{test: rows returned}``."""
    out: dict[str, int] = {}
    for name, text in sql_files("tests").items():
        if names is not None and name not in names:
            continue
        out[name] = len(con.execute(text).fetchall())
    return out


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def header_comment(text: str) -> str:
    """The leading ``--`` comment block of a SQL file, as one line (a table's grain).

    >>> header_comment("-- Grain: one row per game.\\n-- Keeps ids.\\nselect 1")
    'Grain: one row per game. Keeps ids.'
    """
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        lines.append(line.removeprefix("--").strip())
    return " ".join(x for x in lines if x)


def write_comments(con: duckdb.DuckDBPyConnection) -> int:
    """``COMMENT ON`` every documented table, view and column (one source of truth: the SQL
    files' header comments and ``sql/columns.toml``, read here at build time so that
    ``big2 sql --tables`` only reads the catalog). Returns the number of comments written."""
    docs = column_docs()
    grains = {
        name: header_comment(text)
        for folder in ("seeds", "staging", "marts")
        for name, text in sql_files(folder).items()
    }
    objects = dict(
        con.execute(
            """
            select table_name, 'table' from duckdb_tables() where schema_name = 'main'
            union all
            select view_name, 'view' from duckdb_views()
            where schema_name = 'main' and not internal
            """
        ).fetchall()
    )
    n = 0
    for name, kind in objects.items():
        if grains.get(name):
            con.execute(f"comment on {kind} {name} is {_quote(grains[name])}")
            n += 1
    columns = con.execute(
        "select table_name, column_name from duckdb_columns() where schema_name = 'main'"
    ).fetchall()
    for table, column in columns:
        if table not in objects:
            continue
        desc = docs.get((table, column)) or docs.get((_base(table), column))
        if desc:
            con.execute(f'comment on column {table}."{column}" is {_quote(desc)}')
            n += 1
    return n


def catalogue(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """``(table, kind, column, description)`` of every table and view users query, from the
    catalog's comments (written by :func:`write_comments` at build time): a row per table
    (column ``*``: its grain), then one per column. A warehouse view refreshed after the last
    build lost its comments: its columns take those of its ``stg_`` view."""
    rows = con.execute(
        r"""
        with objects as (
            select table_name as name, 'table' as kind, comment
            from duckdb_tables() where schema_name = 'main'
            union all
            select view_name, 'view', comment
            from duckdb_views() where schema_name = 'main' and not internal
        ),
        cols as (
            select table_name, column_name, data_type, column_index, comment
            from duckdb_columns() where schema_name = 'main'
        )
        select o.name, o.kind, '*', coalesce(o.comment, ''), -1 as pos
        from objects as o
        where o.name not like '\_%' escape '\'
        union all
        select o.name, o.kind, c.column_name || ' ' || c.data_type,
               coalesce(c.comment, s.comment, ''), c.column_index
        from objects as o
        join cols as c on c.table_name = o.name
        left join cols as s on s.table_name = 'stg_' || o.name and s.column_name = c.column_name
        where o.name not like '\_%' escape '\'
        order by 1, 5
        """
    ).fetchall()
    return [(t, k, c, d) for t, k, c, d, _ in rows]


def _base(table: str) -> str:
    """The warehouse table a staging view reads (its columns' descriptions).

    >>> _base("stg_seats"), _base("stg_ddz_seats"), _base("ddz_game_scores")
    ('seats', 'seats', 'ddz_game_scores')
    """
    return re.sub(r"^stg_(ddz_)?", "", table)


def column_docs() -> dict[tuple[str, str], str]:
    """Column descriptions, ``{(table, column): text}``, from ``sql/columns.toml`` (read by the
    build, :func:`write_comments`; ``tests/test_column_docs.py`` holds the docs' column
    tables to the same words).

    >>> column_docs()[("games", "batch_id")]
    'the import batch that stored the game'
    """
    data = tomllib.loads((SQL_DIR / COLUMNS_FILE).read_text(encoding="utf-8"))
    return {(table, column): text for table, cols in data.items() for column, text in cols.items()}
