"""The strength ladder, measured: average place score per game by bot, seats rotated.

A game's score for a seat is place settlement with the ``hk_8_10_13`` tiers: a loser's
penalty is cards left × tier multiplier, and a seat scores the sum over the other seats of
(their penalty − its penalty). Matches seat the lineup rotated by the match number, so every
bot sits every seat equally often. Each game gives one sample per bot (the mean over the
seats it holds in that game); the 95 % confidence interval is ±1.96 standard errors.

``python -m pipeline.sim.ladder --games 10000 --seed 1 --workers 2`` prints the table
recorded in docs/bots.md.

>>> place_scores([0, 1, 8, 12], TIERS)
[53, 49, -11, -91]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import Any

import orjson

from pipeline.big2.rules import TIER_TABLES
from pipeline.sim.simulate import SimConfig, run_blocks

TIERS = TIER_TABLES["hk_8_10_13"]
DEFAULT_LINEUP = ("heuristic", "greedy", "random", "greedy")


def penalty(cards_left: int, tiers: Sequence[tuple[int, int]] = TIERS) -> int:
    """Cards left × the multiplier of the highest tier reached.

    >>> [penalty(n) for n in (0, 7, 8, 10, 13)]
    [0, 7, 16, 30, 52]
    """
    mult = 1
    for minimum, m in tiers:
        if cards_left >= minimum:
            mult = m
    return cards_left * mult


def place_scores(cards_left: Sequence[int], tiers: Sequence[tuple[int, int]] = TIERS) -> list[int]:
    """Place settlement: each seat receives Σ over the others of (their penalty − its own)."""
    p = [penalty(n, tiers) for n in cards_left]
    total = sum(p)
    return [total - len(p) * mine for mine in p]


@dataclass(frozen=True)
class BotScore:
    """One bot's average score per game with its 95 % confidence half-width."""

    bot: str
    games: int
    mean: float
    ci95: float
    win_rate: float


def game_scores(game: dict[str, Any]) -> tuple[dict[str, float], str] | None:
    """A game's mean score per bot over its seats, and the winner's bot; None for a redeal
    (nothing to settle)."""
    winner = game["result"]["winner"]
    if winner is None:
        return None
    bots: list[str] = game["truth"]["bots"]
    scores = place_scores(game["result"]["cards_left"])
    by_bot: dict[str, list[int]] = {}
    for bot, score in zip(bots, scores, strict=True):
        by_bot.setdefault(bot, []).append(score)
    return {b: fmean(v) for b, v in by_bot.items()}, bots[winner]


def measure(cfg: SimConfig, *, workers: int = 1) -> list[BotScore]:
    """Play the run (seats rotated) and score every bot, best first: the games are the run's
    log lines (on the core when it takes the run, in worker threads; else the Python
    simulator's, in worker processes), read back."""
    samples: dict[str, list[float]] = {}
    wins: dict[str, int] = {}
    seats: dict[str, int] = {b: cfg.bots.count(b) for b in cfg.bots}
    n_games = 0
    for block in run_blocks(cfg, workers):
        for line in block.data.splitlines():
            scored = game_scores(orjson.loads(line))
            if scored is None:
                continue
            scores, winner = scored
            n_games += 1
            for bot, score in scores.items():
                samples.setdefault(bot, []).append(score)
            wins[winner] = wins.get(winner, 0) + 1
    out = []
    for bot, values in samples.items():
        half = 1.96 * stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
        rate = wins.get(bot, 0) / (n_games * seats[bot]) if n_games else 0.0
        out.append(BotScore(bot, len(values), fmean(values), half, rate))
    return sorted(out, key=lambda s: -s.mean)


def markdown(scores: Sequence[BotScore]) -> str:
    """The ladder as a markdown table."""
    lines = [
        "| bot | games | average score per game | 95 % CI | wins per seat-game |",
        "|---|---:|---:|---|---:|",
    ]
    for s in scores:
        lines.append(
            f"| {s.bot} | {s.games:,} | {s.mean:+.2f} | [{s.mean - s.ci95:+.2f}, {s.mean + s.ci95:+.2f}] "
            f"| {s.win_rate:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pipeline.sim.ladder``: measure and print the ladder."""
    parser = argparse.ArgumentParser(prog="python -m pipeline.sim.ladder")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bots", default=",".join(DEFAULT_LINEUP))
    parser.add_argument("--match-games", type=int, default=8)
    args = parser.parse_args(argv)
    cfg = SimConfig(
        games=args.games,
        seed=args.seed,
        bots=tuple(args.bots.split(",")),
        match_games=args.match_games,
        rotate_seats=True,
    )
    started = time.perf_counter()
    scores = measure(cfg, workers=args.workers)
    seconds = time.perf_counter() - started
    print(markdown(scores))
    print(
        f"\n{args.games:,} games (hk, seats rotated, lineup {args.bots}, seed {args.seed}) "
        f"in {seconds:.0f} s with {args.workers} worker(s)"
    )
    return 0


if __name__ == "__main__":
    # run through the module's own name: a worker process pickles its task by that name (a
    # worker does not run this process's main)
    from pipeline.sim import ladder

    sys.exit(ladder.main())
