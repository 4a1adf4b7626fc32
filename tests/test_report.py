"""Session / match reports and the export of one game (issue 13): ``big2 report``, ``big2
export``, the dashboards' Report page, over a small warehouse of the spec's worked examples
(``tests/data/scoring``, exact payments), the sample logs and the golden 包牌 game with a player
named ``<script>``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from pipeline import report
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.report import Selection, width_of
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.marts_helpers import golden_game

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "scoring"
SAMPLES = ROOT / "data" / "samples"
SCRIPT = "<script>alert(1)</script>"
runner = CliRunner()


def golden_with_script() -> dict[str, object]:
    """The golden 頂大 game (包牌 on seat 0) at 17:30 UTC = 01:30 the next day in Hong Kong,
    its violator named like an HTML tag."""
    game = golden_game("golden-1", started_at="2026-11-03T17:30:00+00:00")
    seats = game["seats"]
    assert isinstance(seats, list)
    seats[0]["name"] = SCRIPT
    return game


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("report")
    log = root / "golden.jsonl"
    log.write_text(json.dumps(golden_with_script(), ensure_ascii=False) + "\n", encoding="utf-8")
    warehouse = Warehouse(root / "wh")
    inputs = [str(DATA), str(SAMPLES / "games.jsonl"), str(SAMPLES / "partial.jsonl"), str(log)]
    summary = ingest(inputs, warehouse, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    build(warehouse)
    return warehouse


@pytest.fixture(scope="module")
def con(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    return wh.connect()


def big2(wh: Warehouse, *args: str) -> tuple[int, str, str]:
    """``big2 ARGS -w WH`` in a real process with stdout a pipe and COLUMNS=80."""
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args, "-w", str(wh.root)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def whole(number: str, text: str) -> bool:
    """``number`` appears in ``text`` as a whole number (not part of a longer one)."""
    return re.search(rf"(?<![\d,.]){re.escape(number)}(?![\d,.])", text) is not None


# ----- the report's figures ----------------------------------------------------------------


def test_who_paid_whom_sums_to_each_players_net(con: duckdb.DuckDBPyConnection) -> None:
    matches = [
        r[0]
        for r in con.execute(
            "select distinct match_key from mart_game_scores "
            "where settlement <> 'penalty_points' order by 1"
        ).fetchall()
    ]
    assert len(matches) > 10
    for match in matches:
        rows = report.fetch_report(con, Selection(match_key=match))
        flows: dict[str, float] = {}
        for p in rows["report_payments"]:
            flows[p["payer_id"]] = flows.get(p["payer_id"], 0) - p["amount"]
            flows[p["receiver_id"]] = flows.get(p["receiver_id"], 0) + p["amount"]
        nets = con.execute(
            "select player_id, sum(net) from mart_game_scores where match_key = ? group by 1",
            [match],
        ).fetchall()
        for player, net in nets:
            assert flows.get(player, 0) == pytest.approx(net), (match, player)
        shown = {p["player_id"]: p["net"] for p in rows["report_players"] if p["unit"] == "money"}
        assert shown == {p: pytest.approx(n) for p, n in nets}


def test_example_1_payments_are_the_specs(con: duckdb.DuckDBPyConnection) -> None:
    rows = report.fetch_report(con, Selection(match_key="ex1"))
    paid = {(p["payer_id"], p["receiver_id"]): p["amount"] for p in rows["report_payments"]}
    # spec 1.10 example 1, place settlement, stake 10: nets +530, +490, −110, −910
    assert sum(a for (payer, _), a in paid.items() if payer == "north") == 910
    assert paid[("south", "east")] == 10
    text = report.render_text(report.assemble(Selection(match_key="ex1"), rows))
    for number in ("+530", "+490", "-110", "-910", "360"):
        assert whole(number, text), number
    assert "雙炒 ×2" in text and "三炒 ×3" in text and "money" in text


def test_penalty_points_say_so_and_pay_nothing(con: duckdb.DuckDBPyConnection) -> None:
    rows = report.fetch_report(con, Selection(match_key="ex5"))
    assert [s["unit"] for s in rows["report_summary"]] == ["penalty points"]
    assert rows["report_payments"] == []
    points = sorted(p["points"] for p in rows["report_players"])
    assert points == [17, 28, 32, 45]  # spec 1.10 example 5's final totals
    text = report.render_text(report.assemble(Selection(match_key="ex5"), rows))
    assert "Players (penalty points) (lowest total wins)" in text
    assert "Who paid whom" not in text


def test_bao_event_names_the_violator_and_the_obligation(con: duckdb.DuckDBPyConnection) -> None:
    rows = report.fetch_report(con, Selection(match_key="golden"))
    (bao,) = rows["report_bao"]
    assert bao["violator"] == SCRIPT and bao["winner_id"] == "g1"
    assert bao["step"] == 21 and "A♠" in (bao["block_reason"] or "")


def test_a_day_in_a_time_zone(con: duckdb.DuckDBPyConnection) -> None:
    utc = report.fetch_report(con, Selection(day=date(2026, 11, 3)))
    hk = report.fetch_report(con, Selection(day=date(2026, 11, 4), tz="Asia/Hong_Kong"))
    assert [g["game_id"] for g in utc["report_game_list"]] == ["golden-1"]
    assert [g["game_id"] for g in hk["report_game_list"]] == ["golden-1"]
    assert str(hk["report_game_list"][0]["started_local"]).startswith("2026-11-04 01:30")
    with pytest.raises(report.ReportError, match="E_UNKNOWN_DAY"):
        report.fetch_report(con, Selection(day=date(2026, 11, 4)))
    with pytest.raises(report.ReportError, match=r"E_REPORT_QUERY: report_summary: .*Nope/X"):
        report.fetch_report(con, Selection(day=date(2026, 11, 3), tz="Nope/X"))
    one = report.fetch_report(con, Selection(day=date(2026, 11, 3), player_id="g2"))
    assert one["report_payments"]
    assert all("g2" in (p["payer_id"], p["receiver_id"]) for p in one["report_payments"])


# ----- the CLI: text at 80 columns, HTML, errors ---------------------------------------------


def test_text_at_80_columns_cuts_no_number(wh: Warehouse, con: duckdb.DuckDBPyConnection) -> None:
    day = con.execute(
        "select timezone('UTC', min(started_ts))::date::varchar from stg_games "
        "where match_id like 'm-hk%'"
    ).fetchone()
    assert day is not None
    code, out, err = big2(wh, "report", "--day", day[0])
    assert code == 0, err
    assert max(width_of(line) for line in out.splitlines()) <= 80
    assert "\x1b[" not in out  # plain text in a pipe
    rows = report.fetch_report(con, Selection(day=date.fromisoformat(day[0])))
    for p in rows["report_players"]:
        assert whole(report.number(p["net"], signed=True), out), p
    for p in rows["report_payments"]:
        assert whole(report.number(p["amount"]), out), p
    for g in rows["report_game_list"]:
        assert g["game_id"] in out  # long ids fold onto more lines only past 80 columns


def test_html_has_the_numbers_and_escapes_names(wh: Warehouse, tmp_path: Path) -> None:
    page = tmp_path / "golden.html"
    code, out, err = big2(wh, "report", "--match", "golden", "--html", str(page))
    assert code == 0, err
    assert str(page) in out
    text = page.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<script" not in text.lower()
    assert not re.search(r"(src|href)\s*=|@import|url\(", text)  # self-contained
    for p in report.fetch_report(wh.connect(), Selection(match_key="golden"))["report_players"]:
        assert f">{report.number(p['net'], signed=True)}<" in text


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["report", "--match", "no-such-match"], "E_UNKNOWN_MATCH"),
        (["report", "--day", "1999-01-01"], "E_UNKNOWN_DAY"),
        (["report", "--match", "ex1", "--player", "nobody"], "E_UNKNOWN_PLAYER"),
        (["report", "--day", "yesterday"], "E_REPORT_USAGE"),
        (["report", "--day", "2026-11-01", "--tz", "Mars/Olympus"], "E_REPORT_USAGE"),
        (["report"], "E_REPORT_USAGE"),
        (["report", "--match", "ex1", "--day", "2026-11-01"], "E_REPORT_USAGE"),
        (["export", "no-such-game"], "E_UNKNOWN_GAME"),
    ],
)
def test_unknown_ids_exit_2(wh: Warehouse, args: list[str], code: str) -> None:
    result = runner.invoke(app, [*args, "-w", str(wh.root)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"big2: error: {code}: "), result.stderr


def test_a_player_not_at_the_table_is_named_with_where(wh: Warehouse) -> None:
    result = runner.invoke(
        app, ["report", "--match", "ex1", "--player", "nobody", "-w", str(wh.root)]
    )
    assert (
        "player 'nobody' played no game in match ex1 (its players: east, north, south, west)\n"
        in result.stderr
    )


def test_an_unknown_match_or_day_names_what_is_near(wh: Warehouse) -> None:
    """A match id in another case or cut short names the matches it could mean; a day without
    games names the nearest days with one, before and after (the games start on 2026-11-01,
    -02 and -03, UTC)."""
    said = {
        args: runner.invoke(app, ["report", *args.split(), "-w", str(wh.root)]).stderr.strip()
        for args in ("--match EX1", "--match ex", "--day 2026-11-04", "--day 1999-01-01")
    }
    assert said["--match EX1"].endswith("; did you mean 'ex1'?")
    assert said["--match ex"].endswith("; did you mean 'ex1' or 'ex1-wta' or 'ex2'?")
    assert said["--day 2026-11-04"].endswith(
        "no game started on 2026-11-04 (UTC); the nearest day with a game: 2026-11-03 (before)"
    )
    assert said["--day 1999-01-01"].endswith("the nearest day with a game: 2026-11-01 (after)")
    # at UTC+14 the games start on 2026-11-02 and -04 only
    args = ["report", "--day", "2026-11-03", "--tz", "Pacific/Kiritimati", "-w", str(wh.root)]
    assert (
        runner.invoke(app, args)
        .stderr.strip()
        .endswith(
            "no game started on 2026-11-03 (Pacific/Kiritimati); the nearest days with a game: "
            "2026-11-02 (before) and 2026-11-04 (after)"
        )
    )


def test_a_game_of_a_match_names_its_match(wh: Warehouse) -> None:
    """`--match` takes a match id, or the id of a game logged without one (its own match); a
    game of a match is refused with the match to ask for, and the command for the one game."""
    result = runner.invoke(app, ["report", "--match", "m-hk-1-g2", "-w", str(wh.root)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        "big2: error: E_UNKNOWN_MATCH: 'm-hk-1-g2' is a game of match 'm-hk-1': "
        "--match m-hk-1 reports the match, `big2 export m-hk-1-g2` the game"
    )
    alone = runner.invoke(app, ["report", "--match", "taiwan-1", "-w", str(wh.root)])
    assert alone.exit_code == 0, alone.output
    assert "Match taiwan-1" in alone.stdout


def test_export_of_a_match_id_names_its_games_and_the_report(wh: Warehouse) -> None:
    """`big2 export MATCH_ID` said only "no game 'm-hk-1' in the warehouse"; it names the
    match's games and the command that reports it (as `--match GAME_ID` names the match). A
    game logged without a match (its own match) exports as ever."""
    result = runner.invoke(app, ["export", "m-hk-1", "-w", str(wh.root)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        "big2: error: E_UNKNOWN_GAME: 'm-hk-1' is a match of 3 games (m-hk-1-g1 … m-hk-1-g3), "
        "not a game: `big2 report --match m-hk-1` reports it, `big2 export GAME_ID` one of its "
        "games"
    )
    alone = runner.invoke(app, ["export", "taiwan-1", "-w", str(wh.root)])
    assert alone.exit_code == 0, alone.output


def test_export_of_an_unknown_id_names_the_ids_close_to_it(wh: Warehouse) -> None:
    """An id cut short (as a Dou Dizhu deal's ``-d1`` left off) or in another case names the
    games it could mean; an id close to none says only that it is no game."""
    for typed in ("m-hk-1-g", "M-HK-1-G2"):
        result = runner.invoke(app, ["export", typed, "-w", str(wh.root)])
        assert result.exit_code == 2, result.output
        close = "'m-hk-1-g1' or 'm-hk-1-g2' or 'm-hk-1-g3'" if typed.islower() else "'m-hk-1-g2'"
        assert result.stderr.strip() == (
            f"big2: error: E_UNKNOWN_GAME: no game {typed!r} in the warehouse "
            f"(did you mean {close}?)"
        )
    result = runner.invoke(app, ["export", "zz-nothing", "-w", str(wh.root)])
    assert result.stderr.strip().endswith("no game 'zz-nothing' in the warehouse")


def test_rescore_as_a_game_the_warehouse_lacks_says_so(wh: Warehouse) -> None:
    """A Dou Dizhu preset over Big Two games only printed an empty table and nothing else."""
    result = runner.invoke(app, ["rescore", "--as", "ddz", "-w", str(wh.root)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"note: no Dou Dizhu game in {wh.root}: a Dou Dizhu preset rescores the Dou Dizhu "
        "games only (the other presets: Big Two hk, hk-classic, mainland, taiwan)\n"
    )
    result = runner.invoke(app, ["rescore", "--as", "mainland", "-w", str(wh.root)])
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    assert "east" in result.stdout


def test_match_help_and_error_say_which_ids_it_takes(wh: Warehouse) -> None:
    says = "a log's match_id, or the id of a game logged without one"
    result = runner.invoke(app, ["report", "--match", "no-such-match", "-w", str(wh.root)])
    assert f"no match 'no-such-match' in the warehouse ({says})" in result.stderr
    helped = runner.invoke(app, ["report", "--help"], env={"COLUMNS": "200"})
    assert says in " ".join(helped.stdout.split())


def test_a_path_that_is_no_warehouse_is_refused(tmp_path: Path) -> None:
    for args in (["report", "--match", "x"], ["export", "x"]):
        result = runner.invoke(app, [*args, "-w", str(tmp_path / "none")])
        assert result.exit_code == 2 and "E_NO_WAREHOUSE" in result.stderr
    assert not (tmp_path / "none").exists()


def test_help() -> None:
    for command in ("report", "export"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "--warehouse" in result.output


# ----- export -----------------------------------------------------------------------------


def test_export_round_trips(wh: Warehouse, tmp_path: Path) -> None:
    con = wh.connect()
    ids = [r[0] for r in con.execute("select game_id from games order by 1").fetchall()]
    log = tmp_path / "export.jsonl"
    with log.open("w", encoding="utf-8") as fh:
        for game_id in ids:
            result = runner.invoke(app, ["export", game_id, "-f", "jsonl", "-w", str(wh.root)])
            assert result.exit_code == 0, result.output
            assert result.stdout.count("\n") == 1
            fh.write(result.stdout)
    fresh = Warehouse(tmp_path / "fresh")
    summary = ingest([str(log)], fresh, workers=1)
    assert (summary.total().stored, summary.total().rejected) == (len(ids), 0), summary.reasons
    other = fresh.connect()
    keys = {"games": "exclude (batch_id, content_hash, source_file, source_line)"}
    for table in ("games", "seats", "actions", "tricks"):
        sql = f"select * {keys.get(table, '')} from {table} order by all"
        assert con.execute(sql).fetchall() == other.execute(sql).fetchall(), table
    other.close()
    # the exported line is its own game: again into the fresh warehouse, a duplicate ...
    again = ingest([str(log)], fresh, workers=1)
    assert again.total().duplicate == len(ids)
    # ... but into the warehouse it came from, a conflict: the content hash covers the whole
    # original record (its notation, times, `truth`), which the warehouse does not keep
    copy = Warehouse(shutil.copytree(wh.root, tmp_path / "copy"))
    original = ingest([str(log)], copy, workers=1)
    assert original.reasons["E_CONFLICT"] == original.total().read - original.total().duplicate


def test_export_of_a_later_game_without_the_one_before(tmp_path: Path) -> None:
    """Game 2 of a match, led by game 1's winner (first_lead = lowest_card_then_winner), in a
    warehouse without game 1, with full and with partial information: the exported lines
    replay as stored (the warehouse keeps no previous_winner; the export names the leader)."""
    from pipeline.sim.sample import to_partial

    lines = (SAMPLES / "games.jsonl").read_text(encoding="utf-8").splitlines()
    game2 = json.loads(lines[1])
    assert game2["game_number"] == 2 and game2["previous_winner"] is not None
    only = tmp_path / "only"
    only.mkdir()
    log = only / "g2.jsonl"
    log.write_text(
        "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in (game2, to_partial(game2))),
        encoding="utf-8",
    )
    source = Warehouse(only / "wh")
    assert ingest([str(log)], source, workers=1).total().stored == 2
    build(source)
    out = tmp_path / "export.jsonl"
    with out.open("w", encoding="utf-8") as fh:
        for game_id in ("m-hk-1-g2", "m-hk-1-g2-partial"):
            result = runner.invoke(app, ["export", game_id, "-f", "jsonl", "-w", str(source.root)])
            assert result.exit_code == 0, result.output
            fh.write(result.stdout)
    fresh = Warehouse(tmp_path / "fresh")
    summary = ingest([str(out)], fresh, workers=1)
    assert (summary.total().stored, summary.total().rejected) == (2, 0), summary.reasons
    a, b = source.connect(), fresh.connect()
    for table in ("seats", "actions", "tricks"):
        sql = f"select * from {table} order by all"
        assert a.execute(sql).fetchall() == b.execute(sql).fetchall(), table
    a.close()
    b.close()


def test_export_text_is_a_hand_history(wh: Warehouse) -> None:
    result = runner.invoke(app, ["export", "golden-1", "-w", str(wh.root)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert max(width_of(line) for line in out.splitlines()) <= 80
    assert f"seat 0 {SCRIPT} (g0)" in out  # text output: the name as it is
    assert "Trick 5" in out and "passes" in out and "goes out" in out
    assert "頂大:" in out and "violated" in out and "met" in out
    assert "包牌:" in out and "for the others" in out and "Payments (money" in out


# ----- the dashboards' Report page --------------------------------------------------------


def test_report_page(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/report.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key="rep_match").set_value("ex1").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(str(e.value) for e in [*at.subheader, *at.markdown, *at.caption])
    assert "Match ex1" in shown and "Who paid whom (money)" in shown
    players = next(d.value for d in at.dataframe if "net" in d.value.columns)
    assert sorted(players["net"]) == sorted(["+530", "+490", "-110", "-910"])
    at.radio(key="rep_by").set_value("A day").run()
    at.date_input(key="rep_day").set_value(date(2026, 11, 4)).run()
    at.selectbox(key="rep_tz").set_value("Asia/Hong_Kong").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Day 2026-11-04 (Asia/Hong_Kong)" in str(e.value) for e in at.subheader)


# ----- the documentation's examples run -----------------------------------------------------


def test_docs_examples_run(tmp_path: Path) -> None:
    """docs/report.md's "Try it" block, command by command, and the output it shows."""
    import shlex

    doc = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    section = doc.split("## Try it", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    shown = section.split("prints (at 80 columns):\n\n```\n", 1)[1].split("```", 1)[0]
    folder = str(tmp_path / "demo")
    outputs = []
    for line in block.strip().splitlines():
        argv = shlex.split(line.replace("/tmp/big2-report-demo", folder))
        assert argv[0] == "big2", line
        done = subprocess.run(
            [sys.executable, "-m", "pipeline.cli", *argv[1:]],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "80"},
            cwd=ROOT,
            timeout=300,
        )
        assert done.returncode == 0, (line, done.stderr)
        outputs.append(done.stdout)
    assert outputs[2] == shown
    assert (tmp_path / "demo" / "m-hk-1.html").is_file()
    copy = Warehouse(tmp_path / "demo" / "copy").connect()
    assert copy.execute("select game_id from games").fetchall() == [("m-hk-1-g1",)]
    copy.close()


def test_every_query_states_its_grain_and_binds_its_parameters() -> None:
    for path in sorted(report.QUERIES.glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        assert text.startswith("-- Grain: one row"), path.name
        assert not re.search(r"'\{|\{\w+\}", text), path.name  # no Python formatting
    assert set(report.REPORT_QUERIES) <= {p.stem for p in report.QUERIES.glob("*.sql")}


@pytest.mark.parametrize("kind", ["empty", "missing"])
def test_report_page_without_games(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    if kind == "empty":
        with wh.batch(meta={"inputs": []}):
            pass
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/report.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Import some games" in str(e.value) for e in at.info)
    assert kind == "empty" or not wh.root.exists()


def test_report_page_day_without_games_warns(
    wh: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("views/report.py")
    at.run()
    at.radio(key="rep_by").set_value("A day").run()
    at.date_input(key="rep_day").set_value(date(2020, 1, 1)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("E_UNKNOWN_DAY" in str(e.value) for e in at.warning)


def test_marts_older_than_the_queries_say_build(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    assert ingest([str(DATA / "ex1.jsonl")], wh, workers=1).total().stored == 2
    result = runner.invoke(app, ["report", "--match", "ex1", "-w", str(wh.root)])
    assert result.exit_code == 2 and "E_SQL_NOT_BUILT" in result.stderr, result.output
    assert "big2 build" in result.stderr
    build(wh)
    result = runner.invoke(app, ["report", "--match", "ex1", "-w", str(wh.root)])
    assert result.exit_code == 0, result.output


def _column(text: str, title: str, header: str) -> list[str]:
    """The cells of one column of a section of a text report (rows on one line each)."""
    block = text.split(f"\n{title}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    start = block[0].index(header) + len(header)
    return [row[:start].split()[-1] for row in block[2:]]


@pytest.fixture(scope="module")
def at_stake_2_5(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``big2 report`` of a simulated hk match of 8 games at stake 2.5."""
    root = tmp_path_factory.mktemp("stake")
    wh = Warehouse(root / "wh")
    done = runner.invoke(
        app,
        ["simulate", "-o", str(root / "st.jsonl"), "-n", "8", "--seed", "5", "--set",
         "stake=2.5", "--id-prefix", "st", "--workers", "1", "--ingest", "-w", str(wh.root)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    code, out, err = big2(wh, "report", "-m", "st-5-m000000")
    assert code == 0, err
    return out


def test_money_of_a_fractional_stake_has_the_same_decimals_in_a_column(at_stake_2_5: str) -> None:
    """At stake 2.5 a column of money read ``+220`` beside ``-112.5``: each number is written
    with the most decimals of its column (``+220.0``), whole numbers elsewhere as before."""
    out = at_stake_2_5
    for title, header in (("Players (money)", "net"), ("Who paid whom (money)", "amount")):
        cells = _column(out, title, header)
        places = {len(c.partition(".")[2]) for c in cells}
        assert places == {1} and any(c.endswith(".5") for c in cells), (title, cells)
    assert _column(out, "Players (money)", "games") == ["8"] * 4


def test_a_chao_penalty_in_money_is_at_the_games_stake(at_stake_2_5: str) -> None:
    """The 炒 table's penalty says unit money: at stake 2.5, 11 cards at 三炒 ×3 is 82.5, not
    the 33 penalty points it showed (hk: no ♠2 doubling, no 歡樂 multiplier)."""
    block = at_stake_2_5.split("\n炒 (multiplied losses)\n", 1)[1].split("\n\n", 1)[0]
    rows = [re.search(r" (\d+)  \S+ ×(\d) +([\d.,]+)  money$", r) for r in block.splitlines()[2:]]
    assert rows and all(rows), block
    for m in rows:
        assert m is not None
        assert float(m[3]) == int(m[1]) * int(m[2]) * 2.5, m[0]
