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
3. the marts (``sql/marts/*.sql``) as tables and the macros that read marts
   (``rescore_players``, ``dash_winnings_played`` …), each after the marts and such macros it
   names (a mart may call one: ``rollup_winnings``).

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

import contextlib
import hashlib
import json
import re
import time
import tomllib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from pipeline.errors import Big2Error, RulesetError
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
    "luck_expected",
    "ddz_ruleset_fields",
    "ddz_score",
    "ddz_hand",
    "ruleset_chosen",
)
#: DuckDB settings a mart is built under first (reset after it; out of memory, it is built
#: again under DuckDB's own: :func:`_step_with_settings`). ``stats_player_games``: DuckDB
#: estimates the staging views' Big Two games at about a quarter of their number (their
#: ``game_kind`` filter), and its ``build_side_probe_side`` optimizer then turns the mart's left
#: joins around, building their hash tables on the seats' side; under a memory limit of ~0.4-0.5
#: GB at 100,000 games, or 2-4 GB at 1M, that ran out of memory where a smaller or a larger
#: limit passed. With the joins as written it spills, in the same time, and passes there, but
#: not at 256 MB for 1M games, where DuckDB's own plan passes (docs/sql.md, Build time).
#: ``ddz_coop_actions``: the same misjudged filter (its turns estimated at 82,000 of 15M at 1M
#: games) put the turns, texts and all, on the build side of the join to the seats: 8.3 GB at
#: its peak and 15.9 s, as written 3.8 GB and 13.5 s.
MART_SETTINGS: dict[str, dict[str, str]] = {
    "stats_player_games": {"disabled_optimizers": "build_side_probe_side"},
    "ddz_coop_actions": {"disabled_optimizers": "build_side_probe_side"},
}
#: Marts whose rows of a game come from that game's rows alone (and the build's constant
#: tables: rulesets, seeds): one row per seat, action or payment of a game, with no aggregate,
#: window or fit across games, reading only staging views and marts of this set. A build
#: over marts already built by the same SQL (:func:`build_key`) computes these for the new
#: batches' games only and adds them (docs/sql.md, "Incremental builds"); every other mart is
#: rebuilt whole, from them.
GAME_LOCAL_MARTS = frozenset(
    {
        "mart_game_scores",
        "mart_payments",
        "stats_player_games",
        "audit_obligations",
        "collusion_seat_games",
        "luck_hands",
        "mart_game_playtime",
        "ddz_game_scores",
        "ddz_coop_actions",
        "ddz_stats_player_games",
    }
)
#: Marts whose rows of a match (their ``match_key``: the match, or the game itself when the
#: log names none) come from that match's games alone: every window and aggregate partitions
#: by ``match_key``. An incremental build recomputes only the matches the new games belong
#: to (a match may go on in a later import): their rows are deleted and computed again, the
#: filter on ``match_key`` (a list bound as a variable) pushed down through the windows and
#: aggregates (0.1 s against 3.3 s at 1M games).
MATCH_LOCAL_MARTS = frozenset(
    {"mart_match_standings", "mart_match_results", "ddz_match_standings", "luck_seats"}
)
#: Marts published as views, not tables: computed on each read from small stored marts. A
#: table of ``luck_outcomes`` (4M rows at 1M games) would be written again whole by every
#: build, incremental ones too, as its fitted lines change with every game added; the view
#: reads ``luck_seats`` (match-local) and the few rows of ``luck_fits``. ``mart_reject_status``
#: reads the base tables (rejects, games, batches), so that it is current after an import
#: that built nothing (``--no-build``): a reader's connection shadows them with the committed
#: files (``Warehouse.connect``).
VIEW_MARTS = frozenset({"luck_outcomes", "mart_reject_status"})
#: Each game's staging view of its games, then every staging view of its rows. The marts are
#: built with those of a game the warehouse holds no game of shadowed by empty TEMP views
#: (:func:`_shadow_empty`).
KIND_VIEWS: dict[str, tuple[str, ...]] = {
    "stg_games": ("stg_seats", "stg_actions", "stg_tricks"),
    "stg_ddz_games": ("stg_ddz_seats", "stg_ddz_actions"),
}
#: Raised to :data:`build_key` by hand when a change outside ``sql/`` alters what a
#: game-local mart holds for the games already built (the rulesets and seeds are compared).
INCREMENTAL_FORMAT = "1"


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
    #: An incremental build: the games its game-local marts added (None: a full build).
    added_games: int | None = None
    #: Why a build that could have been incremental was built whole ('' when it was not).
    full_because: str = ""


class _NotIncremental(Exception):
    """The stored marts cannot be added to (a constant table they read changed)."""


def ruleset_json(preset: str, overrides: Mapping[str, Any] | None = None) -> str:
    """The JSON a preset plus overrides is to its game's SQL (``Game.sql_params``), for the
    what-if macros (``score_seats(whatif := ...)``, ``ddz_score_seats(whatif := ...)``); the
    game is the one the preset belongs to (:func:`pipeline.games.preset_game`).

    >>> json.loads(ruleset_json("ddz", {"multiplier_cap": 8}))["multiplier_cap"]
    8
    """
    game = preset_game(preset)
    return json.dumps(game.sql_params(game.load_ruleset(preset, dict(overrides or {}))))


def whatif_json(preset: str, overrides: Mapping[str, Any] | None = None) -> str:
    """:func:`ruleset_json` of a what-if (``big2 rescore --as preset --set ...``, the
    leaderboards' what-ifs), which scores the games as played again and replays none: an
    override of a key the game's scoring does not read (a rule of the play, not one of
    ``Game.scoring_keys``) would change nothing, and is refused ``E_RESCORE_KEY``, naming
    it and the keys that do. A rule of the play that a scoring value needs beside it (the
    ruleset refuses the one without the other) is taken: ``missed_call_penalty =
    takes_all_losses`` needs ``last_card_call = required``.

    >>> json.loads(whatif_json("ddz", {"multiplier_cap": 8}))["multiplier_cap"]
    8
    >>> whatif_json("ddz", {"bidding": "call"})
    Traceback (most recent call last):
    ...
    pipeline.errors.RulesetError: E_RESCORE_KEY: override bidding: a rule of the play, not of the scoring; rescore changes only the scoring of the games as played (it does not replay them); the Dou Dizhu keys it takes: multiplier_cap, spring_doubles, stake
    """
    given = dict(overrides or {})
    text = ruleset_json(preset, given)  # an unknown key, a bad value: the ruleset's own error
    game = preset_game(preset)
    scoring = {k: v for k, v in given.items() if k in game.scoring_keys}
    stands = _is_ruleset(game, preset, scoring)
    play = [
        key
        for key in sorted(given)
        if key not in game.scoring_keys
        and (stands or not _is_ruleset(game, preset, {**scoring, key: given[key]}))
    ]
    if play:
        rules = "a rule" if len(play) == 1 else "rules"
        raise RulesetError(
            "E_RESCORE_KEY",
            f"override {', '.join(play)}: {rules} of the play, not of the scoring; rescore "
            "changes only the scoring of the "
            f"games as played (it does not replay them); the {game.csv.title} keys it takes: "
            + ", ".join(sorted(game.scoring_keys)),
            key=play[0],
        )
    return text


def _is_ruleset(game: Game, preset: str, overrides: Mapping[str, Any]) -> bool:
    """Whether ``preset`` with ``overrides`` is a ruleset of ``game`` (each value valid alone
    already: whether they go together)."""
    try:
        game.load_ruleset(preset, overrides)
    except RulesetError:
        return False
    return True


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


#: What DuckDB raises (a ``RuntimeError``) when a signal's handler raised during a statement.
QUERY_INTERRUPTED = "Query interrupted"


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
    except RuntimeError as err:
        raise interrupted(err, name) from None


def interrupted(err: RuntimeError, name: str) -> KeyboardInterrupt:
    """The interrupt a signal's handler raised while DuckDB ran statement ``name``: DuckDB
    stops the statement and raises ``err`` (:data:`QUERY_INTERRUPTED`) instead, the handler's
    exception gone; the CLI says ``E_INTERRUPTED``, not a traceback. Any other
    ``RuntimeError`` is raised again.

    >>> interrupted(RuntimeError(QUERY_INTERRUPTED), "x.sql")
    KeyboardInterrupt('x.sql: Query interrupted')
    """
    if str(err) != QUERY_INTERRUPTED:
        raise err
    return KeyboardInterrupt(f"{name}: {err}")


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


def build_key() -> str:
    """What a build's marts hold besides the stored games: the SQL of ``sql/`` (seeds, macros,
    staging, marts), :data:`GAME_LOCAL_MARTS`, :data:`MATCH_LOCAL_MARTS`, :data:`VIEW_MARTS`,
    :data:`INCREMENTAL_FORMAT` and DuckDB's version, as a digest; stamped in the file
    (:attr:`FileStamp.build_key`), an incremental build needs the same.

    >>> build_key() == build_key() and len(build_key())
    16
    """
    digest = hashlib.sha256()
    for folder in ("seeds", "macros", "staging", "marts"):
        for name, text in sql_files(folder).items():
            digest.update(f"{folder}/{name}\0{text}\0".encode())
    digest.update(",".join(sorted(GAME_LOCAL_MARTS)).encode())
    digest.update(("\0" + ",".join(sorted(MATCH_LOCAL_MARTS))).encode())
    digest.update(("\0" + ",".join(sorted(VIEW_MARTS))).encode())
    digest.update(f"\0{INCREMENTAL_FORMAT}\0{duckdb.__version__}".encode())
    return digest.hexdigest()[:16]


def build_sql(
    con: duckdb.DuckDBPyConnection,
    summary: BuildSummary | None = None,
    on_step: OnStep | None = None,
    overlay: Callable[[duckdb.DuckDBPyConnection], None] | None = None,
) -> BuildSummary:
    """Create or replace every SQL object on a writable connection, each statement committed
    on its own (:func:`build` publishes them as one new file); ``on_step`` as each starts.
    ``overlay``: the connection holds marts built before, and ``overlay(con)`` makes TEMP base
    views over the games to add (:meth:`Warehouse.overlay_views`): the game-local marts get
    those games' rows added, the others are rebuilt whole."""
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
        _build_steps(con, summary, step, steps, overlay)
    except duckdb.OutOfMemoryException as err:
        raise _out_of_memory(steps.running or "rulesets", memory, err) from err
    summary.seconds = time.perf_counter() - started
    return summary


def build_steps() -> int:
    """The steps of a build, as :func:`build`'s ``on_step`` counts them: the rulesets, each
    file of ``sql/`` built (seeds, macros, staging views, marts; the empty staging views
    shadowed before the marts: :func:`_shadow_empty`), the column comments.

    >>> build_steps() == 3 + sum(len(sql_files(f)) for f in ("seeds", "macros", "staging", "marts"))
    True
    """
    files = sum(len(sql_files(folder)) for folder in ("seeds", "macros", "staging", "marts"))
    return files + 3  # the rulesets first, the empty views before the marts, the comments last


def _build_steps(
    con: duckdb.DuckDBPyConnection,
    summary: BuildSummary,
    step: Callable[[str, str], None],
    steps: _Steps,
    overlay: Callable[[duckdb.DuckDBPyConnection], None] | None,
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
    constants = _constant_tables()
    if overlay is not None:  # what the stored marts were built with, to compare
        _keep_constants(con, constants)
    t0 = time.perf_counter()
    steps.start("rulesets")
    _write_rulesets(con)
    summary.timings["rulesets"] = time.perf_counter() - t0
    for name, text in sql_files("seeds").items():  # small constant tables (seed 002)
        step(name, f"create or replace table {name} as\n{text}")
    if overlay is not None:
        _same_constants(con, constants)
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
    # the macros over marts in the marts' order, each once the marts it reads are built (DuckDB
    # binds a macro's tables when it is created), so that a mart may call one too
    order = order_marts(marts | {name: macros[name] for name in after})
    marts = {name: marts[name] for name in order if name not in after}
    if overlay is not None:
        # the new games' rows of each game-local mart, as a TEMP table that the next ones read
        # (as they read the staging views over the TEMP base views), added to the stored one
        overlay(con)
        (database,) = con.execute("select current_database()").fetchone() or ("",)
        stored = '"' + str(database).replace('"', '""') + '".main'  # not TEMP's main schema
        for name in (n for n in order if n in GAME_LOCAL_MARTS):
            _mart_step(
                con,
                summary,
                step,
                name,
                f"create or replace temp table {name} as\n{marts[name]};\n"
                f"insert into {stored}.{name} by name select * from temp.{name}",
            )
        # the matches of the new games, for the match-local marts: a variable, which DuckDB
        # reads as a constant, so the filter on it reaches the marts' scans through their
        # aggregates too (`match_key in (select …)` stayed a semi-join above
        # mart_match_results' aggregate: 0.2 s against 0.015 s at 1M games)
        con.execute(
            "set variable added_matches = (select list(match_key) from ("
            "select match_key from stg_games union select match_key from stg_ddz_games))"
        )
        _drop_temp(con)
        # the marts rebuilt whole: dropped first, their blocks freed by a checkpoint for the
        # new ones to reuse (else the file keeps both, ~1.4× a full build's size at 1M games)
        for name in marts:
            if name not in GAME_LOCAL_MARTS | MATCH_LOCAL_MARTS:
                con.execute(f"drop {_kind(name)} if exists {name}")
        con.execute("checkpoint")
    t0 = time.perf_counter()
    steps.start("empty_views")
    _shadow_empty(con)
    summary.timings["empty_views"] = time.perf_counter() - t0
    for name in order:
        if name in after:
            step(name, macros[name])
            continue
        if overlay is not None and name in GAME_LOCAL_MARTS:
            continue
        if overlay is not None and name in MATCH_LOCAL_MARTS:
            added = "list_contains(getvariable('added_matches'), match_key)"
            sql = (
                f"delete from {name} where {added};\n"
                f"insert into {name} by name select * from (\n{marts[name]}\n) where {added}"
            )
        else:
            sql = f"create or replace {_kind(name)} {name} as\n{marts[name]}"
        _mart_step(con, summary, step, name, sql)
    if overlay is not None:
        con.execute("reset variable added_matches")
    _drop_temp(con)  # the shadows
    for name in marts:
        (n,) = con.execute(f"select count(*) from {name}").fetchone() or (0,)
        summary.rows[name] = int(n)
    t0 = time.perf_counter()
    steps.start("comments")
    write_comments(con)
    summary.timings["comments"] = time.perf_counter() - t0


def _kind(mart: str) -> str:
    """What a mart is published as: ``view`` (:data:`VIEW_MARTS`) or ``table``.

    >>> _kind("luck_outcomes"), _kind("mart_game_scores")
    ('view', 'table')
    """
    return "view" if mart in VIEW_MARTS else "table"


def _mart_step(
    con: duckdb.DuckDBPyConnection,
    summary: BuildSummary,
    step: Callable[[str, str], None],
    name: str,
    sql: str,
) -> None:
    """Build one mart through ``step``, under its :data:`MART_SETTINGS` if it has some."""
    if name in MART_SETTINGS:
        lost = _step_with_settings(con, step, name, sql, MART_SETTINGS[name])
        if lost is not None:
            summary.retried[name] = lost
    else:
        step(name, sql)


def _constant_tables() -> list[str]:
    """The tables a build writes before its marts, from the presets and ``sql/seeds``."""
    names = []
    for kind in kinds():
        game = game_for(kind)
        names.append(f"{game.sql_prefix}rulesets")
        names.extend(game.sql_seeds())
    return names + list(sql_files("seeds"))


def _keep_constants(con: duckdb.DuckDBPyConnection, names: Sequence[str]) -> None:
    """Copy the stored constant tables aside (TEMP ``_built_<name>``) before the build
    rewrites them."""
    for name in names:
        try:
            con.execute(f"create temp table _built_{name} as from {name}")
        except duckdb.CatalogException:
            raise _NotIncremental(f"the built file has no table {name}") from None


def _same_constants(con: duckdb.DuckDBPyConnection, names: Sequence[str]) -> None:
    """``_NotIncremental`` unless every row the stored marts were built with is still in its
    constant table (new rulesets may be added: new games' own), then drop the copies."""
    for name in names:
        (gone,) = con.execute(
            f"select count(*) from (from temp._built_{name} except all from {name})"
        ).fetchone() or (0,)
        if gone:
            raise _NotIncremental(f"{name} changed since the marts were built")
        con.execute(f"drop table temp._built_{name}")


def _shadow_empty(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Shadow each staging view of :data:`KIND_VIEWS` that holds no row, when its game's view
    of games holds none, by a TEMP view of the same columns with ``where false``; the views
    shadowed. The marts read the same (no) rows, but DuckDB drops the scans of an empty view,
    where a view that turns out empty still scans what it filters out: ``stg_actions`` keeps
    the actions of no Dou Dizhu game by an anti-join over every action, so the Big Two marts of
    a warehouse of 1M Dou Dizhu games took ~8 s for no row (docs/sql.md, "Build time"). Each
    view is checked on its own (an action of a game missing from ``games`` is Big Two's), the
    views of a game with games not at all.

    >>> con = duckdb.connect()
    >>> _ = con.execute("create view stg_games as select 1 as game_id where false")
    >>> _ = con.execute("create view stg_seats as select 1 as game_id, 0 as seat")
    >>> _ = con.execute("create view stg_actions as select * from range(3) where false")
    >>> _ = con.execute("create view stg_tricks as select 1 as n where false")
    >>> _ = con.execute("create view stg_ddz_games as select 7 as game_id")
    >>> _shadow_empty(con)
    ['stg_games', 'stg_actions', 'stg_tricks']
    >>> con.execute("select count(*) from stg_actions").fetchall()
    [(0,)]
    >>> con.execute("describe stg_actions").fetchall()[0][:2]
    ('range', 'BIGINT')
    """
    (database,) = con.execute("select current_database()").fetchone() or ("",)
    stored = '"' + str(database).replace('"', '""') + '".main'
    shadowed: list[str] = []
    for games, views in KIND_VIEWS.items():
        if _has_rows(con, games):
            continue
        for view in (games, *views):
            if view == games or not _has_rows(con, view):
                con.execute(f"create temp view {view} as select * from {stored}.{view} where false")
                shadowed.append(view)
    return shadowed


def _has_rows(con: duckdb.DuckDBPyConnection, view: str) -> bool:
    (found,) = con.execute(f"select exists(select 1 from {view})").fetchone() or (False,)
    return bool(found)


def _drop_temp(con: duckdb.DuckDBPyConnection) -> None:
    """Drop this connection's TEMP views and tables (an incremental build's overlay, the
    empty views' shadows)."""
    for (name,) in con.execute(
        "select view_name from duckdb_views() where temporary and not internal"
    ).fetchall():
        con.execute(f"drop view temp.main.{name}")
    for (name,) in con.execute("select table_name from duckdb_tables() where temporary").fetchall():
        con.execute(f"drop table temp.main.{name}")


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
    full: bool = False,
) -> BuildSummary:
    """Build the SQL layers into a new ``warehouse.duckdb`` that replaces the old one
    atomically (:meth:`Warehouse.publish`): readers are never blocked and never block it;
    the file is stamped with the batches its marts cover. Another build (or an import with
    its build) running: waits for it, calling ``on_wait`` first. ``timings["publish"]`` is
    what writing a new file costs beyond the SQL (views, stamp, checkpoint, fsync, rename).
    ``threads``, ``memory``: DuckDB's for the build (default: DuckDB's, one thread a core and
    80 % of the machine's memory); past ``memory`` it spills to a temporary folder beside the
    new file (:func:`memory_limit` reads it). ``on_step(name, done, total)``: as each step
    starts (a command's progress bar; :func:`build_steps` counts them).

    Incremental unless ``full``: when the current file's marts were built by the same
    :func:`build_key` over batches that are all still committed, the new file starts as its
    copy, the :data:`GAME_LOCAL_MARTS` get the rows of the games of the other batches added,
    the :data:`MATCH_LOCAL_MARTS` those of their matches computed again, and the other marts
    are rebuilt whole (``added_games`` says how many games were added). A
    constant table those marts read that changed (a preset's rules) makes it a full build
    (``full_because`` says why)."""
    key = build_key()

    def fill(
        summary: BuildSummary, covered: Collection[str] | None
    ) -> Callable[[duckdb.DuckDBPyConnection], None]:
        def overlay(con: duckdb.DuckDBPyConnection) -> None:
            # the batches the new file's views name (``batches``: the manifest as the publish
            # read it, an import may have committed one since) that the marts do not cover
            rows = con.execute("select batch_id, counts from batches").fetchall()
            added = {b for b, _ in rows if b not in (covered or ())}
            wh.overlay_views(con, added)
            summary.added_games = sum(
                int(json.loads(c).get("stored", 0)) for b, c in rows if b in added
            )

        def run(con: duckdb.DuckDBPyConnection) -> None:
            # the new file is fsynced once, whole, by Warehouse.publish before it replaces the
            # old one: each step's commit need not wait for the disk (a build of 200 games
            # 0.70-0.77 s -> 0.61-0.69 s); a DuckDB without the setting (before 2.0) syncs
            with contextlib.suppress(duckdb.Error):
                con.execute("set fsync_mode = 'none'")
            if threads:
                con.execute("set threads = ?", [int(threads)])
            if memory:
                con.execute("set memory_limit = ?", [memory])
            build_sql(con, summary, on_step, None if covered is None else overlay)

        return run

    started = time.perf_counter()
    with wh.building(on_wait=on_wait):
        summary = BuildSummary()
        covered, why = (None, "") if full else _covered_batches(wh, key)
        try:
            if covered is not None:
                try:
                    wh.publish(fill(summary, covered), from_current=True, build_key=key)
                except _NotIncremental as err:
                    covered, why = None, str(err)
                    summary = BuildSummary()
                    started = time.perf_counter()
            if covered is None:
                summary.full_because = why
                wh.publish(fill(summary, None), build_key=key)
        except Big2Error as err:
            named = _naming_damage(wh, err)
            if named is err:
                raise
            raise named from err
        except RuntimeError as err:  # a statement besides the steps' (rulesets, comments)
            raise interrupted(err, "the build") from None
    summary.timings["publish"] = time.perf_counter() - started - summary.seconds
    return summary


#: The codes of a build that failed on reading a file (DuckDB's error, which may not name it).
_READ_FAILURES = frozenset({"E_SQL_BUILD", "E_WAREHOUSE"})


def _naming_damage(wh: Warehouse, err: Big2Error) -> Big2Error:
    """``err``, a failed build, naming the damaged files of the warehouse when it has some
    (:meth:`Warehouse.damage` with every file hashed, as ``big2 verify`` finds them) and the
    repair; else ``err`` itself. DuckDB's error on a corrupt Parquet page does not always
    name its file ("Payload value bigger than allowed. Corrupted file?")."""
    if err.code not in _READ_FAILURES:
        return err
    try:
        problems = wh.damage(full=True)
    except (Big2Error, OSError):  # the manifest unreadable too: the build's error says enough
        return err
    if not problems:
        return err
    shown = "; ".join(str(p) for p in problems[:3])
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return type(err)(
        err.code,
        f"{err.message}; the warehouse is damaged: {shown}{more}; `big2 verify` lists every "
        "problem, `big2 verify --repair` sets the damaged batches aside",
        **err.context,
    )


def _covered_batches(wh: Warehouse, key: str) -> tuple[set[str] | None, str]:
    """The batches ``warehouse.duckdb``'s marts cover, when an incremental build can add the
    others to them; else None and why not ('' without marts to add to)."""
    stamp = wh.file_stamp()
    if stamp is None or not stamp.marts:
        return None, ""
    if not stamp.build_key:
        return None, "the marts were built before builds could add games to them"
    if stamp.build_key != key:
        return None, "the marts were built by other SQL (or another DuckDB)"
    covered = set(stamp.batch_ids)
    if not covered <= {e.batch_id for e in wh.entries()}:
        return None, "a batch the marts cover is no longer committed"
    return covered, ""


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
    ``big2 sql --tables`` only reads the catalog), in one transaction: ~460 comments, each a
    commit of its own before (0.20-0.27 s of a build against 0.09-0.12 s). Returns the number of
    comments written."""
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
    for name in objects:  # the tables the build writes from Python, the base views
        grains[name] = grains.get(name) or docs.get((name, "*"), "")
    statements = [
        f"comment on {kind} {name} is {_quote(grains[name])}"
        for name, kind in objects.items()
        if grains.get(name)
    ]
    columns = con.execute(
        "select table_name, column_name from duckdb_columns() where schema_name = 'main'"
    ).fetchall()
    for table, column in columns:
        if table not in objects:
            continue
        desc = docs.get((table, column)) or docs.get((_base(table), column))
        if desc:
            statements.append(f'comment on column {table}."{column}" is {_quote(desc)}')
    con.execute("begin transaction")
    try:
        for statement in statements:
            con.execute(statement)
    except BaseException:
        con.execute("rollback")
        raise
    con.execute("commit")
    return len(statements)


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
    tables to the same words); column ``*``: the table's grain, for the tables no SQL file
    makes.

    >>> column_docs()[("games", "batch_id")]
    'the import batch that stored the game'
    """
    data = tomllib.loads((SQL_DIR / COLUMNS_FILE).read_text(encoding="utf-8"))
    return {(table, column): text for table, cols in data.items() for column, text in cols.items()}
