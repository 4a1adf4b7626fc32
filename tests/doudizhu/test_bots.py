"""Dou Dizhu bots and simulator: strict replay, determinism, the ladder, the planted feeder."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from pipeline.doudizhu.rules import load_ruleset
from pipeline.doudizhu.state import ActionType, Game, Outcome, Phase, deal
from pipeline.sim.bots import SimError
from pipeline.sim.ddz_bots import DdzTurn, hand_strength, legal_bids, make_ddz_bot
from pipeline.sim.ddz_ladder import lineup, measure, results
from pipeline.sim.ddz_play import play_game, replay, result_dict, simulate

PRESETS = {"ddz": 3, "ddz-2p": 2}
BOTS = ("random", "greedy", "heuristic")


def _lineups(n: int) -> list[list[str]]:
    rng = random.Random(0)
    return [[rng.choice(BOTS) for _ in range(n)] for _ in range(6)]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_simulated_game_replays_strict(preset: str) -> None:
    n = PRESETS[preset]
    for bots in _lineups(n):
        for index in range(8):
            deals = play_game(preset, bots, seed=11, index=index, feeder=1, feed_rate=0.5)
            assert [d["deal_number"] for d in deals] == list(range(1, len(deals) + 1))
            for d in deals:
                game = replay(d)  # every action verified by the engine, full deal known
                assert game.finished and game.result is not None
                assert result_dict(game.result) == d["result"]
                assert len(game.history) == len(d["actions"])
                assert sum(game.result.scores) == 0
            *void, last = deals
            assert all(v["result"]["outcome"] == "redeal" for v in void)
            assert last["result"]["outcome"] == "played_out"


def test_void_deals_are_redealt_and_kept() -> None:
    # random bots pass with probability 1/4 per bid: some game of 60 has a void deal
    found = None
    for index in range(60):
        deals = play_game("ddz", ["random"] * 3, seed=4, index=index)
        if len(deals) > 1:
            found = deals
            break
    assert found is not None
    void = found[0]
    assert void["result"]["scores"] == [0, 0, 0]
    assert [a["value"] for a in void["actions"]] == [0, 0, 0]
    assert replay(void).result is not None
    assert found[1]["hands"] != void["hands"]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_game_is_the_same_whatever_the_order_and_workers(preset: str) -> None:
    n = PRESETS[preset]
    bots = ["heuristic", "random", "greedy"][:n]
    forward = [play_game(preset, bots, seed=5, index=i) for i in range(10)]
    backward = [play_game(preset, bots, seed=5, index=i) for i in reversed(range(10))][::-1]
    assert forward == backward
    assert list(simulate(preset, bots, games=4, seed=5, first=6)) == forward[6:]
    assert list(simulate(preset, bots, games=10, seed=5, workers=2)) == forward
    other = [play_game(preset, bots, seed=6, index=i) for i in range(10)]
    assert other != forward


def test_bots_choose_only_among_the_engine_moves() -> None:
    rs = load_ruleset("ddz")
    hands, kitty, aside = deal(rs, random.Random(2))
    game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=0)
    game.do(legal_bids(game)[-1])  # bid 3: the auction ends
    assert game.phase == Phase.PLAY
    rng = random.Random(1)
    for name in BOTS:
        bot = make_ddz_bot(name)
        plays = list(game.legal_plays())
        action = bot.choose(DdzTurn(game, 0, plays, False), rng)
        assert action.type == ActionType.PLAY and action.cards in {p.mask for p in plays}
    with pytest.raises(SimError, match="E_SIM_BOT"):
        make_ddz_bot("clever")


def test_legal_bids_follow_the_engine() -> None:
    rs = load_ruleset("ddz")
    hands, kitty, aside = deal(rs, random.Random(3))
    game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=0)
    game.do(legal_bids(game)[2])  # bid 2
    assert [a.value for a in legal_bids(game)] == [0, 3]
    two = load_ruleset("ddz-2p")
    hands, kitty, aside = deal(two, random.Random(3))
    game = Game(two, hands=hands, kitty=kitty, set_aside=aside, first_bidder=1)
    assert [a.type for a in legal_bids(game)] == [ActionType.NO_CALL, ActionType.CALL]


def test_hand_strength_orders_hands() -> None:
    strong = [0] * 15
    for r, c in ((13, 1), (14, 1), (12, 3), (11, 2), (0, 4)):
        strong[r] = c
    weak = [0] * 15
    for r in (0, 2, 4, 6, 8):
        weak[r] = 1
    assert hand_strength(strong) > 7 > 0 > hand_strength(weak)


def test_the_heuristic_farmer_does_not_beat_its_partner() -> None:
    rs = load_ruleset("ddz")
    checked = 0
    for index in range(30):
        last = play_game(rs, ["heuristic"] * 3, seed=8, index=index)[-1]
        game = replay(last)
        landlord = game.landlord
        for rec in game.history:
            if (
                rec.phase == Phase.PLAY
                and not rec.is_lead
                and rec.seat != landlord
                and rec.top_seat not in (None, landlord, rec.seat)
                and rec.cards_left[rec.seat] > 0
            ):
                checked += 1
                assert rec.type == ActionType.PASS, rec
    assert checked > 10


def _engine_feeds(record: dict[str, Any], feeder: int) -> tuple[int, int, list[int]]:
    """(opportunities, passes, their action indexes) found from the engine's records alone."""
    game = replay(record)
    landlord = game.landlord
    ops = passes = 0
    where: list[int] = []
    for rec in game.history:
        if (
            rec.seat == feeder
            and rec.phase == Phase.PLAY
            and landlord is not None
            and feeder != landlord
            and rec.top_seat == landlord
            and rec.cards_left[landlord] <= 2
            and rec.beating_play_existed
        ):
            ops += 1
            passes += rec.type == ActionType.PASS
            where.append(rec.action_index)
    return ops, passes, where


@pytest.mark.parametrize(("preset", "rate", "games"), [("ddz", 0.4, 300), ("ddz-2p", 0.25, 200)])
def test_the_planted_feeding_rate_is_measured_from_the_engine(
    preset: str, rate: float, games: int
) -> None:
    n = PRESETS[preset]
    ops = passes = 0
    for deals in simulate(
        preset, ["heuristic"] * n, games=games, seed=21, feeder=1, feed_rate=rate
    ):
        last = deals[-1]
        o, p, where = _engine_feeds(last, 1)
        truth = last["truth"]["feed_opportunities"]
        assert [t["action_index"] for t in truth] == where  # the truth is what the engine shows
        assert sum(t["fed"] for t in truth) == p  # a heuristic farmer never passes there itself
        ops += o
        passes += p
    assert ops >= 50
    sigma = math.sqrt(rate * (1 - rate) / ops)
    assert abs(passes / ops - rate) <= 3.5 * sigma, (passes, ops)
    # control: without the plant nobody passes on those turns
    control = [
        _engine_feeds(d[-1], 1)[1]
        for d in simulate(preset, ["heuristic"] * n, games=60, seed=21, feeder=1, feed_rate=0.0)
    ]
    assert sum(control) == 0


def test_ladder_lineups_rotate_every_seat() -> None:
    seats = [lineup("a", "b", 3, i) for i in range(6)]
    for s in range(3):
        assert sorted(row[s] for row in seats) == ["a", "a", "a", "b", "b", "b"]
    assert [lineup("a", "b", 2, i) for i in range(2)] == [["a", "b"], ["b", "a"]]


@pytest.mark.parametrize(("preset", "games"), [("ddz", 240), ("ddz-2p", 160)])
def test_the_ladder_order_random_greedy_heuristic(preset: str, games: int) -> None:
    low = measure(preset, "random", "greedy", games=games, seed=1)
    high = measure(preset, "greedy", "heuristic", games=games, seed=1)
    for p in (low, high):
        # the stronger bot's edge in score per seat-game: the CI clear of zero, the mean > 0.5
        assert p.low > 0 and p.edge > 0.5, p
        assert p.win_rate_b > p.win_rate_a, p


@pytest.mark.parametrize("preset", ["ddz", "ddz-2p"])
def test_the_ladder_reads_the_same_results_as_the_python_simulator_plays(preset: str) -> None:
    """The ladder's games come from the core when it takes the run (a match of one game):
    each result is the one the Python simulator's ``play_game`` gives for that lineup and
    index (the last deal: void deals are redealt)."""
    rs = load_ruleset(preset)
    got = list(results(preset, "random", "heuristic", games=24, seed=5))
    for i, (bots, result) in enumerate(got):
        assert bots == lineup("random", "heuristic", rs.players, i)
        assert result == play_game(rs, bots, seed=5, index=i)[-1]["result"]


def test_bad_options_are_named() -> None:
    with pytest.raises(SimError, match="E_SIM_OPTION"):
        play_game("ddz", ["random"] * 2, seed=1, index=0)
    with pytest.raises(SimError, match="E_SIM_OPTION"):
        play_game("ddz", ["random"] * 3, seed=1, index=0, feed_rate=1.5)
    assert Outcome.REDEAL.value == "redeal"


def test_simulate_plays_under_the_overrides_in_any_worker() -> None:
    """``simulate(..., overrides=)`` reaches the worker processes: every record is played
    under the preset plus the overrides, the same with 1 and 2 workers."""
    over = {"multiplier_cap": 2, "bid_reentry": False}
    one = list(simulate("ddz", ["random"] * 3, games=20, seed=8, overrides=over))
    two = list(simulate("ddz", ["random"] * 3, games=20, seed=8, overrides=over, workers=2))
    assert one == two
    records = [d for deals in one for d in deals]
    assert all(d["overrides"] == over for d in records)
    assert all(d["result"]["multiplier"] <= 2 for d in records)  # the cap paid
