"""Benchmark of `big2 ingest` (issue 4): end-to-end games/s, peak memory, warehouse size.

The input is a JSON Lines file of ``N`` complete 4-player ``hk`` games: 200 distinct games
played by the engine at random, repeated under fresh game ids (each line is still parsed,
hashed, replayed and written in full). ``N`` comes from ``BIG2_BENCH_INGEST_GAMES``
(comma-separated, default ``100000``); the issue asks for 100k and 1M.

Also reported: where one core's time goes, per game, over 5,000 games (parse + hash,
replay, building rows), so the end-to-end figure can be read against its parts.

``ingest.peak_rss`` (issue 15: peak RSS flat in the number of games): the same kind of file at
``N`` and ``10 N`` games, each imported into a new warehouse by a fresh process, which
reports its own peak RSS and its workers' (``ru_maxrss`` of itself and of its children, the
forkserver and the workers it reaped), side by side with the ratio. ``N`` comes from
``BIG2_BENCH_RSS_GAMES`` (default ``100000``, the issue's 100k and 1M; ``20000`` for a quick
check), the workers from ``BIG2_BENCH_RSS_WORKERS`` (default ``2``). ``ingest.peak_rss_distinct``:
the same on distinct games (:func:`write_distinct_log`, ``big2 simulate``'s), where the standard
file repeats 200 games.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import Figure, benchmark
from pipeline.ingest import ingest
from pipeline.logs.jsonl import parse_line
from pipeline.logs.model import GameRecord, Source
from pipeline.logs.writer import dumps
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.sample import sample_game
from pipeline.warehouse import RowBuffer, Warehouse

N_DISTINCT = 200


def write_log(path: Path, n_games: int) -> None:
    """``n_games`` lines: ``N_DISTINCT`` played games repeated under new ids."""
    base = [sample_game(seed=i, game_id="x") for i in range(N_DISTINCT)]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n_games):
            fh.write(dumps({**base[i % N_DISTINCT], "game_id": f"b{i}"}) + "\n")


def write_distinct_log(path: Path, n: int) -> None:
    """``n`` distinct games as ``big2 simulate -n N`` writes them (seed 0, the hk preset, the
    default lineup of bots; on the native core when it is built)."""
    from pipeline.sim.config import lineup
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    bots = tuple(b.value for b in lineup(4))
    simulate_to_file(SimConfig(games=n, seed=0, bots=bots), path, workers=1)


def _sizes() -> list[int]:
    return [int(x) for x in os.environ.get("BIG2_BENCH_INGEST_GAMES", "100000").split(",")]


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process alone (not its workers)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_mib() -> tuple[float, float]:
    self_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return self_kib / 1024, kids_kib / 1024


@benchmark("ingest.end_to_end")
def end_to_end() -> list[Figure]:
    """Games/s of a whole import with 1 and 2 workers, peak RSS, bytes per game."""
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in _sizes():
            log = root / f"games-{n}.jsonl"
            write_log(log, n)
            for workers in (1, 2):
                wh_dir = root / f"wh-{n}-{workers}"
                cpu = _cpu_seconds()
                started = time.perf_counter()
                summary = ingest([str(log)], Warehouse(wh_dir), workers=workers)
                seconds = time.perf_counter() - started
                cpu = _cpu_seconds() - cpu
                assert summary.total().stored == n, summary.total()
                label = f"{n:,} games, {workers} worker{'s' if workers > 1 else ''}"
                figures.append((f"ingest games per second ({label})", n / seconds, "games/s"))
                # what caps the workers: the main process's own work (reading lines, the
                # batch's look-ups, the commit; with one worker, the chunks' work as well)
                figures.append((f"main-process CPU per game ({label})", cpu / n * 1e6, "µs"))
                size = sum(f.stat().st_size for f in wh_dir.rglob("*.parquet"))
                figures.append(
                    (f"warehouse Parquet bytes per million games ({label})", size / n * 1e6, "B")
                )
                shutil.rmtree(wh_dir)
            main_mib, worker_mib = _peak_mib()
            figures.append((f"peak RSS, main process (after {n:,} games)", main_mib, "MiB"))
            figures.append((f"peak RSS, largest worker (after {n:,} games)", worker_mib, "MiB"))
            figures.append(("input file bytes per game", log.stat().st_size / n, "B"))
            log.unlink()
    figures.extend(_breakdown())
    return figures


#: The importing process of ``ingest.peak_rss``: its peak RSS and its children's, as JSON.
_RSS_CHILD = """
import json, resource, sys, time
from multiprocessing import forkserver
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse
log, wh, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
started = time.perf_counter()
total = ingest([log], Warehouse(wh), workers=workers).total()
seconds = time.perf_counter() - started
time.sleep(0.5)  # the forkserver reaps the workers the pool stopped
stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
if stop is not None:
    stop()  # and is reaped here: the workers' peak is then in RUSAGE_CHILDREN
print(json.dumps({
    "stored": total.stored,
    "seconds": seconds,
    "self_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "children_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
}))
"""


def measure_rss(log: Path, warehouse: Path, workers: int) -> dict[str, float]:
    """Import ``log`` into a new warehouse in a fresh process: games stored, seconds, and the
    peak RSS (KiB) of that process (``self_kib``) and of its largest child (``children_kib``)."""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    out = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(log), str(warehouse), str(workers)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    got: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return got


@benchmark("ingest.peak_rss")
def peak_rss() -> list[Figure]:
    """Peak RSS of the importing process and of its workers at N and 10 N games of the
    standard file (on the core's path the workers are threads: the importing process holds
    them)."""
    return _peak_rss(write_log)


@benchmark("ingest.peak_rss_distinct")
def peak_rss_distinct() -> list[Figure]:
    """:func:`peak_rss` on distinct games (:func:`write_distinct_log`: 10 N of them take a
    minute to write and 3.8 GB at N = 100,000)."""
    return _peak_rss(write_distinct_log)


def _peak_rss(write: Callable[[Path, int], None]) -> list[Figure]:
    n = int(os.environ.get("BIG2_BENCH_RSS_GAMES", "100000"))
    workers = int(os.environ.get("BIG2_BENCH_RSS_WORKERS", "2"))
    figures: list[Figure] = []
    runs: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for size in (n, 10 * n):
            log = root / f"games-{size}.jsonl"
            write(log, size)
            runs[size] = got = measure_rss(log, root / f"wh-{size}", workers)
            assert got["stored"] == size, got
            shutil.rmtree(root / f"wh-{size}")
            log.unlink()
    label = f"{workers} worker{'s' if workers > 1 else ''}"
    for key, what in (("self_kib", "importing process"), ("children_kib", "largest worker")):
        small, large = runs[n][key] / 1024, runs[10 * n][key] / 1024
        if not small:  # the workers were threads of the importing process (the core's path)
            continue
        figures.append((f"peak RSS, {what}, {n:,} games ({label})", small, "MiB"))
        figures.append((f"peak RSS, {what}, {10 * n:,} games ({label})", large, "MiB"))
        figures.append((f"peak RSS, {what}: {10 * n:,} ÷ {n:,} games", large / small, "×"))
    for size in (n, 10 * n):
        rate = size / runs[size]["seconds"]
        figures.append((f"ingest games per second, {size:,} games ({label})", rate, "games/s"))
    return figures


def _breakdown(n: int = 5000) -> list[Figure]:
    """Microseconds per game for each step of one core's work."""
    base = [dumps(sample_game(seed=i, game_id=f"p{i}")) for i in range(N_DISTINCT)]
    lines = [base[i % N_DISTINCT].replace('"p', f'"q{i}-', 1) for i in range(n)]
    t0 = time.perf_counter()
    records = [parse_line(text, Source("bench", i)) for i, text in enumerate(lines)]
    t1 = time.perf_counter()
    done = [replay(r) for r in records if isinstance(r, GameRecord)]
    t2 = time.perf_counter()
    rows = RowBuffer("bench")
    for g in done:
        if isinstance(g, ReplayedGame):
            rows.add_game(g)
    rows.take()
    t3 = time.perf_counter()
    per = 1e6 / n
    return [
        ("parse JSON + validate + content hash, per game", (t1 - t0) * per, "µs"),
        ("replay through the engine, per game", (t2 - t1) * per, "µs"),
        ("build Arrow rows, per game", (t3 - t2) * per, "µs"),
    ]
