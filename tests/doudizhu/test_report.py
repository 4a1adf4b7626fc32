"""``big2 report`` and ``big2 export`` on Dou Dizhu games (issues 13 and 14), over real
warehouses: simulated Dou Dizhu matches (both presets) on the evening of the sample logs'
Big Two games, the spec's 004 worked example (docs/log-format.md), and the sample logs alone
for the Big Two-only comparison."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline import report
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.report import Selection, width_of
from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_to_file
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"
DAY = "2026-11-01"
#: A Big Two player of the sample logs who also sits at the first Dou Dizhu match.
SHARED = "p7"
runner = CliRunner()


def worked_example() -> dict[str, Any]:
    """Spec 004's worked example, the first JSON block of docs/log-format.md's Dou Dizhu part,
    on the evening of the sample logs (UTC)."""
    text = (ROOT / "docs" / "log-format.md").read_text(encoding="utf-8")
    part = text[text.index("### A complete Dou Dizhu example") :]
    block = re.search(r"```json\n(.*?)```", part, re.S)
    assert block is not None
    obj: dict[str, Any] = json.loads(block.group(1))
    obj.update(match_id="ddz-004", started_at=f"{DAY}T15:00:00+00:00")
    return obj


def ddz_lines(root: Path) -> list[dict[str, Any]]:
    """Simulated Dou Dizhu matches of both presets, moved to the evening of the sample logs;
    the first match seats the sample player p7 at seat 0."""
    out: list[dict[str, Any]] = []
    runs = [
        DdzSimConfig(games=8, seed=5, bots=("heuristic", "greedy", "random"), match_games=4),
        DdzSimConfig(games=4, seed=6, bots=("heuristic", "greedy"), preset="ddz-2p"),
    ]
    for k, cfg in enumerate(runs):
        path = root / f"ddz{k}.jsonl"
        simulate_to_file(cfg, path)
        out += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    first = out[0]["match_id"]
    for i, line in enumerate(out):
        line["started_at"] = f"{DAY}T14:{i:02d}:00+00:00"
        if line["match_id"] == first:
            line["seats"][0] = {"seat": 0, "player_id": SHARED, "name": "Player 7"}
    partial = {k: v for k, v in out[0].items() if k not in ("deal", "truth")}
    partial.update(game_id="ddz-partial", match_id="ddz-partial")  # the plays, no deal
    return [*out, partial, worked_example()]


@pytest.fixture(scope="module")
def whs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, Warehouse]:
    """(the mixed warehouse, the sample logs' Big Two games alone)."""
    root = tmp_path_factory.mktemp("ddzreport")
    log = root / "ddz.jsonl"
    log.write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in ddz_lines(root)),
        encoding="utf-8",
    )
    mixed, alone = Warehouse(root / "mixed"), Warehouse(root / "alone")
    summary = ingest([str(SAMPLES / "games.jsonl"), str(log)], mixed, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    ingest([str(SAMPLES / "games.jsonl")], alone, workers=1)
    build(mixed)
    build(alone)
    return mixed, alone


@pytest.fixture(scope="module")
def con(whs: tuple[Warehouse, Warehouse]) -> duckdb.DuckDBPyConnection:
    return whs[0].connect()


def text_of(wh: Warehouse, sel: Selection) -> str:
    con = wh.connect()
    try:
        return report.render_text(report.assemble(sel, report.fetch_report(con, sel)), width=80)
    finally:
        con.close()


def test_a_big_two_report_is_unchanged_by_dou_dizhu_games(
    whs: tuple[Warehouse, Warehouse],
) -> None:
    mixed, alone = whs
    for sel in (
        Selection(match_key="m-hk-1"),
        Selection(day=date(2026, 11, 2)),
    ):
        text = text_of(mixed, sel)
        assert text == text_of(alone, sel)
        assert "Dou Dizhu" not in text and "Big Two" not in text


def test_a_mixed_evening_shows_each_game_in_its_section(
    whs: tuple[Warehouse, Warehouse],
) -> None:
    mixed, alone = whs
    sel = Selection(day=date(2026, 11, 1))
    text = text_of(mixed, sel)
    big2_only = text_of(alone, sel)
    # the Big Two part is today's, each line and title naming its game
    titles = re.findall(r"^Big Two: (.*)$", text, re.M)
    assert titles and all(t in big2_only.splitlines() for t in titles)
    assert re.search(r"^Big Two, money: 4 games", text, re.M)
    assert re.search(r"^Dou Dizhu, money: \d+ games? .* in \d+ matches", text, re.M)
    # the period in the selection's time zone, named as the Big Two line names it
    zoned = text_of(mixed, Selection(day=date(2026, 11, 1), tz="Asia/Hong_Kong"))
    for shown, tz in ((text, "UTC"), (zoned, "Asia/Hong_Kong")):  # the line may wrap
        span = rf"Dou Dizhu, money: [^;]*\s\d\d:\d\d →\s+\d{{4}}-\d\d-\d\d\s+\d\d:\d\d\s+{tz};"
        assert re.search(span, shown), shown
    for title in ("players (money)", "who paid whom (money)", "biggest games", "games"):
        assert f"Dou Dizhu: {title}" in text
    assert "landlord" in text and "farmers" in text
    assert "ddz-004-worked" in text and "×8" in text and "春天" not in big2_only


def test_dou_dizhu_payments_sum_to_each_players_score(con: duckdb.DuckDBPyConnection) -> None:
    matches = [
        r[0] for r in con.execute("select distinct match_key from ddz_game_scores").fetchall()
    ]
    assert len(matches) >= 4
    bombs = 0
    for match in matches:
        rows = report.fetch_report(con, Selection(match_key=match))
        assert rows["report_summary"] == [] and len(rows["report_ddz_summary"]) == 1
        flows: dict[str, float] = {}
        for p in rows["report_ddz_payments"]:
            flows[p["payer_id"]] = flows.get(p["payer_id"], 0) - p["amount"]
            flows[p["receiver_id"]] = flows.get(p["receiver_id"], 0) + p["amount"]
        nets = con.execute(
            "select player_id, sum(score) from ddz_game_scores where match_key = ? group by 1",
            [match],
        ).fetchall()
        for player, net in nets:
            assert flows.get(player, 0) == pytest.approx(net), (match, player)
        players = rows["report_ddz_players"]
        assert {p["player_id"]: p["score"] for p in players} == dict(nets)
        for p in players:
            assert p["n_landlord"] + p["n_farmer"] <= p["n_games"]
            assert p["n_landlord_wins"] + p["n_farmer_wins"] == p["n_wins"]
        s = rows["report_ddz_summary"][0]
        assert sum(p["n_bombs"] for p in players) == s["n_bombs"] + s["n_rockets"]
        bombs += s["n_bombs"] + s["n_rockets"]
    assert bombs > 0  # the bombs' count is tested on games that have some


def test_the_worked_example_reports_24_per_farmer(con: duckdb.DuckDBPyConnection) -> None:
    sel = Selection(match_key="ddz-004")
    rows = report.fetch_report(con, sel)
    paid = {(p["payer_id"], p["receiver_id"]): p["amount"] for p in rows["report_ddz_payments"]}
    assert paid == {("bo", "ana"): 24, ("cy", "ana"): 24}
    (game,) = rows["report_ddz_game_list"]
    assert (game["bid"], game["bombs"], game["rockets"], game["multiplier"]) == (3, 2, 1, 8)
    text = report.render_text(report.assemble(sel, rows), width=80)
    assert "2 bombs, 1 rocket" in text and "+48" in text


def test_player_filter_spans_both_games(con: duckdb.DuckDBPyConnection) -> None:
    rows = report.fetch_report(con, Selection(day=date(2026, 11, 1), player_id=SHARED))
    assert rows["report_summary"] and rows["report_ddz_summary"]
    assert {p["player_id"] for p in rows["report_ddz_players"]} >= {SHARED}
    assert rows["report_ddz_payments"]
    assert all(SHARED in (p["payer_id"], p["receiver_id"]) for p in rows["report_ddz_payments"])
    # a Dou Dizhu-only player: the Dou Dizhu part alone, no game prefix on Big Two's side
    only = report.fetch_report(con, Selection(match_key="ddz-004", player_id="ana"))
    rep = report.assemble(Selection(match_key="ddz-004", player_id="ana"), only)
    assert rep.sections[0].title == "Dou Dizhu: players (money)"
    with pytest.raises(report.ReportError) as err:
        report.fetch_report(con, Selection(match_key="ddz-004", player_id="p1"))
    assert err.value.code == "E_UNKNOWN_PLAYER"


def test_ddz_report_cli_text_and_html(
    whs: tuple[Warehouse, Warehouse], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mixed, _ = whs
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, ["report", "--match", "ddz-004", "-w", str(mixed.root)])
    assert result.exit_code == 0, result.output
    assert "Dou Dizhu: who paid whom (money)" in result.stdout
    # at 80 columns every line fits, the sections' long titles (their notes) folded too
    assert max(map(width_of, result.stdout.splitlines())) <= 80
    page = tmp_path / "r.html"
    result = runner.invoke(
        app, ["report", "--day", DAY, "--html", str(page), "-w", str(mixed.root)]
    )
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "<h2>Dou Dizhu: players (money)</h2>" in html and "<h2>Big Two: " in html


def test_export_ddz_round_trips(whs: tuple[Warehouse, Warehouse], tmp_path: Path) -> None:
    mixed, _ = whs
    con = mixed.connect()
    ids = [
        r[0]
        for r in con.execute(
            "select game_id from games where game_kind = 'doudizhu' order by 1"
        ).fetchall()
    ]
    kinds = con.execute(
        "select count(distinct ruleset), count(*) filter (where outcome = 'redeal') from games "
        "where game_kind = 'doudizhu'"
    ).fetchone()
    assert kinds == (2, 1)  # both presets, and a void deal (seed 6, game 3)
    assert con.execute("select full_info from games where game_id = 'ddz-partial'").fetchone() == (
        False,
    )
    log = tmp_path / "export.jsonl"
    with log.open("w", encoding="utf-8") as fh:
        for game_id in ids:
            result = runner.invoke(app, ["export", game_id, "-f", "jsonl", "-w", str(mixed.root)])
            assert result.exit_code == 0, result.output
            assert result.stdout.count("\n") == 1
            fh.write(result.stdout)
    fresh = Warehouse(tmp_path / "fresh")
    summary = ingest([str(log)], fresh, workers=1)
    assert (summary.total().stored, summary.total().rejected) == (len(ids), 0), summary.reasons
    other = fresh.connect()
    only = "game_id in (select game_id from games where game_kind = 'doudizhu')"
    cols = {"games": "exclude (batch_id, content_hash, source_file, source_line)"}
    for table in ("games", "seats", "actions", "tricks"):
        sql = f"select * {cols.get(table, '')} from {table} where {only} order by all"
        mine, theirs = con.execute(sql).fetchall(), other.execute(sql).fetchall()
        assert mine and mine == theirs, table
    other.close()
    con.close()


def test_export_ddz_text_is_a_hand_history(whs: tuple[Warehouse, Warehouse]) -> None:
    mixed, _ = whs
    result = runner.invoke(app, ["export", "ddz-004-worked", "-w", str(mixed.root)])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for needle in (
        "Game ddz-004-worked (Dou Dizhu)",
        "seat 0 ana: 3♦ 3♣ 3♥ 3♠ 4♦ 4♣ 4♥ 4♠ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ BJ RJ",
        "kitty (底牌): Q♦ K♦ A♦",
        "face-up card: 3♠",
        "Auction",
        "1. seat 0 ana bids 3",
        "landlord: seat 0 ana, bid 3; takes the kitty Q♦ K♦ A♦",
        "plays bomb 3♦ 3♣ 3♥ 3♠ → ×2",
        "plays bomb 4♦ 4♣ 4♥ 4♠ → ×4",
        "plays rocket BJ RJ → ×8 and goes out",
        "the landlord wins",
        "multiplier ×8 (2 bombs, 1 rocket): 24 per farmer",  # counts worded for one
        "seat 0 ana: landlord, out → +48",
        "seat 1 bo: farmer, 16 left",
        "seat 1 bo pays seat 0 ana 24",
        "seat 2 cy pays seat 0 ana 24",
    ):
        assert needle in text, needle
    assert runner.invoke(app, ["export", "nope", "-w", str(mixed.root)]).exit_code == 2
    partial = runner.invoke(app, ["export", "ddz-partial", "-w", str(mixed.root)]).stdout
    assert "Deal (partial information: only the plays are known)" in partial
    assert "Auction" in partial and "kitty" not in partial


def test_report_page_shows_the_dou_dizhu_sections(
    whs: tuple[Warehouse, Warehouse], monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("BIG2_WAREHOUSE", str(whs[0].root))
    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=60)
    at.run()
    at.sidebar.radio(key="f_game").set_value("ddz").run()  # the Dou Dizhu matches to choose from
    at.switch_page("views/report.py")
    at.run()
    at.selectbox(key="rep_match").set_value("ddz-004").run()
    assert not at.exception, [e.value for e in at.exception]
    players = next(d.value for d in at.dataframe if "l. wins" in d.value.columns)
    assert list(players["net"]) == ["+48", "-24", "-24"]
    assert any("landlord net" in d.value.columns for d in at.dataframe)


def test_a_part_without_games_runs_no_other_query_and_loses_no_row(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """fetch_report skips a part's queries when its summary is empty: on every match and day
    of the mixed warehouse, the same rows as running every query."""
    keys = con.execute(
        "select distinct match_key, started_ts::date from stg_games where started_ts is not null"
        " union select distinct match_key, started_ts::date from stg_ddz_games"
        " where started_ts is not null"
    ).fetchall()
    selections = {Selection(match_key=m) for m, _ in keys} | {Selection(day=d) for _, d in keys}
    skipped = 0
    for sel in selections:
        every = {
            name: report.run_query(con, name, **sel.params())
            for name in (*report.REPORT_QUERIES, *report.DDZ_REPORT_QUERIES)
        }
        assert report.fetch_report(con, sel) == every, sel
        skipped += not every["report_summary"] or not every["report_ddz_summary"]
    assert skipped and len(selections) > skipped  # both cases seen
