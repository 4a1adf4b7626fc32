"""Scale versions of the reliability suite (docs/reliability.md): bounded memory and time on
hostile input, kills at scale, readers beside writers.

Each figure runs the real ``big2`` command in a child process and reads that child's peak RSS
(``ru_maxrss`` of a fresh wrapper process, so one figure never inherits another's peak).
Sizes come from environment variables so a quick run is possible:
``BIG2_BENCH_JUNK_LINES`` (default 2,000,000), ``BIG2_BENCH_BLANK_MB`` (default 1,000 MB of
newlines), ``BIG2_BENCH_SQL_ROWS`` (default 10,000,000), ``BIG2_BENCH_KILL_GAMES``
(default 20,000) and ``BIG2_BENCH_ROUNDS`` (default 10).

>>> peak_and_seconds([sys.executable, "-c", "pass"])[0] > 0
True
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import Figure, benchmark
from pipeline.logs.writer import dumps
from pipeline.sim.sample import sample_game
from pipeline.warehouse import Warehouse

BIG2 = [sys.executable, "-m", "pipeline.cli"]
_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter(); code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, code)"
)


#: A read of a few seconds that holds the warehouse open while an import runs beside it.
READER_QUERY = "select (select count(*) from games) + sum(range) from range(400000000)"


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def peak_and_seconds(cmd: list[str]) -> tuple[float, float, int]:
    """Peak RSS (MiB) of ``cmd`` and its waited-for children, its wall seconds and exit code."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]) / 1024, float(out[1]), int(out[2])


def _write_games(path: Path, n: int, prefix: str) -> None:
    base = [sample_game(seed=i, game_id="x") for i in range(50)]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(dumps({**base[i % 50], "game_id": f"{prefix}{i}"}) + "\n")


def _seed_warehouse(root: Path, wh: Path) -> None:
    """A warehouse holding one game, so readers have one to open."""
    seed = root / "seed.jsonl"
    _write_games(seed, 1, "seed")
    subprocess.run([*BIG2, "ingest", str(seed), "-w", str(wh)], capture_output=True, check=True)


def _games(wh_dir: Path) -> tuple[int, int]:
    with Warehouse(wh_dir).connect() as con:
        row = con.execute("select count(*), count(distinct game_id) from games").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


@benchmark("reliability.bad_input")
def bad_input() -> list[Figure]:
    """Junk lines and blank runs: the import's memory and time stay bounded."""
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        n_junk = _env_int("BIG2_BENCH_JUNK_LINES", 2_000_000)
        junk = root / "junk.jsonl.gz"
        with gzip.open(junk, "wt", encoding="utf-8") as fh:
            for _ in range(n_junk // 1000):
                fh.write("not json\n" * 1000)
        wh = root / "wh"
        mib, secs, _ = peak_and_seconds([*BIG2, "ingest", str(junk), "-w", str(wh)])
        figures.append((f"peak RSS, import of {n_junk:,} junk lines", mib, "MiB"))
        figures.append((f"seconds, import of {n_junk:,} junk lines", secs, "s"))
        small = root / "small.jsonl"
        _write_games(small, 10, "s")
        mib, secs, _ = peak_and_seconds([*BIG2, "ingest", str(small), "-w", str(wh)])
        figures.append(("peak RSS, a 10-game import after it", mib, "MiB"))
        megabytes = _env_int("BIG2_BENCH_BLANK_MB", 1000)
        blank = root / "blank.jsonl.gz"
        with gzip.open(blank, "wb", compresslevel=1) as fb:
            chunk = b"\n" * (1 << 20)
            for _ in range(megabytes):
                fb.write(chunk)
        mib, secs, _ = peak_and_seconds([*BIG2, "ingest", str(blank), "-w", str(root / "wh2")])
        figures.append((f"seconds, import of {megabytes:,} MB of newlines (gzip)", secs, "s"))
        figures.append((f"peak RSS, import of {megabytes:,} MB of newlines", mib, "MiB"))
    return figures


@benchmark("reliability.sql_output")
def sql_output() -> list[Figure]:
    """`big2 sql` of a large result: memory flat in the row count, for every output format."""
    figures: list[Figure] = []
    rows = _env_int("BIG2_BENCH_SQL_ROWS", 10_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = root / "g.jsonl"
        _write_games(log, 10, "q")
        wh = root / "wh"
        subprocess.run([*BIG2, "ingest", str(log), "-w", str(wh)], capture_output=True, check=True)
        query = f"select range as n, range * 2 as m, 'row ' || range as t from range({rows})"
        for fmt in ("csv", "json", "parquet"):
            out = root / f"out.{fmt}"
            cmd = [*BIG2, "sql", query, "-w", str(wh), "--format", fmt, "--out", str(out)]
            cmd += ["--timeout", "0"]  # the figure is the whole stream, however long
            mib, secs, code = peak_and_seconds(cmd)
            assert code == 0, f"big2 sql --format {fmt} exited {code}"
            figures.append((f"peak RSS, {rows:,} rows as {fmt}", mib, "MiB"))
            figures.append((f"seconds, {rows:,} rows as {fmt}", secs, "s"))
            out.unlink()
    return figures


@benchmark("reliability.kill_points")
def kill_points() -> list[Figure]:
    """A 2-worker import killed at eight points of its run: games lost or doubled (aim 0)."""
    n = _env_int("BIG2_BENCH_KILL_GAMES", 20_000)
    lost = doubled = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = root / "g.jsonl"
        _write_games(log, n, "k")
        wh = root / "wh"
        _seed_warehouse(root, wh)
        started = time.perf_counter()
        subprocess.run(
            [*BIG2, "ingest", str(log), "-w", str(root / "full"), "--workers", "2"],
            capture_output=True,
            check=True,
        )
        full = time.perf_counter() - started
        for point in range(1, 9):
            proc = subprocess.Popen(
                [*BIG2, "ingest", str(log), "-w", str(wh), "--workers", "2"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(full * point / 9)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            rows, distinct = _games(wh)
            doubled += rows - distinct
            lost += 0 if distinct in (1, n + 1) else 1  # a batch is all or nothing
        busy = 0
        while True:  # a worker that outlived its killed parent holds the import lock
            again = subprocess.run([*BIG2, "ingest", str(log), "-w", str(wh)], capture_output=True)
            if again.returncode == 0 or busy == 10:
                break
            busy += 1
            time.sleep(1)
        rows, distinct = _games(wh)
        lost += n + 1 - distinct
        doubled += rows - distinct
    return [
        (f"seconds, one 2-worker import of {n:,} games", full, "s"),
        ("games lost after 8 kills and a re-import", lost, "games"),
        ("games doubled after 8 kills and a re-import", doubled, "games"),
        ("re-import refused as busy (workers outliving the kill), 1 s apart", busy, "times"),
    ]


@benchmark("reliability.readers_and_writers")
def readers_and_writers() -> list[Figure]:
    """Rounds of an import while a long `big2 sql` reads: failed writers, readers, checks (aim 0)."""
    rounds = _env_int("BIG2_BENCH_ROUNDS", 10)
    failed_writes = failed_reads = failed_checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        wh = root / "wh"
        _seed_warehouse(root, wh)
        for i in range(rounds):
            log = root / f"r{i}.jsonl"
            _write_games(log, 500, f"r{i}-")
            reader = subprocess.Popen(
                [*BIG2, "sql", READER_QUERY, "-w", str(wh), "--timeout", "0"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            writer = subprocess.run(
                [*BIG2, "ingest", str(log), "-w", str(wh)],
                capture_output=True,
                text=True,
                check=False,
            )
            failed_writes += writer.returncode != 0
            failed_reads += reader.wait() != 0
            check = subprocess.run(
                [*BIG2, "verify", "-w", str(wh)], capture_output=True, check=False
            )
            failed_checks += check.returncode != 0
    return [
        (f"failed imports of {rounds} beside a reader", failed_writes, "runs"),
        (f"failed readers of {rounds} beside an import", failed_reads, "runs"),
        (
            f"verify failures after {rounds} such rounds (stale marts included)",
            failed_checks,
            "runs",
        ),
    ]
