"""Dou Dizhu log lines (docs/log-format.md, "Dou Dizhu") through the game seam: the golden
games and the simulated games written as log lines replay; mutated lines reject with their
codes; the documented example replays; the JSON Schema accepts the lines."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pipeline.doudizhu.cards import cards_of, format_cards, mask_of, parse_cards, rank_of
from pipeline.doudizhu.game import DdzRecord
from pipeline.logs import schema_path
from pipeline.logs.jsonl import parse_line
from pipeline.logs.model import Reject, Source
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.ddz_play import action_dict, log_line, play_game, result_dict, simulate
from tests.doudizhu.golden import GAMES, Golden, lines, parse_action, start

DOCS = Path(__file__).resolve().parents[2] / "docs" / "log-format.md"


def golden_line(g: Golden, game_id: str = "golden") -> dict[str, Any]:
    """A golden game as a log line's object (played through the engine to get the actions)."""
    game = start(g)
    hands, kitty = list(game.hands or []), game.kitty
    assert kitty is not None
    aside = 0
    for c in range(54):
        if not any(h >> c & 1 for h in hands) and not kitty >> c & 1:
            aside |= 1 << c
    actions = []
    for ln in lines(g):
        action = parse_action(game, ln)
        game.do(action)
        actions.append(action)
    assert game.result is not None
    record = {
        "hands": hands,
        "kitty": kitty,
        "set_aside": aside,
        "face_up_card": None,
        "first_bidder": g.first_bidder,
        "actions": [action_dict(a) for a in actions],
        "result": result_dict(game.result),
        "preset": g.preset,
        "overrides": g.overrides,
    }
    return log_line(record, game_id=game_id)


def replayed(obj: dict[str, Any]) -> ReplayedGame | Reject:
    record = parse_line(json.dumps(obj, ensure_ascii=False), Source("t.jsonl", 1))
    return record if isinstance(record, Reject) else replay(record)


def code_of(obj: dict[str, Any]) -> tuple[str, int | None]:
    done = replayed(obj)
    assert isinstance(done, Reject), done
    return done.code, done.action_index


@pytest.mark.parametrize("g", GAMES, ids=[g.name for g in GAMES])
def test_golden_games_replay_as_log_lines(g: Golden) -> None:
    obj = golden_line(g)
    done = replayed(obj)
    assert isinstance(done, ReplayedGame), done
    assert isinstance(done.record, DdzRecord) and done.record.info_level == "full"
    assert len(done.actions) == len(lines(g))
    for key, value in g.expect.items():
        got = getattr(done.result, key)
        assert (got.value if hasattr(got, "value") else got) == value, key


def test_simulated_games_replay_as_log_lines() -> None:
    n = 0
    for preset, bots in (("ddz", ("heuristic", "greedy", "random")), ("ddz-2p", ("random",) * 2)):
        for index, deals in enumerate(simulate(preset, bots, games=12, seed=14)):
            for d in deals:
                obj = log_line(d, game_id=f"{preset}-{index}-{d['deal_number']}")
                done = replayed(obj)
                assert isinstance(done, ReplayedGame), done
                assert done.result.scores == tuple(d["result"]["scores"])
                n += 1
    assert n >= 24


def test_partial_information_replays_without_the_deal() -> None:
    obj = golden_line(GAMES[0])
    del obj["deal"]
    done = replayed(obj)
    assert isinstance(done, ReplayedGame), done
    assert done.record.info_level == "partial"
    assert done.result.amount == 24
    assert all(a.unchecked == ("hand",) for a in done.actions)


@pytest.fixture
def worked() -> dict[str, Any]:
    """004's worked example: 0 bid 3, … 0 play A, 1 play 2, 2 pass, 0 play BJ RJ."""
    return golden_line(GAMES[0])


def test_mutated_lines_reject_with_their_codes(worked: dict[str, Any]) -> None:
    acts = worked["actions"]
    swapped = copy.deepcopy(worked)
    swapped["actions"][2], swapped["actions"][3] = acts[3], acts[2]
    assert code_of(swapped) == ("E_DDZ_OUT_OF_TURN", 2)

    not_in_hand = copy.deepcopy(worked)  # seat 1 plays seat 0's rocket
    not_in_hand["actions"][11]["cards"] = "BJ RJ"
    assert code_of(not_in_hand) == ("E_DDZ_NOT_IN_HAND", 11)
    done = replayed(not_in_hand)
    assert isinstance(done, Reject)
    assert done.message.startswith("actions[11]: seat 1 played BJ RJ: BJ RJ not in hand")

    out_of_turn = copy.deepcopy(worked)
    out_of_turn["actions"][2]["seat"] = 2
    assert code_of(out_of_turn) == ("E_DDZ_OUT_OF_TURN", 2)

    lower = copy.deepcopy(worked)  # seat 1 answers the A with a single lower than A
    hand = worked["deal"]["hands"][1]
    low = next(c for c in cards_of(_mask(hand)) if rank_of(c) < 11)
    lower["actions"][11]["cards"] = format_cards(1 << low)
    assert code_of(lower) == ("E_DDZ_NOT_HIGHER", 11)

    declared = copy.deepcopy(worked)
    declared["result"]["amount"] = 12
    done = replayed(declared)
    assert isinstance(done, Reject) and done.code == "E_RESULT_MISMATCH"
    assert "declared amount 12, replay: 24" in done.message

    bad_value = copy.deepcopy(worked)
    bad_value["actions"][0]["value"] = 4
    assert code_of(bad_value) == ("E_DDZ_BID_VALUE", 0)


def _mask(text: str) -> int:
    return mask_of(parse_cards(text))


def test_a_bid_not_higher_rejects() -> None:
    g = next(g for g in GAMES if any(re.fullmatch(r"1 bid 2", ln) for ln in lines(g)))
    obj = golden_line(g)
    i = next(
        k for k, a in enumerate(obj["actions"]) if a == {"seat": 1, "action": "bid", "value": 2}
    )
    obj["actions"][i]["value"] = obj["actions"][i - 1]["value"]
    assert code_of(obj) == ("E_DDZ_BID_NOT_HIGHER", i)


def test_format_errors_name_the_field(worked: dict[str, Any]) -> None:
    bad_card = copy.deepcopy(worked)
    bad_card["actions"][1]["cards"] = "XJ"
    assert code_of(bad_card) == ("E_BAD_CARD", 1)
    no_value = copy.deepcopy(worked)
    del no_value["actions"][0]["value"]
    assert code_of(no_value) == ("E_SCHEMA", 0)
    unknown = copy.deepcopy(worked)
    unknown["deal"]["stock"] = "3d"
    assert code_of(unknown)[0] == "E_SCHEMA"
    for missing in (None, "absent"):  # hands without the kitty: the landlord would take none
        no_kitty = copy.deepcopy(worked)
        no_kitty["deal"].pop("kitty")
        if missing is None:
            no_kitty["deal"]["kitty"] = None
        done = replayed(no_kitty)
        assert isinstance(done, Reject) and (done.code, done.action_index) == ("E_SCHEMA", None)
        assert (
            done.message
            == "deal.kitty: missing: a deal with the hands needs the 3-card kitty (底牌)"
        )
    seats = copy.deepcopy(worked)
    seats["seats"].append({"seat": 3, "player_id": "p3"})
    assert code_of(seats)[0] == "E_SEAT_COUNT"


def doc_example() -> dict[str, Any]:
    """The complete Dou Dizhu example of docs/log-format.md (the json block after its heading)."""
    text = DOCS.read_text("utf-8")
    section = text.split("### A complete Dou Dizhu example", 1)[1]
    block = section.split("```json", 1)[1].split("```", 1)[0]
    obj: dict[str, Any] = json.loads(block)
    return obj


def test_the_documented_example_replays() -> None:
    done = replayed(doc_example())
    assert isinstance(done, ReplayedGame), done
    assert (done.result.landlord, done.result.amount, done.result.scores) == (0, 24, (48, -24, -24))


def test_the_schema_accepts_dou_dizhu_lines(worked: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    referencing = pytest.importorskip("referencing")
    big2 = json.loads(schema_path("big2").read_text("utf-8"))
    ddz = json.loads(schema_path("doudizhu").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(ddz)
    registry = referencing.Registry().with_resource(
        big2["$id"], referencing.Resource.from_contents(big2)
    )
    validator = jsonschema.Draft202012Validator(ddz, registry=registry)
    two = log_line(play_game("ddz-2p", ["greedy"] * 2, seed=5, index=0)[-1], game_id="s2")
    for obj in (worked, doc_example(), two):
        assert list(validator.iter_errors(obj)) == []
    bad = copy.deepcopy(worked)
    bad["actions"][0]["value"] = 4
    assert list(validator.iter_errors(bad))
    claim = copy.deepcopy(worked)
    claim["actions"][1]["action"] = "claim"
    assert list(validator.iter_errors(claim))
    big2_validator = jsonschema.Draft202012Validator(big2)
    assert list(big2_validator.iter_errors(worked))  # a Dou Dizhu line is not a Big Two line


def test_ingest_stores_both_games_of_a_mixed_file(tmp_path: Path) -> None:
    """A mixed file: the Big Two games and the Dou Dizhu game are stored (each with its
    game_kind); a Dou Dizhu line the rules refuse is a reject with its own code."""
    from pipeline.ingest import ingest
    from pipeline.sim.sample import dumps, sample_game
    from pipeline.warehouse import Warehouse

    worked = golden_line(GAMES[0], "ddz-1")
    wrong = {**copy.deepcopy(worked), "game_id": "ddz-2"}
    wrong["actions"][2]["seat"] = 2
    lines_ = [
        dumps(sample_game(seed=1, game_id="b1")),
        json.dumps(worked, ensure_ascii=False),
        dumps(sample_game(seed=2, game_id="b2")),
        json.dumps(wrong, ensure_ascii=False),
    ]
    log = tmp_path / "mixed.jsonl"
    log.write_text("\n".join(lines_) + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(log)], wh)
    total = summary.total()
    assert (total.read, total.stored, total.rejected) == (4, 3, 1)
    assert summary.reasons == {"E_DDZ_OUT_OF_TURN": 1}
    with wh.connect() as con:
        games = con.execute("select game_id, game_kind from games order by game_id").fetchall()
        rejects = con.execute(
            "select game_id, line, code, message from rejects order by line"
        ).fetchall()
    assert games == [("b1", "big2"), ("b2", "big2"), ("ddz-1", "doudizhu")]
    assert [r[:3] for r in rejects] == [("ddz-2", 4, "E_DDZ_OUT_OF_TURN")]
