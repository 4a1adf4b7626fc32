"""Score sheets (issue 17): games known only by their result, through the real ingest and build.

The golden test is the README example of the open-source big-two-scorer (``examples/simple.txt``
there, copied to ``tests/data/scoresheet/simple.txt`` with its source noted) and the table that
README publishes for it, under the matching ruleset: hk with the scorer's default fry
threshold (F=10 → ×2 from 10 cards, ×3 at 13) and ``bao_place = all_cards``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline.big2.scoresheet import fry_tiers
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.logs.model import Reject
from pipeline.logs.reader import log_shape, read_log
from pipeline.logs.scoresheet import SheetRules
from pipeline.sqlbuild import build, ruleset_json, run_tests
from pipeline.warehouse import Warehouse

DATA = Path(__file__).resolve().parent / "data" / "scoresheet"
SIMPLE = DATA / "simple.txt"
CLUB_SHEET = DATA.parents[2] / "data" / "samples" / "club-sheet.csv"
SCORER_RULES = SheetRules("hk", (("bao_place", "all_cards"),))

#: big-two-scorer README, "Simple example": name → (game_count, win_count, fry_count,
#: real_losses, net_score), the `*` row the sum of all players.
PUBLISHED = {
    "a": (2, 1, 0, 1, 84),
    "x": (2, 1, 0, 9, -27),
    "b": (4, 1, 1, 23, 5),
    "c": (4, 0, 1, 25, -3),
    "d": (4, 1, 1, 39, -59),
    "*": (16, 4, 3, 97, 0),
}

PER_PLAYER = """
    select coalesce(player_id, '*') as name,
           count(*) filter (where is_scored) as games,
           count(*) filter (where is_winner) as wins,
           count(*) filter (where multiplier > 1) as fries,
           sum(penalty_charged)::bigint as real_losses,
           sum(net)::bigint as net
    from {source}
    group by rollup (player_id)
"""


def _rows(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> dict[str, tuple[int, ...]]:
    return {r[0]: tuple(r[1:]) for r in con.execute(sql, list(params)).fetchall()}


def _warehouse(tmp_path: Path, paths: list[Path], rules: SheetRules = SCORER_RULES) -> Warehouse:
    wh = Warehouse(tmp_path / "wh")
    ingest([str(p) for p in paths], wh, workers=1, rules=rules)
    build(wh)
    return wh


def test_scorer_readme_example_reproduces_its_table(tmp_path: Path) -> None:
    con = _warehouse(tmp_path, [SIMPLE]).connect()
    got = _rows(con, PER_PLAYER.format(source="mart_game_scores"))
    assert got == PUBLISHED
    games = con.execute(
        "select distinct match_key, info_level, n_actions from stg_games order by 1"
    ).fetchall()
    # two sessions (a names line each), known by their result only
    assert games == [("simple:undated:1", "result", 0), ("simple:undated:2", "result", 0)]
    assert not [name for name, n in run_tests(con).items() if n]


def test_rescore_under_the_other_reading(tmp_path: Path) -> None:
    """bao_place = net_losses (seed 002): the violator pays the other losers' net losses.
    Worked by hand: game 3 (3t 0 1 2) place nets −6 / +6 / +2 / −2, d's 2 moved onto x →
    −8 / +6 / +2 / 0; game 4 (0t 1 1 1) is a winner taking on all losses (the last-card call,
    spec 1.6): charged the 3 cards and settled as usual whatever the reading, −9 / +3 / +3 / +3."""
    wh = _warehouse(tmp_path, [SIMPLE])
    con = wh.connect()
    whatif = ruleset_json("hk", {"bao_place": "net_losses", "multiplier_tiers": fry_tiers(10)})
    source = "score_seats(whatif := ?::json)"
    got = _rows(con, PER_PLAYER.format(source=source), whatif)
    nets = {name: row[4] for name, row in got.items()}
    assert nets == {"a": 84, "b": 5, "c": -7, "d": -65, "x": -17, "*": 0}
    # real losses are the same under both readings (the violator is charged every loser's cards)
    assert {n: r[3] for n, r in got.items()} == {n: r[3] for n, r in PUBLISHED.items()}
    result = CliRunner().invoke(
        app,
        ["rescore", "--warehouse", str(wh.root), "--as", "hk", "--set", "bao_place=net_losses",
         "--set", "multiplier_tiers=[[0,1],[10,2],[13,3]]"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "-65" in result.output and "-59" in result.output


def test_fry_lines_dates_and_players(tmp_path: Path) -> None:
    sheet = tmp_path / "club.txt"
    sheet.write_text(
        "2024-01-05  # a Friday\nF=8\namy bob cat dan\n0 8 1 13\n"
        "2024-01-12\namy bob cat eve\n2 0 1 1\n"
    )
    con = _warehouse(tmp_path, [sheet], SheetRules()).connect()
    rows = con.execute(
        "select match_key, player_id, penalty from mart_game_scores order by match_key, seat"
    ).fetchall()
    # F=8: ×2 from 8 cards, ×3 at 13; F stays in force on later dates
    assert [r[2] for r in rows] == [0, 16, 1, 39, 2, 0, 1, 1]
    assert {r[0] for r in rows} == {"club:2024-01-05:1", "club:2024-01-12:1"}
    standings = dict(con.execute("select player_id, n_games from mart_player_standings").fetchall())
    assert standings == {"amy": 2, "bob": 2, "cat": 2, "dan": 1, "eve": 1}  # one amy, two days


def test_unreadable_lines_are_rejects_with_file_and_line(tmp_path: Path) -> None:
    sheet = tmp_path / "bad.txt"
    sheet.write_text(
        "0 1 2 3\n"  # 1: losses before names
        "a b c d\n"
        "0 0 1 2\n"  # 3: two winners
        "0 14 1 2\n"  # 4: more cards than the deal
        "0 1t 2t 3\n"  # 5: two players take on all losses
        "0 1 2\n"  # 6: 3 losses for 4 players
        "3 x 4 5\n"  # 7: no known form
        "a a b c\n"  # 8: duplicate names
        "a b c\n0 1 2\n"  # 10: 3 seats, the ruleset plays 4
        "a b c d\n0 1 2 3t\n"  # 12: fine
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert summary.total().stored == 1
    build(wh)
    got = wh.connect().execute("select line, code, file from stg_rejects order by line").fetchall()
    assert [(line, code) for line, code, _ in got] == [
        (1, "E_SHEET_NO_NAMES"),
        (3, "E_SHEET_WINNER"),
        (4, "E_SHEET_COUNT"),
        (5, "E_SHEET_BAO"),
        (6, "E_SHEET_LINE"),
        (7, "E_SHEET_LINE"),
        (8, "E_SHEET_NAMES"),
        (10, "E_SEAT_COUNT"),
    ]
    assert {file for *_, file in got} == {str(sheet.resolve())}


CSV_SHEET = """date,match,players,cards_left,bao_seat,notes,redeal
2024-02-01,feb-1,amy bob cat dan,0 3 10 13,,,
2024-02-01,feb-1,amy bob cat dan,5 0 1 4,amy,missed block,
2024-02-01,feb-1,amy bob cat dan,,,reshuffle,yes
2024-02-08,,amy bob cat eve,1 1 0 2,,,
2024-02-08,,amy bob cat eve,1 1 1,,,
"""


def test_csv_score_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "scores.csv"
    sheet.write_text(CSV_SHEET)
    assert log_shape(sheet) == "sheet"
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (4, {"E_SHEET_LINE": 1})
    build(wh)
    con = wh.connect()
    games = con.execute(
        "select match_key, game_number, outcome, winner, bao_seat, info_level from stg_games "
        "order by match_key, game_number"
    ).fetchall()
    assert games == [
        ("feb-1", 1, "played_out", 0, None, "result"),
        ("feb-1", 2, "played_out", 1, 0, "result"),
        ("feb-1", 3, "redeal", None, None, "result"),
        ("scores:2024-02-08", 1, "played_out", 2, None, "result"),
    ]
    line = con.execute("select line from stg_rejects").fetchone()
    assert line == (6,)
    # hk: tiers 8→×2, 10→×3, 13→×4: 0 / 3 / 30 / 52, place settlement
    nets = con.execute(
        "select net from mart_game_scores where match_key = 'feb-1' and game_number = 1 order by seat"
    ).fetchall()
    assert [n for (n,) in nets] == [85 - 0, 85 - 12, 85 - 120, 85 - 208]
    assert not [name for name, n in run_tests(con).items() if n]


def test_a_tab_separated_sheet_reads_as_the_comma_one(tmp_path: Path) -> None:
    """Excel's "Unicode text" converted to UTF-8 (``iconv -f UTF-16``, as the import says) is
    tab-separated, often a ``.txt``: it was no log (a ``.txt`` no scorer file: passed over) or,
    named ``.csv``, no sheet. A header with tabs and no comma now reads as the comma sheet:
    the same games and rejects, in ``.txt``, ``.tsv`` and ``.csv`` alike."""
    comma = tmp_path / "scores.csv"
    comma.write_text(CSV_SHEET)
    tabbed = CSV_SHEET.replace(",", "\t").replace("\n", "\r\n")
    paths = [tmp_path / "tab" / f"scores{suffix}" for suffix in (".txt", ".tsv", ".csv")]
    paths[0].parent.mkdir()
    for path in paths:
        path.write_text(tabbed, encoding="utf-8-sig")
        assert log_shape(path) == "sheet", path

    def reading(path: Path) -> list[Any]:
        return [
            (r.source.line, r.code, r.message)
            if isinstance(r, Reject)
            else (r.game_id, r.started_at, r.seats, r.sheet)
            for r in read_log(path)
        ]

    want = reading(comma)
    assert len(want) == 5 and want[-1] == (6, "E_SHEET_LINE", "3 counts for 4 players")
    assert all(reading(path) == want for path in paths)
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(paths[0])], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (4, {"E_SHEET_LINE": 1})
    with wh.connect() as con:
        raw = con.execute("select raw from rejects").fetchone()
    assert raw == ("2024-02-08\t\tamy bob cat eve\t1 1 1\t\t\t",)
    scorer = tmp_path / "tab" / "club.txt"  # a scorer file stays one
    scorer.write_text("amy bob cat dan\n0 8 1 13\n")
    assert log_shape(scorer) == "scorer"


def test_a_row_with_more_cells_than_the_header_is_a_reject(tmp_path: Path) -> None:
    # an unquoted comma in the notes: csv.DictReader keeps the cells past the header in a
    # list, which crashed the whole import with a TypeError (a traceback, nothing stored)
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,bao_seat,notes,redeal\n"
        "2024-02-01,feb-1,amy bob cat dan,0 3 10 13,,,\n"
        "2024-02-01,feb-1,amy bob cat dan,5 0 1 4,amy,missed block, on cat,\n"
        "2024-02-01,feb-1,amy bob cat dan,1 0 1 4\n"
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (2, {"E_SHEET_LINE": 1})
    line, message, raw = (
        wh.connect().execute("select line, message, raw from rejects").fetchall()[0]
    )
    assert line == 3
    assert message == (
        "row has 8 cells, the header 7 (a comma inside a cell needs the cell in double quotes)"
    )
    assert "missed block" in raw


def test_a_sheet_column_the_reader_does_not_know_is_said_once(tmp_path: Path) -> None:
    """A column of no known name (a typo: ``bao`` for ``bao_seat``) was silently ignored, the
    包牌 with it: one E_CSV_COLUMN at line 1, as a CSV pair's. Excel's empty unnamed columns are
    ignored without a word; a value in one is one E_CSV_COLUMN at its first row, the row's
    cells kept in their places; the games are imported."""
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,bao,,\n"
        "2024-02-01,feb-1,amy bob cat dan,0 3 10 13,amy,,\n"
        "2024-02-01,feb-1,amy bob cat dan,5 0 1 4,, ,\n"
        "2024-02-01,feb-1,amy bob cat dan,5 0 1 4,,,x\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 1 4,,y,\n"
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (4, {"E_CSV_COLUMN": 2})
    rejects = wh.connect().execute("select line, message, raw from rejects order by line")
    (l1, m1, _), (l4, m4, raw4) = rejects.fetchall()
    assert (l1, l4) == (1, 4)
    assert m1.startswith("score sheet CSV header: unknown column(s) 'bao' ignored")
    assert m4.startswith("score sheet CSV line 4: column 7 has no name in the header but holds 'x'")
    assert raw4 == "2024-02-01,feb-1,amy bob cat dan,5 0 1 4,,,x"
    clean = tmp_path / "clean.csv"  # Excel's empty columns alone: nothing to say
    clean.write_text(
        "date,match,players,cards_left,,,\n2024-02-02,feb-2,amy bob cat dan,0 3 10 13,,,\n"
    )
    summary = ingest([str(clean)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (1, {})


def test_a_date_that_is_no_calendar_day_is_a_reject(tmp_path: Path) -> None:
    # 2026-13-45 has the YYYY-MM-DD shape: it was stored as the game's started_at, which
    # stg_games casts to NULL, so the game dropped silently out of every report by day
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left\n"
        "2026-10-30,m,amy bob cat dan,0 3 10 13\n"
        "2026-13-45,m,amy bob cat dan,5 0 1 4\n"
        "2023-02-29,m,amy bob cat dan,5 0 1 4\n"
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (1, {"E_SHEET_LINE": 2})
    got = wh.connect().execute("select line, message from rejects order by line").fetchall()
    assert got == [
        (3, "date '2026-13-45' is no day of the calendar"),
        (4, "date '2023-02-29' is no day of the calendar"),
    ]


def test_a_scorer_date_that_is_no_day_rejects_its_games_until_fixed(tmp_path: Path) -> None:
    """A scorer date line of no day (2026-13-45) was stored as the games' started_at, which
    stg_games casts to NULL: the games dropped out of every report by day; a date line not
    YYYY-MM-DD (2026/11/6) was a line of no known form and its games were stored under the
    day before. Each is now a reject, and so is each game under it, naming the line; fixing
    the dates and importing again stores those games, and nothing twice."""
    sheet = tmp_path / "club.txt"
    text = (
        "2026-10-30\namy bob cat dan\n0 8 1 13\n"
        "2026-13-45\namy bob cat dan\n0 8 1 13\n3t 0 1 2\n"
        "F=8\namy bob cat eve\n1 0 2 3\n"  # 10: a second session, same bad day
        "2026/11/6\namy bob cat dan\n2 0 1 1\n"
        "2026-11-13\namy bob cat dan\n5 0 1 1\n"
    )
    sheet.write_text(text)
    wh = Warehouse(tmp_path / "wh")
    first = ingest([str(sheet)], wh, workers=1)
    assert first.total().stored == 2
    with wh.connect() as con:
        got = con.execute("select line, code, message from rejects order by line").fetchall()
        dates = con.execute("select game_id, started_at from games order by 1").fetchall()
    assert [(line, code) for line, code, _ in got] == [
        (4, "E_SHEET_LINE"), (6, "E_SHEET_DATE"), (7, "E_SHEET_DATE"), (10, "E_SHEET_DATE"),
        (11, "E_SHEET_LINE"), (13, "E_SHEET_DATE"),
    ]  # fmt: skip
    assert got[0][2].startswith("date '2026-13-45' is no day of the calendar")
    assert got[1][2].startswith("a game under line 4's date '2026-13-45', which is no day")
    assert got[4][2].startswith("date '2026/11/6' is not YYYY-MM-DD")
    assert "line 11's date '2026/11/6'" in got[5][2]
    assert dates == [("club:2026-10-30:1#1", "2026-10-30"), ("club:2026-11-13:1#1", "2026-11-13")]
    sheet.write_text(text.replace("2026-13-45", "2026-11-02").replace("2026/11/6", "2026-11-06"))
    again = ingest([str(sheet)], wh, workers=1)
    assert (again.total().stored, again.total().duplicate, again.reasons) == (4, 2, {})
    with wh.connect() as con:
        ids = [i for (i,) in con.execute("select game_id from games order by 1").fetchall()]
    assert ids == [
        "club:2026-10-30:1#1", "club:2026-11-02:1#1", "club:2026-11-02:1#2",
        "club:2026-11-02:2#1", "club:2026-11-06:1#1", "club:2026-11-13:1#1",
    ]  # fmt: skip
    # a losses line mistyped with dashes is no date: its line alone is rejected
    sheet.write_text("2026-10-30\namy bob cat\n0-8-1\n0 8 1\n")
    got = [r.message[:12] if isinstance(r, Reject) else r.game_id for r in read_log(sheet)]
    assert got == ["not a date, ", "club:2026-10-30:1#1"]
    # a two-digit year is a bad date line, its games not put on the day before
    sheet.write_text("2026-10-30\namy bob cat\n0 8 1\n26-11-02\namy bob cat\n8 0 1\n")
    got = [r.code if isinstance(r, Reject) else r.game_id for r in read_log(sheet)]
    assert got == ["club:2026-10-30:1#1", "E_SHEET_LINE", "E_SHEET_DATE"]


def test_bytes_that_are_not_utf8_are_rejects_not_replaced(tmp_path: Path) -> None:
    # a sheet saved as Latin-1: the reader decoded it with errors="replace", so "José" was
    # stored as "Jos\ufffd", a player of its own, with no reject
    sheet = tmp_path / "club.csv"
    sheet.write_bytes(
        b"date,match,players,cards_left,bao_seat,notes,redeal\n"
        b"2024-02-01,feb-1,amy bob cat dan,0 3 10 13,,,\n"
        b"2024-02-01,feb-1,Jos\xe9 bob cat dan,5 0 1 4,,,\n"
    )
    scorer = tmp_path / "club.txt"
    scorer.write_bytes(
        b"2024-01-05\n"
        b"amy bob cat dan  # caf\xe9 night\n"  # only the comment: the line reads
        b"0 8 1 13\n"
        b"Jos\xe9 bob cat dan\n"  # names that are not UTF-8: a reject ...
        b"3 0 1 2\n"  # ... and losses after it name no players
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet), str(scorer)], wh, workers=1)
    assert summary.total().stored == 2
    got = (
        wh.connect()
        .execute(
            "select regexp_extract(file, '[^/]+$'), line, code, message, raw from rejects "
            "order by file, line"
        )
        .fetchall()
    )
    assert got == [
        (
            "club.csv",
            3,
            "E_ENCODING",
            "byte 0xe9 at offset 20 is not UTF-8 (invalid continuation byte)",
            "2024-02-01,feb-1,Jos\\xe9 bob cat dan,5 0 1 4,,,",
        ),
        (
            "club.txt",
            4,
            "E_ENCODING",
            "byte 0xe9 at offset 3 is not UTF-8 (invalid continuation byte)",
            "Jos\\xe9 bob cat dan",
        ),
        ("club.txt", 5, "E_SHEET_NO_NAMES", "losses before any line of player names", "3 0 1 2"),
    ]
    names = wh.connect().execute("select distinct player_id from seats order by 1").fetchall()
    assert names == [("amy",), ("bob",), ("cat",), ("dan",)]


def test_numbers_no_int_reads_are_rejects_not_a_crash(tmp_path: Path) -> None:
    # a superscript ² passed str.isdigit and int() refused it; a number of over 4,300 digits
    # int() refuses too: each was a ValueError that stopped the whole import (a traceback)
    many = "9" * 5000
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,bao_seat,tournament_round\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 \u00b2,,\n"
        f"2024-02-01,feb-1,amy bob cat dan,0 1 2 {many},,\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 3,,\u00b9\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 3,,\n"
    )
    scorer = tmp_path / "club.txt"
    scorer.write_text(f"F={many}\namy bob cat dan\n0 1 2 {many}\n0 13 13 12\n")
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet), str(scorer)], wh, workers=1)
    assert summary.total().stored == 2
    got = (
        wh.connect()
        .execute(
            "select regexp_extract(file, '[^/]+$'), line, code from rejects order by file, line"
        )
        .fetchall()
    )
    assert got == [
        ("club.csv", 2, "E_SHEET_LINE"),
        ("club.csv", 3, "E_NUMBER_RANGE"),
        ("club.csv", 4, "E_SHEET_LINE"),
        ("club.txt", 3, "E_NUMBER_RANGE"),
    ]
    # F= past any hand: no frying, as F=14 (the scorer's rule)
    tiers = wh.connect().execute("select overrides from games where game_id like 'club:%'")
    assert json.loads(tiers.fetchone()[0])["multiplier_tiers"] == [[0, 1]]


def test_a_tournament_round_outside_a_hand_logs_range_is_a_reject(tmp_path: Path) -> None:
    # round 0 was stored (a hand log refuses it); 99999999999 reached the row builder's last
    # line of defence (E_ROW_BUILD, an ArrowInvalid) instead of a hand log's E_NUMBER_RANGE
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,tournament_id,tournament_kind,tournament_round\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 3,t1,points,0\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 3,t1,points,99999999999\n"
        "2024-02-01,feb-1,amy bob cat dan,0 1 2 3,t1,points,1\n"
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert summary.total().stored == 1
    got = wh.connect().execute("select line, code, message from rejects order by line")
    assert got.fetchall() == [
        (2, "E_SHEET_LINE", "tournament_round: expected a number ≥ 1, got 0"),
        (
            3,
            "E_NUMBER_RANGE",
            "tournament_round: 99999999999 is larger than 2,147,483,647, the most this field can hold",
        ),
    ]


def test_an_override_number_beyond_2_53_is_a_reject_as_in_a_hand_log(tmp_path: Path) -> None:
    # a hand log's override beyond ±2**53 is E_NUMBER_RANGE; a sheet's (its overrides cell, or
    # --set) was stored, and the marts' nets then failed the SQL test score_payments_match_nets
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,overrides\n"
        '2024-02-01,feb-1,amy bob cat dan,0 1 2 3,"{""stake"": 99999999999999999999999}"\n'
        '2024-02-01,feb-1,amy bob cat dan,0 1 2 3,"{""stake"": 5}"\n'
    )
    scorer = tmp_path / "club.txt"
    scorer.write_text("amy bob cat dan\n0 1 2 3\n")
    wh = Warehouse(tmp_path / "wh")
    big = SheetRules("hk", (("stake", 10**23),))
    assert ingest([str(sheet)], wh, workers=1).total().stored == 1
    assert ingest([str(scorer)], wh, workers=1, rules=big).total().stored == 0
    got = wh.connect().execute(
        "select regexp_extract(file, '[^/]+$'), line, code, message from rejects order by file"
    )
    assert got.fetchall() == [
        (
            "club.csv",
            2,
            "E_NUMBER_RANGE",
            "overrides.stake: 99999999999999999999999 is not a number between -2**53 and 2**53",
        ),
        (
            "club.txt",
            2,
            "E_NUMBER_RANGE",
            "overrides.stake: 100000000000000000000000 is not a number between -2**53 and 2**53",
        ),
    ]


def test_a_gzip_sheet_cut_short_keeps_the_games_before(tmp_path: Path) -> None:
    # both sheet readers read the file whole with fh.read(): the gzip module's EOFError went
    # through the import, which the CLI printed as "Aborted." (exit 1), nothing stored
    rows = "".join(f"2024-02-{d:02d},m{d},amy bob cat dan,0 {d % 13} 2 3\n" for d in range(1, 29))
    cut = tmp_path / "club.csv.gz"
    data = gzip.compress(f"date,match,players,cards_left\n{rows}".encode())
    cut.write_bytes(data[: len(data) // 2])
    text = gzip.decompress(data).decode()
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(cut)], wh, workers=1)
    [(line, code, message)] = (
        wh.connect().execute("select line, code, message from rejects").fetchall()
    )
    assert code == "E_GZIP_TRUNCATED"
    assert message.startswith(f"the compressed file ends early after line {line - 1} (")
    # every whole row before the cut is a game (the header is line 1)
    assert 2 < line < text.count("\n") and summary.total().stored == line - 2


def test_a_cell_past_the_csv_field_limit_is_a_reject(tmp_path: Path) -> None:
    # csv's field size limit (128 KiB): its csv.Error went through the whole import
    # (a traceback, exit 1, nothing stored)
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,notes\n"
        f'2024-02-01,feb-1,amy bob cat dan,0 3 10 13,"{"x" * 200_000}"\n'
        "2024-02-01,feb-1,amy bob cat dan,5 0 1 4,fine\n"
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1)
    assert (summary.total().stored, summary.reasons) == (1, {"E_SHEET_LINE": 1})
    [(line, message, raw)] = (
        wh.connect().execute("select line, message, raw from rejects").fetchall()
    )
    assert (line, message) == (2, "row unreadable as CSV: field larger than field limit (131072)")
    assert raw.startswith("2024-02-01,feb-1,amy bob cat dan,0 3 10 13,") and len(raw) == 4096


def test_header_without_the_columns_is_one_reject(tmp_path: Path) -> None:
    sheet = tmp_path / "x.csv"
    sheet.write_text("date,players,cards_left,whatever\n2024-01-01,a b c d,0 1 2 3\n")
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(sheet)], wh, workers=1, log_format="sheet")
    assert summary.reasons == {"E_SHEET_HEADER": 1}


def test_play_level_marts_leave_result_only_games_out(tmp_path: Path) -> None:
    from tests.marts_helpers import golden_game

    log = tmp_path / "hands.jsonl"
    log.write_text(json.dumps(golden_game()) + "\n")
    sheet = tmp_path / "s.txt"
    sheet.write_text("g0 g1 g2 g3\n0 5 6 7\n1t 0 2 3\n")
    con = _warehouse(tmp_path, [log, sheet], SheetRules()).connect()
    stats = con.execute(
        "select count(*), count(distinct game_id) from stats_player_games"
    ).fetchone()
    assert stats == (4, 1)  # the hand log only
    audit = con.execute("select sum(bao_paid) from audit_players").fetchone()
    hand_bao = con.execute(
        "select sum(bao_paid) from mart_game_scores where game_id = 'golden-1'"
    ).fetchone()
    assert audit == hand_bao  # the sheet's 包牌 is no audited violation
    n = con.execute("select sum(n_games) from mart_player_standings").fetchone()
    assert n == (12,)  # standings count both
    assert not [name for name, k in run_tests(con).items() if k]


def test_cli_ingest_options(tmp_path: Path) -> None:
    odd = tmp_path / "scores"  # no suffix: named by --format
    odd.write_text(SIMPLE.read_text())
    wh = tmp_path / "wh"
    base = ["ingest", str(odd), "--warehouse", str(wh)]
    bad = CliRunner().invoke(app, [*base, "--set", "bao_plac=all_cards"])
    assert bad.exit_code == 2 and "E_RULESET_KEY" in bad.output
    unknown = CliRunner().invoke(app, [*base, "--format", "pdf"])
    assert unknown.exit_code == 2 and "--format 'pdf'" in unknown.output
    done = CliRunner().invoke(app, [*base, "--format", "scorer", "--set", "bao_place=all_cards"])
    assert done.exit_code == 0, done.output
    con = Warehouse(wh).connect()
    assert _rows(con, PER_PLAYER.format(source="mart_game_scores")) == PUBLISHED
    stored = con.execute("select distinct ruleset, overrides from stg_games").fetchall()
    assert len(stored) == 1 and json.loads(stored[0][1])["bao_place"] == "all_cards"


@pytest.mark.parametrize(
    ("name", "text", "shape"),
    [
        ("a.txt", "# club\n2024-01-01\na b c d\n0 1 2 3\n", "scorer"),
        ("b.txt", "a b c d\n0 1 2 3\n", "scorer"),
        ("c.txt", "shopping list: eggs\n", None),
        ("d.csv", "game_id,seq,seat,action,cards,ts\n", "csv"),
    ],
)
def test_shape_by_content(tmp_path: Path, name: str, text: str, shape: str | None) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert log_shape(path) == shape


def test_export_of_a_result_only_game(tmp_path: Path) -> None:
    wh = _warehouse(tmp_path, [CLUB_SHEET], SheetRules())
    base = ["export", "club-2026-10-30#3", "--warehouse", str(wh.root)]
    text = CliRunner().invoke(app, base)
    assert text.exit_code == 0, text.output
    assert "result only: a score sheet's line" in text.output
    assert "seat 3 Dev: 5 left → -14 包牌" in text.output  # no "(?)" hand: none was ever known
    line = CliRunner().invoke(app, [*base, "--format", "jsonl"])
    assert line.exit_code == 2 and "E_RESULT_ONLY" in line.output


def test_spec_example_under_both_readings(tmp_path: Path) -> None:
    """Spec 1.6 / 1.10 example 4: losses 3 (the violator), 1, 4 and a winner. Worked by hand,
    tiers ×1 (F=1000), place: before 包牌 −4 / +4 / −8 / +8; net_losses moves the loser of 4's
    −8 onto the violator (−12 / +4 / 0 / +8); all_cards charges it all 8 cards, settled as if
    the others had none (−24 / +8 / +8 / +8)."""
    sheet = tmp_path / "bao.txt"
    sheet.write_text("F=1000\nv one four w\n3t 1 4 0\n")
    con = _warehouse(tmp_path, [sheet], SheetRules()).connect()
    own = con.execute("select net, penalty_charged from mart_game_scores order by seat").fetchall()
    assert own == [(-12, 8), (4, 0), (0, 0), (8, 0)]
    whatif = ruleset_json("hk", {"bao_place": "all_cards", "multiplier_tiers": fry_tiers(1000)})
    other = con.execute(
        "select net from score_seats(whatif := ?::json) order by seat", [whatif]
    ).fetchall()
    assert [n for (n,) in other] == [-24, 8, 8, 8]


def test_bao_place_is_validated() -> None:
    from pipeline.big2.rules import load_ruleset
    from pipeline.errors import RulesetError

    assert load_ruleset("hk").bao_place == "net_losses"
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"bao_place": "everything"})
    assert err.value.code == "E_RULESET_VALUE" and "bao_place" in err.value.message


def test_a_points_tournament_on_a_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "cup.csv"
    rows = ["date,match,players,cards_left,tournament_id,tournament_kind,tournament_round"]
    for i, counts in enumerate(["0 1 2 3", "1 0 2 3", "0 5 5 5", "2 2 0 1", "0 1 1 1"], 1):
        rows.append(f"2024-03-0{i},cup,a b c d,{counts},cup-1,points,{i}")
    sheet.write_text("\n".join(rows) + "\n")
    con = _warehouse(tmp_path, [sheet], SheetRules()).connect()
    got = con.execute(
        "select player_id, standing from mart_tournament_standings where tournament_id = 'cup-1' "
        "order by standing"
    ).fetchall()
    totals = dict(
        con.execute(
            "select player_id, sum(score) from mart_game_scores group by 1 order by 2 desc"
        ).fetchall()
    )
    assert [p for p, _ in got] == list(totals) and got[0][0] == "a"
    assert not [name for name, n in run_tests(con).items() if n]


@pytest.mark.parametrize(
    ("settings", "column", "expected"),
    [
        # place (either reading): charged 6, settled as usual: −3 × 6 / +6 each
        ((), "net", [-18, 6, 6, 6]),
        ((("bao_place", "all_cards"),), "net", [-18, 6, 6, 6]),
        # winner_takes_all (Decision, spec 1.6): the winner pays each loser its own penalty
        ((("settlement", "winner_takes_all"),), "net", [-6, 1, 2, 3]),
        # penalty_points: the winner is charged the losers' penalties, the losers none
        ((("settlement", "penalty_points"),), "points", [6, 0, 0, 0]),
    ],
)
def test_a_winner_taking_on_all_losses(
    tmp_path: Path, settings: tuple[tuple[str, Any], ...], column: str, expected: list[int]
) -> None:
    """The scorer's ``0t``: the winner went out without calling the last card."""
    sheet = tmp_path / "call.txt"
    sheet.write_text("a b c d\n0t 1 2 3\n")
    con = _warehouse(tmp_path, [sheet], SheetRules("hk", settings)).connect()
    got = con.execute(f"select {column} from mart_game_scores order by seat").fetchall()
    assert [v for (v,) in got] == expected
    assert not [name for name, n in run_tests(con).items() if n]


def test_reimport_stores_nothing_twice_and_workers_agree(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    first = ingest([str(SIMPLE), str(CLUB_SHEET)], wh, workers=2, rules=SCORER_RULES)
    again = ingest([str(SIMPLE), str(CLUB_SHEET)], wh, workers=1, rules=SCORER_RULES)
    assert (first.total().stored, again.total().stored, again.total().duplicate) == (11, 0, 11)
    other = ingest([str(SIMPLE)], wh, workers=1)  # other rules for the same games: conflicts
    assert other.reasons == {"E_CONFLICT": 4}
    with wh.connect() as con:  # each conflict's reject keeps its sheet row, read back
        kept = con.execute("select line, raw from rejects where code = 'E_CONFLICT' order by line")
        rows = SIMPLE.read_text(encoding="utf-8").splitlines()
        assert kept.fetchall() == [(n, rows[n - 1]) for n in (5, 6, 9, 10)]


def test_full_width_digits_and_spaces_read_as_counts(tmp_path: Path) -> None:
    """A Chinese keyboard's full-width digits and spaces (０ ８, U+3000) are counts: a scorer
    losses line so written is a game (it was read as a names line: players ０ ８ １ １３, no
    game, no reject); a CSV sheet's cells so written, and Excel's trailing empty columns and
    empty rows, read as the ASCII ones."""
    scorer = tmp_path / "club.txt"
    scorer.write_text("amy bob cat dan\r\n０　８　１　１３\r\n3t 0 1 2\r\n", encoding="utf-8")
    assert log_shape(scorer) == "scorer"
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left,bao_seat,notes,redeal,,\r\n"
        "2026-10-30,m1,阿明　小红　陈大文　李四,０ ４ ９ １３,,,,,\r\n,,,,,,,,\r\n",
        encoding="utf-8-sig",
    )
    assert log_shape(sheet) == "sheet"
    got = [
        (r.code if isinstance(r, Reject) else r.sheet.cards_left)
        for path in (scorer, sheet)
        for r in read_log(path)
    ]
    assert got == [(0, 8, 1, 13), (3, 0, 1, 2), (0, 4, 9, 13)]


def test_a_date_in_full_width_digits_is_that_day(tmp_path: Path) -> None:
    """A date typed in full-width digits is the day's ASCII date, in ``started_at`` and the
    match id: the CSV sheet rejected it ('no day of the calendar'), the scorer text stored
    '２０２６-１０-３０' as the date."""
    scorer = tmp_path / "club.txt"
    scorer.write_text("２０２６-１０-３０\namy bob cat dan\n0 8 1 13\n", encoding="utf-8")
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left\n２０２６-１０-３０,,amy bob cat dan,0 4 9 13\n"
    )
    got = [(r.started_at, r.match_id) for p in (scorer, sheet) for r in read_log(p)]
    assert got == [("2026-10-30", "club:2026-10-30:1"), ("2026-10-30", "club:2026-10-30")]


def test_a_date_as_excel_writes_it_on_a_chinese_windows(tmp_path: Path) -> None:
    """Excel writes a date cell as the locale's short date (2026/10/30, 2026/1/5 on a Chinese
    Windows): a CSV sheet's date so written is that day (it was E_SHEET_LINE 'not
    YYYY-MM-DD'); a day-first date is not read, and the reject says how to write it."""
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "date,match,players,cards_left\r\n2026/10/30,,amy bob cat dan,0 4 9 13\r\n"
        "2026/1/5,,amy bob cat dan,4 0 9 13\r\n30/10/2026,,amy bob cat dan,4 9 0 13\r\n",
        encoding="utf-8-sig",
    )
    got = [r.message if isinstance(r, Reject) else r.started_at for r in read_log(sheet)]
    assert got[:2] == ["2026-10-30", "2026-01-05"]
    assert "'30/10/2026' is not YYYY-MM-DD or YYYY/M/D" in str(got[2])
    assert "yyyy-mm-dd" in str(got[2])
