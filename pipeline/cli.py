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

import importlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from pipeline import __version__
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
from pipeline.ingest import IngestSummary
from pipeline.ingest import Progress as IngestProgress
from pipeline.ingest import ingest as run_ingest
from pipeline.warehouse import Warehouse

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2

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


def _version(value: bool) -> None:
    if value:
        typer.echo(f"big2-replay {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
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
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 if any game was rejected.")
    ] = False,
    top: Annotated[int, typer.Option(help="How many reject reasons to list.")] = 5,
) -> None:
    """Replay every game of the logs through the rules engine into the warehouse.

    Rejected games are data, not failure: they land in the rejects table with their
    reason, and the exit code is 0 unless --strict. Re-importing stores nothing twice.
    """
    with domain_errors():
        wh = Warehouse(warehouse)
        summary = ingest_with_progress(paths, wh, workers=workers)
        print_ingest_summary(summary, wh, top=top)
        if strict and summary.total().rejected:
            raise typer.Exit(code=EXIT_CHECK_FAILED)


def ingest_with_progress(
    paths: Sequence[str], wh: Warehouse, *, workers: int | None = None
) -> IngestSummary:
    """Run an import with a rich progress bar on stderr (games, games/s, rejects so far)."""
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

        return run_ingest(paths, wh, workers=workers, on_progress=show)


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
def verify(warehouse: WarehouseOption = None) -> None:
    """Check the warehouse: manifest files present with their checksums, no game twice,
    row counts consistent. Exit 1 if anything is wrong."""
    with domain_errors():
        wh = Warehouse(warehouse)
        problems = wh.verify()
    if not problems:
        typer.echo(f"warehouse {wh.root}: OK ({len(wh.entries())} batches)")
        return
    for problem in problems:
        typer.echo(str(problem))
    typer.echo(f"{len(problems)} problem(s) in {wh.root}", err=True)
    raise typer.Exit(code=EXIT_CHECK_FAILED)


# --- demo --------------------------------------------------------------------------------

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


@app.command()
def demo(warehouse: WarehouseOption = None) -> None:
    """Run the pipeline on the shipped sample logs: ingest into the warehouse, verify it.

    Grows into: simulate games → ingest → build the SQL marts → open the dashboards.
    """
    with domain_errors():
        if not SAMPLES.is_dir():
            raise Big2Error("E_NO_SAMPLES", f"no sample logs under {SAMPLES} (a source checkout)")
        wh = Warehouse(warehouse)
        summary = ingest_with_progress([str(SAMPLES)], wh)
        print_ingest_summary(summary, wh)
        problems = wh.verify()
        typer.echo(f"big2 verify: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        typer.echo(f'Try: big2 rules show taiwan · duckdb {wh.db_path} -c "from games"')


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
        bool, typer.Option("--no-record", help="Print only; do not append to docs/benchmarks.md.")
    ] = False,
) -> None:
    """Run the benchmarks (same as `python -m bench`), print the figures with the machine."""
    with domain_errors():
        run = _bench_main()
    argv = (["--only", only] if only else []) + (["--no-record"] if no_record else [])
    code = run(argv)
    if code != EXIT_OK:
        raise typer.Exit(code=code)


if __name__ == "__main__":  # python -m pipeline.cli
    app()
