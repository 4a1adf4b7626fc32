"""Issue 15's import aims, each beside the figure it is judged by, on one file in one run.

``ingest.aims``: the standard file (``BIG2_BENCH_AIMS_GAMES`` games, default 100,000, written by
:func:`bench.ingest.write_log`) is

- parsed with ``orjson.loads``, line by line as read from the file, nothing else: the parse
  floor, in games per CPU-second of this process (one core);
- imported by :func:`pipeline.ingest.ingest` (what ``big2 ingest --no-build`` runs: no mart
  build, no CLI start-up) with one worker and with two, each into a new warehouse in a fresh
  process: games/s as the import reports it (wall time); with one worker (the chunks run in
  the importing process) also games per CPU-second;

alternating, ``BIG2_BENCH_AIMS_ROUNDS`` rounds (default 3), medians. The aims: one worker at
least half the parse floor; two workers at least 50,000 games/s (when two cores are free: the
load average before and after is printed with them). The two-worker rate is also printed as a
ratio to the same run's floor: the 50,000 is a figure of the machine the aim was set on (its
floor ~77,000 games per CPU-second), and machines of this kind have measured floors from
19,000 to 60,000, so only the ratio compares across them.

``ingest.aims_distinct``: the same on a file of distinct games (``big2 simulate``'s), where
the standard file repeats a few hundred games under new ids.

``ingest.csv`` and ``ingest.csv_rss``: CSV logs (their docstrings).
"""

from __future__ import annotations

import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, cast

import orjson

from bench import Figure, benchmark

#: The aims of issue 15, for the figures' names.
ONE_WORKER_AIM = 0.5
TWO_WORKERS_AIM = 50_000

#: Imports argv[1] into argv[2] with argv[4] workers, argv[3] games expected; prints the
#: import's games/s (wall) and the CPU seconds of this process (with one worker, all of it; the
#: workers of two run under the forkserver, not counted here).
_RUN = """
import resource, sys
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse
s = ingest([sys.argv[1]], Warehouse(sys.argv[2]), workers=int(sys.argv[4]))
assert s.total().stored == int(sys.argv[3]), s.total()
me = resource.getrusage(resource.RUSAGE_SELF)
cpu = me.ru_utime + me.ru_stime
print(s.total().stored / s.seconds, cpu)
"""


def parse_floor(path: Path) -> float:
    """Games per CPU-second of ``orjson.loads`` over the lines of ``path``, read as bytes.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = Path(tmp) / "a.jsonl"
    ...     _ = p.write_bytes(b'{"a": 1}\\n' * 1000)
    ...     parse_floor(p) > 0
    True
    """
    started = time.process_time()
    n = 0
    with path.open("rb") as fh:
        for line in fh:
            orjson.loads(line)
            n += 1
    return n / max(time.process_time() - started, 1e-9)


def import_rate(
    log: Path, wh: Path, n: int, workers: int, *, pure: bool = False
) -> tuple[float, float]:
    """The import of ``log`` (``n`` games) into ``wh`` in a fresh process (``pure``: on the
    Python path): (games/s as the import reports it, games per CPU-second of the importing
    process)."""
    from pipeline.native import PURE_ENV

    cmd = [sys.executable, "-c", _RUN, str(log), str(wh), str(n), str(workers)]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # as the big2 command sets it
    env.pop(PURE_ENV, None)
    if pure:
        env[PURE_ENV] = "1"
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout.split()
    rate, cpu = float(out[-2]), float(out[-1])
    return rate, n / cpu


@benchmark("ingest.aims")
def aims() -> list[Figure]:
    """The parse floor, one-worker and two-worker imports of the standard file, side by side."""
    from bench.ingest import write_log

    return _aims(write_log)


@benchmark("ingest.aims_distinct")
def aims_distinct() -> list[Figure]:
    """:func:`aims` on a file of distinct games (``bench.ingest.write_distinct_log``): the standard
    file repeats ``bench.ingest.N_DISTINCT`` games under new ids, so a chunk's Parquet
    dictionaries and zstd find each game's rows many times over; an operator's history does not."""
    from bench.ingest import write_distinct_log

    return _aims(write_distinct_log)


def _aims(write: Callable[[Path, int], None]) -> list[Figure]:
    """The figures of the import aims on the file ``write(path, n)`` writes."""
    n = int(os.environ.get("BIG2_BENCH_AIMS_GAMES", "100000"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    floor: list[float] = []
    rate: dict[int, list[float]] = {1: [], 2: []}
    per_cpu: list[float] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "games.jsonl"
        write(log, n)
        os.sync()  # the file's writeback is not the imports' to wait for (their fsyncs queue behind it)
        for k in range(rounds):
            floor.append(parse_floor(log))
            for workers in (1, 2):
                got = import_rate(log, Path(tmp) / f"wh-{workers}-{k}", n, workers)
                rate[workers].append(got[0])
                if workers == 1:
                    per_cpu.append(got[1])
        size = log.stat().st_size
    parse = statistics.median(floor)
    one, two = statistics.median(rate[1]), statistics.median(rate[2])
    return [
        (f"input: {n:,} games, bytes per game", size / n, "B"),
        ("orjson parse-only, games per CPU-second (the floor)", parse, "games/s"),
        (f"ingest --no-build, 1 worker (median of {rounds})", one, "games/s"),
        ("ingest, 1 worker, games per CPU-second", statistics.median(per_cpu), "games/s"),
        (f"1 worker ÷ parse floor (aim ≥ {ONE_WORKER_AIM})", one / parse, "×"),
        (f"ingest --no-build, 2 workers (aim ≥ {TWO_WORKERS_AIM:,})", two, "games/s"),
        ("2 workers ÷ parse floor (one core's)", two / parse, "×"),
        ("load average (1 min) before the runs", load_before, ""),
        ("load average (1 min) after the runs", os.getloadavg()[0], ""),
    ]


def inflate_seconds(path: Path, opener: Callable[[Path], IO[bytes]]) -> float:
    """CPU-seconds of this process to read a gzip file through ``opener``, 1 MiB a read."""
    started = time.process_time()
    with opener(path) as fh:
        while fh.read1(1 << 20):  # type: ignore[attr-defined]
            pass
    return time.process_time() - started


def _std_gzip(path: Path) -> IO[bytes]:
    return cast(IO[bytes], gzip.open(path, "rb"))


@benchmark("ingest.gzip")
def gzip_import() -> list[Figure]:
    """The standard file gzipped (level 6, gzip's default) beside the plain file, alternating
    (``BIG2_BENCH_AIMS_ROUNDS`` rounds, medians): the inflate alone, by the standard library's
    ``gzip`` module and by :func:`pipeline.logs.gz.open_gzip`; the import with one worker and
    with two, each as a ratio to the plain file's in the same round."""
    from bench.ingest import write_log
    from pipeline.logs.gz import open_gzip

    n = int(os.environ.get("BIG2_BENCH_AIMS_GAMES", "100000"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    std: list[float] = []
    fast: list[float] = []
    rate: dict[tuple[str, int], list[float]] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "games.jsonl"
        packed = Path(tmp) / "games.jsonl.gz"
        write_log(plain, n)
        with plain.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.sync()
        megabytes = plain.stat().st_size / 1e6
        for k in range(rounds):
            std.append(inflate_seconds(packed, _std_gzip))
            fast.append(inflate_seconds(packed, open_gzip))
            for workers in (1, 2):
                for log in (plain, packed):
                    wh = Path(tmp) / f"wh-{log.name}-{workers}-{k}"
                    got = import_rate(log, wh, n, workers)[0]
                    rate.setdefault((log.name, workers), []).append(got)
                    shutil.rmtree(wh)
    figures: list[Figure] = [
        (f"input: {n:,} games, {megabytes:,.0f} MB, gzip level 6", n, "games"),
        ("inflate, gzip module, CPU-seconds per 100 MB", 100 * statistics.median(std) / megabytes, "s"),
        ("inflate, pipeline.logs.gz, CPU-seconds per 100 MB", 100 * statistics.median(fast) / megabytes, "s"),
        ("inflate, gzip module ÷ pipeline.logs.gz", statistics.median(s / f for s, f in zip(std, fast, strict=True)), "×"),
    ]  # fmt: skip
    for workers in (1, 2):
        gz = rate[packed.name, workers]
        figures.append((f"ingest --no-build .jsonl.gz, {workers} worker(s) (median of {rounds})", statistics.median(gz), "games/s"))  # fmt: skip
        ratios = (g / p for g, p in zip(gz, rate[plain.name, workers], strict=True))
        figures.append((f".jsonl.gz ÷ .jsonl, {workers} worker(s), same round", statistics.median(ratios), "×"))  # fmt: skip
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures


def write_csv_pair(log: Path, path: Path, *, quoted: bool = False) -> int:
    """The games of the JSON Lines ``log`` as an actions CSV at ``path`` and its games CSV
    (``<stem>.games.csv``), as a club's export writes them (the sample writer's columns);
    how many games. ``quoted``: every cell but whole numbers in quotes
    (``csv.QUOTE_NONNUMERIC``), as R's ``write.csv`` and database exports write text."""
    from pipeline.logs.csv_logs import games_csv_for
    from pipeline.sim.sample import _csv_rows

    with log.open("rb") as fh:
        games = [orjson.loads(line) for line in fh]
    game_rows, action_rows = _csv_rows(games)
    for rows, target in ((game_rows, games_csv_for(path)), (action_rows, path)):
        with target.open("w", encoding="utf-8", newline="") as out:
            write_rows(out, rows, quoted=quoted)
    return len(games)


def write_rows(out: IO[str], rows: list[list[str]], *, quoted: bool = False) -> None:
    """A header and its rows as CSV text (``csv.writer``'s, lines ended by ``\\n``).
    ``quoted``: every cell but a whole number in quotes (``csv.QUOTE_NONNUMERIC``; the
    header's too), as R's ``write.csv`` and database exports write text.

    >>> import io
    >>> out = io.StringIO()
    >>> write_rows(out, [["game_id", "seq"], ["g1", "1"], ["g1", "2"]], quoted=True)
    >>> out.getvalue()
    '"game_id","seq"\\n"g1",1\\n"g1",2\\n'
    """
    import csv

    if not quoted:
        csv.writer(out, lineterminator="\n").writerows(rows)
        return
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(rows[0])
    writer.writerows([int(c) if c.isdigit() else c for c in row] for row in rows[1:])


def write_csv_games(path: Path, n: int) -> None:
    """``n`` games as a CSV pair at ``path`` (and ``<stem>.games.csv``), as
    :func:`bench.ingest.write_log` writes its lines: ``N_DISTINCT`` played games repeated under
    new ids (``b0``, ``b1`` …), in one order in both files, as an export writes them; streamed,
    so a pair of millions of games is written in bounded memory."""
    import csv
    import io

    from bench.ingest import N_DISTINCT
    from pipeline.logs.csv_logs import games_csv_for
    from pipeline.sim.sample import _csv_rows, sample_game

    def text(rows: list[list[str]]) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()

    base = [_csv_rows([sample_game(seed=i, game_id="x")]) for i in range(N_DISTINCT)]
    for which, target in ((0, games_csv_for(path)), (1, path)):
        # each game's lines after their first cell, the id "x"
        tails = [[t[1:] for t in text(rows[which][1:]).splitlines(True)] for rows in base]
        with target.open("w", encoding="utf-8", newline="") as out:
            out.write(text(base[0][which][:1]))
            for i in range(n):
                gid = f"b{i}"
                out.writelines(gid + tail for tail in tails[i % N_DISTINCT])


def read_seconds(path: Path, *, core: bool) -> float:
    """CPU-seconds of this process to read the CSV pair of ``path`` as the import reads it
    (:func:`pipeline.logs.csv_logs.read_csv_lines`; ``core``: its plain rows read by the
    native core), nothing else."""
    from pipeline import native
    from pipeline.logs.csv_logs import read_csv_lines

    plain_rows = native.csv_games if core and native.available() else None
    started = time.process_time()
    for _ in read_csv_lines(path, plain_rows=plain_rows):
        pass
    return time.process_time() - started


@benchmark("ingest.csv")
def csv_import() -> list[Figure]:
    """The first ``BIG2_BENCH_CSV_GAMES`` games (default 20,000) of the standard file as a
    CSV pair beside the same games as JSON Lines, alternating (``BIG2_BENCH_AIMS_ROUNDS``
    rounds, medians): the CSV import on the core (one worker and two), on the Python path, the
    JSON Lines import on the core (one worker and two), the pair with its text in quotes (as
    R's ``write.csv`` and database exports write it) on the core, and the CSV reader alone
    (with the core reading the rows, and in Python)."""
    from bench.ingest import write_log

    n = int(os.environ.get("BIG2_BENCH_CSV_GAMES", "20000"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    rate: dict[str, list[float]] = {
        name: [] for name in ("csv", "pure", "jsonl", "csv2", "jsonl2", "quoted", "quoted2")
    }
    reading: dict[bool, list[float]] = {True: [], False: []}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        log, pair = Path(tmp) / "games.jsonl", Path(tmp) / "day.csv"
        quoted = Path(tmp) / "quoted.csv"
        write_log(log, n)
        write_csv_pair(log, pair)
        write_csv_pair(log, quoted, quoted=True)
        os.sync()
        for k in range(rounds):
            for core in (True, False):
                reading[core].append(read_seconds(pair, core=core))
            for name, path, pure, workers in (
                ("csv", pair, False, 1),
                ("pure", pair, True, 1),
                ("jsonl", log, False, 1),
                ("csv2", pair, False, 2),
                ("jsonl2", log, False, 2),
                ("quoted", quoted, False, 1),
                ("quoted2", quoted, False, 2),
            ):
                wh = Path(tmp) / f"wh-{name}-{k}"
                rate[name].append(import_rate(path, wh, n, workers, pure=pure)[0])
                shutil.rmtree(wh)
    csv_rate, jsonl_rate = statistics.median(rate["csv"]), statistics.median(rate["jsonl"])
    csv2_rate, jsonl2_rate = statistics.median(rate["csv2"]), statistics.median(rate["jsonl2"])
    return [
        (f"input: {n:,} games as a CSV pair (the sample writer's columns)", n, "games"),
        ("ingest --no-build .csv, 1 worker, on the core", csv_rate, "games/s"),
        ("ingest --no-build .csv, 1 worker, pure Python", statistics.median(rate["pure"]), "games/s"),
        ("ingest --no-build .jsonl of the same games, 1 worker", jsonl_rate, "games/s"),
        (".csv ÷ .jsonl on the core", csv_rate / jsonl_rate, "×"),
        ("ingest --no-build .csv, 2 workers, on the core", csv2_rate, "games/s"),
        ("ingest --no-build .jsonl of the same games, 2 workers", jsonl2_rate, "games/s"),
        (".csv ÷ .jsonl on the core, 2 workers", csv2_rate / jsonl2_rate, "×"),
        ("ingest --no-build .csv with its text in quotes, 1 worker, on the core", statistics.median(rate["quoted"]), "games/s"),
        ("ingest --no-build .csv with its text in quotes, 2 workers, on the core", statistics.median(rate["quoted2"]), "games/s"),
        ("in quotes ÷ as csv.writer writes it, 2 workers", statistics.median(rate["quoted2"]) / csv2_rate, "×"),
        ("the CSV reader alone, the core reading the rows, CPU per game", 1e6 * statistics.median(reading[True]) / n, "µs"),
        ("the CSV reader alone, in Python, CPU per game", 1e6 * statistics.median(reading[False]) / n, "µs"),
        ("load average (1 min) before the runs", load_before, ""),
        ("load average (1 min) after the runs", os.getloadavg()[0], ""),
    ]  # fmt: skip


@benchmark("ingest.csv_rss")
def csv_peak_rss() -> list[Figure]:
    """Peak RSS of a CSV import at N and 10 N games (``BIG2_BENCH_CSV_RSS_GAMES``, default
    100,000), one worker (the importing process reads the pair), each a fresh process into a
    new warehouse (:func:`bench.ingest.measure_rss`), the pair written by
    :func:`write_csv_games`: the reader holds the games CSV only as far as its games."""
    from bench.ingest import measure_rss

    n = int(os.environ.get("BIG2_BENCH_CSV_RSS_GAMES", "100000"))
    figures: list[Figure] = []
    peak: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (n, 10 * n):
            pair, wh = Path(tmp) / f"day-{size}.csv", Path(tmp) / f"wh-{size}"
            write_csv_games(pair, size)
            os.sync()
            got = measure_rss(pair, wh, 1)
            assert got["stored"] == size, got
            peak[size] = got["self_kib"] / 1024
            figures.append(
                (f"peak RSS, importing process, {size:,} games (CSV, 1 worker)", peak[size], "MiB")
            )
            figures.append(
                (f"ingest .csv games per second, {size:,} games", size / got["seconds"], "games/s")
            )
            shutil.rmtree(wh)
            for f in Path(tmp).glob("day-*"):
                f.unlink()
    figures.append((f"peak RSS: {10 * n:,} ÷ {n:,} games", peak[10 * n] / peak[n], "×"))
    figures.append(
        ("peak RSS growth per game, N to 10 N", (peak[10 * n] - peak[n]) * 2**20 / (9 * n), "B")
    )
    return figures
