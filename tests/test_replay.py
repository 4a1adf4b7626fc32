"""Replay: samples round-trip with no rejects; each way a log can disagree with the rules is named."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

import pytest

from pipeline.big2.logformat import record_from_obj
from pipeline.big2.state import ActionType, Outcome
from pipeline.errors import ReplayError
from pipeline.logs import read_log
from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.records import content_hash
from pipeline.replay import ReplayedGame, replay, replay_strict
from pipeline.sim.sample import good_games, sample_game, to_partial, write_samples

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
SOURCE = Source("test.jsonl", 1)


def record(obj: dict[str, Any]) -> GameRecord:
    return record_from_obj(obj, source=SOURCE, raw="raw text", content_hash=content_hash(obj))


def replayed(obj: dict[str, Any]) -> ReplayedGame:
    done = replay(record(obj))
    assert isinstance(done, ReplayedGame), done
    return done


def rejected(obj: dict[str, Any]) -> Reject:
    done = replay(record(obj))
    assert isinstance(done, Reject), done
    assert (done.source, done.game_id, done.raw) == (SOURCE, obj["game_id"], "raw text")
    return done


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    return sample_game(seed=900, game_id="r1")


@pytest.mark.parametrize(
    "name", ["games.jsonl", "partial.jsonl", "actions.csv", "bad.jsonl", "truncated.jsonl.gz"]
)
def test_committed_samples_round_trip(name: str) -> None:
    """Every game that parses in the sample files replays, except bad.jsonl's planted ones."""
    items = list(read_log(SAMPLES / name))
    records = [i for i in items if isinstance(i, GameRecord)]
    assert records
    for rec in records:
        done = replay(rec)
        if rec.game_id.startswith("bad-"):
            assert isinstance(done, Reject)
            continue
        assert isinstance(done, ReplayedGame), done
        assert rec.declared is not None
        assert done.result.winner == rec.declared.winner
        assert done.result.cards_left == rec.declared.cards_left
        assert len(done.actions) == len(rec.actions)
    if name in ("games.jsonl", "partial.jsonl", "actions.csv"):
        assert len(records) == len(items)


def test_generated_samples_round_trip(tmp_path: Path) -> None:
    written = write_samples(tmp_path)
    assert {p.name for p in written} >= {"games.jsonl", "partial.jsonl", "actions.csv", "bad.jsonl"}
    records = [r for r in read_log(tmp_path / "games.jsonl") if isinstance(r, GameRecord)]
    assert [r.game_id for r in records] == [g["game_id"] for g in good_games()]
    assert all(isinstance(replay(r), ReplayedGame) for r in records)


def test_replayed_game_holds_the_engine_rows(game: dict[str, Any]) -> None:
    done = replayed(game)
    assert done.ruleset.name == "hk"
    assert done.result.outcome == Outcome.PLAYED_OUT
    assert [a.action_index for a in done.actions] == list(range(len(game["actions"])))
    assert done.actions[-1].wins_game
    assert done.record.game_id == "r1"


def test_a_match_game_led_by_the_previous_winner() -> None:
    games = [g for g in good_games() if g.get("match_id") == "m-hk-1"]
    assert [g["game_number"] for g in games] == [1, 2, 3]
    for prev, nxt in itertools.pairwise(games):
        done = replayed(nxt)
        assert done.result.first_leader == prev["result"]["winner"]


def test_partial_information(game: dict[str, Any]) -> None:
    partial = to_partial(game)
    done = replayed(partial)
    assert done.result.winner == game["result"]["winner"]
    assert all(a.hand_before is None for a in done.actions)
    assert "hand" in done.actions[0].unchecked


def test_unfinished_log(game: dict[str, Any]) -> None:
    short = copy.deepcopy(game)
    short["actions"].pop()
    r = rejected(short)
    assert (r.code, r.action_index) == ("E_UNFINISHED", None)
    assert "no winner" in r.message


def test_actions_after_the_end(game: dict[str, Any]) -> None:
    longer = copy.deepcopy(game)
    n = len(longer["actions"])
    longer["actions"].append({"seat": 0, "action": "pass"})
    r = rejected(longer)
    assert (r.code, r.action_index) == ("E_ACTIONS_AFTER_END", n)


def test_declared_result_mismatch_names_both(game: dict[str, Any]) -> None:
    winner = game["result"]["winner"]
    wrong = copy.deepcopy(game)
    wrong["result"]["winner"] = (winner + 1) % 4
    r = rejected(wrong)
    assert r.code == "E_RESULT_MISMATCH"
    assert f"declared winner seat {(winner + 1) % 4}, replay: seat {winner}" in r.message
    left = copy.deepcopy(game)
    left["result"] = {"cards_left": [1, 2, 3, 4]}
    r = rejected(left)
    assert (
        r.code == "E_RESULT_MISMATCH" and "declared cards_left [1, 2, 3, 4], replay: [" in r.message
    )


def test_no_declared_result_is_fine(game: dict[str, Any]) -> None:
    bare = copy.deepcopy(game)
    del bare["result"]
    assert replayed(bare).result.winner == game["result"]["winner"]


def test_engine_error_keeps_the_action_index(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    i = next(k for k, a in enumerate(bad["actions"]) if k > 0 and a["action"] == "pass")
    bad["actions"][i] = {"seat": bad["actions"][i]["seat"], "action": "play", "cards": "3d"}
    r = rejected(bad)
    assert r.action_index == i
    assert r.message.startswith(f"actions[{i}]: ")
    assert r.code.startswith("E_")


def test_ruleset_seat_and_kind_problems(game: dict[str, Any]) -> None:
    unknown = copy.deepcopy(game)
    unknown["ruleset"] = {"preset": "hk", "overrides": {"bomb": True}}
    assert rejected(unknown).code == "E_RULESET_KEY"
    preset = copy.deepcopy(game)
    preset["ruleset"] = "nowhere"
    assert rejected(preset).code == "E_RULESET_PRESET"
    seats = copy.deepcopy(game)
    seats["seats"].pop()
    assert rejected(seats).code == "E_SEAT_COUNT"
    kind = copy.deepcopy(game)
    kind["game_kind"] = "doudizhu"
    assert rejected(kind).code == "E_GAME_KIND"


def test_first_leader_cross_check(game: dict[str, Any]) -> None:
    leader = game["actions"][0]["seat"]
    right = copy.deepcopy(game)
    right["first_leader"] = leader
    assert replayed(right).result.first_leader == leader
    wrong = copy.deepcopy(game)
    wrong["first_leader"] = (leader + 1) % 4
    assert rejected(wrong).code == "E_FIRST_LEADER_MISMATCH"


def test_truth_is_not_read(game: dict[str, Any]) -> None:
    a = replayed(game)
    other = copy.deepcopy(game)
    other["truth"] = {"winner": 3, "anything": [1, 2]}
    b = replayed(other)
    assert (a.result, a.actions) == (b.result, b.actions)


def test_three_player_stock_draws() -> None:
    three = next(g for g in good_games() if g["game_id"] == "hk3-stock-1")
    done = replayed(three)
    draws = [a for a in done.actions if a.type == ActionType.PASS and a.drawn is not None]
    assert draws and len(done.result.cards_left) == 3


def test_replay_strict_raises_with_the_code(game: dict[str, Any]) -> None:
    assert replay_strict(record(game)).record.game_id == "r1"
    short = copy.deepcopy(game)
    short["actions"].pop()
    with pytest.raises(ReplayError) as err:
        replay_strict(record(short))
    assert err.value.code == "E_UNFINISHED"


def test_claims_end_the_game_before_play() -> None:
    redeal = next(g for g in good_games() if g["game_id"] == "redeal-1")
    done = replayed(redeal)
    assert (done.result.outcome, done.result.winner) == (Outcome.REDEAL, None)
    false_claim = copy.deepcopy(redeal)
    false_claim["actions"][0]["seat"] = 1  # seat 1 holds J, Q and K
    r = rejected(false_claim)
    assert (r.code, r.action_index) == ("E_CLAIM_FALSE", 0)
