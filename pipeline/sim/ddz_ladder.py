"""The Dou Dizhu strength ladder, measured: bot against bot, seats and roles rotated.

A pairing of bots ``a`` and ``b`` plays ``games`` games (void deals redealt, as the rules say).
With 3 players, game ``i`` seats ``a, b, b`` when ``i // 3`` is even and ``b, a, a`` otherwise,
rotated by ``i % 3``: each bot sits every seat, alone and in pairs, equally often, and the
auction decides who is landlord. With 2 players the seats alternate. Per game the sample is
the mean score of ``a``'s seats minus the mean score of ``b``'s (the engine's zero-sum score:
base × multiplier, doubled for the landlord); the 95 % confidence interval is ±1.96 standard
errors. A seat's *win* is its side winning the game.

``python -m pipeline.sim.ddz_ladder --games 400 --seed 1`` prints the table recorded in
docs/bots.md.

>>> lineup("random", "heuristic", 3, 3)
['heuristic', 'random', 'random']
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import Any

import orjson

from pipeline import native
from pipeline.doudizhu.rules import load_ruleset
from pipeline.logs.writer import seats_of
from pipeline.sim.ddz_play import GENERATOR, play_game

#: The pairings of the ladder, weaker bot first.
PAIRINGS = (("random", "greedy"), ("greedy", "heuristic"), ("random", "heuristic"))


def lineup(a: str, b: str, players: int, index: int) -> list[str]:
    """The bots per seat of game ``index`` of the pairing ``a`` against ``b``."""
    if players == 2:
        return [a, b] if index % 2 == 0 else [b, a]
    base = [a, b, b] if (index // 3) % 2 == 0 else [b, a, a]
    shift = index % 3
    return [base[(s - shift) % 3] for s in range(3)]


@dataclass(frozen=True)
class Pairing:
    """A measured pairing: ``b``'s edge over ``a`` in score per seat-game, with its 95 % CI."""

    preset: str
    a: str
    b: str
    games: int
    edge: float  # mean over games of (b's mean seat score − a's)
    ci95: float
    win_rate_a: float  # wins per seat-game
    win_rate_b: float
    landlord_rate_b: float  # games where b's seat was the landlord, per game

    @property
    def low(self) -> float:
        return self.edge - self.ci95

    @property
    def high(self) -> float:
        return self.edge + self.ci95


def results(
    preset: str, a: str, b: str, *, games: int, seed: int
) -> Iterator[tuple[list[str], dict[str, Any]]]:
    """Each game's bots per seat and the result of its deal played out: on the core when it
    takes the run (each game a match of one, so the game's generator is ``ddz:{seed}:{i}`` as
    in :func:`play_game`), else played by the Python simulator; the same results either way."""
    rs = load_ruleset(preset)
    sim = native.ddz_simulator(
        preset=preset,
        overrides={},
        seed=seed,
        games=games,
        match_games=1,
        feeder=None,
        feed_rate=0.0,
        id_prefix="ladder",
        generator=GENERATOR,
    )
    seats = seats_of([f"ladder-{s}" for s in range(rs.players)])
    for i in range(games):
        bots = lineup(a, b, rs.players, i)
        lines = None if sim is None else sim.match_lines(i, bots, seats)
        if lines is None:
            yield bots, play_game(rs, bots, seed=seed, index=i)[-1]["result"]
        else:
            yield bots, orjson.loads(lines[-1])["result"]


def measure(preset: str, a: str, b: str, *, games: int, seed: int) -> Pairing:
    """Play the pairing and measure ``b``'s edge over ``a``."""
    diffs: list[float] = []
    seat_games = {a: 0, b: 0}
    wins = {a: 0, b: 0}
    landlord_b = 0
    for bots, result in results(preset, a, b, games=games, seed=seed):
        scores = result["scores"]
        landlord = result["landlord"]
        mean = {
            x: fmean(s for s, bot in zip(scores, bots, strict=True) if bot == x) for x in (a, b)
        }
        diffs.append(mean[b] - mean[a])
        landlord_b += bots[landlord] == b
        for seat, bot in enumerate(bots):
            seat_games[bot] += 1
            wins[bot] += (seat == landlord) == result["landlord_won"]
    half = 1.96 * stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    return Pairing(
        preset,
        a,
        b,
        games,
        fmean(diffs),
        half,
        wins[a] / seat_games[a],
        wins[b] / seat_games[b],
        landlord_b / games,
    )


def markdown(rows: Sequence[Pairing]) -> str:
    """The ladder as a markdown table."""
    lines = [
        "| preset | pairing (a vs b) | games | b's edge per seat-game | 95 % CI | wins a / b | b landlord |",
        "|---|---|---:|---:|---|---|---:|",
    ]
    for p in rows:
        lines.append(
            f"| {p.preset} | {p.a} vs {p.b} | {p.games:,} | {p.edge:+.2f} | "
            f"[{p.low:+.2f}, {p.high:+.2f}] | {p.win_rate_a:.3f} / {p.win_rate_b:.3f} | "
            f"{p.landlord_rate_b:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pipeline.sim.ddz_ladder``: measure and print the ladder."""
    parser = argparse.ArgumentParser(prog="python -m pipeline.sim.ddz_ladder")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default="ddz,ddz-2p")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = [
        measure(preset, a, b, games=args.games, seed=args.seed)
        for preset in args.presets.split(",")
        for a, b in PAIRINGS
    ]
    print(markdown(rows))
    print(
        f"\n{args.games:,} games per pairing, seed {args.seed}, in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
