"""Bad values: no single value of a log can stop an import (issue 11, items 3, 4 and 8).

A catalogue, one case per kind of bad value, in JSON Lines and in CSV: each bad game sits
between good games in one file, which goes through the real ``ingest`` into a real warehouse
in ``tmp_path``. The good games are stored, the bad one is one rejects row with its code, file,
line and game id, and the run does not crash. Before issue 11 most of these aborted the whole
import with a traceback from the Arrow row builder, or stored a wrong value (an infinite
balance, a time read in the importing machine's zone). The limits are in docs/log-format.md
("Times and limits").
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pytest

from pipeline.big2.logformat import record_from_obj
from pipeline.cards import N_CARDS
from pipeline.ingest import IngestSummary, chunk_rows
from pipeline.ingest import ingest as run_ingest
from pipeline.logs.model import Source
from pipeline.logs.records import (
    BALANCE_MAX,
    INT32_MAX,
    MAX_ACTIONS,
    TS_MAX,
    TS_MIN,
    content_hash,
)
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.sample import _csv_rows, dumps, sample_game, to_partial
from pipeline.warehouse import Warehouse
from pipeline.warehouse.tables import (
    RECORD_LIMITS,
    SCHEMAS,
    RowBuffer,
    Table,
    check_record_limits,
    int_range,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "pipeline" / "logs" / "big2-game.schema.json"

Game = dict[str, Any]


@pytest.fixture(scope="module")
def good() -> list[Game]:
    return [sample_game(seed=900 + k, game_id=f"good-{k}") for k in range(2)]


@pytest.fixture(scope="module")
def base() -> Game:
    return sample_game(seed=950, game_id="bad")


class Stored(NamedTuple):
    games: list[str]
    rejects: list[tuple[str, str, int, str | None, int | None]]  # code, file, line, game, index
    messages: list[str]
    summary: IngestSummary


def import_files(paths: list[Path], wh_dir: Path) -> Stored:
    """The real import into a real warehouse, then what it stored."""
    wh = Warehouse(wh_dir)
    summary = run_ingest([str(p) for p in paths], wh, workers=1)
    with wh.connect() as con:
        games = [r[0] for r in con.execute("select game_id from games order by game_id").fetchall()]
        rows = con.execute(
            "select code, file, line, game_id, action_index, message from rejects "
            "order by file, line, code"
        ).fetchall()
    return Stored(games, [r[:5] for r in rows], [r[5] for r in rows], summary)


# ----- JSON Lines ---------------------------------------------------------------------------


def edit(change: Callable[[Game], None], *, text: Callable[[str], str] = lambda t: t) -> Any:
    """A case's line: the base game changed in place, dumped, then its text changed."""

    def make(game: Game) -> str:
        g = copy.deepcopy(game)
        change(g)
        return text(dumps(g))

    return make


def set_ts(i: int, value: Any) -> Callable[[Game], None]:
    def change(g: Game) -> None:
        g["actions"][i]["ts"] = value

    return change


def set_seat(key: str, value: Any, seat: int = 0) -> Callable[[Game], None]:
    def change(g: Game) -> None:
        g["seats"][seat][key] = value

    return change


def _backwards(g: Game) -> None:
    g["actions"][3]["ts"] = g["actions"][2]["ts"] - 4.1


def _partial_200(g: Game) -> None:
    winner = g["result"]["winner"]
    p = to_partial(g)
    g.clear()
    g.update(p)
    g.pop("result")
    g["game_id"] = "bad"
    counts = list(g.get("start_counts") or [13] * 4)
    counts[(winner + 1) % 4] = 200  # a seat that never goes out: its count reached the builder
    g["start_counts"] = counts


def _too_long(g: Game) -> None:
    g["actions"] = [*g["actions"], *[{"seat": 0, "action": "pass"}] * (MAX_ACTIONS + 1)]


class JsonCase(NamedTuple):
    name: str
    line: Callable[[Game], str]
    code: str
    game_id: str | None = "bad"
    action_index: int | None = None
    says: str = ""  # a piece of the message


JSON_CASES = [
    JsonCase("game_number 2**31", edit(lambda g: g.update(game_number=2**31)), "E_NUMBER_RANGE"),
    JsonCase(
        "game_number 10**20 (orjson: a float)",
        edit(lambda g: g.update(game_number=10**20)),
        "E_NUMBER_RANGE",
    ),
    JsonCase(
        "tournament_round 2**31",
        edit(lambda g: g.update(tournament_round=2**31, tournament_id="t")),
        "E_NUMBER_RANGE",
    ),
    JsonCase(
        "ts 1e999",
        edit(set_ts(0, 123.25), text=lambda t: t.replace("123.25", "1e999")),
        "E_TS_RANGE",
        action_index=0,
    ),
    JsonCase("ts beyond +9e12 s", edit(set_ts(1, 1e13)), "E_TS_RANGE", action_index=1),
    JsonCase("ts beyond -9e12 s", edit(set_ts(1, -1e13)), "E_TS_RANGE", action_index=1),
    JsonCase("ts 0 (1970)", edit(set_ts(2, 0)), "E_TS_RANGE", action_index=2),
    JsonCase(
        "ts before 1990 as ISO",
        edit(set_ts(0, "1969-07-20T20:17:00+00:00")),
        "E_TS_RANGE",
        action_index=0,
    ),
    JsonCase("ts after 2100", edit(set_ts(0, 5e9)), "E_TS_RANGE", action_index=0),
    JsonCase(
        "ts in milliseconds",
        edit(set_ts(0, 1793534400000)),
        "E_TS_RANGE",
        action_index=0,
        says="milliseconds",
    ),
    JsonCase("ts going backwards", edit(_backwards), "E_TS_ORDER", action_index=3),
    JsonCase(
        "started_at 1900",
        edit(lambda g: g.update(started_at="1900-01-01T00:00:00+00:00")),
        "E_TS_RANGE",
    ),
    JsonCase("balance 10**400", edit(set_seat("balance", 10**400)), "E_NUMBER_RANGE"),
    JsonCase(
        "balance 1e999",
        edit(set_seat("balance", 123.25), text=lambda t: t.replace("123.25", "1e999")),
        "E_NUMBER_RANGE",
    ),
    JsonCase(
        "balance -1e999",
        edit(set_seat("balance", 123.25), text=lambda t: t.replace("123.25", "-1e999")),
        "E_NUMBER_RANGE",
    ),
    JsonCase(
        "surrogate in game_id",
        edit(lambda g: g.update(game_id="bad-@"), text=lambda t: t.replace("@", "\\ud800")),
        "E_SURROGATE",
        game_id="bad-\\ud800",
        says="game_id",
    ),
    JsonCase(
        "surrogate in player_id",
        edit(set_seat("player_id", "@"), text=lambda t: t.replace('"@"', '"\\udc00x"')),
        "E_SURROGATE",
        says="seats[0].player_id",
    ),
    JsonCase(
        "surrogate in a name",
        edit(set_seat("name", "@", seat=2), text=lambda t: t.replace('"@"', '"\\ud83d"')),
        "E_SURROGATE",
        says="seats[2].name",
    ),
    JsonCase(
        "surrogate in a field name",
        edit(lambda g: g.update({"@": 1}), text=lambda t: t.replace('"@"', '"\\ud800"')),
        "E_SURROGATE",
    ),
    JsonCase(
        "surrogate in match_id",
        edit(lambda g: g.update(match_id="m@"), text=lambda t: t.replace("m@", "m\\udfff")),
        "E_SURROGATE",
        says="match_id",
    ),
    JsonCase("start_counts 200", edit(_partial_200), "E_NUMBER_RANGE", says="start_counts"),
    JsonCase("more actions than a game has", edit(_too_long), "E_GAME_TOO_LONG"),
    JsonCase(
        "an override of 1e999",
        edit(
            lambda g: g.update(ruleset={"preset": "hk", "overrides": {"stake": 123.25}}),
            text=lambda t: t.replace("123.25", "1e999"),
        ),
        "E_NUMBER_RANGE",
        says="ruleset.overrides.stake",
    ),
    JsonCase(
        "an override of 10**400",
        edit(lambda g: g.update(ruleset={"preset": "hk", "overrides": {"stake": 10**400}})),
        "E_NUMBER_RANGE",
        says="ruleset.overrides.stake",
    ),
    JsonCase(
        "an override of no known shape",
        edit(lambda g: g.update(ruleset={"preset": "hk", "overrides": {"description": {}}})),
        "E_RULESET_VALUE",
        says="description",
    ),
    JsonCase(
        "empty ruleset string",
        edit(lambda g: g.update(ruleset="")),
        "E_SCHEMA",
        says="expected a preset name",
    ),
    JsonCase(
        "a card with a long s (ſ, which Unicode folds to s)",
        edit(lambda g: None, text=lambda t: t.replace("s ", "ſ ", 1)),
        "E_BAD_CARD",
        says="ſ",
    ),
]


@pytest.mark.parametrize("case", JSON_CASES, ids=lambda c: c.name)
def test_jsonl_bad_value_is_one_reject_and_the_good_games_land(
    tmp_path: Path, good: list[Game], base: Game, case: JsonCase
) -> None:
    path = tmp_path / "day.jsonl"
    lines = [dumps(good[0]), case.line(base), dumps(good[1])]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    got = import_files([path], tmp_path / "wh")
    assert got.games == ["good-0", "good-1"]
    assert got.rejects == [(case.code, str(path), 2, case.game_id, case.action_index)]
    assert case.says in got.messages[0]
    assert got.summary.total().rejected == 1 and got.summary.reasons == {case.code: 1}


def test_empty_ruleset_says_what_is_expected_and_what_was_given(tmp_path: Path, base: Game) -> None:
    path = tmp_path / "day.jsonl"
    path.write_text(dumps({**base, "ruleset": ""}) + "\n", encoding="utf-8")
    message = import_files([path], tmp_path / "wh").messages[0]
    assert message == (
        'ruleset: expected a preset name (e.g. "hk") or an object '
        '{"preset": name, "overrides": {…}}, got an empty string'
    )


# ----- CSV ----------------------------------------------------------------------------------


def to_text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


Rows = list[list[str]]


def add_column(rows: Rows, name: str, value: Callable[[list[str]], str]) -> None:
    rows[0].append(name)
    for row in rows[1:]:
        row.append(value(row))


def bad_cell(rows: Rows, column: str, text: str, *, nth: int = 0) -> None:
    """Set a cell of the bad game's ``nth`` row (games CSV: its one row)."""
    k = rows[0].index(column)
    mine = [row for row in rows[1:] if row[0] == "bad"]
    mine[nth][k] = text


class CsvCase(NamedTuple):
    name: str
    change: Callable[[Rows, Rows], None]  # (games rows, action rows)
    code: str
    action_index: int | None = None
    says: str = ""


def _ts(text: str, nth: int = 0) -> Callable[[Rows, Rows], None]:
    return lambda games, actions: bad_cell(actions, "ts", text, nth=nth)


def _game(column: str, text: str) -> Callable[[Rows, Rows], None]:
    def change(games: Rows, actions: Rows) -> None:
        if column not in games[0]:
            add_column(games, column, lambda row: "")
        bad_cell(games, column, text)

    return change


def _csv_backwards(games: Rows, actions: Rows) -> None:
    k = actions[0].index("ts")
    mine = [row for row in actions[1:] if row[0] == "bad"]
    mine[4][k] = str(float(mine[3][k]) - 1.5)


def _csv_too_long(games: Rows, actions: Rows) -> None:
    last = max(i for i, row in enumerate(actions) if row[0] == "bad")
    seq = int(actions[last][1])
    ts = actions[last][5]
    extra = [["bad", str(seq + 1 + k), "0", "pass", "", ts] for k in range(5 * MAX_ACTIONS)]
    actions[last + 1 : last + 1] = extra


CSV_CASES = [
    CsvCase("ts nan", _ts("nan"), "E_TS_RANGE", action_index=0),
    CsvCase("ts inf", _ts("inf", nth=2), "E_TS_RANGE", action_index=2),
    CsvCase("ts -inf", _ts("-inf", nth=1), "E_TS_RANGE", action_index=1),
    CsvCase("ts 1e13", _ts("1e13"), "E_TS_RANGE", action_index=0),
    CsvCase("ts 1e999", _ts("1e999"), "E_TS_RANGE", action_index=0),
    CsvCase("ts before 1990", _ts("1989-12-31T23:59:59+00:00"), "E_TS_RANGE", action_index=0),
    CsvCase("ts going backwards", _csv_backwards, "E_TS_ORDER", action_index=4),
    CsvCase("game_number 2147483648", _game("game_number", "2147483648"), "E_NUMBER_RANGE"),
    CsvCase(
        "tournament_round 2147483648", _game("tournament_round", "2147483648"), "E_NUMBER_RANGE"
    ),
    CsvCase("started_at 1900", _game("started_at", "1900-01-01"), "E_TS_RANGE"),
    CsvCase("surrogate in overrides", _game("overrides", '{"\\ud800": 1}'), "E_SURROGATE"),
    CsvCase("NaN in overrides", _game("overrides", '{"stake": NaN}'), "E_NUMBER_RANGE"),
    CsvCase("empty ruleset", _game("ruleset", ""), "E_SCHEMA", says="expected a preset name"),
    CsvCase(
        "more rows than a game has",
        _csv_too_long,
        "E_GAME_TOO_LONG",
        says=f"more than {MAX_ACTIONS}",
    ),
]


def write_csv(path: Path, games: Rows, actions: Rows) -> Path:
    path.with_name(path.stem + ".games.csv").write_text(to_text(games), encoding="utf-8")
    path.write_text(to_text(actions), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", CSV_CASES, ids=lambda c: c.name)
def test_csv_bad_value_is_one_reject_and_the_good_games_land(
    tmp_path: Path, good: list[Game], base: Game, case: CsvCase
) -> None:
    games, actions = _csv_rows([good[0], base, good[1]])
    case.change(games, actions)
    path = write_csv(tmp_path / "day.csv", games, actions)
    first = next(i for i, row in enumerate(actions) if row[0] == "bad") + 1
    got = import_files([path], tmp_path / "wh")
    assert got.games == ["good-0", "good-1"]
    assert got.rejects == [(case.code, str(path), first, "bad", case.action_index)]
    assert case.says in got.messages[0]
    assert got.summary.total().rejected == 1


def test_a_too_long_csv_game_keeps_only_a_bound_of_rows(
    tmp_path: Path, good: list[Game], base: Game
) -> None:
    games, actions = _csv_rows([base, good[0]])
    _csv_too_long(games, actions)
    path = write_csv(tmp_path / "long.csv", games, actions)
    got = import_files([path], tmp_path / "wh")
    assert got.games == ["good-0"]
    with Warehouse(tmp_path / "wh").connect() as con:
        row = con.execute("select raw from rejects").fetchone()
    assert row is not None
    # the games row, the header and at most MAX_ACTIONS action rows: the rest were not kept
    assert len(row[0].splitlines()) == 2 + 1 + MAX_ACTIONS


def test_a_csv_game_id_that_is_not_utf8_is_a_reject_with_the_bytes_escaped(
    tmp_path: Path, good: list[Game], base: Game
) -> None:
    games, actions = _csv_rows([good[0], base, good[1]])
    path = write_csv(tmp_path / "day.csv", games, actions)
    path.write_bytes(path.read_bytes().replace(b"\nbad,", b"\nbad\xff,"))
    first = next(i for i, row in enumerate(actions) if row[0] == "bad") + 1
    got = import_files([path], tmp_path / "wh")
    assert got.games == ["good-0", "good-1"]
    games_path = str(path.with_name("day.games.csv"))
    assert got.rejects == [
        ("E_ENCODING", str(path), first, "bad\\xff", 0),
        ("E_CSV_NO_ACTIONS", games_path, 3, "bad", None),  # its games row has no actions now
    ]


def test_an_unknown_csv_column_is_one_reject_and_every_game_lands(
    tmp_path: Path, good: list[Game], base: Game
) -> None:
    games, actions = _csv_rows([good[0], base, good[1]])
    add_column(actions, "server_ms", lambda row: "17")
    add_column(games, "table_name", lambda row: "the big table")
    path = write_csv(tmp_path / "day.csv", games, actions)
    got = import_files([path], tmp_path / "wh")
    assert got.games == ["bad", "good-0", "good-1"]
    games_path = str(path.with_name("day.games.csv"))
    assert got.rejects == [
        ("E_CSV_COLUMN", str(path), 1, None, None),
        ("E_CSV_COLUMN", games_path, 1, None, None),
    ]
    assert "'server_ms'" in got.messages[0] and "'table_name'" in got.messages[1]


# ----- the time zone of the importing machine -------------------------------------------------


def test_zone_less_times_import_the_same_in_any_machine_zone(tmp_path: Path, base: Game) -> None:
    """Times without a zone are UTC (a Decision in docs/log-format.md): the same file imported
    under TZ=UTC and TZ=Asia/Hong_Kong stores the same rows."""
    game = copy.deepcopy(base)
    game["started_at"] = "2026-11-01T20:00:00"
    for i, action in enumerate(game["actions"]):
        action["ts"] = f"2026-11-01T20:{i // 60:02d}:{i % 60:02d}"
    log = tmp_path / "local.jsonl"
    log.write_text(dumps(game) + "\n", encoding="utf-8")
    stored = {}
    for zone in ("UTC", "Asia/Hong_Kong"):
        wh_dir = tmp_path / zone.replace("/", "-")
        env = {**os.environ, "TZ": zone, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "pipeline.cli", "ingest", str(log), "-w", str(wh_dir)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        with Warehouse(wh_dir).connect() as con:
            stored[zone] = (
                con.execute("select started_at, content_hash from games").fetchall(),
                con.execute("select epoch_ms(ts) from actions order by action_index").fetchall(),
            )
    assert stored["UTC"] == stored["Asia/Hong_Kong"]
    games, ts = stored["UTC"]
    assert games[0][0] == "2026-11-01T20:00:00+00:00"
    assert ts[0][0] == 1_793_563_200_000  # 2026-11-01T20:00:00Z


# ----- the row builder's last line of defence -----------------------------------------------


def replayed(game: Game, **changes: Any) -> ReplayedGame:
    """A replayed game whose record is then changed past the readers' checks."""
    record = record_from_obj(
        game, source=Source("made.jsonl", 7), raw=dumps(game), content_hash=content_hash(game)
    )
    done = replay(record)
    assert isinstance(done, ReplayedGame)
    return dataclasses.replace(done, record=dataclasses.replace(record, **changes))


@pytest.mark.parametrize(
    "changes",
    [{"game_number": 2**31}, {"tournament_round": 2**40}, {"table_id": "t-\ud800"}],
    ids=["game_number", "tournament_round", "surrogate"],
)
def test_a_game_whose_rows_cannot_be_built_is_a_reject_and_the_chunk_lands(
    tmp_path: Path, good: list[Game], base: Game, changes: dict[str, Any]
) -> None:
    bad = replayed(base, **changes)
    rows = RowBuffer("b1")
    for k in range(9):
        rows.add_game(replayed(dict(good[k % 2], game_id=f"ok-{k}")))
        if k == 5:
            rows.add_game(bad)
    tables = rows.take()
    assert [r.code for r in rows.failed] == ["E_ROW_BUILD"]
    assert (rows.failed[0].source.file, rows.failed[0].source.line) == ("made.jsonl", 7)
    column = next(iter(changes))
    assert f"games.{column}" in rows.failed[0].message
    wh = Warehouse(tmp_path / "wh")
    with wh.batch() as batch:
        batch.add_rows(tables)
    with wh.connect() as con:
        ids = {r[0] for r in con.execute("select game_id from games").fetchall()}
        rejects = con.execute("select code, file, line, game_id from rejects").fetchall()
    assert ids == {f"ok-{k}" for k in range(9)}
    assert rejects == [("E_ROW_BUILD", "made.jsonl", 7, "bad")]
    assert wh.verify(marts=False) == []  # no marts built: the stored data


def test_a_chunk_counts_a_row_build_failure_as_a_reject(good: list[Game], base: Game) -> None:
    """A chunk's rows: a record that replays but cannot be stored is a counted reject."""
    bad = replayed(base, game_number=2**31).record
    ok = [replayed(dict(good[k % 2], game_id=f"ok-{k}")).record for k in range(4)]
    result = chunk_rows([ok[0], ok[1], bad, ok[2], ok[3]], "b1")
    assert result.reject_codes == ["E_ROW_BUILD"]
    assert result.tables[Table.GAMES].num_rows == 4
    assert result.tables[Table.REJECTS]["game_id"].to_pylist() == ["bad"]


# ----- the limits are the schemas' ------------------------------------------------------------


def test_the_readers_limits_fit_the_warehouse_columns() -> None:
    assert check_record_limits() == []
    assert int_range(SCHEMAS[Table.GAMES].field("game_number").type)[1] == INT32_MAX
    assert RECORD_LIMITS[(Table.ACTIONS, "action_index")] == MAX_ACTIONS == 52 * 52 + 2
    assert int_range(pa.int8())[1] >= N_CARDS


def test_the_json_schema_states_the_same_limits() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    props = schema["properties"]
    assert props["game_number"]["maximum"] == props["tournament_round"]["maximum"] == INT32_MAX
    assert props["actions"]["maxItems"] == MAX_ACTIONS
    seat = props["seats"]["items"]["properties"]
    assert seat["balance"]["maximum"] == -seat["balance"]["minimum"] == BALANCE_MAX
    ts = props["actions"]["items"]["properties"]["ts"]["oneOf"][0]
    assert (ts["minimum"], ts["maximum"]) == (TS_MIN, TS_MAX)
    assert props["start_counts"]["items"]["maximum"] == N_CARDS
