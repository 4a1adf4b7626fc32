"""Benchmarks of the rules engine (issue 3): plays classified and games replayed per second.

Inputs are complete 4-player games of uniformly random legal play under each preset, made
once from a fixed seed; the timed part replays their already-parsed actions through a fresh
:class:`pipeline.big2.state.Game` (verify + apply + one record per action), or classifies
every play they contain. One core (this process).
"""

from __future__ import annotations

import random
from functools import partial

from bench import Figure, benchmark, per_second
from pipeline.big2 import moves
from pipeline.big2.combos import classify
from pipeline.big2.playout import deal, random_playout
from pipeline.big2.rules import Ruleset, load_ruleset, preset_names
from pipeline.big2.state import Action, Game

N_GAMES = 300

Recorded = tuple[list[int], list[int], list[Action]]


def recorded_games(rs: Ruleset, n_games: int = N_GAMES, *, seed: int = 3) -> list[Recorded]:
    """``n_games`` finished random games: (hands, stock, actions), the same on every run.

    >>> games = recorded_games(load_ruleset("hk"), 2)
    >>> len(games), all(len(actions) > 13 for _, _, actions in games)
    (2, True)
    """
    rng = random.Random(seed)
    out: list[Recorded] = []
    for _ in range(n_games):
        hands, stock = deal(rs, rng)
        _, actions = random_playout(rs, rng, hands=hands, stock=stock)
        out.append((hands, stock, actions))
    return out


def _replay_all(rs: Ruleset, games: list[Recorded]) -> None:
    moves.clear_cache()  # every repeat starts cold: no hand's plays are remembered
    for hands, stock, actions in games:
        game = Game(rs, hands=hands, stock=stock)
        for action in actions:
            game.do(action)


def _classify_all(rs: Ruleset, masks: list[int]) -> None:
    for mask in masks:
        classify(mask, rs)


@benchmark("engine.replay")
def replay_rate() -> list[Figure]:
    """Complete 4-player games replayed and validated per second, per preset."""
    figures: list[Figure] = []
    for name in preset_names():
        rs = load_ruleset(name)
        games = recorded_games(rs)
        n_actions = sum(len(a) for _, _, a in games)
        rate = per_second(partial(_replay_all, rs, games), len(games))
        figures.append((f"games replayed per second ({name})", rate, "games/s"))
        figures.append(
            (f"actions replayed per second ({name})", rate * n_actions / len(games), "actions/s")
        )
    return figures


@benchmark("engine.classify")
def classify_rate() -> list[Figure]:
    """Plays classified per second: every play of the recorded hk games."""
    rs = load_ruleset("hk")
    masks = [a.cards for _, _, actions in recorded_games(rs) for a in actions if a.cards]
    rate = per_second(partial(_classify_all, rs, masks), len(masks))
    return [("plays classified per second (hk)", rate, "plays/s")]
