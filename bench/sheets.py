"""Score sheets at scale: ``ingest.sheets`` imports ``BIG2_BENCH_SHEET_GAMES`` games (default
100,000) recorded by their result only, as big-two-scorer text and as a CSV score sheet (the
same games), with one worker and with two, alternating (``BIG2_BENCH_AIMS_ROUNDS`` rounds,
medians), each a fresh process into a new warehouse (:func:`bench.aims.import_rate`).

Score sheets are read and replayed in Python whether the native core is built or not (a
sheet's game has no actions: its replay checks the losses against the rules); with two
workers their chunks go to threads on the core (the GIL held: one at a time), else to worker
processes.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench import Figure, benchmark

#: Games a session (one names line) holds, and the players the tables are drawn from.
SESSION_GAMES = 1_000
PLAYERS = 12


def _games(n: int, seed: int) -> Iterator[tuple[str, tuple[str, ...], list[int], int | None]]:
    """``n`` games: (date, the table's four names, cards left, the seat that takes on all
    losses or None), a new table every :data:`SESSION_GAMES` games.

    >>> [(d, len(names), sum(c == 0 for c in left)) for d, names, left, _ in _games(2, 1)]
    [('2026-01-01', 4, 1), ('2026-01-01', 4, 1)]
    """
    rng = random.Random(seed)
    names: tuple[str, ...] = ()
    for i in range(n):
        session = i // SESSION_GAMES
        if i % SESSION_GAMES == 0:
            names = tuple(f"p{k}" for k in rng.sample(range(PLAYERS), 4))
        winner = rng.randrange(4)
        left = [0 if s == winner else rng.randint(1, 13) for s in range(4)]
        # every 50th game one loser takes on all losses (the scorer's t)
        bao = next(s for s in range(4) if s != winner) if i % 50 == 49 else None
        yield f"2026-{session // 28 % 12 + 1:02d}-{session % 28 + 1:02d}", names, left, bao


def write_scorer(path: Path, n: int, seed: int = 1) -> None:
    """``n`` games as big-two-scorer text: a date and a names line a session, a line of
    losses a game.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = Path(tmp) / "s.txt"
    ...     write_scorer(p, 2)
    ...     p.read_text().splitlines()[:2]
    ['2026-01-01', 'p2 p9 p1 p4']
    """
    with path.open("w", encoding="utf-8") as out:
        for i, (date, names, left, bao) in enumerate(_games(n, seed)):
            if i % SESSION_GAMES == 0:
                out.write(f"{date}\n{' '.join(names)}\n")
            out.write(" ".join(f"{c}t" if s == bao else str(c) for s, c in enumerate(left)) + "\n")


def write_csv_sheet(path: Path, n: int, seed: int = 1) -> None:
    """The games of :func:`write_scorer` as a CSV score sheet, a row a game.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = Path(tmp) / "s.csv"
    ...     write_csv_sheet(p, 2)
    ...     p.read_text().splitlines()[0]
    'date,match,players,cards_left,bao_seat'
    """
    with path.open("w", encoding="utf-8") as out:
        out.write("date,match,players,cards_left,bao_seat\n")
        for i, (date, names, left, bao) in enumerate(_games(n, seed)):
            match = f"s{i // SESSION_GAMES}"
            seat = "" if bao is None else str(bao)
            out.write(f"{date},{match},{' '.join(names)},{' '.join(map(str, left))},{seat}\n")


@benchmark("ingest.sheets")
def sheets() -> list[Figure]:
    """Score-sheet imports, text and CSV, one worker and two, side by side."""
    from bench.aims import import_rate

    n = int(os.environ.get("BIG2_BENCH_SHEET_GAMES", "100000"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    rate: dict[tuple[str, int], list[float]] = {}
    per_cpu: dict[str, list[float]] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        files = {"scorer text": Path(tmp) / "day.txt", "CSV sheet": Path(tmp) / "day.csv"}
        write_scorer(files["scorer text"], n)
        write_csv_sheet(files["CSV sheet"], n)
        os.sync()
        for k in range(rounds):
            for shape, path in files.items():
                for workers in (1, 2):
                    wh = Path(tmp) / f"wh-{k}"
                    wall, cpu = import_rate(path, wh, n, workers)
                    rate.setdefault((shape, workers), []).append(wall)
                    if workers == 1:
                        per_cpu.setdefault(shape, []).append(cpu)
                    shutil.rmtree(wh)
    figures: list[Figure] = [(f"input: {n:,} games of {SESSION_GAMES:,} a session", n, "games")]
    for shape in files:
        for workers in (1, 2):
            s = "s" if workers > 1 else ""
            got = statistics.median(rate[shape, workers])
            figures.append((f"ingest --no-build, {shape}, {workers} worker{s}", got, "games/s"))
        cpu = statistics.median(per_cpu[shape])
        figures.append((f"ingest --no-build, {shape}, 1 worker, per CPU-second", cpu, "games"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures
