"""The dashboards on result-only games (issue 17): a score sheet beside the hand logs.

The leaderboard, the player page (a player known only from the sheet) and the report (a match
of the sheet) run without errors and show the sheet's games; the play-level panels say the
games without plays are left out rather than counting them as zeros.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dashboards" / "app.py"
SAMPLES = ROOT / "data" / "samples"
SHEET = SAMPLES / "club-sheet.csv"


@pytest.fixture(scope="module")
def sheet_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("dash-sheet") / "warehouse")
    summary = ingest([str(SAMPLES / "games.jsonl"), str(SHEET)], wh, workers=1)
    assert summary.files[str(SHEET.resolve())].stored == 7
    build(wh)
    return wh


def _run(monkeypatch: pytest.MonkeyPatch, wh: Warehouse, page: str) -> AppTest:
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_demo_samples_hold_a_score_sheet(sheet_wh: Warehouse) -> None:
    con = sheet_wh.connect()
    levels = dict(con.execute("select info_level, count(*) from stg_games group by 1").fetchall())
    assert levels["result"] == 7 and levels["full"] >= 1


def test_leaderboard_shows_the_sheet_players(
    sheet_wh: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _run(monkeypatch, sheet_wh, "views/leaderboard.py")
    shown = " ".join(str(df.value.to_string()) for df in at.dataframe)
    assert "Ada" in shown and "Eve" in shown


def test_player_page_for_a_sheet_only_player(
    sheet_wh: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _run(monkeypatch, sheet_wh, "views/overview.py")
    at.sidebar.selectbox(key="f_player").select("Eve").run()
    at.switch_page("views/player.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="pl_player").value == "Eve"
    # the seat effect needs the plays (who led first): a message, not an empty table
    seat_tables = [d for d in at.dataframe if "everyone_win_pct" in d.value.columns]
    assert seat_tables == [], [d.value for d in seat_tables]
    said = " ".join(str(m.value) for m in at.markdown)
    assert "No position after the first leader" in said and "score sheet" in said, said


def test_report_on_a_sheet_match(sheet_wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    at = _run(monkeypatch, sheet_wh, "views/report.py")
    at.selectbox(key="rep_match").select("club-2026-10-30").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(str(df.value.to_string()) for df in at.dataframe)
    assert "Dev" in shown


def test_big2_demo_imports_the_score_sheet(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli import app

    argv = ["demo", "--warehouse", str(tmp_path / "wh"), "--games", "4", "--no-dashboard"]
    result = CliRunner().invoke(app, [*argv, "--log", str(tmp_path / "sim.jsonl.gz")])
    assert result.exit_code == 0, result.output
    con = Warehouse(tmp_path / "wh").connect()
    got = con.execute(
        "select count(*), count(distinct match_key) from stg_games where info_level = 'result'"
    ).fetchone()
    assert got == (7, 2)
    eve = con.execute(
        "select n_games from mart_player_standings where player_id = 'Eve'"
    ).fetchone()
    assert eve == (2,)


def test_replayer_on_a_result_only_game(
    sheet_wh: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIG2_WAREHOUSE", str(sheet_wh.root))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["game_id"] = "club-2026-10-30#3"
    at.run()
    at.switch_page("views/replayer.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
