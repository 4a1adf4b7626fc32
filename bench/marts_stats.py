"""Benchmark of the issue 7 marts (頂大 audit, collusion, strategy stats, luck) on N games.

The input is a simulated run of ``N`` 4-player ``hk`` games (heuristic, greedy, random and
heuristic bots, must_block_discipline 0.9, seat 0 colluding with seat 1), imported with
the real ingest. ``N`` comes from ``BIG2_BENCH_MARTS_GAMES`` (comma-separated, default
``20000``); ``BIG2_BENCH_MARTS_WAREHOUSE`` names an existing warehouse to time instead
(e.g. a 1M-game one). The figures come from ``big2 build`` (pipeline.sqlbuild, which makes
each mart a table) with DuckDB limited to 2 threads: seconds per mart, and in total.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bench import Figure, benchmark
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

PREFIXES = ("audit_", "collusion_", "stats_", "luck_")


def time_marts(wh: Warehouse, threads: int = 2) -> tuple[list[tuple[str, float, int]], float]:
    """Build every SQL layer (``big2 build``) with ``threads`` DuckDB threads: (mart, seconds,
    rows) for this issue's marts (each is a table built from staging and the marts before
    it), and the whole build's seconds.

    Every mart is a table, so a mart's seconds are its own work, not its upstream's.
    """
    summary = build(wh, threads=threads, full=True)
    mine = [
        (name, seconds, summary.rows.get(name, 0))
        for name, seconds in summary.timings.items()
        if name.startswith(PREFIXES)
    ]
    return mine, summary.seconds


def simulated_warehouse(root: Path, n_games: int) -> Warehouse:
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    cfg = SimConfig(
        games=n_games,
        seed=2026,
        bots=("heuristic", "greedy", "random", "heuristic"),
        must_block_discipline=0.9,
        colluders=(0, 1),
    )
    log = root / f"sim-{n_games}.jsonl"
    simulate_to_file(cfg, log, workers=2)
    wh = Warehouse(root / f"wh-{n_games}")
    ingest([str(log)], wh, workers=2)
    return wh


def _figures(label: str, wh: Warehouse) -> list[Figure]:
    timed, total = time_marts(wh)
    figures: list[Figure] = [(f"{label}: {name} ({n} rows)", s, "s") for name, s, n in timed]
    figures.append((f"{label}: the {len(timed)} issue-7 marts", sum(s for _, s, _ in timed), "s"))
    figures.append((f"{label}: whole build (staging, scoring, these marts)", total, "s"))
    return figures


@benchmark("marts.stats")
def marts_stats() -> list[Figure]:
    """Seconds to build each audit / collusion / stats / luck mart on N games, 2 threads."""
    existing = os.environ.get("BIG2_BENCH_MARTS_WAREHOUSE")
    if existing:
        return _figures(existing, Warehouse(existing))
    figures: list[Figure] = []
    sizes = [int(x) for x in os.environ.get("BIG2_BENCH_MARTS_GAMES", "20000").split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            figures += _figures(f"{n} games", simulated_warehouse(Path(tmp), n))
    return figures
