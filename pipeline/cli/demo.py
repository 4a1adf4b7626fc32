"""``big2 demo``: what ``make demo`` runs, simulate → ingest → build → verify → dashboards,
with the demo's planted behaviour from :mod:`pipeline.sim.config`: Big Two games, and some Dou
Dizhu games of both presets beside them, so the warehouse holds both games."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline import shipped
from pipeline.cli.app import (
    BuildMemoryOption,
    WarehouseOption,
    command,
    domain_errors,
    flag,
    plural,
    runnable_big2,
    say_waiting,
    shell_word,
    writer_errors,
)
from pipeline.cli.dashboard import DASHBOARD_PORT, dashboard_command
from pipeline.cli.ingest import (
    build_after_ingest,
    build_memory,
    ingest_with_progress,
    print_ingest_summary,
)
from pipeline.errors import Big2Error
from pipeline.sim import config

if TYPE_CHECKING:  # the warehouse (pyarrow, duckdb) loads when the demo runs
    from pipeline.warehouse import Warehouse

#: The sample logs (the checkout's data/samples, or a wheel's package data) and where the
#: demo's simulated log goes.
SAMPLES = shipped.samples_dir()
DEMO_LOG = shipped.demo_log()


@command("demo")
def demo_command(
    warehouse: WarehouseOption = None,
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="Games to simulate.")
    ] = config.DEMO_GAMES,
    seed: Annotated[int, typer.Option(help="Simulation seed.")] = 1,
    dashboard_after: Annotated[
        bool, flag("--dashboard/--no-dashboard", help="End by serving the dashboards.")
    ] = True,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Dashboard port.")] = DASHBOARD_PORT,
    log: Annotated[
        Path,
        typer.Option(
            help="Where the simulated log is written (default: simulated.jsonl.gz in "
            "data/demo/ of the checkout, else of the working directory).",
            show_default=False,  # an absolute path, cut in the help's column
        ),
    ] = DEMO_LOG,
    memory_limit: BuildMemoryOption = None,
) -> None:
    """The whole pipeline on the embedded default: simulate → ingest → build → verify →
    dashboards (http://127.0.0.1:8501, Ctrl-C to stop).

    The simulated matches plant a 頂大 colluder pair (seat 1 never blocks seat 2) and
    imperfect blocking, so the audit pages have something to find; Dou Dizhu games of both
    presets (a farmer who feeds the landlord planted) and the shipped sample logs, bad lines
    included, are imported too, so import health shows real rejects.
    """
    from pipeline.warehouse import Warehouse

    with domain_errors(), writer_errors():
        memory = build_memory(memory_limit)
        wh = run_demo(Warehouse(warehouse), games=games, seed=seed, log=log, memory=memory)
        where = shell_word(str(wh.root))
        typer.echo(f'Try: {runnable_big2()} sql "from mart_player_standings" -w {where}')
        typer.echo("     (or `source .venv/bin/activate` once, then just `big2 …`)")
        if dashboard_after:
            argv, env = dashboard_command(warehouse, port=port)
    if dashboard_after:
        typer.echo(f"big2 dashboard: http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        sys.stdout.flush()
        os.execve(argv[0], argv, env)


def run_demo(
    wh: Warehouse, *, games: int, seed: int, log: Path, memory: str | None = None
) -> Warehouse:
    """Steps 1-4 of the demo, each announced: simulate ``games`` games with the demo's
    lineup and planted behaviour into ``log``, import it with the sample logs, build (under
    DuckDB's memory limit ``memory``: :func:`~pipeline.cli.ingest.build_memory`), verify."""
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    if not SAMPLES.is_dir():
        raise Big2Error("E_NO_SAMPLES", f"no sample logs under {SAMPLES}")
    wh.make_folder()  # a -w that cannot be a warehouse (a file): said now, not after step 1
    cfg = SimConfig(
        games=games,
        seed=seed,
        bots=tuple(b.value for b in config.DEFAULT_LINEUP),
        must_block_discipline=config.DEMO.must_block_discipline,
        colluders=config.DEMO.colluders,
        id_prefix=f"demo{seed}",
    )
    typer.echo(f"1/4 simulate {plural(games, 'game')} → {log}")
    sim = simulate_to_file(cfg, log)
    typer.echo(f"    {plural(sim.games, 'game')} in {sim.seconds:.1f} s")
    ddz_log = ddz_log_path(log)
    typer.echo(f"    and {plural(write_ddz_log(ddz_log, seed=seed), 'Dou Dizhu deal')} → {ddz_log}")
    typer.echo("2/4 ingest the simulated logs and the sample logs")
    paths = [str(log), str(ddz_log), str(SAMPLES)]
    # import + build: one writer, queued behind a running import as `big2 ingest` is
    with wh.building(on_wait=lambda: say_waiting(wh)):
        print_ingest_summary(ingest_with_progress(paths, wh), wh, paths=paths)
        typer.echo("3/4 build the SQL marts")
        build_after_ingest(wh, memory=memory)
    problems = wh.verify()
    typer.echo(f"4/4 big2 verify: {plural(len(problems), 'problem') if problems else 'OK'}")
    return wh


def ddz_log_path(log: Path) -> Path:
    """Where the demo's Dou Dizhu games go: beside the Big Two log.

    >>> ddz_log_path(Path("data/demo/sim.jsonl.gz")).as_posix()
    'data/demo/sim-ddz.jsonl'
    """
    return log.with_name(f"{log.name.split('.', 1)[0]}-ddz.jsonl")


#: The player of the planted feeding seat in the demo's Dou Dizhu games (the bots rotate
#: round the table, the feeder stays one player, so the cooperation audit can name it).
FEEDER_ID = "ddz-feeder"


def write_ddz_log(path: Path, *, seed: int) -> int:
    """Simulate the demo's Dou Dizhu games (:data:`pipeline.sim.config.DEMO_DDZ_GAMES`, seats
    rotating, the planted feeder of :data:`pipeline.sim.config.DDZ_DEMO` in the 3-player games,
    played by :data:`FEEDER_ID`, the other seats by ``bot-<bot>``) into a JSON Lines log; the lines written (void deals are lines of
    their own)."""
    from pipeline.doudizhu.rules import load_ruleset
    from pipeline.sim.ddz_play import log_line, simulate

    feeder, rate = config.DDZ_DEMO.feeder, config.DDZ_DEMO.feed_rate
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for preset, games in config.DEMO_DDZ_GAMES:
            players = load_ruleset(preset).players
            plant = feeder if feeder is not None and feeder < players else None
            bots = [b.value for b in config.lineup(players)]
            runs = simulate(
                preset, bots, games=games, seed=seed, rotate_seats=True,
                feeder=plant, feed_rate=rate if plant is not None else 0.0,
            )  # fmt: skip
            for i, deals in enumerate(runs):
                for d in deals:
                    ids = [
                        FEEDER_ID if s == plant else f"bot-{b}"
                        for s, b in enumerate(d["truth"]["bots"])
                    ]
                    gid = f"ddz-demo{seed}-{preset}-{i}-{d['deal_number']}"
                    line = log_line(d, game_id=gid, player_ids=ids)
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")
                    n += 1
    return n
