"""The import's part files written by the core's Parquet writer and by pyarrow's, side by side.

``native.parquet``: one chunk of simulated games (``BIG2_BENCH_PARQUET_GAMES``, default 5,000,
the import's chunk; distinct games, so the files compress as real ones do: the standard bench
file repeats 1,000 games) is replayed into its warehouse rows once; then its four part files
(games, seats, actions, tricks) are written by :func:`pipeline.warehouse.store._write_file` on
the core and with pyarrow (the same options), alternating, 5 rounds: µs of CPU a game for
each (median), the ratio, and the files' bytes a game.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from bench import Figure, benchmark
from pipeline import native
from pipeline.ingest import ChunkItem, chunk_rows
from pipeline.logs.model import Source
from pipeline.sim.simulate import SimConfig, match_lines_native, match_lines_python
from pipeline.warehouse import store
from pipeline.warehouse.tables import SCHEMAS, Table

ROUNDS = 5


def chunk_tables(games: int) -> dict[Table, pa.Table]:
    """The part tables of ``games`` simulated games (two heuristic bots, a random and a greedy
    one, ``hk``), as :func:`pipeline.warehouse.store.write_part` hands them to ``_write_file``."""
    cfg = SimConfig(games=games, seed=23, bots=("heuristic", "heuristic", "random", "greedy"))
    module = native.load_module()
    lines: list[str] = []
    for match in range(cfg.n_matches):
        got = None if module is None else match_lines_native(cfg, match, module)
        lines.extend(got if got is not None else match_lines_python(cfg, match))
    items: list[ChunkItem] = [(Source("bench.jsonl", i + 1), t) for i, t in enumerate(lines)]
    done = chunk_rows(items, "bench")
    return {t: done.tables[t].select(SCHEMAS[t].names).cast(SCHEMAS[t]) for t in store.PART_TABLES}


def _write_all(folder: Path, tables: dict[Table, pa.Table], *, core: bool) -> tuple[float, int]:
    """CPU seconds of writing the part files (on the core or with pyarrow) and their bytes."""
    module = native._MODULE
    native._MODULE = module if core else None
    try:
        start = time.process_time()
        size = sum(
            store._write_file(folder / f"{t.value}.parquet", t, rows)[1]
            for t, rows in tables.items()
        )
        return time.process_time() - start, size
    finally:
        native._MODULE = module


@benchmark("native.parquet")
def parquet_writers() -> list[Figure]:
    """Part files of one chunk: the core's writer and pyarrow's, µs of CPU a game."""
    games = int(os.environ.get("BIG2_BENCH_PARQUET_GAMES", "5000"))
    tables = chunk_tables(games)
    sides = [("pyarrow", False)]
    if native._MODULE is not None:
        sides.insert(0, ("core", True))
    seconds: dict[str, list[float]] = {name: [] for name, _ in sides}
    sizes: dict[str, int] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(ROUNDS):
            for name, core in sides:
                spent, sizes[name] = _write_all(Path(tmp), tables, core=core)
                seconds[name].append(spent)
    figures: list[Figure] = []
    for name, _ in sides:
        us = statistics.median(seconds[name]) / games * 1e6
        figures.append((f"{name}: part files of {games:,} games, CPU a game", us, "µs"))
        figures.append((f"{name}: part files' bytes a game", sizes[name] / games, "B"))
    if len(sides) == 2:
        ratio = statistics.median(seconds["pyarrow"]) / statistics.median(seconds["core"])
        figures.append(("pyarrow's CPU ÷ the core's", ratio, "×"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures
