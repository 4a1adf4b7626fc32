"""Simulation on the native core: the same log lines as the Python simulator, byte for byte
(issue 15's differential test for simulation), and the Python fallback for what the core
does not play.

Random seeds, every preset and rare option (the replay differential test's list), random
lineups of the three bots, planted discipline and colluders, match lengths and notations: the
core's match lines equal :func:`pipeline.sim.simulate.match_lines_python`'s. The file written
by ``big2 simulate`` is the same on the core and in pure Python, with one worker or two.
Skipped (but the fallback tests) when the extension is not built.
"""

from __future__ import annotations

import array
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.big2.logwriter import Notation
from pipeline.big2.rules import load_ruleset
from pipeline.sim.simulate import SimConfig, match_lines, match_lines_native, match_lines_python
from pipeline.sim.tally import python_results
from tests.native import MODULE
from tests.native.test_differential import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
built = pytest.mark.skipif(MODULE is None, reason="the native core is not built (make native)")
BOTS = ("random", "greedy", "heuristic")


@st.composite
def configs(draw: st.DrawFn) -> SimConfig:
    preset, overrides = OPTIONS[draw(st.integers(0, len(OPTIONS) - 1))]
    n = load_ruleset(preset, overrides).players
    colluders = draw(st.sampled_from([None, (0, 1), (1, 0), (n - 1, 0)]))
    return SimConfig(
        games=draw(st.integers(1, 10)),
        seed=draw(st.integers(-(10**12), 10**12)),
        bots=tuple(draw(st.lists(st.sampled_from(BOTS), min_size=n, max_size=n))),
        preset=preset,
        overrides=overrides,
        must_block_discipline=draw(st.sampled_from([1.0, 0.0, 0.5, 0.85])),
        colluders=None if colluders is None or colluders[0] == colluders[1] else colluders,
        match_games=draw(st.integers(1, 8)),
        rotate_seats=draw(st.booleans()),
        notation=draw(st.sampled_from(list(Notation))),
        id_prefix=draw(st.sampled_from(["sim", "ladder", 'é"x'])),
    )


@built
@settings(max_examples=150, deadline=None)
@given(cfg=configs())
def test_native_lines_are_the_python_lines(cfg: SimConfig) -> None:
    for match in range(cfg.n_matches):
        mine = match_lines_native(cfg, match, MODULE)
        assert mine is not None, cfg
        assert mine == match_lines_python(cfg, match)


@built
@settings(max_examples=60, deadline=None)
@given(cfg=configs())
def test_the_cores_reading_of_the_results_is_pythons(cfg: SimConfig) -> None:
    """``big2 simulate``'s table reads each line's result on the core, the GIL let go: the
    same numbers as the Python reading (:func:`pipeline.sim.tally.python_results`)."""
    lines = [line for k in range(cfg.n_matches) for line in match_lines(cfg, k)]
    assert_the_same_reading(lines, len(cfg.bots), dou_dizhu=False)


def assert_the_same_reading(lines: list[str], players: int, *, dou_dizhu: bool) -> None:
    """The core's reading of simulated ``lines``' results (``sim_results``) is Python's, a
    line's numbers each (Dou Dizhu's two more: played out, landlord won)."""
    data = "".join(line + "\n" for line in lines).encode()
    words = native.sim_results(data, players, dou_dizhu)
    assert words is not None, lines[:1]
    got = list(array.array("d", words))
    assert got == python_results(data, dou_dizhu=dou_dizhu)
    assert len(got) == len(lines) * (players + (3 if dou_dizhu else 1))


@built
def test_the_core_plays_every_preset_and_option() -> None:
    for preset, overrides in OPTIONS:
        n = load_ruleset(preset, overrides).players
        cfg = SimConfig(
            games=2, seed=5, bots=("heuristic",) * n, preset=preset, overrides=overrides
        )
        assert match_lines_native(cfg, 0, MODULE) is not None, (preset, overrides)


def test_a_seed_beyond_64_bits_falls_back_to_python() -> None:
    cfg = SimConfig(games=3, seed=2**70, bots=("random", "greedy", "heuristic", "random"))
    assert match_lines_native(cfg, 0, MODULE) is None
    assert match_lines(cfg, 0) == match_lines_python(cfg, 0)
    assert f'"seed": {2**70},' in match_lines(cfg, 0)[0]


def simulate_file(out: Path, args: list[str], workers: int, **env: str) -> bytes:
    """``big2 simulate ARGS --workers W --out OUT`` in a fresh process (``env`` on top of this
    one's): the file's bytes."""
    cli = [sys.executable, "-m", "pipeline.cli", "simulate", *args]
    cli += ["--workers", str(workers), "--out", str(out)]
    subprocess.run(cli, env={**os.environ, **env}, cwd=ROOT, check=True, capture_output=True)
    return out.read_bytes()


def _simulate(out: Path, workers: int, **env: str) -> bytes:
    bots = [
        arg for bot in ("heuristic", "random", "greedy", "heuristic") for arg in ("--bots", bot)
    ]
    args = ["--games", "40", "--seed", "9", *bots, "--must-block-discipline", "0.7"]
    args += ["--colluders", "1,2", "--match-games", "3"]
    return simulate_file(out, args, workers, **env)


@built
def test_big2_simulate_writes_the_same_file_native_or_python(tmp_path: Path) -> None:
    core_one = _simulate(tmp_path / "a.jsonl", 1, BIG2_PURE_PYTHON="")
    core_two = _simulate(tmp_path / "b.jsonl", 2, BIG2_PURE_PYTHON="")
    python = _simulate(tmp_path / "c.jsonl", 2, BIG2_PURE_PYTHON="1")
    assert core_one == core_two == python
    assert core_one.count(b"\n") == 40


def _ladder(workers: int, **env: str) -> str:
    """``python -m pipeline.sim.ladder`` as docs/bots.md runs it: its table (not the timing)."""
    cli = [sys.executable, "-m", "pipeline.sim.ladder", "--games", "48", "--seed", "3"]
    cli += ["--workers", str(workers), "--match-games", "4"]
    done = subprocess.run(
        cli, env={**os.environ, **env}, cwd=ROOT, check=True, capture_output=True, text=True
    )
    return done.stdout.split("\n\n")[0]


@built
def test_the_ladder_runs_as_documented_and_the_same_on_the_core_or_in_python() -> None:
    """The ladder reads the run's log lines: the core's (worker threads) or the Python
    simulator's (worker processes, which pickle the task by the module's own name: run as
    ``__main__`` it failed with two workers), the same table either way."""
    core = _ladder(2, BIG2_PURE_PYTHON="")
    assert core == _ladder(2, BIG2_PURE_PYTHON="1") == _ladder(1, BIG2_PURE_PYTHON="")
    assert core.count("| 48 |") == 3  # heuristic, greedy, random: a sample per game each
