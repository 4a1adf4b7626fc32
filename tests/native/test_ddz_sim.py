"""Dou Dizhu simulation on the native core: the same log lines as the Python simulator, byte
for byte, and the Python fallback for what the core does not play.

The legal-play generator on random hands and tables, in Python's order. Random seeds, ``ddz``,
``ddz-2p`` and each ruleset option (the replay differential test's list and two players under
``ddz``), random lineups of the three bots, the planted feeder and its
rate, match lengths and id prefixes: the core's match lines equal
:func:`pipeline.sim.ddz_simulate.match_lines_python`'s. The file written by ``big2 simulate
--ruleset ddz`` is the same on the core (one worker or two) and in pure Python. Skipped (but
the fallback tests) when the extension is not built.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.doudizhu.moves import plays_from
from pipeline.doudizhu.rules import load_ruleset
from pipeline.sim import ddz_simulate
from pipeline.sim.ddz_play import GENERATOR
from pipeline.sim.ddz_simulate import (
    DdzSimConfig,
    match_lines,
    match_lines_native,
    match_lines_python,
    play_match,
    simulate_lines,
)
from tests.native import MODULE
from tests.native.test_ddz_differential import OPTIONS as REPLAY_OPTIONS
from tests.native.test_sim import assert_the_same_reading, simulate_file

built = pytest.mark.skipif(MODULE is None, reason="the native core is not built (make native)")
BOTS = ("random", "greedy", "heuristic")
#: Every option of the replay differential test, and two players under ``ddz``'s auction.
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    *REPLAY_OPTIONS,
    ("ddz", {"players": 2, "hand_size": 20}),
]


@st.composite
def configs(draw: st.DrawFn) -> DdzSimConfig:
    preset, overrides = OPTIONS[draw(st.integers(0, len(OPTIONS) - 1))]
    n = load_ruleset(preset, overrides).players
    feeder = draw(st.one_of(st.none(), st.integers(0, n - 1)))
    rate = draw(st.one_of(st.sampled_from([0.0, 1.0, 0.8]), st.floats(0.0, 1.0)))
    return DdzSimConfig(
        games=draw(st.integers(0, 8)),
        seed=draw(
            st.one_of(st.integers(-(10**12), 10**12), st.sampled_from([-(2**63), 2**63 - 1]))
        ),
        bots=tuple(draw(st.lists(st.sampled_from(BOTS), min_size=n, max_size=n))),
        preset=preset,
        overrides=overrides,
        feeder=feeder,
        feed_rate=0.0 if feeder is None else rate,
        match_games=draw(st.integers(1, 8)),
        id_prefix=draw(st.sampled_from(["sim", "ladder", 'é"x'])),
    )


@st.composite
def hands(draw: st.DrawFn) -> int:
    """A hand: 1-20 of any cards, or 0-4 cards of each rank (up to 54 cards: triples, bombs,
    chains and jokers are common then)."""
    if draw(st.booleans()):
        cards = draw(st.sets(st.integers(0, 53), min_size=1, max_size=20))
        return sum(1 << c for c in cards)
    mask = 0
    for rank in range(13):
        n = draw(st.sampled_from([0, 0, 1, 2, 3, 3, 4]))
        mask |= (1 << n) - 1 << 4 * rank
    mask |= draw(st.sampled_from([0, 1, 2, 3])) << 52
    return mask or 1


@built
@settings(max_examples=300, deadline=None)
@given(hand=hands(), other=hands(), pick=st.integers(0, 10**6), four_with_two=st.booleans())
def test_the_legal_plays_in_pythons_order(
    hand: int, other: int, pick: int, four_with_two: bool
) -> None:
    """The core's generator (``ddz_legal_plays``) against ``moves.plays_from``, on a lead and
    on a play of another hand: the same plays, in the same order (the bots pick by position)."""
    assert MODULE is not None
    rs = load_ruleset("ddz", {"four_with_two": four_with_two})
    leads = list(plays_from(other, rs))
    for top in (None, leads[pick % len(leads)]):
        want = [(p.kind.value, p.key, p.units, p.mask) for p in plays_from(hand, rs, on=top)]
        arg = None if top is None else (top.kind.value, top.key, top.units, top.mask)
        assert MODULE.ddz_legal_plays(hand, four_with_two, arg) == want


@built
@settings(max_examples=200, deadline=None)
@given(cfg=configs())
def test_native_lines_are_the_python_lines(cfg: DdzSimConfig) -> None:
    for match in range(cfg.n_matches):
        mine = match_lines_native(cfg, match, MODULE)
        assert mine is not None, cfg
        assert mine == match_lines_python(cfg, match)


@built
@settings(max_examples=60, deadline=None)
@given(cfg=configs())
def test_the_cores_reading_of_the_results_is_pythons(cfg: DdzSimConfig) -> None:
    """``big2 simulate``'s table reads each line's result on the core, the GIL let go: the
    same numbers as the Python reading (void deals too)."""
    lines = [line for k in range(cfg.n_matches) for line in match_lines(cfg, k)]
    assert_the_same_reading(lines, len(cfg.bots), dou_dizhu=True)


@built
@pytest.mark.parametrize("bot", BOTS)
def test_each_bot_feeds_and_voids_the_same(bot: str) -> None:
    """A longer run per bot and preset, with a feeder at rate 0.5: fed and unfed opportunities
    and void deals occur (so those paths are compared), and the lines are the same."""
    voids = 0
    for preset, n in (("ddz", 3), ("ddz-2p", 2)):
        cfg = DdzSimConfig(
            games=24, seed=3, bots=(bot,) * n, preset=preset, feeder=n % 2, feed_rate=0.5
        )
        lines = []
        for m in range(cfg.n_matches):
            mine = match_lines_native(cfg, m, MODULE)
            assert mine == match_lines_python(cfg, m), (preset, m)
            lines += mine
        truths = [json.loads(line)["truth"] for line in lines]
        fed = {o["fed"] for t in truths for o in t["feed_opportunities"]}
        assert fed == {True, False}, (preset, bot)
        voids += sum('"outcome": "redeal"' in line for line in lines)
    assert voids > 0


@built
def test_the_core_plays_every_option_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """``match_lines`` on the core, the Python simulator unreachable: every option is played
    by the core, not the fallback."""

    def unreachable(cfg: DdzSimConfig, match: int) -> list[dict[str, Any]]:
        raise AssertionError(f"the Python simulator played {cfg}")

    monkeypatch.setattr(native, "_MODULE", MODULE)
    expected = {}
    for option, (preset, overrides) in enumerate(OPTIONS):
        n = load_ruleset(preset, overrides).players
        cfg = DdzSimConfig(
            games=2, seed=option, bots=("heuristic",) * n, preset=preset, overrides=overrides
        )
        expected[option] = match_lines_python(cfg, 0)
    monkeypatch.setattr(ddz_simulate, "play_match", unreachable)
    for option, (preset, overrides) in enumerate(OPTIONS):
        n = load_ruleset(preset, overrides).players
        cfg = DdzSimConfig(
            games=2, seed=option, bots=("heuristic",) * n, preset=preset, overrides=overrides
        )
        assert match_lines(cfg, 0) == expected[option], (preset, overrides)


def test_simulate_lines_gives_the_python_objects() -> None:
    cfg = DdzSimConfig(
        games=5, seed=8, bots=("heuristic", "random"), preset="ddz-2p", feeder=1, feed_rate=0.9
    )
    got = list(simulate_lines(cfg))
    assert got == [play_match(cfg, m) for m in range(cfg.n_matches)]


def test_a_seed_beyond_64_bits_falls_back_to_python() -> None:
    cfg = DdzSimConfig(games=2, seed=2**70, bots=("random", "greedy", "heuristic"))
    assert match_lines_native(cfg, 0, MODULE) is None
    assert match_lines(cfg, 0) == match_lines_python(cfg, 0)
    assert f'"seed": {2**70},' in match_lines(cfg, 0)[0]


@built
def test_what_the_core_does_not_take_falls_back_to_python() -> None:
    # a float stake of 17 digits (the core reads at most 15 exactly): Python plays the run
    cfg = DdzSimConfig(games=2, seed=4, bots=("random",) * 3, overrides={"stake": 0.1 + 0.2})
    assert match_lines_native(cfg, 0, MODULE) is None
    assert match_lines(cfg, 0) == match_lines_python(cfg, 0)
    # a bot the core does not play: the match is Python's
    sim = native.ddz_simulator(
        preset="ddz",
        overrides={},
        seed=4,
        games=2,
        match_games=8,
        feeder=None,
        feed_rate=0.0,
        id_prefix="sim",
        generator=GENERATOR,
        module=MODULE,
    )
    assert sim is not None
    assert sim.match_lines(0, ["random", "oracle", "random"], []) is None
    assert sim.match_lines(0, ["random", "random"], []) is None


def _simulate(out: Path, workers: int, **env: str) -> bytes:
    bots = [arg for bot in ("heuristic", "random", "greedy") for arg in ("--bots", bot)]
    args = ["--ruleset", "ddz", "--games", "30", "--seed", "9", *bots]
    args += ["--feeder", "2", "--feed-rate", "0.6", "--match-games", "4"]
    return simulate_file(out, args, workers, **env)


@built
def test_big2_simulate_ddz_writes_the_same_file_native_or_python(tmp_path: Path) -> None:
    core_one = _simulate(tmp_path / "a.jsonl", 1, BIG2_PURE_PYTHON="")
    core_two = _simulate(tmp_path / "b.jsonl", 2, BIG2_PURE_PYTHON="")
    python = _simulate(tmp_path / "c.jsonl", 1, BIG2_PURE_PYTHON="1")
    assert core_one == core_two == python
    assert core_one.count(b"\n") >= 30
