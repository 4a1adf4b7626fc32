"""The ``big2`` command line: parse arguments, delegate to the layers below, print.

Commands hold no rules and no SQL. A deliberate error (:class:`pipeline.errors.Big2Error`)
becomes one line on stderr and exit code 2 at this boundary (:func:`domain_errors`).
Exit codes: 0 ok, 1 a check failed, 2 bad input or usage.

>>> from typer.testing import CliRunner
>>> result = CliRunner().invoke(app, ["--version"])
>>> result.exit_code, result.output.startswith("big2-replay ")
(0, True)
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import io
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from pipeline import __version__, compiled, shipped
from pipeline.big2.rules import (
    DEFAULT_PRESET,
    TIER_TABLES,
    Ruleset,
    load_ruleset,
    parse_override,
    preset_meta,
    preset_names,
)
from pipeline.errors import Big2Error, RulesetError
from pipeline.ingest import DEFAULT_MAX_REJECTS_PER_FILE, IngestSummary
from pipeline.ingest import Progress as IngestProgress
from pipeline.ingest import ingest as run_ingest
from pipeline.warehouse import Warehouse, is_disk_full, reading, resolve_dir


def flag(*decls: str, **options: Any) -> Any:
    """A yes/no option, shown in ``--help`` without a type placeholder (no ``<bool>``)."""
    return typer.Option(*decls, metavar="", **options)


def runnable_big2(argv0: str | None = None) -> str:
    """How to type this ``big2`` in the shell that ran it: a bare ``big2`` when that name on
    ``PATH`` is this very script, else its path (relative to the current folder when inside,
    e.g. ``.venv/bin/big2`` after ``make demo``).

    >>> runnable_big2("/nowhere/bin/big2")
    '/nowhere/bin/big2'
    """
    script = Path(argv0 if argv0 is not None else sys.argv[0]).absolute()
    if script.name != "big2":  # `python -m pipeline.cli`
        return f"{Path(sys.executable).name} -m pipeline.cli"
    found = shutil.which("big2")
    if found is not None and Path(found).absolute() == script:
        return "big2"
    with contextlib.suppress(ValueError):
        return script.relative_to(Path.cwd()).as_posix()
    return script.as_posix()


def plural(n: int, noun: str) -> str:
    """``n`` and the noun, in the plural unless ``n`` is 1 (nouns ending in ``ch`` add ``es``).

    >>> plural(1, "batch"), plural(3, "batch"), plural(1_200, "row")
    ('1 batch', '3 batches', '1,200 rows')
    """
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {noun}{'es' if noun.endswith(('ch', 's')) else 's'}"


EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
#: A run that could not finish (disk full, a worker died, marts not rebuilt after a commit).
EXIT_FAILED = 3
#: The codes that exit with EXIT_FAILED: the environment failed, not the input.
FAILURE_CODES = frozenset({"E_DISK_FULL", "E_WORKER_DIED", "E_BUILD_FAILED"})

app = typer.Typer(
    name="big2",
    help="big2-replay: replay analytics for Big Two (鋤大D / 大老二 / 锄大地).",
    no_args_is_help=True,
    add_completion=False,
)
rules_app = typer.Typer(
    help="House rules: list the presets, show a ruleset with overrides.", no_args_is_help=True
)
app.add_typer(rules_app, name="rules")

console = Console()
err_console = Console(stderr=True)


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn a :class:`Big2Error` into its message on stderr and exit code 2 (no traceback)."""
    try:
        yield
    except Big2Error as err:
        typer.echo(f"big2: error: {err}", err=True)
        raise typer.Exit(code=EXIT_USAGE) from None


@contextmanager
def writer_errors() -> Iterator[None]:
    """For the commands that write (ingest, build), inside :func:`domain_errors`: a run that
    could not finish (:data:`FAILURE_CODES`, or an OS error no layer named) is one line on
    stderr and exit 3; SIGINT / SIGTERM is ``E_INTERRUPTED`` and exit 128 + the signal. No
    traceback; the layers below have left the warehouse consistent."""
    from pipeline.ingest import pool_was_stopped

    pool_was_stopped(reset=True)
    try:
        yield
    except Big2Error as err:
        if err.code not in FAILURE_CODES:
            raise
        typer.echo(f"big2: error: {err}", err=True)
        _exit_now_if_a_pool_died(EXIT_FAILED)
        raise typer.Exit(code=EXIT_FAILED) from None
    except KeyboardInterrupt as err:
        signum = int(getattr(err, "signum", signal.SIGINT))
        if getattr(err, "committed", False):
            what = "the import had committed; the marts are not rebuilt: run `big2 build`"
        else:
            what = "nothing of the interrupted work was committed"
        name = signal.Signals(signum).name
        typer.echo(f"big2: error: E_INTERRUPTED: stopped by {name}: {what}", err=True)
        _exit_now_if_a_pool_died(128 + signum)
        raise typer.Exit(code=128 + signum) from None
    except OSError as err:
        code = "E_DISK_FULL" if is_disk_full(err) else "E_IO"
        typer.echo(f"big2: error: {code}: {err}", err=True)
        raise typer.Exit(code=EXIT_FAILED) from None


def _exit_now_if_a_pool_died(code: int) -> None:
    """End the process at once after a worker pool was stopped part-way (the batch has
    aborted, the message is out): a normal exit can hang there on Python < 3.11.5
    (:func:`pipeline.ingest.pool_was_stopped`)."""
    from pipeline.ingest import pool_was_stopped

    if pool_was_stopped():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"big2-replay {__version__} (hot path: {compiled.status()})")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        flag("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """big2-replay: replay analytics for Big Two (鋤大D / 大老二 / 锄大地)."""


# --- rules -------------------------------------------------------------------------------


class OutputFormat(StrEnum):
    """How ``rules show`` prints a ruleset."""

    TABLE = "table"
    TOML = "toml"
    JSON = "json"


class Source(StrEnum):
    """Where a parameter's value comes from."""

    DEFAULT = "default"  # the preset leaves the built-in default
    PRESET = "preset"  # the preset sets a value other than the default
    OVERRIDE = "override"  # given with --set


def presets_table() -> Table:
    """The presets with their description and seed sources, the default marked."""
    table = Table(title="Big Two presets")
    table.add_column("preset", style="bold")
    table.add_column("description")
    table.add_column("source")
    for name in preset_names():
        meta = preset_meta(name)
        label = f"{name} (default)" if name == DEFAULT_PRESET else name
        table.add_row(label, escape(meta.get("description", "")), escape(meta.get("source", "")))
    return table


def parse_overrides(texts: Sequence[str]) -> dict[str, Any]:
    """``--set key=value`` options as a mapping; a key given twice is refused."""
    out: dict[str, Any] = {}
    for text in texts:
        key, value = parse_override(text)
        if key in out:
            raise RulesetError(
                "E_RULESET_OVERRIDE", f"--set {key} is given twice ({text!r})", key=key
            )
        out[key] = value
    return out


def parameter_sources(rs: Ruleset) -> dict[str, Source]:
    """Each parameter of ``rs.to_dict()`` → where its value comes from."""
    overridden = {key for key, _ in rs.overrides}
    defaults = Ruleset().to_dict()
    out: dict[str, Source] = {}
    for key, value in rs.to_dict().items():
        if key in overridden:
            out[key] = Source.OVERRIDE
        elif value != defaults[key]:
            out[key] = Source.PRESET
        else:
            out[key] = Source.DEFAULT
    return out


def _describe_value(key: str, value: Any) -> str:
    if key == "multiplier_tiers":
        rows = ", ".join(f"{low}→×{mult}" for low, mult in value)
        names = [n for n, t in TIER_TABLES.items() if [list(r) for r in t] == value]
        return f"{names[0]} ({rows})" if names else rows
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML string
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def render_ruleset(rs: Ruleset, fmt: OutputFormat) -> str | Table:
    """A ruleset as a rich table, a TOML document or JSON, each value with its source."""
    params = rs.to_dict()
    sources = parameter_sources(rs)
    meta = {"name": params.pop("name"), "description": params.pop("description")}
    if fmt is OutputFormat.JSON:
        doc = {
            **meta,
            "parameters": {k: {"value": v, "from": sources[k].value} for k, v in params.items()},
        }
        return json.dumps(doc, ensure_ascii=False, indent=2)
    if fmt is OutputFormat.TOML:
        lines = [
            f"# ruleset {meta['name']!r}: {meta['description']}",
            "# each line ends with where the value comes from: default, preset or override",
        ]
        width = max(len(f"{k} = {_toml_value(v)}") for k, v in params.items())
        for key, value in params.items():
            line = f"{key} = {_toml_value(value)}"
            lines.append(f"{line:<{width}}  # {sources[key].value}")
        return "\n".join(lines)
    table = Table(title=escape(f"ruleset {meta['name']}: {meta['description']}"))
    table.add_column("parameter")
    table.add_column("value")
    table.add_column("from")
    style = {Source.DEFAULT: "dim", Source.PRESET: "", Source.OVERRIDE: "bold"}
    for key, value in params.items():
        src = sources[key]
        table.add_row(key, escape(_describe_value(key, value)), src.value, style=style[src])
    return table


@rules_app.command("list")
def rules_list() -> None:
    """List the shipped presets (the default is marked)."""
    with domain_errors():
        console.print(presets_table())


@rules_app.command("show")
def rules_show(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="Preset name (see `big2 rules list`).")
    ] = DEFAULT_PRESET,
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="Override one parameter (value read as TOML); repeatable.",
        ),
    ] = None,
    fmt: Annotated[
        OutputFormat,
        typer.Option("--format", "-f", case_sensitive=False, help="Output format."),
    ] = OutputFormat.TABLE,
) -> None:
    """Show every parameter of a preset plus overrides, and where each value comes from."""
    with domain_errors():
        rs = load_ruleset(name, parse_overrides(overrides or []))
        out = render_ruleset(rs, fmt)
        if isinstance(out, str):
            typer.echo(out)
        else:
            console.print(out)


# --- ingest / verify ---------------------------------------------------------------------

WarehouseOption = Annotated[
    Path | None,
    typer.Option(
        "--warehouse",
        "-w",
        envvar="BIG2_WAREHOUSE",
        help="Warehouse folder (default data/warehouse/; env BIG2_WAREHOUSE).",
    ),
]


def summary_table(summary: IngestSummary) -> Table:
    """The closing account of an import: read / stored / duplicate / rejected by file."""
    table = Table(title=f"import {summary.batch_id}")
    table.add_column("file", overflow="fold")
    for column in ("read", "stored", "duplicate", "rejected"):
        table.add_column(column, justify="right")
    rows = [*summary.files.values()]
    if len(rows) > 1:
        rows.append(summary.total())
    for row in rows:
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


@app.command()
def ingest(
    paths: Annotated[
        list[str],
        typer.Argument(metavar="PATH...", help="Log files, folders or glob patterns."),
    ],
    warehouse: WarehouseOption = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes (default: one per core on large inputs)."),
    ] = None,
    strict: Annotated[bool, flag("--strict", help="Exit 1 if any game was rejected.")] = False,
    top: Annotated[int, typer.Option(help="How many reject reasons to list.")] = 5,
    no_build: Annotated[
        bool,
        flag(
            "--no-build",
            help="Skip the SQL mart build (the marts stay stale until `big2 build`; "
            "`big2 verify` says so).",
        ),
    ] = False,
    max_rejects_per_file: Annotated[
        int,
        typer.Option(
            min=0,
            help="Rejects of one file stored in full; the rest are counted by code in one "
            "E_TOO_MANY_REJECTS row per file.",
        ),
    ] = DEFAULT_MAX_REJECTS_PER_FILE,
) -> None:
    """Replay every game of the logs through the rules engine into the warehouse, then
    rebuild the SQL marts.

    Rejected games are data, not failure: they land in the rejects table with their
    reason, and the exit code is 0 unless --strict (1). A run that cannot finish (disk
    full, a worker died, the marts not rebuilt) exits 3; SIGINT / SIGTERM 128 + the signal.
    Re-importing stores nothing twice.
    """
    with domain_errors(), writer_errors():
        wh = Warehouse(warehouse)
        with wh.building(on_wait=lambda: _say_waiting(wh)):  # import + build: one writer
            summary = ingest_with_progress(
                paths, wh, workers=workers, max_rejects_per_file=max_rejects_per_file
            )
            print_ingest_summary(summary, wh, top=top)
            if not no_build:
                build_after_ingest(wh, summary)
        if strict and summary.total().rejected:
            raise typer.Exit(code=EXIT_CHECK_FAILED)


def _say_waiting(wh: Warehouse) -> None:
    typer.echo(f"big2: waiting for the build or import running on {wh.root} …", err=True)


def ingest_with_progress(
    paths: Sequence[str],
    wh: Warehouse,
    *,
    workers: int | None = None,
    max_rejects_per_file: int = DEFAULT_MAX_REJECTS_PER_FILE,
) -> IngestSummary:
    """Run an import with a rich progress bar on stderr (bytes read, games, games/s, rejects
    so far), updated while a file is read too."""
    with RichProgress(
        TextColumn("[bold]ingest"),
        BarColumn(),
        TextColumn("{task.fields[games]:,} games"),
        TextColumn("{task.fields[rate]:,.0f} games/s"),
        TextColumn("{task.fields[rejected]:,} rejected"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
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
        )


def print_ingest_summary(summary: IngestSummary, wh: Warehouse, *, top: int = 5) -> None:
    """The per-file table, the throughput line and the top reject reasons."""
    console.print(summary_table(summary))
    total = summary.total()
    rate = total.read / summary.seconds if summary.seconds else 0.0
    typer.echo(
        f"{total.read:,} games read in {summary.seconds:.1f} s ({rate:,.0f} games/s, "
        f"{summary.workers} worker{'s' if summary.workers != 1 else ''}); "
        f"warehouse {wh.root}"
    )
    if summary.reasons:
        typer.echo("top reject reasons:")
        for code, n in summary.reasons.most_common(top):
            typer.echo(f"  {n:>8,}  {code}")


@app.command()
def verify(
    warehouse: WarehouseOption = None,
    repair: Annotated[
        bool,
        flag(
            "--repair",
            help="First move the batches with a damaged file (and files the manifest lost) "
            "to quarantine/ and drop them from the manifest; nothing is deleted.",
        ),
    ] = False,
) -> None:
    """Check the warehouse: manifest files present with their checksums, no game twice,
    row counts consistent. Exit 1 if anything is wrong."""
    with domain_errors():
        wh = Warehouse.existing(warehouse)
        if repair:
            done = wh.repair()
            for batch_id in done.dropped_batches:
                typer.echo(f"repair: batch {batch_id} dropped from the manifest")
            for path in done.quarantined:
                typer.echo(f"repair: moved to {path}")
            if not done.problems:
                typer.echo("repair: nothing to repair")
        report = wh.verify_report()
        problems = report.problems
        if report.import_running:
            n = len(report.in_progress)
            typer.echo(f"an import is running: {n} file(s) of it in progress (not checked)")
        if report.build_running:
            typer.echo("a build is running: the marts are being rebuilt")
        if not problems:
            typer.echo(f"warehouse {wh.root}: OK ({plural(len(wh.entries()), 'batch')})")
            return
    for problem in problems:
        typer.echo(str(problem))
    typer.echo(f"{len(problems)} problem(s) in {wh.root}", err=True)
    raise typer.Exit(code=EXIT_CHECK_FAILED)


# --- demo --------------------------------------------------------------------------------

SAMPLES = shipped.samples_dir()  # the checkout's data/samples, or a wheel's package data


DEMO_LOG = shipped.demo_log()


@app.command()
def demo(
    warehouse: WarehouseOption = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games to simulate.")] = 2000,
    seed: Annotated[int, typer.Option(help="Simulation seed.")] = 1,
    dashboard_after: Annotated[
        bool, flag("--dashboard/--no-dashboard", help="End by serving the dashboards.")
    ] = True,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Dashboard port.")] = 8501,
    log: Annotated[Path, typer.Option(help="Where the simulated log is written.")] = DEMO_LOG,
) -> None:
    """The whole pipeline on the embedded default: simulate → ingest → build → verify →
    dashboards (http://127.0.0.1:8501, Ctrl-C to stop).

    The simulated matches plant a 頂大 colluder pair (seat 1 never blocks seat 2) and
    imperfect blocking, so the audit pages have something to find; the shipped sample logs,
    bad lines included, are imported too, so import health shows real rejects.
    """
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    with domain_errors():
        if not SAMPLES.is_dir():
            raise Big2Error("E_NO_SAMPLES", f"no sample logs under {SAMPLES}")
        cfg = SimConfig(
            games=games,
            seed=seed,
            bots=DEFAULT_LINEUP,
            must_block_discipline=0.9,
            colluders=(1, 2),
            id_prefix=f"demo{seed}",
        )
        typer.echo(f"1/4 simulate {games:,} games → {log}")
        sim = simulate_to_file(cfg, log)
        typer.echo(f"    {sim.games:,} games in {sim.seconds:.1f} s")
        typer.echo("2/4 ingest the simulated log and the sample logs")
        wh = Warehouse(warehouse)
        summary = ingest_with_progress([str(log), str(SAMPLES)], wh)
        print_ingest_summary(summary, wh)
        typer.echo("3/4 build the SQL marts")
        build_after_ingest(wh)
        problems = wh.verify()
        typer.echo(f"4/4 big2 verify: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        typer.echo(f'Try: {runnable_big2()} sql "from mart_player_standings" -w {wh.root}')
        typer.echo("     (or `source .venv/bin/activate` once, then just `big2 …`)")
        if dashboard_after:
            argv, env = dashboard_command(warehouse, port=port)
    if dashboard_after:
        typer.echo(f"big2 dashboard: http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        sys.stdout.flush()
        os.execve(argv[0], argv, env)


# --- bench -------------------------------------------------------------------------------


def _bench_main() -> Callable[[list[str]], int]:
    """``bench.run.main`` from the source checkout (the benchmarks are not installed)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "bench" / "__init__.py").is_file():
        raise Big2Error(
            "E_NO_BENCH", f"the benchmarks live in a source checkout; no bench/ under {root}"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    run: Callable[[list[str]], int] = importlib.import_module("bench.run").main
    return run


@app.command()
def bench(
    only: Annotated[
        str | None, typer.Option("--only", metavar="NAME", help="Run one benchmark.")
    ] = None,
    no_record: Annotated[
        bool, flag("--no-record", help="Print only; do not append to docs/benchmarks.md.")
    ] = False,
) -> None:
    """Run the benchmarks (same as `python -m bench`), print the figures with the machine."""
    with domain_errors():
        run = _bench_main()
    argv = (["--only", only] if only else []) + (["--no-record"] if no_record else [])
    code = run(argv)
    if code != EXIT_OK:
        raise typer.Exit(code=code)


# --- simulate ----------------------------------------------------------------------------

DEFAULT_LINEUP = ("heuristic", "greedy", "random", "heuristic")


def parse_seats_pair(text: str | None) -> tuple[int, int] | None:
    """``--colluders A,B`` as two seat numbers (checked against the table by the simulator).

    >>> parse_seats_pair("0,1"), parse_seats_pair(None)
    ((0, 1), None)
    """
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise Big2Error("E_SIM_OPTION", f"--colluders {text!r}: expected two seats, like 0,1")
    return int(parts[0]), int(parts[1])


@app.command("simulate")
def simulate_command(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output log: .jsonl or .jsonl.gz (overwritten).")
    ],
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same file.")] = 0,
    ruleset: Annotated[
        str, typer.Option("--ruleset", "-r", help="Preset (see `big2 rules list`).")
    ] = DEFAULT_PRESET,
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a rule; repeatable."),
    ] = None,
    players: Annotated[
        int | None, typer.Option(min=2, max=52, help="Players (default: the ruleset's).")
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            metavar="BOT,BOT,...",
            help="One bot per seat: random, greedy, heuristic (default heuristic,greedy,random,heuristic).",
        ),
    ] = None,
    must_block_discipline: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Probability a bot honours 頂大 when obliged."),
    ] = 1.0,
    colluders: Annotated[
        str | None,
        typer.Option(metavar="A,B", help="Seat A never blocks seat B and feeds it low singles."),
    ] = None,
    match_games: Annotated[int, typer.Option(min=1, help="Games per match (same seats).")] = 8,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: one per core).")
    ] = None,
    ingest_after: Annotated[
        bool, flag("--ingest", help="Import the file into the warehouse afterwards.")
    ] = False,
    warehouse: WarehouseOption = None,
) -> None:
    """Play seeded matches with bots and write them as logs (full information, with the planted
    ground truth in each game's `truth`); optionally import them."""
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    with domain_errors():
        settings = parse_overrides(overrides or [])
        if players is not None:
            settings["players"] = players
        n = load_ruleset(ruleset, settings).players
        default = tuple(DEFAULT_LINEUP[s % len(DEFAULT_LINEUP)] for s in range(n))
        lineup = tuple(b.strip() for b in bots.split(",")) if bots else default
        cfg = SimConfig(
            games=games,
            seed=seed,
            bots=lineup,
            preset=ruleset,
            overrides=settings,
            must_block_discipline=must_block_discipline,
            colluders=parse_seats_pair(colluders),
            match_games=match_games,
        )
        with RichProgress(
            TextColumn("[bold]simulate"),
            BarColumn(),
            TextColumn("{task.completed:,}/{task.total:,} games"),
            TextColumn("{task.fields[rate]:,.0f} games/s"),
            TimeElapsedColumn(),
            console=err_console,
            transient=True,
        ) as bar:
            task = bar.add_task("simulate", total=games, rate=0.0)
            started = time.perf_counter()

            def show(done: int) -> None:
                rate = done / max(time.perf_counter() - started, 1e-9)
                bar.update(task, completed=done, rate=rate)

            summary = simulate_to_file(cfg, out, workers=workers, on_progress=show)
        rate = summary.games / summary.seconds if summary.seconds else 0.0
        typer.echo(
            f"{summary.games:,} games ({summary.matches:,} matches of up to {match_games}) "
            f"written to {summary.path} in {summary.seconds:.1f} s ({rate:,.0f} games/s, "
            f"{summary.workers} worker{'s' if summary.workers != 1 else ''})"
        )
        if ingest_after:
            wh = Warehouse(warehouse)
            print_ingest_summary(ingest_with_progress([str(out)], wh, workers=workers), wh)
            build_after_ingest(wh)


# --- dashboard ---------------------------------------------------------------------------

DASHBOARD_HOST = "127.0.0.1"
DASHBOARD_PORT = 8501


def dashboard_hosts(host: str) -> list[str]:
    """The host names the dashboards answer to (the guard of ``dashboards/server.py`` refuses
    any other ``Host`` or ``Origin``): loopback, the ``--host`` address, and this machine's
    names and addresses when it binds every interface.

    >>> dashboard_hosts("127.0.0.1")
    ['127.0.0.1', '::1', 'localhost']
    >>> dashboard_hosts("192.0.2.7")
    ['127.0.0.1', '192.0.2.7', '::1', 'localhost']
    """
    names = {"127.0.0.1", "localhost", "::1", host.strip("[]").lower()}
    if is_wildcard(host):
        names.discard(host.strip("[]").lower())
        import socket

        try:
            machine = socket.gethostname()
            names.update({machine.lower(), socket.getfqdn().lower()})
            names.update(socket.gethostbyname_ex(machine)[2])
        except OSError:
            pass
    return sorted(n for n in names if n)


def is_wildcard(host: str) -> bool:
    """Whether ``host`` binds every interface (``0.0.0.0``, ``::``)."""
    return host.strip("[]") in ("", "0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def dashboard_command(
    warehouse: Path | None, *, port: int = DASHBOARD_PORT, host: str = DASHBOARD_HOST
) -> tuple[list[str], dict[str, str]]:
    """The ``streamlit run dashboards/server.py`` command line and its environment (the warehouse
    reaches the app as ``$BIG2_WAREHOUSE``, an absolute path; the host names the server
    answers to as ``$BIG2_DASHBOARD_HOSTS``).

    >>> argv, env = dashboard_command(Path("/tmp/wh"), port=8600)
    >>> argv[1:4], argv[argv.index("--server.port") + 1], env["BIG2_WAREHOUSE"]
    (['-m', 'streamlit', 'run'], '8600', '/tmp/wh')
    >>> env["BIG2_DASHBOARD_HOSTS"]
    '127.0.0.1,::1,localhost'
    """
    server_file = Path(__file__).resolve().parent.parent / "dashboards" / "server.py"
    if not server_file.is_file():
        raise Big2Error(
            "E_NO_DASHBOARDS", f"the dashboards live in a source checkout; no {server_file}"
        )
    argv = [
        sys.executable,
        *("-m", "streamlit", "run", str(server_file)),
        *("--server.address", host, "--server.port", str(port)),
        *("--server.headless", "true", "--browser.gatherUsageStats", "false"),
        *("--server.enableCORS", "true", "--server.enableXsrfProtection", "true"),
        *("--client.toolbarMode", "minimal"),
    ]
    env = {
        **os.environ,
        "BIG2_WAREHOUSE": resolve_dir(warehouse).resolve().as_posix(),
        "BIG2_DASHBOARD_HOSTS": ",".join(dashboard_hosts(host)),
    }
    return argv, env


@app.command()
def dashboard(
    warehouse: WarehouseOption = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = DASHBOARD_PORT,
    host: Annotated[
        str,
        typer.Option(help="Address to bind (default: this machine only; others get a warning)."),
    ] = DASHBOARD_HOST,
) -> None:
    """Open the Streamlit dashboards on the warehouse (read-only), at http://HOST:PORT/."""
    with domain_errors():
        argv, env = dashboard_command(warehouse, port=port, host=host)
    if not is_loopback(host):
        typer.echo(
            f"big2: warning: --host {host} is not loopback: anyone who can reach this machine "
            "can read the warehouse through the dashboards (no login)",
            err=True,
        )
    typer.echo(f"big2 dashboard: http://{host}:{port}/ on warehouse {env['BIG2_WAREHOUSE']}")
    sys.stdout.flush()
    os.execve(argv[0], argv, env)  # streamlit takes over this process (Ctrl-C stops it)


# --- SQL: build, sql, rescore (issue 6) ----------------------------------------------------


def build_after_ingest(wh: Warehouse, summary: IngestSummary | None = None) -> None:
    """Rebuild the SQL layers after an import. A failing build is ``E_BUILD_FAILED`` (exit 3):
    the import stays committed, the marts stay as they were (stale: ``big2 verify`` says so)
    until ``big2 build`` succeeds."""
    from pipeline import sqlbuild

    try:
        done = sqlbuild.build(wh)
    except Big2Error as err:
        what = f"batch {summary.batch_id}" if summary is not None else "the import"
        raise Big2Error(
            "E_BUILD_FAILED",
            f"{what} is committed, but the SQL marts were not rebuilt ({err}); they are "
            "stale until `big2 build` succeeds",
        ) from err
    typer.echo(f"SQL marts built in {done.seconds:.2f} s ({len(done.rows)} marts)")


@app.command("build")
def build_command(
    warehouse: WarehouseOption = None,
    timings: Annotated[bool, flag("--timings", help="Print each step's time.")] = False,
    test: Annotated[
        bool, flag("--test", help="Then run sql/tests (exit 1 if any returns rows).")
    ] = False,
) -> None:
    """Create the staging views, scoring macros and marts in a new warehouse.duckdb that
    replaces the old one atomically (readers keep reading the old one meanwhile)."""
    from pipeline import sqlbuild

    with domain_errors(), writer_errors():
        wh = Warehouse.existing(warehouse)
        done = sqlbuild.build(wh, on_wait=lambda: _say_waiting(wh))
        typer.echo(f"built {plural(len(done.rows), 'mart')} in {done.seconds:.2f} s ({wh.db_path})")
        if timings:
            for name, seconds in done.timings.items():
                rows = done.rows.get(name)
                typer.echo(f"  {seconds:8.3f} s  {name}" + (f"  ({rows:,} rows)" if rows else ""))
        if test:
            con = wh.connect()
            try:
                failed = {n: r for n, r in sqlbuild.run_tests(con).items() if r}
            finally:
                con.close()
            for name, n in failed.items():
                typer.echo(f"FAIL {name}: {n} row(s)")
            if failed:
                raise typer.Exit(code=EXIT_CHECK_FAILED)
            typer.echo("sql/tests: all pass")


class SqlFormat(StrEnum):
    """Output formats of ``big2 sql``."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"


#: ``big2 sql --format table`` shows at most this many rows (and says how many it left out).
TABLE_MAX_ROWS = 1000
#: Rows fetched (and written) at a time: the memory of ``big2 sql`` whatever the row count.
FETCH_ROWS = 10_000


@app.command("sql")
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
        bool, flag("--tables", help="List the tables and columns with descriptions.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option("--timeout", min=0, help="Stop after this many seconds (0: no limit)."),
    ] = reading.DEFAULT_TIMEOUT_S,
    warehouse: WarehouseOption = None,
) -> None:
    """Run one read-only query on the warehouse's tables (SELECT, EXPLAIN [ANALYZE] SELECT; no
    file outside the committed Parquet files, no COPY, no write), streamed to the output."""
    import duckdb

    from pipeline import sqlbuild

    with domain_errors():
        wh = Warehouse.existing(warehouse)
        if out is not None and out.resolve().is_relative_to(wh.root):
            raise Big2Error("E_SQL_USAGE", f"--out {out} is inside the warehouse {wh.root}")
        if tables:
            con = reading.open_readonly(wh)
            try:
                rows = list(sqlbuild.catalogue(con))
            finally:
                con.close()
            emit_rows(["table", "kind", "column", "description"], rows, fmt, out)
            return
        text = file.read_text(encoding="utf-8") if file is not None else query
        if not text:
            raise sqlbuild.SqlError("E_SQL_USAGE", "give a query, --file or --tables")
        if fmt is SqlFormat.PARQUET and out is None:
            raise Big2Error("E_SQL_USAGE", "--format parquet needs --out FILE")
        reading.check_query(text)
        con = reading.open_readonly(wh)
        try:
            with reading.time_limit(con, timeout):
                try:
                    emit_result(con, text, fmt, out)
                except BrokenPipeError:  # the reader of stdout left (`| head`): stop quietly
                    with contextlib.suppress(OSError, ValueError):
                        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                    return
                except (duckdb.Error, OSError) as err:
                    raise sqlbuild.SqlError("E_SQL_QUERY", str(err).splitlines()[0]) from err
        finally:
            con.close()


@contextmanager
def _output(out: Path | None) -> Iterator[Callable[[str], object]]:
    """A text sink: stdout, or ``out`` written whole or not at all (a ``.part`` file renamed
    at the end, removed on failure)."""
    if out is None:
        yield lambda chunk: typer.echo(chunk, nl=False)
        return
    part = out.with_name(f".{out.name}.part")
    try:
        with part.open("w", encoding="utf-8") as fh:
            yield fh.write
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)


def _chunks(con: Any) -> Iterator[list[tuple[Any, ...]]]:
    while rows := con.fetchmany(FETCH_ROWS):
        yield rows


def emit_result(con: Any, query: str, fmt: SqlFormat, out: Path | None) -> None:
    """Run ``query`` on ``con`` and write its result, fetched :data:`FETCH_ROWS` rows at a
    time: memory stays bounded whatever the row count."""
    if fmt is not SqlFormat.PARQUET:
        con.execute(query)
        emit_chunks([d[0] for d in con.description or []], _chunks(con), fmt, out)
        return
    import pyarrow.parquet as pq

    assert out is not None  # checked before the query ran
    rel = con.sql(query)
    if rel is None:
        raise Big2Error("E_SQL_QUERY", "the statement returns no rows to write")
    reader = rel.to_arrow_reader(FETCH_ROWS)
    part = out.with_name(f".{out.name}.part")
    n = 0
    try:
        with pq.ParquetWriter(part, reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
                n += batch.num_rows
        part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    typer.echo(f"{plural(n, 'row')} → {out}")


def emit_rows(
    columns: Sequence[str], rows: Sequence[tuple[Any, ...]], fmt: SqlFormat, out: Path | None
) -> None:
    """Print or write a small result as a table, CSV, JSON (one array) or Parquet."""
    if fmt is SqlFormat.PARQUET:
        if out is None:
            raise Big2Error("E_SQL_USAGE", "--format parquet needs --out FILE")
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = {c: [r[i] for r in rows] for i, c in enumerate(columns)}
        pq.write_table(pa.table(data), out)
        typer.echo(f"{plural(len(rows), 'row')} → {out}")
        return
    emit_chunks(columns, iter([list(rows)]), fmt, out)


def emit_chunks(
    columns: Sequence[str],
    chunks: Iterator[Sequence[tuple[Any, ...]]],
    fmt: SqlFormat,
    out: Path | None,
) -> None:
    """Write rows arriving in chunks as a table (the first :data:`TABLE_MAX_ROWS`, then how
    many were left out), CSV or JSON (one array, as ``json.dumps(rows, indent=1)``)."""
    if fmt is SqlFormat.TABLE:
        table = Table()
        for c in columns:
            table.add_column(escape(c))
        left_out = 0
        shown = 0
        for chunk in chunks:
            for r in chunk[: max(TABLE_MAX_ROWS - shown, 0)]:
                table.add_row(*(escape("NULL" if v is None else str(v)) for v in r))
            taken = min(len(chunk), max(TABLE_MAX_ROWS - shown, 0))
            shown += taken
            left_out += len(chunk) - taken
        note = (
            f"{left_out:,} more rows not shown (the table shows {TABLE_MAX_ROWS:,}; "
            "--format csv, json or parquet writes them all)"
            if left_out
            else None
        )
        if out is not None:
            with _output(out) as write:
                fh_console = Console(file=io.StringIO(), width=200)
                fh_console.print(table)
                if note:
                    fh_console.print(note)
                write(cast(io.StringIO, fh_console.file).getvalue())
        else:
            console.print(table)
            if note:
                console.print(note)
        return
    with _output(out) as write:
        if fmt is SqlFormat.CSV:
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            writer.writerow(columns)
            for chunk in chunks:
                writer.writerows(chunk)
                write(buf.getvalue())
                buf.seek(0)
                buf.truncate()
            write(buf.getvalue())
            return
        keys = [json.dumps(c, ensure_ascii=False) for c in columns]
        first = True
        for chunk in chunks:
            items = [_json_row(keys, r) for r in chunk]
            if items:
                write(("[\n" if first else ",\n") + ",\n".join(items))
                first = False
        write(("[]" if first else "\n]") + ("\n" if out is None else ""))


def _json_value(value: Any) -> str:
    if isinstance(value, dict | list | tuple):  # nested: json's indented layout, one level in
        return json.dumps(value, ensure_ascii=False, default=str, indent=1).replace("\n", "\n  ")
    return json.dumps(value, ensure_ascii=False, default=str)


def _json_row(keys: Sequence[str], row: Sequence[Any]) -> str:
    """One row as ``json.dumps(dict(row), indent=1)`` nested one level in, but with the C
    encoder for scalars (the indented encoder is pure Python: 5x slower).

    >>> print(_json_row(['"a"', '"b"'], (1, [2, "x"])))
     {
      "a": 1,
      "b": [
       2,
       "x"
      ]
     }
    """
    if not keys:
        return " {}"
    fields = ",\n".join(f"  {k}: {_json_value(v)}" for k, v in zip(keys, row, strict=True))
    return " {\n" + fields + "\n }"


class RescoreBy(StrEnum):
    """The side-by-side of ``big2 rescore``: per player overall, or per match."""

    PLAYER = "player"
    MATCH = "match"


@app.command("rescore")
def rescore_command(
    as_preset: Annotated[
        str, typer.Option("--as", help="Score every game as if played under this preset.")
    ],
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a rule; repeatable."),
    ] = None,
    by: Annotated[RescoreBy, typer.Option(case_sensitive=False, help="Side-by-side of.")] = (
        RescoreBy.PLAYER
    ),
    limit: Annotated[int, typer.Option(min=1, help="Rows to print.")] = 30,
    fmt: Annotated[
        SqlFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = SqlFormat.TABLE,
    warehouse: WarehouseOption = None,
) -> None:
    """What-if: standings under the games' own rules beside standings under another ruleset
    (same games, no re-import; with `--set bankroll=true` the cap applies game by game in
    match order, as in scoring)."""
    from pipeline import sqlbuild

    with domain_errors():
        whatif = sqlbuild.ruleset_json(as_preset, parse_overrides(overrides or []))
        wh = Warehouse.existing(warehouse)
        con = reading.open_readonly(wh)
        try:
            if not sqlbuild.is_built(con):
                raise sqlbuild.SqlError("E_SQL_NOT_BUILT", "no marts yet: run `big2 build`")
            if by is RescoreBy.PLAYER:
                sql = "select * from rescore_players(?) order by whatif_rank, own_rank limit ?"
            else:
                sql = (
                    "select * from rescore_matches(?) "
                    "order by match_key, whatif_standing, own_standing limit ?"
                )
            rel = con.execute(sql, [whatif, limit])
            columns = [d[0] for d in rel.description or []]
            rows = rel.fetchall()
        finally:
            con.close()
        label = " ".join([as_preset, *(overrides or [])])
        if fmt is SqlFormat.TABLE:
            typer.echo(f"own rules vs what-if ({label})")
        emit_rows(columns, rows, fmt, None)


# --- report, export (issue 13) ------------------------------------------------------------


def _parse_day(text: str) -> date:
    from pipeline.report import ReportError

    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ReportError(
            "E_REPORT_USAGE", f"--day {text!r}: expected a date like 2026-11-01"
        ) from None


def _check_tz(name: str) -> str:
    import zoneinfo

    from pipeline.report import ReportError

    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ReportError(
            "E_REPORT_USAGE", f"--tz {name!r}: not a time zone name (e.g. UTC, Asia/Hong_Kong)"
        ) from None
    return name


@app.command("report")
def report_command(
    match: Annotated[
        str | None, typer.Option("--match", "-m", metavar="ID", help="The match (or a game id).")
    ] = None,
    day: Annotated[
        str | None,
        typer.Option("--day", "-d", metavar="YYYY-MM-DD", help="Every game started that day."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", "-p", metavar="PLAYER_ID", help="Only the games this player sat in."
        ),
    ] = None,
    tz: Annotated[
        str, typer.Option("--tz", metavar="ZONE", help="Time zone of --day and the times shown.")
    ] = "UTC",
    html_out: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Write a self-contained HTML page instead."),
    ] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """A match or an evening: who played, games, who paid whom (money, or penalty points),
    炒 and 包牌 events, the biggest games. Exit 2 for an unknown match, day or player."""
    from pipeline import report

    with domain_errors():
        if (match is None) == (day is None):
            raise report.ReportError("E_REPORT_USAGE", "give --match ID or --day YYYY-MM-DD")
        sel = report.Selection(
            match_key=match,
            day=None if day is None else _parse_day(day),
            tz=_check_tz(tz),
            player_id=player,
        )
        con = Warehouse.existing(warehouse).connect()
        try:
            rep = report.assemble(sel, report.fetch_report(con, sel))
        finally:
            con.close()
        if html_out is not None:
            html_out.write_text(report.render_html(rep), encoding="utf-8")
            typer.echo(f"{rep.title}: HTML report written to {html_out}")
            return
        typer.echo(report.render_text(rep, width=shutil.get_terminal_size((80, 24)).columns))


class ExportFormat(StrEnum):
    """What ``big2 export`` writes."""

    TEXT = "text"  # a readable hand history
    JSONL = "jsonl"  # one log line (docs/log-format.md) that re-imports


@app.command("export")
def export_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME_ID", help="The game to export.")],
    fmt: Annotated[
        ExportFormat, typer.Option("--format", "-f", case_sensitive=False, help="Output format.")
    ] = ExportFormat.TEXT,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", metavar="FILE", help="Write to this file.")
    ] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """One game as a readable hand history (text) or as a log line that re-imports (jsonl).
    Exit 2 for an unknown game."""
    from pipeline import report
    from pipeline.logs.writer import dumps

    with domain_errors():
        con = Warehouse.existing(warehouse).connect()
        try:
            data = report.fetch_game(con, game_id)
        finally:
            con.close()
        text = (
            report.hand_history(data, width=shutil.get_terminal_size((80, 24)).columns)
            if fmt is ExportFormat.TEXT
            else dumps(report.log_line(data))
        )
        if out is not None:
            out.write_text(text + "\n", encoding="utf-8")
            typer.echo(f"game {game_id} → {out}")
        else:
            typer.echo(text)


if __name__ == "__main__":  # python -m pipeline.cli
    app()
