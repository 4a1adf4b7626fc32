"""Benchmark of ``big2 build`` (issue 6): the full SQL build and each scoring mart on N games.

Inputs: ``BASE_GAMES`` random legal games (every preset, 6-game matches, some bankroll matches)
ingested through the real pipeline once, then replicated in DuckDB to N games (new game, match
and player ids per copy) in a file-backed database, so N can reach 10^5-10^6 without replaying
that many games. The timed part is :func:`pipeline.sqlbuild.build_sql` on that database:
the same staging views, macros and marts ``big2 build`` creates (every mart in ``sql/marts``,
the other issues' too), plus a single-player query. ``BIG2_BENCH_SQL_GAMES`` sets N
(comma-separated for several; default 100000).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from bench import Figure, benchmark
from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.sim.sample import sample_match
from pipeline.warehouse import SCHEMAS, Table, Warehouse

BASE_GAMES = 480
TABLES = ("games", "seats", "actions", "tricks", "rejects")
#: Columns that carry an id made unique per copy.
ID_COLUMNS = {"game_id", "match_id", "player_id"}


def base_logs(n_games: int = BASE_GAMES) -> list[dict[str, Any]]:
    """``n_games`` sample games in 6-game matches over the presets (every 4th match bankroll).

    >>> games = base_logs(12)
    >>> len(games), games[0]["match_id"] == games[5]["match_id"]
    (12, True)
    """
    presets = ("hk", "hk-classic", "mainland", "taiwan")
    games: list[dict[str, Any]] = []
    m = 0
    while len(games) < n_games:
        preset = presets[m % len(presets)]
        bankroll = m % 4 == 3
        match = sample_match(
            seed=9000 + m,
            match_id=f"bm{m}",
            n_games=6,
            preset=preset,
            overrides={"bankroll": True} if bankroll else {},
        )
        for game in match:
            for seat in game["seats"]:
                seat["player_id"] = f"bp{(m * 4 + seat['seat']) % 200}"
                if bankroll:
                    seat["balance"] = 60.0
        games.extend(match)
        m += 1
    return games[:n_games]


def replicated_db(path: Path, n_games: int, base: Warehouse) -> duckdb.DuckDBPyConnection:
    """A DuckDB file with the warehouse tables of ``base`` replicated to ``n_games`` games."""
    con = duckdb.connect(str(path))
    n_base = len(base.known_index())
    copies = max(1, -(-n_games // n_base))
    for table in TABLES:
        files = [p.as_posix() for p in base.files(table)]
        if not files:
            con.register("_empty", pa.Table.from_pylist([], schema=SCHEMAS[Table(table)]))
            con.execute(f"create or replace table {table} as select * from _empty")
            con.unregister("_empty")
            continue
        listed = ", ".join(f"'{f}'" for f in files)
        cols = [
            r[0] for r in con.execute(f"describe select * from read_parquet([{listed}])").fetchall()
        ]
        select = ", ".join(f"{c} || '#' || k as {c}" if c in ID_COLUMNS else c for c in cols)
        con.execute(
            f"create or replace table {table} as select {select} "
            f"from read_parquet([{listed}]), range({copies}) as r(k)"
        )
    return con


def time_build(n_games: int, base: Warehouse, tmp: Path) -> list[Figure]:
    con = replicated_db(tmp / f"bench-{n_games}.duckdb", n_games, base)
    try:
        con.execute("set threads = 2")
        summary = sqlbuild.build_sql(con)
        label = f"{n_games:,} games"
        figures: list[Figure] = [(f"{label}: full build", summary.seconds, "s")]
        for name, seconds in summary.timings.items():
            if name in summary.rows:  # every mart (scoring, audit, stats, …)
                figures.append((f"{label}: {name}", seconds, "s"))
        player = con.execute("select player_id from seats limit 1").fetchone()[0]  # type: ignore[index]
        start = time.perf_counter()
        con.execute(
            "select * from mart_game_scores where player_id = ? order by game_id", [player]
        ).fetchall()
        con.execute("select * from mart_player_standings where player_id = ?", [player]).fetchall()
        figures.append(
            (f"{label}: one player's games + standing", time.perf_counter() - start, "s")
        )
        return figures
    finally:
        con.close()


@benchmark("sql.build")
def sql_build() -> list[Figure]:
    """Full build and each scoring mart, per N (``BIG2_BENCH_SQL_GAMES``)."""
    sizes = [int(n) for n in os.environ.get("BIG2_BENCH_SQL_GAMES", "100000").split(",")]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        log = tmp / "base.jsonl"
        log.write_text("".join(json.dumps(g) + "\n" for g in base_logs()), encoding="utf-8")
        base = Warehouse(tmp / "wh")
        ingest([str(log)], base, workers=1)
        figures: list[Figure] = []
        for n in sizes:
            figures.extend(time_build(n, base, tmp))
        return figures


def _build_sizes() -> list[int]:
    """The warehouse sizes the build benchmarks run at: ``BIG2_BENCH_BUILD_GAMES``,
    comma-separated (default 100000)."""
    return [int(n) for n in os.environ.get("BIG2_BENCH_BUILD_GAMES", "100000").split(",")]


def _big2(*commands: list[str]) -> None:
    """Run each ``big2`` command in turn, a child process each; the first that fails raises."""
    from bench.reliability import BIG2

    for cmd in commands:
        subprocess.run([*BIG2, *cmd], capture_output=True, check=True)


#: ``sql.build_memory``'s limits: DuckDB's default (80 % of the machine's memory), then lower.
BUILD_LIMITS = ("", "2GB", "1GB", "512MB", "256MB")


@benchmark("sql.build_memory")
def sql_build_memory() -> list[Figure]:
    """``big2 build`` on a real warehouse of N simulated games (``BIG2_BENCH_BUILD_GAMES``,
    comma-separated; default 100000) under each memory limit of :data:`BUILD_LIMITS`: its
    seconds and peak RSS, each build a fresh child process. Past the limit DuckDB spills to
    disk beside the new file, so a lower limit costs time, not the build."""
    from bench.reliability import BIG2, peak_and_seconds

    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for n in _build_sizes():
            log, wh = tmp / f"g{n}.jsonl", tmp / f"wh{n}"
            _big2(
                ["simulate", "-n", str(n), "--seed", "5", "--out", str(log)],
                ["ingest", str(log), "-w", str(wh), "--no-build"],
            )
            log.unlink()
            for limit in BUILD_LIMITS:  # each a full build (the next would add nothing)
                args = ["--full", "--memory-limit", limit] if limit else ["--full"]
                peak, seconds, code = peak_and_seconds([*BIG2, "build", "-w", str(wh), *args])
                label = f"{n:,} games, memory limit {limit or 'default (80 % of RAM)'}"
                if code != 0:
                    figures.append((f"{label}: exit code (the build failed)", code, ""))
                    continue
                figures.append((f"{label}: build", seconds, "s"))
                figures.append((f"{label}: peak RSS", peak, "MiB"))
            shutil.rmtree(wh)
    return figures


@benchmark("sql.build_incremental")
def sql_build_incremental() -> list[Figure]:
    """``big2 build`` after importing 1 % more games into a built warehouse of N simulated games
    (``BIG2_BENCH_BUILD_GAMES``, comma-separated; default 100000): incremental (the per-game
    marts add the new games, the rest rebuilt) against ``--full``, alternated from the same
    built file, ``BIG2_BENCH_INCREMENTAL_ROUNDS`` rounds (default 3): medians, their ratio and
    peak RSS, each build a fresh child process."""
    import statistics

    from bench.reliability import BIG2, peak_and_seconds

    rounds = int(os.environ.get("BIG2_BENCH_INCREMENTAL_ROUNDS", "3"))
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for n in _build_sizes():
            log, more, wh = tmp / f"g{n}.jsonl", tmp / f"more{n}.jsonl", tmp / f"wh{n}"
            added = max(n // 100, 1)
            _big2(
                ["simulate", "-n", str(n), "--seed", "5", "--out", str(log)],
                ["ingest", str(log), "-w", str(wh)],  # and the build
                ["simulate", "-n", str(added), "--seed", "6", "--id-prefix", "more",
                 "--out", str(more)],
                ["ingest", str(more), "-w", str(wh), "--no-build"],
            )  # fmt: skip
            built = tmp / "built.duckdb"
            shutil.copyfile(wh / "warehouse.duckdb", built)
            seconds: dict[str, list[float]] = {"incremental": [], "full": []}
            peaks: dict[str, list[float]] = {"incremental": [], "full": []}
            for _ in range(rounds):
                for kind, args in (("incremental", []), ("full", ["--full"])):
                    shutil.copyfile(built, wh / "warehouse.duckdb")
                    peak, secs, code = peak_and_seconds([*BIG2, "build", "-w", str(wh), *args])
                    if code != 0:
                        raise RuntimeError(f"big2 build {' '.join(args)} exited {code}")
                    seconds[kind].append(secs)
                    peaks[kind].append(peak)
            label = f"{n:,} games + {added:,} new"
            inc, full = (statistics.median(seconds[k]) for k in ("incremental", "full"))
            figures += [
                (f"{label}: incremental build (median of {rounds})", inc, "s"),
                (f"{label}: --full build (median of {rounds})", full, "s"),
                (f"{label}: incremental ÷ full", inc / full, "×"),
                (f"{label}: incremental peak RSS (max)", max(peaks["incremental"]), "MiB"),
                (f"{label}: --full peak RSS (max)", max(peaks["full"]), "MiB"),
            ]
            shutil.rmtree(wh)
    return figures
