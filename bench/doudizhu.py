"""Benchmark of the Dou Dizhu engine (issue 14): random 3-player games replayed and validated
per action, next to the Big Two engine's figure measured in the same run.

Inputs are complete games of uniformly random legal play (the auction included), made once
from a fixed seed; the timed part replays their actions through a fresh
:class:`pipeline.doudizhu.state.Game` (verify + apply + one record per action). The Big Two
figure replays random ``hk`` games the same way (:mod:`bench.engine`). One core (this process).
"""

from __future__ import annotations

import random
import time
from functools import partial

from bench import Figure, benchmark, per_second
from bench.engine import _replay_all as big2_replay_all
from bench.engine import recorded_games as big2_games
from pipeline.big2.rules import load_ruleset as load_big2
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset
from pipeline.doudizhu.state import Action, Game, random_game
from pipeline.sim.ddz_play import simulate as ddz_simulate

N_GAMES = 200

Recorded = tuple[tuple[list[int], int, int], int, list[Action]]


def recorded_games(rs: DdzRuleset, n_games: int = N_GAMES, *, seed: int = 5) -> list[Recorded]:
    """``n_games`` finished random Dou Dizhu games (void deals included), the same every run.

    >>> games = recorded_games(load_ruleset("ddz"), 3)
    >>> len(games), all(len(actions) >= 3 for _, _, actions in games)
    (3, True)
    """
    rng = random.Random(seed)
    return [random_game(rs, rng) for _ in range(n_games)]


def _replay_all(rs: DdzRuleset, games: list[Recorded]) -> None:
    for (hands, kitty, aside), first, actions in games:
        game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=first)
        for action in actions:
            game.do(action)


@benchmark("doudizhu.replay")
def replay_rate() -> list[Figure]:
    """Actions replayed and validated per second: Dou Dizhu (ddz, ddz-2p) beside Big Two (hk)."""
    figures: list[Figure] = []
    for name in ("ddz", "ddz-2p"):
        rs = load_ruleset(name)
        games = recorded_games(rs)
        n_actions = sum(len(a) for _, _, a in games)
        rate = per_second(partial(_replay_all, rs, games), n_actions)
        figures.append((f"Dou Dizhu actions replayed per second ({name})", rate, "actions/s"))
    hk = load_big2("hk")
    b2 = big2_games(hk, N_GAMES)
    n_b2 = sum(len(a) for _, _, a in b2)
    rate = per_second(partial(big2_replay_all, hk, b2), n_b2)
    figures.append(("Big Two actions replayed per second (hk, same run)", rate, "actions/s"))
    return figures


#: Dou Dizhu games per measurement of :func:`sim_rate` (void deals redealt inside a game).
SIM_GAMES = 150


@benchmark("doudizhu.sim")
def sim_rate() -> list[Figure]:
    """Simulated Dou Dizhu games per CPU second of one core (``pipeline.sim.ddz_play``, the
    records built, no log written), random and heuristic bots, both presets."""
    figures: list[Figure] = []
    for name, players in (("ddz", 3), ("ddz-2p", 2)):
        for bot in ("random", "heuristic"):
            cpu = time.process_time()
            n = sum(1 for _ in ddz_simulate(name, [bot] * players, games=SIM_GAMES, seed=9))
            rate = n / (time.process_time() - cpu)
            figures.append((f"Dou Dizhu {bot} games per CPU second ({name})", rate, "games/s"))
    return figures
