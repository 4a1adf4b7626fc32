"""Scale runs of the simulator (``pytest -m slow``): thousands of games per preset replay
without a reject, and the strength ladder holds on a sample."""

from __future__ import annotations

import pytest

from pipeline.sim.ladder import measure
from pipeline.sim.simulate import SimConfig, simulate
from tests.test_sim import MIXED, OPTION_CASES, lineup, replay_all

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("preset", ["hk", "hk-classic", "mainland", "taiwan"])
def test_thousands_of_games_per_preset_replay(preset: str) -> None:
    cfg = SimConfig(games=3000, seed=101, preset=preset, bots=MIXED, must_block_discipline=0.8)
    assert len(replay_all(simulate(cfg, workers=2))) == 3000


@pytest.mark.parametrize(("preset", "overrides"), OPTION_CASES)
def test_hundreds_of_games_per_option_replay(preset: str, overrides: dict[str, object]) -> None:
    cfg = SimConfig(games=500, seed=102, preset=preset, overrides=overrides, bots=lineup(overrides))
    assert len(replay_all(simulate(cfg, workers=2))) == 500


def test_heuristic_beats_greedy_beats_random() -> None:
    cfg = SimConfig(
        games=2000, seed=7, bots=("heuristic", "greedy", "random", "greedy"), rotate_seats=True
    )
    scores = {s.bot: s for s in measure(cfg, workers=2)}
    h, g, r = scores["heuristic"], scores["greedy"], scores["random"]
    assert h.mean - h.ci95 > g.mean + g.ci95
    assert g.mean - g.ci95 > r.mean + r.ci95
