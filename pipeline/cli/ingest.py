"""``big2 ingest`` and ``big2 verify``: logs into the warehouse, and the warehouse checked.
The summaries an import prints (:func:`print_ingest_summary`) and the build after it
(:func:`build_after_ingest`) serve ``big2 simulate --ingest`` and ``big2 demo`` too."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Column, Table

from pipeline.big2.rules import DEFAULT_PRESET, load_ruleset, preset_names
from pipeline.cli.app import (
    EXIT_CHECK_FAILED,
    BuildMemoryOption,
    WarehouseOption,
    command,
    console,
    domain_errors,
    err_console,
    flag,
    parse_overrides,
    plural,
    refuse_memory_limit,
    runnable_big2,
    say_waiting,
    shell_word,
    writer_errors,
)
from pipeline.errors import Big2Error, RulesetError
from pipeline.games import DEFAULT_KIND, preset_game
from pipeline.logs.encodings import Finding
from pipeline.logs.model import DEFAULT_MAX_REJECTS_PER_FILE
from pipeline.logs.reader import CSV_SUFFIXES, LOG_FORMATS
from pipeline.logs.scoresheet import SheetRules

if TYPE_CHECKING:  # the import and the warehouse (pyarrow, duckdb) load when a command runs
    from pipeline.ingest import FileSummary, IngestSummary
    from pipeline.ingest import Progress as IngestProgress
    from pipeline.sqlbuild import BuildSummary
    from pipeline.warehouse import Warehouse
    from pipeline.warehouse.store import Repair


#: How many files an import's summary lists by default (``--files``).
FILES_SHOWN = 20
#: The width of the build's progress bar's step name (the longest file of ``sql/``, 25): the
#: bar keeps its place from step to step.
STEP_WIDTH = 26


def sheet_rules(log_format: str | None, ruleset: str, overrides: list[str] | None) -> SheetRules:
    """The rules that score sheets (which name none) are stored with, checked before any
    file is read: a bad ``--format``, preset or ``--set`` key is refused here, naming it."""
    if log_format is not None and log_format not in LOG_FORMATS:
        from pipeline.ingest import IngestError

        raise IngestError("E_INGEST", f"--format {log_format!r}: one of {', '.join(LOG_FORMATS)}")
    settings = parse_overrides(overrides or [])
    if preset_game(ruleset).kind != DEFAULT_KIND:
        raise RulesetError(
            "E_RULESET_PRESET",
            f"--ruleset {ruleset!r}: score sheets are Big Two's; presets: "
            + ", ".join(sorted(preset_names())),
        )
    load_ruleset(ruleset, settings)
    return SheetRules(ruleset, tuple(sorted(settings.items())))


@command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[
        list[str],
        typer.Argument(metavar="PATH...", help="Log files, folders or glob patterns."),
    ],
    warehouse: WarehouseOption = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Workers (default: one per core on large inputs; score sheets count for "
            "none, they import fastest with one): threads on the native core, else "
            "processes.",
        ),
    ] = None,
    strict: Annotated[bool, flag("--strict", help="Exit 1 if any game was rejected.")] = False,
    top: Annotated[
        int, typer.Option(min=0, help="How many reject codes to list (0: every code).")
    ] = 5,
    files: Annotated[
        int,
        typer.Option(
            "--files",
            min=0,
            help="How many files the summary lists, those with rejects or duplicates "
            "first; the others are summed in one row (0: every file); so too the files "
            "that are not UTF-8, each with the command converting it.",
        ),
    ] = FILES_SHOWN,
    no_build: Annotated[
        bool,
        flag(
            "--no-build",
            help="Skip the SQL mart build (the marts stay stale until `big2 build`; "
            "`big2 verify` says so).",
        ),
    ] = False,
    memory_limit: BuildMemoryOption = None,
    max_rejects_per_file: Annotated[
        int,
        typer.Option(
            min=0,
            help="Rejects of one file stored in full; the rest are counted by code in one "
            "E_TOO_MANY_REJECTS row per file.",
        ),
    ] = DEFAULT_MAX_REJECTS_PER_FILE,
    log_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="The shape of every file: jsonl, csv, sheet (CSV score sheet) or scorer "
            "(big-two-scorer text); default: told by name and content.",
        ),
    ] = None,
    ruleset: Annotated[
        str, typer.Option(help="Big Two preset of the score sheets, which name no rules.")
    ] = DEFAULT_PRESET,
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Score sheets: override a rule."),
    ] = None,
) -> None:
    """Replay every game of the logs through the rules engine into the warehouse, then
    rebuild the SQL marts.

    Rejected games are data, not failure: they land in the rejects table with their
    reason, and the exit code is 0 unless --strict (1). A run that cannot finish (disk
    full, a worker died, the marts not rebuilt) exits 3; SIGINT / SIGTERM 128 + the signal.
    Re-importing stores nothing twice.
    """
    from pipeline.ingest import expand_paths
    from pipeline.warehouse import Warehouse

    with domain_errors(), writer_errors():
        rules = sheet_rules(log_format, ruleset, overrides)
        if no_build:
            refuse_memory_limit(ctx, "E_SQL_USAGE", "with --no-build: it only limits the build")
        memory = build_memory(memory_limit, no_build)
        logs = expand_paths(paths)  # E_NO_INPUT before the warehouse folder and its lock
        wh = Warehouse(warehouse)
        with wh.building(on_wait=lambda: say_waiting(wh)):  # import + build: one writer
            summary = ingest_with_progress(
                paths,
                wh,
                workers=workers,
                max_rejects_per_file=max_rejects_per_file,
                log_format=log_format,
                rules=rules,
                files=logs,
            )
            print_ingest_summary(summary, wh, top=top, paths=paths, files=files)
            if not no_build:
                build_after_ingest(wh, summary, memory=memory)
        if strict and summary.total().rejected:
            raise typer.Exit(code=EXIT_CHECK_FAILED)


def ingest_with_progress(
    paths: Sequence[str],
    wh: Warehouse,
    *,
    workers: int | None = None,
    max_rejects_per_file: int = DEFAULT_MAX_REJECTS_PER_FILE,
    log_format: str | None = None,
    rules: SheetRules | None = None,
    files: Sequence[Path] | None = None,
) -> IngestSummary:
    """Run an import with a rich progress bar on stderr (bytes read, games, games/s, rejects
    so far), updated while a file is read too; ``files``: the logs of ``paths`` when the
    caller has expanded them already (:func:`pipeline.ingest.ingest`)."""
    from pipeline.ingest import ingest as run_ingest

    with RichProgress(
        TextColumn("[bold]ingest"),
        BarColumn(),
        TextColumn("{task.fields[games]:,} games"),
        TextColumn("{task.fields[rate]:,.0f} games/s"),
        TextColumn("{task.fields[rejected]:,} rejected"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,  # off a terminal it left only a blank line
    ) as bar:
        task = bar.add_task("ingest", total=None, games=0, rate=0.0, rejected=0)
        started = time.perf_counter()

        def show(p: IngestProgress) -> None:
            rate = p.games / max(time.perf_counter() - started, 1e-9)
            bar.update(
                task,
                total=p.bytes_total or None,
                completed=p.bytes_done,
                games=p.games,
                rate=rate,
                rejected=p.rejected,
            )

        return run_ingest(
            paths,
            wh,
            workers=workers,
            max_rejects_per_file=max_rejects_per_file,
            on_progress=show,
            log_format=log_format,
            rules=rules,
            files=files,
        )


def summary_rows(summary: IngestSummary, files: int = FILES_SHOWN) -> list[FileSummary]:
    """The rows of the summary table: each file, in the import's order; past ``files`` files
    (0: no limit), the ``files`` files with the most rejects, then the most duplicates, still
    in the import's order, the others summed in one row (``… N more files``), so that no count
    is lost; then the total.

    >>> from pipeline.ingest import FileSummary, IngestSummary
    >>> s = IngestSummary(files={f"f{k}": FileSummary(f"f{k}", 2, 2 - k % 2, k % 2) for k in range(5)})
    >>> [(r.file, r.read, r.stored, r.duplicate) for r in summary_rows(s, 2)]
    [('f1', 2, 1, 1), ('f3', 2, 1, 1), ('… 3 more files', 6, 6, 0), ('total', 10, 8, 2)]
    """
    from pipeline.ingest import FileSummary

    rows = [*summary.files.values()]
    if len(rows) <= 1:
        return rows
    total = summary.total()
    if files and len(rows) > files:
        order = sorted(range(len(rows)), key=lambda k: (-rows[k].rejected, -rows[k].duplicate, k))
        rest = FileSummary.summed(
            f"… {len(rows) - files:,} more files", (rows[k] for k in order[files:])
        )
        rows = [*(rows[k] for k in sorted(order[:files])), rest]
    return [*rows, total]


def summary_table(summary: IngestSummary, files: int = FILES_SHOWN) -> Table:
    """The closing account of an import: read / stored / duplicate / rejected by file
    (:func:`summary_rows`)."""
    table = Table(title=f"import {summary.batch_id}")
    table.add_column("file", overflow="fold")
    for column in ("read", "stored", "duplicate", "rejected"):
        table.add_column(column, justify="right")
    for row in summary_rows(summary, files):
        style = "bold" if row.file == "total" else ""
        table.add_row(
            escape(row.file),
            f"{row.read:,}",
            f"{row.stored:,}",
            f"{row.duplicate:,}",
            f"{row.rejected:,}",
            style=style,
        )
    return table


def print_ingest_summary(
    summary: IngestSummary,
    wh: Warehouse,
    *,
    top: int = 5,
    paths: Sequence[str] = (),
    files: int = FILES_SHOWN,
) -> None:
    """The per-file table (``files`` of them at most: :func:`summary_rows`), the throughput
    line, the files of ``paths``' folders passed over, and the top reject reasons with an
    example each and where the rest are."""
    from pipeline.ingest import skipped_files
    from pipeline.logs.reader import LOG_NAMES

    console.print(summary_table(summary, files))
    total = summary.total()
    rate = total.read / summary.seconds if summary.seconds else 0.0
    typer.echo(
        f"{plural(total.read, 'game')} read in {summary.seconds:.1f} s ({rate:,.0f} games/s, "
        f"{plural(summary.workers, 'worker')}); warehouse {wh.root}"
    )
    skipped = skipped_files(paths)
    if skipped:
        names = ", ".join(p.name for p in skipped[:SKIPPED_SHOWN])
        more = f" and {len(skipped) - SKIPPED_SHOWN:,} more" if len(skipped) > SKIPPED_SHOWN else ""
        typer.echo(
            f"{plural(len(skipped), 'file')} skipped (not a log by name and content: "
            f"{LOG_NAMES}; --format names the shape of any other file): {names}{more}"
        )
    if summary.reasons:
        print_reject_reasons(summary, wh, top=top)
    print_encodings(summary, wh, skipped, files)


#: How many skipped files the summary names.
SKIPPED_SHOWN = 5


def print_reject_reasons(summary: IngestSummary, wh: Warehouse, *, top: int) -> None:
    """The ``top`` reject codes (0: every code) with their count and first ``file:line``, how
    many codes more, and the query that lists those rejects: the batch's; when some were
    stored by an earlier import (a reject is stored once), said, and those of the files with
    rejects, whichever import stored them (:func:`rejects_query`)."""
    files = [f.file for f in summary.files.values() if f.rejected]
    files_or_none = files if summary.repeated_rejects else None
    examples = reject_examples(wh, summary.batch_id, files_or_none)
    typer.echo("top reject reasons:")
    codes = summary.reasons.most_common()
    top = top or len(codes)
    for code, n in codes[:top]:
        typer.echo(f"  {n:>8,}  {code:<22} {examples.get(code, '')}".rstrip())
    if len(codes) > top:
        typer.echo(f"  and {plural(len(codes) - top, 'more code')}")
    if summary.repeated_rejects:
        typer.echo(
            f"{plural(summary.repeated_rejects, 'reject')} met before: stored by an earlier "
            "import, not again"
        )
    query = rejects_query(summary.batch_id, files_or_none)
    typer.echo(f"details: {runnable_big2()} sql {shell_word(query)} -w {shell_word(str(wh.root))}")


def rejects_query(batch_id: str, files: Sequence[str] | None = None) -> str:
    """The ``big2 sql`` query of an import's rejects: those the batch stored, or (``files``)
    those stored for these files by any batch.

    >>> rejects_query("b1")
    "select * from rejects where batch_id = 'b1'"
    >>> rejects_query("b2", ["/logs/a.jsonl", "/logs/it's.jsonl"])
    "select * from rejects where file in ('/logs/a.jsonl', '/logs/it''s.jsonl') order by file, line"
    """
    if files is None:
        return f"select * from rejects where batch_id = '{batch_id}'"
    names = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    return f"select * from rejects where file in ({names}) order by file, line"


def reject_examples(
    wh: Warehouse, batch_id: str, files: Sequence[str] | None = None
) -> dict[str, str]:
    """Reject code → its first ``file:line`` in the batch, or (``files``) among the rejects
    stored for these files (named query ``ingest_reject_examples``)."""
    from pipeline.report import run_query

    con = wh.connect()
    try:
        rows = run_query(
            con,
            "ingest_reject_examples",
            batch_id=batch_id,
            files=None if files is None else list(files),
        )
    finally:
        con.close()
    return {
        str(r["code"]): str(r["file"]) + ("" if r["line"] is None else f":{r['line']}")
        for r in rows
    }


def print_encodings(
    summary: IngestSummary, wh: Warehouse, skipped: Sequence[Path] = (), files: int = FILES_SHOWN
) -> None:
    """Each file of the import that is not UTF-8 (:func:`encoding_findings`; ``files`` of them
    at most, 0: all, as ``--files``), named with what it is in and the command that writes its
    UTF-8 copy, then the import of the copies."""
    from pipeline.logs.encodings import converted_path

    found = encoding_findings(summary, wh, skipped)
    if not found:
        return
    typer.echo(
        "not UTF-8 (an import reads UTF-8 only): convert each file to a UTF-8 copy, in utf8/ "
        "beside it under its own name, then import the copies:"
    )
    shown = found[:files] if files else found
    for finding in shown:
        typer.echo(f"  {finding.file}: {finding.what()}")
        for line in finding.commands():
            typer.echo(f"    {line}")
    if len(found) > len(shown):
        rest = found[len(shown) :]
        names = ", ".join(f"{Path(f.file).name} ({'/'.join(f.guess.names) or '?'})" for f in rest)
        typer.echo(
            f"  and {plural(len(rest), 'more file')}, each converted alike (--files 0 lists"
            f" every command): {names}"
        )
    folders = sorted({str(converted_path(f.file).parent) for f in found if f.commands()})
    if folders:
        words = " ".join(shell_word(folder) for folder in folders)
        typer.echo(
            f"  then: {runnable_big2()} ingest {words} -w {shell_word(str(wh.root))}"
            " (and this import's other options)"
        )


def encoding_findings(
    summary: IngestSummary, wh: Warehouse, skipped: Sequence[Path] = ()
) -> list[Finding]:
    """The files of an import that are not UTF-8, in order of name: each with rejects, its
    ``E_ENCODING`` lines read back (three at most) and its start (UTF-16), and each passed
    over (UTF-16 only), as :func:`pipeline.logs.encodings.file_guess` tells (named query
    ``ingest_reject_files``: the batch's rejects, or those of its files with rejects when it
    met rejects stored before, their games CSVs with them). A few lines a file: cheap."""
    from pipeline.logs.csv_logs import games_csv_for
    from pipeline.logs.encodings import file_guess
    from pipeline.report import run_query

    rows = []
    if summary.reasons:
        files: list[str] | None = None
        if summary.repeated_rejects:
            with_rejects = [f.file for f in summary.files.values() if f.rejected]
            games = [str(games_csv_for(Path(f))) for f in with_rejects if f.endswith(CSV_SUFFIXES)]
            files = sorted({*with_rejects, *games})
        con = wh.connect()
        try:
            rows = run_query(con, "ingest_reject_files", batch_id=summary.batch_id, files=files)
        finally:
            con.close()
    found: dict[str, Finding] = {}
    for row in rows:
        file = str(row["file"])
        lines = [*(row["lines"] or []), *(row["action_lines"] or [])]
        guess = file_guess(file, lines)
        if guess is not None:
            found[file] = Finding(file, guess, int(row["n_encoding"]))
    for path in skipped:
        guess = file_guess(path, [])
        if guess is not None:
            found[str(path)] = Finding(str(path), guess, 0)
    for finding in found.values():  # a games CSV's actions CSVs go beside its copy
        finding.partners = [
            f
            for f in summary.files
            if f not in found
            and f.endswith(CSV_SUFFIXES)
            and str(games_csv_for(Path(f))) == finding.file
        ]
    return [found[f] for f in sorted(found)]


def build_memory(memory_limit: str | None, no_build: bool = False) -> str | None:
    """``--memory-limit`` as DuckDB reads it, checked before any work starts (``E_SQL_USAGE``,
    exit 2: for an import, rather than a failed build after it committed); None when unset or
    when there is no build."""
    if memory_limit is None or no_build:
        return None
    from pipeline import sqlbuild

    return sqlbuild.memory_limit(memory_limit)


def build_with_progress(
    wh: Warehouse,
    *,
    threads: int | None = None,
    memory: str | None = None,
    full: bool = False,
) -> BuildSummary:
    """:func:`pipeline.sqlbuild.build` with a progress bar on stderr (steps done of all, the
    one running, the time so far; gone when the build ends); a build running elsewhere is
    waited for, and said."""
    from pipeline import sqlbuild

    with RichProgress(
        TextColumn("[bold]build"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} steps"),
        TextColumn("{task.fields[step]}", table_column=Column(width=STEP_WIDTH, no_wrap=True)),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,  # off a terminal it left only a blank line
    ) as bar:
        task = bar.add_task("build", total=None, step="")  # the first step tells the total

        def show(step: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, step=escape(step))

        return sqlbuild.build(
            wh,
            threads=threads,
            memory=memory,
            on_wait=lambda: say_waiting(wh),
            on_step=show,
            full=full,
        )


def build_kind(done: BuildSummary) -> str:
    """How a build went, for its line: games added to the per-game marts, or why it rebuilt
    them whole when it could have added.

    >>> from pipeline.sqlbuild import BuildSummary
    >>> build_kind(BuildSummary(added_games=1200))
    '; the per-game marts added 1,200 new games'
    >>> build_kind(BuildSummary(full_because="the marts were built by other SQL"))
    '; every mart rebuilt: the marts were built by other SQL'
    >>> build_kind(BuildSummary())
    ''
    """
    if done.added_games is not None:
        return f"; the per-game marts added {plural(done.added_games, 'new game')}"
    if done.full_because:
        return f"; every mart rebuilt: {done.full_because}"
    return ""


def build_after_ingest(
    wh: Warehouse, summary: IngestSummary | None = None, *, memory: str | None = None
) -> None:
    """Rebuild the SQL layers after an import (``memory``: DuckDB's memory limit for it,
    :func:`build_memory`), with its progress bar; not when the import ``summary`` committed
    no file and the marts were current (:func:`marts_still_current`). A failing build is
    ``E_BUILD_FAILED`` (exit 3): the import stays committed, the marts stay as they were
    (stale: ``big2 verify`` says so) until ``big2 build`` succeeds. Stopped by a signal, it
    is ``E_INTERRUPTED`` saying that the import had committed."""
    if summary is not None and (built := marts_still_current(wh, summary.batch_id)):
        typer.echo(
            "SQL marts not rebuilt: this import stored nothing new (its games and rejects were"
            f" in the warehouse already), and the marts built {built} cover every stored game"
            " (`big2 build` rebuilds them anyway)"
        )
        return
    try:
        done = build_with_progress(wh, memory=memory)
    except KeyboardInterrupt as err:  # Ctrl-C, SIGTERM: the import stays committed, say so
        from pipeline.ingest import Interrupted

        raise Interrupted(int(getattr(err, "signum", signal.SIGINT)), committed=True) from None
    except Big2Error as err:
        what = f"batch {summary.batch_id}" if summary is not None else "the import"
        raise Big2Error(
            "E_BUILD_FAILED",
            f"{what} is committed, but the SQL marts were not rebuilt ({err}); they are "
            "stale until `big2 build` succeeds",
        ) from err
    typer.echo(
        f"SQL marts built in {done.seconds:.2f} s ({plural(len(done.rows), 'mart')})"
        f"{build_kind(done)}"
    )


def marts_still_current(wh: Warehouse, batch_id: str) -> str | None:
    """When the import batch ``batch_id`` committed no file (every game a duplicate, nothing
    rejected) and the marts of ``warehouse.duckdb`` cover every batch that did, as ``big2
    verify`` judges them (:meth:`Warehouse.marts_problem`): the time they were built, for the
    message; else None (a build is due). At 1M games that build is ~70 s of work that would
    change no row."""
    stamp = wh.file_stamp()
    if stamp is None or not stamp.marts:
        return None
    entries = wh.entries()
    batch = next((e for e in entries if e.batch_id == batch_id), None)
    if batch is None or batch.files or wh.marts_problem(entries) is not None:
        return None
    return stamp.built_at


@command()
def verify(
    warehouse: WarehouseOption = None,
    repair: Annotated[
        bool,
        flag(
            "--repair",
            help="First move the batches with a damaged file (and files the manifest lost) "
            "to quarantine/ and drop them from the manifest, nothing of them deleted; and "
            "delete what a stopped build left (warehouse.duckdb.new-*).",
        ),
    ] = False,
) -> None:
    """Check the warehouse: manifest files present with their checksums, no game twice,
    row counts consistent, marts built over every batch. Exit 1 if anything is wrong."""
    from pipeline.warehouse import Warehouse

    with domain_errors():
        wh = Warehouse.existing(warehouse)
        done = print_repair(wh) if repair else None
        report = wh.verify_report(hashed=done.digests if done else None)  # hashed once
        problems = report.problems
        if report.import_running:
            n = len(report.in_progress)
            typer.echo(f"an import is running: {plural(n, 'file')} of it in progress (not checked)")
        if report.build_running:
            typer.echo("a build is running: the marts are being rebuilt")
        if not problems:
            typer.echo(f"warehouse {wh.root}: OK ({plural(len(wh.entries()), 'batch')})")
            return
    for problem in problems:
        typer.echo(str(problem))
    typer.echo(f"{plural(len(problems), 'problem')} in {wh.root}", err=True)
    raise typer.Exit(code=EXIT_CHECK_FAILED)


def print_repair(wh: Warehouse) -> Repair:
    """``verify --repair``: quarantine the damaged batches and say what moved; what the
    repair found and did."""
    done = wh.repair()
    for batch_id in done.dropped_batches:
        typer.echo(f"repair: batch {batch_id} dropped from the manifest")
    for path in done.quarantined:
        typer.echo(f"repair: moved to {path}")
    for path in done.deleted:
        typer.echo(f"repair: deleted {path} (left by a stopped build)")
    if not done.problems and not done.deleted:
        typer.echo("repair: nothing to repair")
    return done
