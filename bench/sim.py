"""Benchmark of `big2 simulate` (issue 5): games/s with random and heuristic bots, one core and two.

Each figure plays complete 4-player ``hk`` matches (8 games each) with four bots of one kind,
builds every log object and serialises it as a JSON line (what ``big2 simulate`` writes, minus
the disk): on the native core when it is built, else in Python. "one core" runs in this
process; "2 workers" cuts the same run into blocks of whole matches as ``big2 simulate`` does
(:func:`pipeline.sim.simulate.run_blocks`: worker threads on the core, processes in
Python, their start-up included). Where one core's time goes is in docs/bots.md (profile).
"""

from __future__ import annotations

import time

from bench import Figure, benchmark
from pipeline.sim.simulate import SimConfig, run_blocks

GAMES = {"random": 1600, "heuristic": 1600}


def games_per_second(bot: str, games: int, workers: int, seed: int) -> tuple[float, float]:
    """Games per second of one seeded run (``games`` games, four ``bot`` bots): per wall-clock
    second, and per CPU second of this process (meaningful with ``workers = 1``: it does not
    count time the machine gave to other programs). Each measurement takes its own seed: the
    engine caches recent hands' plays, and a forked worker inherits that cache."""
    cfg = SimConfig(games=games, seed=seed, bots=(bot,) * 4)
    wall, cpu = time.perf_counter(), time.process_time()
    n = sum(b.lines for b in run_blocks(cfg, workers))
    return n / (time.perf_counter() - wall), n / (time.process_time() - cpu)


@benchmark("sim.games")
def sim_rate() -> list[Figure]:
    """Simulated games per second, per bot, on one core and on two workers."""
    figures: list[Figure] = []
    for bot, games in GAMES.items():
        games_per_second(bot, 16, 1, seed=0)  # build the play tables
        wall, cpu = games_per_second(bot, games, 1, seed=1)
        figures.append((f"{bot} games simulated per second (one core)", wall, "games/s"))
        figures.append((f"{bot} games simulated per CPU second (one core)", cpu, "games/s"))
        wall, _ = games_per_second(bot, games, 2, seed=2)
        figures.append((f"{bot} games simulated per second (2 workers)", wall, "games/s"))
    return figures
