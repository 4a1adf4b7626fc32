"""``big2 build``, ``big2 sql`` and ``big2 rescore``: the SQL layers built, one read-only
query, and the what-if standings (the writers live in :mod:`pipeline.cli.sqlout`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline.cli.app import (
    EXIT_CHECK_FAILED,
    BuildMemoryOption,
    SqlMemoryOption,
    WarehouseOption,
    check_output_file,
    command,
    domain_errors,
    flag,
    parse_overrides,
    plural,
    writer_errors,
)
from pipeline.cli.ingest import build_kind, build_memory, build_with_progress
from pipeline.cli.sqlout import SqlFormat, emit_result, list_tables, run_sandboxed
from pipeline.errors import Big2Error
from pipeline.games import GAMES, Game, check_preset, game_for, preset_game, presets_named

if TYPE_CHECKING:  # the warehouse (pyarrow, duckdb) loads when a command runs
    from pipeline.warehouse import Warehouse

#: ``big2 sql``'s default time limit (seconds; ``--timeout``).
DEFAULT_TIMEOUT_S = 60.0


@command("build")
def build_command(
    warehouse: WarehouseOption = None,
    timings: Annotated[bool, flag("--timings", help="Print each step's time.")] = False,
    test: Annotated[
        bool, flag("--test", help="Then run sql/tests (exit 1 if any returns rows).")
    ] = False,
    memory_limit: BuildMemoryOption = None,
    threads: Annotated[
        int | None,
        typer.Option(min=1, help="DuckDB's threads for the build (default: one a core)."),
    ] = None,
    full: Annotated[
        bool,
        flag(
            "--full",
            help="Rebuild every mart over every game, even where the per-game marts could "
            "just add the games imported since the last build.",
        ),
    ] = False,
) -> None:
    """Create the staging views, scoring macros and marts in a new warehouse.duckdb that
    replaces the old one atomically (readers keep reading the old one meanwhile). The
    per-game marts add only the games imported since the last build when it ran the same
    SQL; the others are rebuilt (docs/sql.md, "Incremental builds")."""
    from pipeline.warehouse import Warehouse

    with domain_errors(), writer_errors():
        memory = build_memory(memory_limit)
        wh = Warehouse.existing(warehouse)
        done = build_with_progress(wh, threads=threads, memory=memory, full=full)
        typer.echo(
            f"built {plural(len(done.rows), 'mart')} in {done.seconds:.2f} s ({wh.db_path})"
            f"{build_kind(done)}"
        )
        for name, lost in done.retried.items():
            typer.echo(
                f"  {name} ran out of memory under its own settings ({lost:.2f} s) and was "
                "built again under DuckDB's (sqlbuild.MART_SETTINGS)"
            )
        if timings:
            for name, seconds in done.timings.items():
                rows = done.rows.get(name)
                typer.echo(f"  {seconds:8.3f} s  {name}" + (f"  ({rows:,} rows)" if rows else ""))
        if test and not sql_tests_pass(wh):
            raise typer.Exit(code=EXIT_CHECK_FAILED)


def sql_tests_pass(wh: Warehouse) -> bool:
    """Run ``sql/tests`` on the built warehouse, print each failing one; whether all pass."""
    from pipeline import sqlbuild

    con = wh.connect()
    try:
        failed = {n: r for n, r in sqlbuild.run_tests(con).items() if r}
    finally:
        con.close()
    for name, n in failed.items():
        typer.echo(f"FAIL {name}: {plural(n, 'row')}")
    if not failed:
        typer.echo("sql/tests: all pass")
    return not failed


@command("sql")
def sql_command(
    query: Annotated[str | None, typer.Argument(help="A SQL query (read-only).")] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file", "-f", exists=True, dir_okay=False, help="Read the query from a file."
        ),
    ] = None,
    fmt: Annotated[
        SqlFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = SqlFormat.TABLE,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write to this file (required for parquet).")
    ] = None,
    tables: Annotated[
        bool,
        flag(
            "--tables",
            help="List the tables and views with their descriptions (a row each on the screen; "
            "with --format csv, json or parquet every column of every one).",
        ),
    ] = False,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns", metavar="TABLE", help="List one table's columns with descriptions."
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0, help="Stop after this many seconds (0: no limit)."),
    ] = DEFAULT_TIMEOUT_S,
    memory_limit: SqlMemoryOption = None,
    warehouse: WarehouseOption = None,
) -> None:
    """Run one read-only query on the warehouse's tables (SELECT, EXPLAIN [ANALYZE] SELECT; no
    file outside the committed Parquet files, no COPY, no write), streamed to the output."""
    from pipeline import sqlbuild
    from pipeline.warehouse import Warehouse

    with domain_errors():
        given = [
            name
            for name, value in (
                ("a query", query),
                ("--file", file),
                ("--tables", tables),
                ("--columns", columns),
            )
            if value
        ]
        if len(given) > 1:  # one was run and the other silently ignored
            raise sqlbuild.SqlError(
                "E_SQL_USAGE",
                "give a query, --file, --tables or --columns, one of them "
                f"(got {' and '.join(given)})",
            )
        memory = build_memory(memory_limit)
        wh = Warehouse.existing(warehouse)
        if out is not None:  # no output in the warehouse's folder at all: its files first
            if out.resolve().is_relative_to(wh.root):
                raise Big2Error("E_SQL_USAGE", f"--out {out} is inside the warehouse {wh.root}")
            check_output_file(out)
        if tables or columns:
            list_tables(wh, fmt, out, columns_of=columns)
            return
        text = file.read_text(encoding="utf-8") if file is not None else query
        if not text:
            raise sqlbuild.SqlError("E_SQL_USAGE", "give a query, --file, --tables or --columns")
        if fmt is SqlFormat.PARQUET and out is None:
            raise Big2Error("E_SQL_USAGE", "--format parquet needs --out FILE")
        run_sandboxed(wh, text, fmt, out, timeout=timeout, memory=memory)


class RescoreBy(StrEnum):
    """The side-by-side of ``big2 rescore``: per player overall, or per match."""

    PLAYER = "player"
    MATCH = "match"


#: The named query (sql/queries/) of each side-by-side, after the prefix of the game whose
#: preset follows ``--as`` (``Game.sql_prefix``: Big Two's games, or ``ddz_`` Dou Dizhu's).
RESCORE_QUERIES = {RescoreBy.PLAYER: "rescore_players", RescoreBy.MATCH: "rescore_matches"}


def write_rescore(
    wh: Warehouse,
    whatif: str,
    by: RescoreBy,
    fmt: SqlFormat,
    out: Path | None,
    *,
    table_rows: int | None,
    prefix: str = "",
    memory: str | None = None,
    game: Game | None = None,
) -> None:
    """Write the side-by-side of ``by`` under the what-if ruleset ``whatif`` (JSON) as
    ``fmt`` to ``out`` (stdout when ``None``; :func:`~pipeline.cli.sqlout.emit_result`: the
    table shows its first ``table_rows`` rows and says how many it left out, CSV, JSON and
    Parquet hold every row), over the games of the game whose SQL objects have this
    ``prefix`` (``Game.sql_prefix``), in at most ``memory``, spilling past it to a temporary
    folder (``$TMPDIR``; the query is big2's own, not a user's); ``E_SQL_NOT_BUILT`` before
    ``big2 build``. ``game``: the preset's game; when the warehouse holds none of its games,
    a note on stderr says so (the result is empty; exit 0)."""
    import tempfile

    from pipeline import sqlbuild
    from pipeline.warehouse import reading

    with tempfile.TemporaryDirectory(prefix="big2-rescore-") as spill:
        con = reading.open_readonly(wh, memory=memory, spill=Path(spill))
        try:
            if not sqlbuild.is_built(con):
                raise sqlbuild.SqlError("E_SQL_NOT_BUILT", "no marts yet: run `big2 build`")
            if game is not None:
                (count,) = reading.run_query(con, "rescore_count_games", game_kind=game.kind)
                if not count["n_games"]:
                    title = game.csv.title
                    others = presets_named(g for g in map(game_for, GAMES) if g.kind != game.kind)
                    typer.echo(
                        f"note: no {title} game in {wh.root}: a {title} preset rescores the "
                        f"{title} games only (the other presets: {others})",
                        err=True,
                    )
            query = reading.query_text(prefix + RESCORE_QUERIES[by])
            with reading.memory_bound(con):
                emit_result(con, query, fmt, out, params={"whatif": whatif}, table_rows=table_rows)
        finally:
            con.close()


@command("rescore")
def rescore_command(
    as_preset: Annotated[
        str,
        typer.Option("--as", help="Score every game as if played under this preset's scoring."),
    ],
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="Override a key of the scoring (stake, settlement, multiplier_cap …); "
            "repeatable. A rule of the play is refused (E_RESCORE_KEY names the keys taken).",
        ),
    ] = None,
    by: Annotated[RescoreBy, typer.Option(case_sensitive=False, help="Side-by-side of.")] = (
        RescoreBy.PLAYER
    ),
    limit: Annotated[
        int,
        typer.Option(
            min=1,
            help="Rows of the table printed on the screen (then how many more there are); "
            "--out and --format csv, json or parquet get every row.",
        ),
    ] = 30,
    fmt: Annotated[
        SqlFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = SqlFormat.TABLE,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", metavar="FILE", help="Write to this file (required for parquet)."
        ),
    ] = None,
    memory_limit: SqlMemoryOption = None,
    warehouse: WarehouseOption = None,
) -> None:
    """What-if: standings under the games' own rules beside standings under another
    ruleset's scoring (the same games as played: no re-import, no replay, so the rules of
    the play are the games' own; with `--set bankroll=true` the cap applies game by game in
    match order, as in scoring). A Dou Dizhu preset (`--as ddz --set multiplier_cap=8`)
    rescores the Dou Dizhu games."""
    from pipeline import sqlbuild
    from pipeline.warehouse import Warehouse

    with domain_errors():
        if fmt is SqlFormat.PARQUET and out is None:
            raise Big2Error("E_SQL_USAGE", "--format parquet needs --out FILE")
        if out is not None:
            check_output_file(out)
        memory = build_memory(memory_limit)
        check_preset(as_preset)
        whatif = sqlbuild.whatif_json(as_preset, parse_overrides(overrides))
        game = preset_game(as_preset)
        wh = Warehouse.existing(warehouse)
        if fmt is SqlFormat.TABLE and out is None:
            typer.echo(f"own rules vs what-if ({' '.join([as_preset, *(overrides or [])])})")
        write_rescore(
            wh,
            whatif,
            by,
            fmt,
            out,
            table_rows=limit if out is None else None,
            prefix=game.sql_prefix,
            memory=memory,
            game=game,
        )
