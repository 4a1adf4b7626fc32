"""``big2 simulate``: seeded bot games written as logs. The lineup and the planted behaviour
default to :mod:`pipeline.sim.config`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from pipeline.big2.rules import DEFAULT_PRESET, load_ruleset
from pipeline.cli.app import (
    OverridesOption,
    WarehouseOption,
    command,
    domain_errors,
    err_console,
    flag,
    parse_overrides,
    plural,
)
from pipeline.cli.ingest import build_after_ingest, ingest_with_progress, print_ingest_summary
from pipeline.errors import Big2Error
from pipeline.sim import config
from pipeline.sim.bots import BotName
from pipeline.warehouse import Warehouse

if TYPE_CHECKING:  # the simulator loads when the command runs
    from pipeline.sim.simulate import SimConfig, SimSummary


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


@command("simulate")
def simulate_command(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output log: .jsonl or .jsonl.gz (overwritten).")
    ],
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="Games to play.")
    ] = config.DEFAULT_GAMES,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same file.")] = 0,
    ruleset: Annotated[
        str, typer.Option("--ruleset", "-r", help="Preset (see `big2 rules list`).")
    ] = DEFAULT_PRESET,
    overrides: OverridesOption = None,
    players: Annotated[
        int | None, typer.Option(min=2, max=52, help="Players (default: the ruleset's).")
    ] = None,
    bots: Annotated[
        list[BotName] | None,
        typer.Option(
            case_sensitive=False,
            metavar="BOT",
            help="The bot of the next seat (random, greedy or heuristic), once per seat (default "
            + ", ".join(b.value for b in config.DEFAULT_LINEUP)
            + ", round the table).",
        ),
    ] = None,
    must_block_discipline: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Probability a bot honours 頂大 when obliged."),
    ] = config.HONEST.must_block_discipline,
    colluders: Annotated[
        str | None,
        typer.Option(metavar="A,B", help="Seat A never blocks seat B and feeds it low singles."),
    ] = None,
    match_games: Annotated[
        int, typer.Option(min=1, help="Games per match (same seats).")
    ] = config.DEFAULT_MATCH_GAMES,
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
    from pipeline.sim.simulate import SimConfig

    with domain_errors():
        settings = parse_overrides(overrides)
        if players is not None:
            settings["players"] = players
        n = load_ruleset(ruleset, settings).players
        cfg = SimConfig(
            games=games,
            seed=seed,
            bots=tuple(b.value for b in config.lineup(n, bots)),
            preset=ruleset,
            overrides=settings,
            must_block_discipline=must_block_discipline,
            colluders=parse_seats_pair(colluders),
            match_games=match_games,
        )
        summary = simulate_with_progress(cfg, out, workers=workers)
        rate = summary.games / summary.seconds if summary.seconds else 0.0
        typer.echo(
            f"{plural(summary.games, 'game')} ({plural(summary.matches, 'match')} of up to {match_games}) "
            f"written to {summary.path} in {summary.seconds:.1f} s ({rate:,.0f} games/s, "
            f"{plural(summary.workers, 'worker')})"
        )
        if ingest_after:
            wh = Warehouse(warehouse)
            print_ingest_summary(ingest_with_progress([str(out)], wh, workers=workers), wh)
            build_after_ingest(wh)


def simulate_with_progress(cfg: SimConfig, out: Path, *, workers: int | None) -> SimSummary:
    """Run the simulation into ``out`` with a rich progress bar on stderr (games, games/s)."""
    from pipeline.sim.simulate import simulate_to_file

    with RichProgress(
        TextColumn("[bold]simulate"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} games"),
        TextColumn("{task.fields[rate]:,.0f} games/s"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        task = bar.add_task("simulate", total=cfg.games, rate=0.0)
        started = time.perf_counter()

        def show(done: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, rate=rate)

        return simulate_to_file(cfg, out, workers=workers, on_progress=show)
