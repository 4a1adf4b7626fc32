"""Dou Dizhu CSV logs (docs/log-format.md, "Dou Dizhu in CSV"): the documented example replays
as its JSON line does, simulated games replay the same from CSV as from JSON Lines, mutated
rows are rejected with their code, the actions file, the game's first line and the action."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from pipeline.logs.csv_logs import read_csv
from pipeline.logs.model import GameRecord, Reject
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_lines
from pipeline.sim.sample import DDZ_ACTIONS_HEADER, ddz_csv_text
from tests.doudizhu.test_log import DOCS, doc_example


def doc_blocks() -> tuple[str, str]:
    """The games and actions CSV blocks of the "Dou Dizhu in CSV" section."""
    section = DOCS.read_text("utf-8").split("### Dou Dizhu in CSV", 1)[1]
    blocks = [b.split("```", 1)[0] for b in section.split("```csv\n")[1:3]]
    return blocks[0], blocks[1]


def write_pair(tmp: Path, games: str, actions: str, name: str = "ddz") -> Path:
    (tmp / f"{name}.games.csv").write_text(games, encoding="utf-8")
    path = tmp / f"{name}.csv"
    path.write_text(actions, encoding="utf-8")
    return path


def read_one(path: Path) -> GameRecord | Reject:
    out = list(read_csv(path))
    assert len(out) == 1, out
    return out[0]


def replayed(path: Path) -> ReplayedGame | Reject:
    record = read_one(path)
    return record if isinstance(record, Reject) else replay(record)


def test_the_documented_csv_example_replays_as_the_json_line(tmp_path: Path) -> None:
    games, actions = doc_blocks()
    done = replayed(write_pair(tmp_path, games, actions))
    assert isinstance(done, ReplayedGame), done
    assert (done.result.landlord, done.result.amount, done.result.scores) == (0, 24, (48, -24, -24))
    from pipeline.doudizhu.game import GAME
    from pipeline.logs.model import Source
    from pipeline.logs.records import content_hash

    obj = doc_example()
    line = replay(
        GAME.parse_record(obj, source=Source("doc", 1), raw="", content_hash=content_hash(obj))
    )
    assert isinstance(line, ReplayedGame)
    assert done.actions == line.actions and done.result == line.result


@pytest.mark.parametrize(
    ("preset", "overrides"), [("ddz", {}), ("ddz-2p", {}), ("ddz", {"bid_reentry": False})]
)
def test_simulated_games_replay_the_same_from_csv(
    tmp_path: Path, preset: str, overrides: dict[str, Any]
) -> None:
    n = 3 if preset == "ddz" else 2
    cfg = DdzSimConfig(
        games=30,
        seed=2,
        bots=("random",) * n,
        preset=preset,
        overrides=overrides,
        feeder=1,
        feed_rate=0.5,
    )
    lines = [line for match in simulate_lines(cfg) for line in match]
    assert any(line["result"]["outcome"] == "redeal" for line in lines)  # void deals too
    path = write_pair(tmp_path, *ddz_csv_text(lines))
    records = list(read_csv(path))
    assert len(records) == len(lines)
    for record, line in zip(records, lines, strict=True):
        assert isinstance(record, GameRecord), record
        assert record.game_kind == "doudizhu" and record.game_id == line["game_id"]
        done = replay(record)
        assert isinstance(done, ReplayedGame), done
        assert list(done.result.scores) == line["result"]["scores"]


def _mutate(rows: list[list[str]], seq: int, **cells: str) -> None:
    row = rows[seq]
    for name, value in cells.items():
        row[DDZ_ACTIONS_HEADER.index(name)] = value


def _actions(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _doc_rows() -> tuple[str, list[list[str]]]:
    games, actions = doc_blocks()
    return games, list(csv.reader(io.StringIO(actions)))


def test_mutated_rows_reject_with_code_file_and_line(tmp_path: Path) -> None:
    games, base = _doc_rows()

    def rejected(rows: list[list[str]], games_text: str = games) -> Reject:
        done = replayed(write_pair(tmp_path, games_text, _actions(rows)))
        assert isinstance(done, Reject), done
        assert (done.source.file.endswith("ddz.csv"), done.source.line) == (True, 2)
        return done

    swapped = [list(r) for r in base]  # rows 3 and 4 (seq kept): seat 2 passes before seat 1
    swapped[3][2:], swapped[4][2:] = base[4][2:], base[3][2:]
    done = rejected(swapped)
    assert (done.code, done.action_index) == ("E_DDZ_OUT_OF_TURN", 2)

    not_in_hand = [list(r) for r in base]  # seat 1 plays seat 0's rocket
    _mutate(not_in_hand, 12, cards="BJ RJ")
    done = rejected(not_in_hand)
    assert (done.code, done.action_index) == ("E_DDZ_NOT_IN_HAND", 11)
    assert "seat 1 played BJ RJ" in done.message

    out_of_turn = [list(r) for r in base]
    _mutate(out_of_turn, 3, seat="2")
    assert (rejected(out_of_turn).code, rejected(out_of_turn).action_index) == (
        "E_DDZ_OUT_OF_TURN",
        2,
    )

    lower = [list(r) for r in base]  # seat 1 answers the A with a 5
    _mutate(lower, 12, cards="5♣")
    done = rejected(lower)
    assert (done.code, done.action_index) == ("E_DDZ_NOT_HIGHER", 11)

    not_higher = [list(r) for r in base]  # 0 bids 1, then 1 bids 1
    _mutate(not_higher, 1, value="1")
    not_higher.insert(2, ["ddz-004-worked", "2", "1", "bid", "", "1", "", ""])
    for k, row in enumerate(not_higher[1:], 1):
        row[1] = str(k)
    done = rejected(not_higher)
    assert (done.code, done.action_index) == ("E_DDZ_BID_NOT_HIGHER", 1)

    bad_value = [list(r) for r in base]
    _mutate(bad_value, 1, value="three")
    done = rejected(bad_value)
    assert (done.code, done.action_index) == ("E_SCHEMA", 0)
    assert "actions[0].value" in done.message

    amount = games.replace(",8,24,48|-24|-24", ",8,12,48|-24|-24")
    done = rejected(base, amount)
    assert done.code == "E_RESULT_MISMATCH" and "declared amount 12, replay: 24" in done.message


def test_a_column_of_the_other_game_is_named(tmp_path: Path) -> None:
    games, base = _doc_rows()
    as_big2 = games.replace(",doudizhu,ddz,", ",big2,ddz,")
    done = replayed(write_pair(tmp_path, as_big2, _actions(base)))
    assert isinstance(done, Reject) and done.code == "E_SCHEMA"
    assert "games.kitty: a Dou Dizhu column, on big2 game 'ddz-004-worked'" in done.message

    header, row = (line.split(",") for line in games.strip().splitlines())
    with_stock = ",".join([*header, "stock"]) + "\n" + ",".join([*row, "3♦"]) + "\n"
    done = replayed(write_pair(tmp_path, with_stock, _actions(base)))
    assert isinstance(done, Reject) and done.code == "E_SCHEMA"
    assert "games.stock: a Big Two column" in done.message

    claim = [[*r, "claim" if k == 0 else ""] for k, r in enumerate(base)]
    claim[5][-1] = "win"
    done = replayed(write_pair(tmp_path, games, _actions(claim)))
    assert isinstance(done, Reject) and (done.code, done.action_index) == ("E_SCHEMA", 4)

    no_hands = games.replace(
        next(c for c in row if c.count("|") == 2 and "♦" in c), ""
    )  # the hands cell emptied, the kitty left
    done = replayed(write_pair(tmp_path, no_hands, _actions(base)))
    assert isinstance(done, Reject) and "games.kitty" in done.message

    won = games.replace(",true,", ",yes,")
    done = replayed(write_pair(tmp_path, won, _actions(base)))
    assert isinstance(done, Reject) and "games.landlord_won: expected true or false" in done.message


def test_a_csv_game_without_the_deal_is_partial_information(tmp_path: Path) -> None:
    games, actions = doc_blocks()
    header, row = (line.split(",") for line in games.strip().splitlines())
    for name in ("hands", "kitty", "face_up_card"):
        row[header.index(name)] = ""
    record = read_one(write_pair(tmp_path, ",".join(header) + "\n" + ",".join(row), actions))
    assert isinstance(record, GameRecord), record
    assert record.info_level == "partial" and record.hands is None
    done = replay(record)
    assert isinstance(done, ReplayedGame), done
    assert done.result.amount == 24
