"""The last-card call (spec 1.6, seed 001: 剩最後一張牌時，必須宣告): the engine, the logs, the
warehouse and the stats mart.

Engine clauses cite docs/engine.md, "The last-card call". The deal is test_state's ``BLOCK``:
seat 1 plays down to one card (♥A) with its ♥4 lead in trick 4.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.big2.logformat import record_from_obj
from pipeline.big2.rules import LastCardCall, Ruleset, load_ruleset
from pipeline.big2.state import Action, ActionType, Block, Game, LastCall
from pipeline.errors import IllegalPlayError, LogFormatError
from pipeline.logs import read_log
from pipeline.logs.model import GameRecord, Source
from pipeline.logs.records import content_hash
from pipeline.replay import ReplayedGame, replay
from pipeline.warehouse.tables import SCHEMAS, Table, game_tables
from tests.engine_helpers import fixed_deal, run

REQUIRED = load_ruleset("hk", {"last_card_call": "required"})
OFF = load_ruleset("hk")

BLOCK = {
    0: "3d 3c 3h 4d 4s 9d 9s Jd Jc Qd Kh Ks 2s",
    1: "4c 5c 6c 7c 8c Tc 5h 6h 7h 8h Th 4h Ah",
    2: "3s 5d 5s 6d 6s 7d 7s 8d 8s Td Ts Qc Qh",
    3: "9c 9h Jh Js Qs Kd Kc Ad Ac As 2d 2c 2h",
}
#: seat 1 holds ♥4 ♥A, on lead in trick 4
TO_TWO_CARDS = (
    "0: 3d | 1: 4c | 2: pass | 3: pass | 0: pass"
    " | 1: 5c 6c 7c 8c Tc | 2: pass | 3: pass | 0: pass"
    " | 1: 5h 6h 7h 8h Th | 2: pass | 3: pass | 0: pass"
)


def new_game(rs: Ruleset, *, full: bool = True) -> Game:
    if not full:
        return Game(rs)
    hands, stock = fixed_deal(rs, BLOCK)
    return Game(rs, hands=hands, stock=stock)


def announce(game: Game, seat: int) -> Any:
    return game.do(Action.announce(seat))


# ----- the engine ---------------------------------------------------------------------------


def test_ruleset_parameter_defaults_off() -> None:
    # docs/engine.md: last_card_call is off (not required) unless a ruleset says required.
    assert OFF.last_card_call == LastCardCall.OFF
    assert REQUIRED.last_card_call == LastCardCall.REQUIRED
    assert REQUIRED.to_dict()["last_card_call"] == "required"


@pytest.mark.parametrize("full", [True, False], ids=["full", "partial"])
def test_call_made_right_after_the_play_that_leaves_one_card(full: bool) -> None:
    # spec 1.6 (001): a player left with one card must announce it; the call comes next.
    game = new_game(REQUIRED, full=full)
    run(game, TO_TWO_CARDS)
    play = run(game, "1: 4h")[0]
    assert play.last_call == LastCall.MISSING  # until the call comes
    call = announce(game, 1)
    assert call.type == ActionType.ANNOUNCE and call.seat == 1 and call.cards == 0
    assert call.cards_left[1] == 1 and call.last_call is None
    assert game.history[play.action_index].last_call == LastCall.MADE
    assert game.turn == 2  # a call is not a turn: seat 2 still acts next
    run(game, "2: pass | 3: pass | 0: 2s | 1: pass | 0: Ks | 1: Ah")
    assert game.result is not None and game.result.winner == 1
    facts = [r.last_call for r in game.history if r.last_call is not None]
    assert facts == [LastCall.MADE]


@pytest.mark.parametrize("full", [True, False], ids=["full", "partial"])
def test_call_missing_when_another_seat_acts_first(full: bool) -> None:
    # docs/engine.md Decision: the call is due before the next play or pass of any seat.
    game = new_game(REQUIRED, full=full)
    run(game, TO_TWO_CARDS + " | 1: 4h | 2: pass")
    late = announce(game, 1)  # accepted (the seat holds one card), but late
    assert late.type == ActionType.ANNOUNCE
    play = next(r for r in game.history if r.seat == 1 and r.cards_left[1] == 1)
    assert game.history[play.action_index].last_call == LastCall.MISSING


def test_call_not_required_records_made_calls_only() -> None:
    # docs/engine.md: last_card_call = off: a call in the log is a fact, a missing one is not.
    game = new_game(OFF)
    play = run(game, TO_TWO_CARDS + " | 1: 4h")[-1]
    assert play.last_call is None
    announce(game, 1)
    assert game.history[play.action_index].last_call == LastCall.MADE
    game = new_game(OFF)
    run(game, TO_TWO_CARDS + " | 1: 4h | 2: pass")
    assert all(r.last_call is None for r in game.history)


@pytest.mark.parametrize("full", [True, False], ids=["full", "partial"])
def test_call_holding_more_than_one_card_is_refused(full: bool) -> None:
    # docs/engine.md: a call is accepted exactly when the seat holds one card.
    game = new_game(REQUIRED, full=full)
    run(game, TO_TWO_CARDS)
    before = (len(game.history), game.turn, list(game.counts))
    assert not game.can(Action.announce(1))
    with pytest.raises(IllegalPlayError) as info:
        announce(game, 1)
    assert info.value.code == "E_CALL_NOT_LAST"
    assert info.value.message == "seat 1 called its last card holding 2 cards (trick 4)"
    assert (len(game.history), game.turn, list(game.counts)) == before
    with pytest.raises(IllegalPlayError) as info:
        announce(game, 0)
    assert "seat 0 called its last card holding 12 cards" in info.value.message


def test_call_twice_is_refused() -> None:
    # docs/engine.md: one call per seat per game.
    game = new_game(REQUIRED)
    run(game, TO_TWO_CARDS + " | 1: 4h")
    announce(game, 1)
    with pytest.raises(IllegalPlayError) as info:
        announce(game, 1)
    assert info.value.code == "E_CALL_REPEATED"


def test_call_after_the_game_is_refused() -> None:
    game = new_game(REQUIRED)
    run(game, TO_TWO_CARDS + " | 1: 4h")
    announce(game, 1)
    run(game, "2: pass | 3: pass | 0: 2s | 1: pass | 0: Ks | 1: Ah")
    with pytest.raises(IllegalPlayError) as info:
        announce(game, 1)
    assert info.value.code == "E_GAME_OVER"


def test_call_does_not_change_the_block_obligation_or_bao() -> None:
    # spec 1.6: the 頂大 obligation does not depend on the call; 包牌 looks past a call.
    for calls in (True, False):
        game = new_game(REQUIRED)
        run(game, TO_TWO_CARDS + " | 1: 4h")
        if calls:
            announce(game, 1)
        run(game, "2: pass | 3: pass")
        record = run(game, "0: pass")[0]
        assert record.block == Block.VIOLATED
        run(game, "1: Ah")
        assert game.result is not None and game.result.bao_seat == 0


# ----- logs: JSON Lines and CSV ---------------------------------------------------------------

_SCRIPT = (
    TO_TWO_CARDS + " | 1: 4h | 1: announce | 2: pass | 3: pass | 0: 2s | 1: pass | 0: Ks | 1: Ah"
)


def game_obj(*, with_deal: bool = True, call: bool = True) -> dict[str, Any]:
    actions: list[dict[str, Any]] = []
    for step in _SCRIPT.split("|"):
        seat_text, _, text = step.partition(":")
        text = text.strip()
        seat = int(seat_text)
        if text == "announce":
            if call:
                actions.append({"seat": seat, "action": "announce"})
        elif text == "pass":
            actions.append({"seat": seat, "action": "pass"})
        else:
            actions.append({"seat": seat, "action": "play", "cards": text})
    obj: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": f"call-{with_deal}-{call}",
        "ruleset": {"preset": "hk", "overrides": {"last_card_call": "required"}},
        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(4)],
        "actions": actions,
    }
    if with_deal:
        obj["deal"] = {"hands": [BLOCK[s] for s in range(4)]}
    return obj


def record_of(obj: dict[str, Any]) -> GameRecord:
    return record_from_obj(obj, source=Source("x.jsonl", 1), raw="", content_hash=content_hash(obj))


def replayed(obj: dict[str, Any]) -> ReplayedGame:
    done = replay(record_of(obj))
    assert isinstance(done, ReplayedGame), done
    return done


def test_jsonl_round_trip(tmp_path: Path) -> None:
    # docs/log-format.md: {"seat": 1, "action": "announce"} is an action of its own.
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(game_obj(), ensure_ascii=False) + "\n", encoding="utf-8")
    (record,) = list(read_log(path))
    assert isinstance(record, GameRecord)
    calls = [a for a in record.actions if a.type == ActionType.ANNOUNCE]
    assert [(a.seat, a.cards) for a in calls] == [(1, 0)]
    done = replay(record)
    assert isinstance(done, ReplayedGame) and done.result.winner == 1


def test_announce_with_cards_or_a_claim_is_a_schema_error() -> None:
    obj = game_obj()
    i = next(k for k, a in enumerate(obj["actions"]) if a["action"] == "announce")
    for extra in ({"cards": "Ah"}, {"claim": "dragon"}):
        bad = copy.deepcopy(obj)
        bad["actions"][i].update(extra)
        with pytest.raises(LogFormatError) as info:
            record_of(bad)
        assert info.value.code == "E_SCHEMA" and info.value.context["action_index"] == i


def test_jsonl_call_not_last_is_a_reject_with_evidence() -> None:
    obj = game_obj()
    obj["actions"].insert(1, {"seat": 1, "action": "announce"})
    done = replay(record_of(obj))
    assert not isinstance(done, ReplayedGame)
    assert done.code == "E_CALL_NOT_LAST" and done.action_index == 1
    assert "seat 1 called its last card holding 13 cards" in done.message


def test_csv_round_trip(tmp_path: Path) -> None:
    # docs/log-format.md, CSV: action = announce, no cards.
    obj = game_obj()
    games = tmp_path / "g.games.csv"
    actions = tmp_path / "g.csv"
    with games.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["game_id", "ruleset", "overrides", "players", "hands"])
        deal = "|".join(BLOCK[s] for s in range(4))
        w.writerow([obj["game_id"], "hk", '{"last_card_call": "required"}', "p0|p1|p2|p3", deal])
    with actions.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["game_id", "seq", "seat", "action", "cards", "ts"])
        for i, a in enumerate(obj["actions"]):
            w.writerow([obj["game_id"], i, a["seat"], a["action"], a.get("cards", ""), ""])
    (record,) = list(read_log(actions))
    assert isinstance(record, GameRecord), record
    json_record = record_of(obj)
    assert record.actions == json_record.actions
    done = replay(record)
    assert isinstance(done, ReplayedGame)


# ----- warehouse --------------------------------------------------------------------------


def test_warehouse_rows_carry_the_call_fact() -> None:
    # docs/warehouse.md actions.last_call: 'made' / 'missing' on the play leaving one card.
    assert SCHEMAS[Table.ACTIONS].field("last_call").type == "string"
    made = replayed(game_obj())
    missed = replayed(game_obj(call=False))
    partial = replayed(game_obj(with_deal=False, call=False))
    tables = game_tables([made, missed, partial])
    rows = tables[Table.ACTIONS].to_pylist()
    facts = [(r["game_id"], r["action_index"], r["last_call"]) for r in rows if r["last_call"]]
    play = len(TO_TWO_CARDS.split("|"))  # the index of seat 1's ♥4
    assert facts == [
        ("call-True-True", play, "made"),
        ("call-True-False", play, "missing"),
        ("call-False-False", play, "missing"),
    ]
    calls = [r for r in rows if r["action_type"] == "announce"]
    assert [(r["game_id"], r["seat"], r["cards_mask"]) for r in calls] == [("call-True-True", 1, 0)]
    # the tricks table counts plays and passes only
    tricks = tables[Table.TRICKS].to_pylist()
    assert sum(t["n_actions"] for t in tricks if t["game_id"] == "call-True-True") == len(
        [r for r in rows if r["game_id"] == "call-True-True" and r["action_type"] != "announce"]
    )


def test_stats_mart_counts_missed_calls(tmp_path: Path) -> None:
    # docs/stats.md n_last_call_missed: plays that left the seat one card with no call after
    # (under last_card_call = required), partial information included.
    from tests.marts_helpers import marts, rows, warehouse_of

    games = [game_obj(), game_obj(call=False), game_obj(with_deal=False, call=False)]
    wh = warehouse_of(tmp_path, games)
    got = rows(
        marts(wh),
        "select game_id, seat, n_last_call_missed from stats_player_games "
        "where n_last_call_missed > 0 or seat = 1 order by game_id, seat",
    )
    assert got == [
        {"game_id": "call-False-False", "seat": 1, "n_last_call_missed": 1},
        {"game_id": "call-True-False", "seat": 1, "n_last_call_missed": 1},
        {"game_id": "call-True-True", "seat": 1, "n_last_call_missed": 0},
    ]


def test_schema_accepts_a_call_and_refuses_one_with_cards() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from pipeline.logs import schema_path

    validator = jsonschema.Draft202012Validator(json.loads(schema_path().read_text("utf-8")))
    obj = game_obj()
    assert list(validator.iter_errors(obj)) == []
    i = next(k for k, a in enumerate(obj["actions"]) if a["action"] == "announce")
    obj["actions"][i]["cards"] = "Ah"
    assert list(validator.iter_errors(obj)) != []


def test_rules_show_lists_the_parameter() -> None:
    # docs/engine.md: `big2 rules show` shows last_card_call, and --set changes it.
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    shown = runner.invoke(app, ["rules", "show", "hk"])
    assert shown.exit_code == 0
    line = next(x for x in shown.output.splitlines() if "last_card_call" in x)
    assert "off" in line and "default" in line
    shown = runner.invoke(app, ["rules", "show", "hk", "--set", "last_card_call=required"])
    line = next(x for x in shown.output.splitlines() if "last_card_call" in x)
    assert "required" in line and "override" in line
    bad = runner.invoke(app, ["rules", "show", "hk", "--set", "last_card_call=sometimes"])
    assert bad.exit_code == 2 and "last_card_call" in bad.output


# ----- the simulator ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides", [{}, {"players": 3, "three_player_mode": "stock_13"}], ids=["hk", "stock_13"]
)
def test_bots_call_under_required_and_otherwise_play_the_same_game(
    overrides: dict[str, Any],
) -> None:
    # docs/bots.md: under last_card_call = required every bot calls right after the play that
    # leaves it one card; the game is otherwise the one played without the rule.
    from pipeline.sim.simulate import SimConfig, simulate

    bots = ("heuristic", "greedy", "random", "heuristic")[: overrides.get("players", 4)]
    base = SimConfig(games=30, seed=3, overrides=overrides, bots=bots)
    plain = list(simulate(base))
    called = list(simulate(dataclasses.replace(base, overrides={**overrides, **_REQ})))
    n_calls = 0
    for a, b in zip(plain, called, strict=True):
        kept = [x for x in b["actions"] if x["action"] != "announce"]
        assert [{k: v for k, v in x.items() if k != "ts"} for x in kept] == [
            {k: v for k, v in x.items() if k != "ts"} for x in a["actions"]
        ]
        done = replayed(b)
        facts = [r.last_call for r in done.actions if r.last_call is not None]
        assert set(facts) <= {LastCall.MADE}
        assert len(facts) == len(b["actions"]) - len(kept)
        n_calls += len(facts)
    assert n_calls >= 30


_REQ = {"last_card_call": "required"}


# ----- export: the hand history and the log line -----------------------------------------------


def test_export_shows_the_call_and_the_line_reimports(tmp_path: Path) -> None:
    # docs/report.md `big2 export`: a call is a step of the hand history; a missing one is said
    # on the play; the log line keeps the call and replays to the same facts.
    from pipeline.report import fetch_game, hand_history, log_line
    from tests.marts_helpers import marts, warehouse_of

    wh = warehouse_of(tmp_path, [game_obj(), game_obj(call=False)])
    con = marts(wh)
    made = fetch_game(con, "call-True-True")
    text = hand_history(made)
    assert "calls its last card" in text
    assert "no last-card call" not in text
    assert "no last-card call" in hand_history(fetch_game(con, "call-True-False"))
    line = log_line(made)
    assert {"seat": 1, "action": "announce"} in [
        {k: v for k, v in a.items() if k != "ts"} for a in line["actions"]
    ]
    again = replayed(line)
    assert [r.last_call for r in again.actions if r.last_call] == [LastCall.MADE]


def test_staging_reads_batches_written_before_last_call() -> None:
    # docs/warehouse.md: last_call is NULL in batches written before it (sql/staging/stg_actions).
    import duckdb

    from tests.marts_helpers import SQL

    tables = game_tables([replayed(game_obj(call=False))])
    actions = tables[Table.ACTIONS]
    old = actions.drop_columns(["last_call"])
    staging = (SQL / "staging" / "stg_actions.sql").read_text(encoding="utf-8")
    for table, expected in ((old, 0), (actions, 1)):
        con = duckdb.connect()
        con.register("actions", table)
        con.register("games", tables[Table.GAMES])  # the view keeps Big Two games' actions
        got = con.execute(f"select count(*), count(last_call) from ({staging})").fetchone()
        assert got == (table.num_rows, expected)
        con.close()
