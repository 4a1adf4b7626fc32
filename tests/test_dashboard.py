"""The dashboards under Streamlit's AppTest: every page on a small fixture warehouse (the
samples ingested through the real pipeline), on an empty one and on none at all.

The browser test (``tests/browser/``) drives the same app in chromium.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboards import adhoc, data, terms, ui
from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.sqlbuild import SQL_DIR, build
from pipeline.warehouse import Warehouse, reading

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dashboards" / "app.py"
SAMPLES = ROOT / "data" / "samples"
SAMPLE_FILES = ("games.jsonl", "bad.jsonl", "partial.jsonl")

#: page file → texts its headings must show on the fixture warehouse
PAGES = {
    "views/overview.py": ["Import health", "Recent matches", "Recent games"],
    "views/leaderboard.py": ["Standings", "Winnings graph", "the luck-adjusted line"],
    "views/player.py": ["Leak finder", "炒 history", "Seat effect", "頂大 record", "Games"],
    "views/replayer.py": [],
    "views/must_block.py": [
        "Per player",
        "Violations and unknowns",
        "包牌 paid",
        "Pairs: who fails to block whom",
        "Evidence:",
        "The games:",
    ],
    "views/import_health.py": ["Import batches", "Rejects by error code", "Rejected records"],
    "views/sql_explorer.py": [],
    "views/report.py": ["Players", "Who paid whom"],
}
#: pages that have something to show for a warehouse with imports but no game
SHOWS_EMPTY = {"views/import_health.py", "views/sql_explorer.py"}
#: pages that ignore the sidebar filters, and do not show them
UNFILTERED = {"views/import_health.py", "views/sql_explorer.py"}


@pytest.fixture(scope="module")
def fixture_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """The samples ingested and the SQL marts built (as `big2 ingest` does)."""
    wh = Warehouse(tmp_path_factory.mktemp("dash") / "warehouse")
    ingest([str(SAMPLES / name) for name in SAMPLE_FILES], wh)
    build(wh)
    return wh


@pytest.fixture(scope="module")
def no_marts_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """The samples ingested without `big2 build`: the pages fall back to the tables."""
    wh = Warehouse(tmp_path_factory.mktemp("dash-no-marts") / "warehouse")
    ingest([str(SAMPLES / name) for name in SAMPLE_FILES], wh)
    return wh


@pytest.fixture(scope="module")
def empty_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("dash-empty") / "warehouse")
    with wh.batch(meta={"inputs": []}):
        pass  # an import that stored nothing
    return wh


Use = Callable[[Path], None]


@pytest.fixture
def use(monkeypatch: pytest.MonkeyPatch) -> Iterator[Use]:
    """``use(wh_root)`` points the app at a warehouse (as ``big2 dashboard`` does). The test's
    own reads share a connection, as a page's do (``reading.one_connection``; reopened when the
    warehouse changes): a fresh one costs ~30 ms, and the cross-checks read hundreds of times."""

    def point(root: Path) -> None:
        monkeypatch.setenv("BIG2_WAREHOUSE", str(root))

    with reading.one_connection():
        yield point


def app(page: str | None = None, **query: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None and page != "views/overview.py":
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """Every heading, markdown, caption and alert of the page, one string."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                 "error", "success"):  # fmt: skip
        parts.extend(str(e.value) for e in getattr(at, kind))
    return "\n".join(parts)


def one(wh: Warehouse, sql: str) -> tuple:
    row = wh.connect().execute(sql).fetchone()
    assert row is not None, sql
    return tuple(row)


FULL_GAME_SQL = (
    "select game_id from games where full_info and outcome = 'played_out' order by game_id limit 1"
)


# ----- every page, three warehouses -----------------------------------------------------------


@pytest.mark.parametrize("page", list(PAGES))
def test_page_on_fixture_warehouse(page: str, fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app(page)
    shown = texts(at)
    for text in PAGES[page]:
        assert text in shown, (page, text)
    assert "Import some games" not in shown
    keys = {w.key for w in at.sidebar.selectbox}
    assert ("f_ruleset" in keys) is (page not in UNFILTERED), (page, keys)  # the shared filters


@pytest.mark.parametrize("page", list(PAGES))
def test_page_on_empty_warehouse(page: str, empty_wh: Warehouse, use: Use) -> None:
    use(empty_wh.root)
    at = app(page)
    shown = texts(at)
    if page in SHOWS_EMPTY:
        assert "Import some games" not in shown
    else:
        assert "holds no games yet" in shown and "Import some games" in shown


@pytest.mark.parametrize("page", list(PAGES))
def test_page_without_warehouse(page: str, tmp_path: Path, use: Use) -> None:
    use(tmp_path / "none")
    at = app(page)
    assert "Import some games" in texts(at)
    assert not (tmp_path / "none").exists()  # reading never creates a warehouse


# ----- overview and filters --------------------------------------------------------------------


def metric(at: AppTest, label: str) -> str:
    return next(str(m.value) for m in at.metric if m.label == label)


def test_overview_counts(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app()
    con = fixture_wh.connect()
    n_games = con.execute("select count(*) from games").fetchone()[0]
    n_rejects = con.execute("select count(*) from rejects").fetchone()[0]
    assert metric(at, "Games") == f"{n_games:,}"
    assert metric(at, "Open rejects") == f"{n_rejects:,}"  # one import: none resolved
    assert n_rejects > 0 and f"{n_rejects} records rejected at import are still open" in texts(at)
    # a game that names no match is a match of its own: counted as Recent matches lists it
    (n_matches,) = one(fixture_wh, "select count(distinct match_id) + count(*) filter "
                       "(where match_id is null) from games")  # fmt: skip
    recent = frame_with(at, "match", "games")
    assert recent["match"].str.startswith("(no match) ").any()
    assert metric(at, "Matches") == f"{n_matches:,}" == f"{len(recent):,}"


def test_filters_are_shared_across_pages(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app()
    ruleset, n, n_seats = one(
        fixture_wh,
        "select ruleset, count(*), sum(players) from games group by 1 order by 2, 1 limit 1",
    )
    at.sidebar.selectbox(key="f_ruleset").select(ruleset).run()
    assert not at.exception
    assert metric(at, "Games") == str(n)
    at.switch_page("views/leaderboard.py").run()
    assert not at.exception
    assert at.session_state["filters"].ruleset == ruleset
    assert f"ruleset: {ruleset}" in texts(at)
    board = at.dataframe[0].value
    assert board["games"].sum() == n_seats  # one row per seat of the ruleset's games


def test_filter_values_are_bound_parameters(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    hostile = data.Filters(ruleset="hk' or 1=1 --", player_id="x'); drop table games; --")
    assert data.overview(hostile)["n_games"] == 0
    assert data.query("dash_games", hostile, limit=1000).empty
    assert data.overview(data.NO_FILTERS)["n_games"] > 0


# ----- hand replayer ---------------------------------------------------------------------------


def step_text(at: AppTest) -> str:
    return next(str(m.value) for m in at.markdown if str(m.value).startswith("**Step "))


def test_replayer_game_from_url_and_buttons(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id,) = one(fixture_wh, FULL_GAME_SQL)
    at = app("views/replayer.py", game_id=game_id)
    assert at.selectbox(key="replayer_game").value == game_id
    n = len(data.query("dash_game_actions", game_id=game_id))
    assert step_text(at).startswith(f"**Step 0 / {n}**")
    for _ in range(3):
        at.button(key="rp_next").click().run()
    assert step_text(at).startswith(f"**Step 3 / {n}**")
    assert "On the table" in texts(at)
    at.button(key="rp_prev").click().run()
    assert step_text(at).startswith(f"**Step 2 / {n}**")
    at.button(key="rp_last").click().run()
    assert not at.exception
    shown = texts(at)
    assert "Result" in shown and "wins" in shown
    at.button(key="rp_next").click().run()  # past the end stays at the end
    assert step_text(at).startswith(f"**Step {n} / {n}**")
    at.button(key="rp_first").click().run()
    assert step_text(at).startswith("**Step 0 /")


def test_replayer_cards_in_colour(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id, players) = one(
        fixture_wh, FULL_GAME_SQL.replace("game_id from", "game_id, players from")
    )
    at = app("views/replayer.py", game_id=game_id)
    seat_html = [
        str(m.value) for m in at.markdown if str(m.value).startswith('<div class="b2-seat')
    ]
    assert len(seat_html) == players
    html = "".join(seat_html)
    n_dealt = one(
        fixture_wh, f"select sum(bit_count(deal_mask)) from seats where game_id = '{game_id}'"
    )[0]
    assert html.count('class="b2-card') == n_dealt  # the whole deal, face up
    assert 'b2-red">' in html and ("♥" in html or "♦" in html)


def test_replayer_ding_dai_moment(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    con = fixture_wh.connect()
    game_id, index, block = con.execute(
        "select game_id, action_index, block from actions where obligation is not null "
        "order by game_id, action_index limit 1"
    ).fetchone()
    at = app("views/replayer.py", game_id=game_id)
    at.button(key=f"rp_jump_{index}").click().run()
    assert not at.exception
    assert step_text(at).startswith(f"**Step {index + 1} /")
    alerts = [str(a.value) for a in (*at.error, *at.warning, *at.success)]
    assert any(a.startswith("頂大: the next seat") and block in a for a in alerts)


def test_replayer_step_in_url_and_unknown_game(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id,) = one(fixture_wh, FULL_GAME_SQL)
    at = app("views/replayer.py", game_id=game_id, step="5")
    assert step_text(at).startswith("**Step 5 /")
    at.button(key="rp_next").click().run()  # the link follows the step shown: it opens there
    assert step_text(at).startswith("**Step 6 /")
    assert at.query_params["step"] in ("6", ["6"]) and at.query_params["game_id"] in (
        game_id, [game_id])  # fmt: skip
    assert step_text(app("views/replayer.py", game_id=game_id, step="6")).startswith("**Step 6 /")
    at = app("views/replayer.py", game_id="no-such-game")
    assert any("no-such-game" in str(w.value) for w in at.warning)


def test_replayer_partial_information(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    con = fixture_wh.connect()
    game_id = con.execute("select game_id from games where not full_info limit 1").fetchone()[0]
    at = app("views/replayer.py", game_id=game_id)
    at.button(key="rp_next").click().run()
    assert not at.exception
    html = "".join(
        str(m.value) for m in at.markdown if str(m.value).startswith('<div class="b2-seat')
    )
    assert "b2-back" in html  # unknown hands drawn as card backs


def test_hands_after_follow_the_game(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id,) = one(fixture_wh, FULL_GAME_SQL)
    seats = data.query("dash_game_seats", game_id=game_id)
    actions = data.query("dash_game_actions", game_id=game_id)
    steps = data.hands_after(seats, actions)
    assert len(steps) == len(actions) + 1
    assert steps[0] == [int(m) for m in seats["deal_mask"]]
    assert steps[-1] == [int(m) for m in seats["final_hand_mask"]]
    for k, (seat, cards) in enumerate(zip(actions["seat"], actions["cards_mask"], strict=True)):
        before, after = steps[k][int(seat)], steps[k + 1][int(seat)]
        assert before is not None and after is not None
        assert after == before & ~int(cards)  # a play removes exactly its cards


# ----- import health, SQL explorer, leaderboard, 頂大 ------------------------------------------


def test_import_health_shows_the_raw_record(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (code,) = one(
        fixture_wh, "select code from rejects group by 1 order by count(*) desc, 1 limit 1"
    )
    at = app("views/import_health.py")
    at.selectbox(key="ih_code").select(code).run()
    assert not at.exception
    assert any(str(e.value).startswith(f"**{code}**") for e in at.error)
    assert at.code and at.code[0].value  # the raw record as read
    rows = at.dataframe[-1].value
    assert set(rows["code"]) == {code}


def test_import_health_shows_the_stored_copy_a_conflict_contradicts(
    tmp_path: Path, use: Use
) -> None:
    """An ``E_CONFLICT`` reject's record, and under it the stored copy of its game id: the file
    and line it was read from, its batch, its hash, a link to replay it."""
    from pipeline.sim.sample import dumps, sample_game

    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(dumps(sample_game(seed=1, game_id="g1")) + "\n", encoding="utf-8")
    edited = dumps(sample_game(seed=2, game_id="g1"))
    second.write_text("\n" + edited + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(first)], wh)
    ingest([str(second)], wh)
    build(wh)  # the rejects' status (mart_reject_status) is a view of the build
    use(wh.root)
    at = app("views/import_health.py")
    at.selectbox(key="ih_code").select("E_CONFLICT").run()
    assert not at.exception
    assert at.code[0].value == edited  # the record that was not stored, read back
    stored = at.dataframe[-1].value
    assert stored[["game_id", "source_file", "source_line"]].values.tolist() == [
        ["g1", str(first.resolve()), 1]
    ]
    (batch,) = one(wh, "select batch_id from games")
    assert stored["batch_id"].tolist() == [batch]
    assert stored["replay"].tolist() == ["replayer?game_id=g1"]


def test_import_health_tells_resolved_rejects_from_open_ones(tmp_path: Path, use: Use) -> None:
    """A log mended and imported again: its reject is resolved (the game, import and file that
    resolved it shown), apart from the open ones; a conflict stays open; the overview counts
    the open ones. The warehouse keeps both rejects."""
    from pipeline.sim.sample import dumps, sample_game

    log, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    g1, g2 = (dumps(sample_game(seed=s, game_id=f"g{s}")) for s in (1, 2))
    log.write_text(g1[:200] + "\n" + g2 + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh)
    log.write_text(g1 + "\n" + g2 + "\n", encoding="utf-8")
    other.write_text(dumps(sample_game(seed=3, game_id="g2")) + "\n", encoding="utf-8")
    second = ingest([str(log), str(other)], wh).batch_id
    build(wh)
    assert one(wh, "select count(*) from rejects") == (2,)
    use(wh.root)
    at = app("views/import_health.py")
    assert metric(at, "Open rejects") == "1" and metric(at, "Resolved since") == "1"
    listed = frame_with(at, "reject_no")  # open, the default
    assert listed["code"].tolist() == ["E_CONFLICT"]
    at.selectbox(key="ih_status").select(True).run()
    assert not at.exception
    listed = frame_with(at, "reject_no")
    assert listed[["code", "game_id", "resolved_by", "resolved_game_id", "resolved_file",
                   "resolved_line", "resolved_batch_id"]].values.tolist() == [
        ["E_JSON", "g1", "game_id", "g1", str(log.resolve()), 1, second]
    ]  # fmt: skip
    assert any(
        str(e.value).startswith(f"**Resolved** by import {second}") and "game g1" in str(e.value)
        for e in at.success
    )
    overview = app()
    assert metric(overview, "Open rejects") == "1"
    assert "1 records rejected at import are still open (1 more were resolved" in texts(overview)


def test_import_health_says_what_a_file_not_in_utf8_is_and_how_to_convert_it(
    tmp_path: Path, use: Use
) -> None:
    """A GBK score sheet's E_ENCODING reject: the page names the file's encoding and the
    command writing its UTF-8 copy, as `big2 ingest` does (told from the stored rejected
    line); once the copy is imported the reject is resolved and the hint is gone."""
    from pipeline.logs.encodings import iconv_command

    club = tmp_path / "club"
    club.mkdir()
    sheet = club / "mainland.csv"
    rows = "date,match,players,cards_left,bao_seat,notes,redeal\r\n"
    rows += "2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,,没叫最后一张,\r\n"
    sheet.write_bytes(rows.encode("gbk"))
    (club / "utf8").mkdir()
    (club / "utf8" / "mainland.csv").write_text(rows, encoding="utf-8")
    # before and after the copy is imported: two warehouses (a page's reading connection
    # stays open for the test: no build may replace warehouse.duckdb meanwhile)
    before, after = Warehouse(tmp_path / "before"), Warehouse(tmp_path / "after")
    for wh in (before, after):
        ingest([str(sheet)], wh)
    ingest([str(club / "utf8" / "mainland.csv")], after)
    for wh in (before, after):
        build(wh)
    use(before.root)
    at = app("views/import_health.py")
    shown = texts(at)
    assert "Files not in UTF-8" in shown
    said = f"`{sheet.resolve()}`: GB18030 (GBK: Simplified Chinese) (1 reject E\\_ENCODING)"
    assert said in shown  # as markdown: _ escaped
    assert "阿明 小红 陈大文 李四" in shown  # how the line reads so
    code = [c.value for c in at.code]
    assert iconv_command(sheet.resolve(), "GB18030") in code
    assert f"big2 ingest {club.resolve() / 'utf8'} --warehouse {before.root}" in code
    use(after.root)
    at = app("views/import_health.py")
    assert "Files not in UTF-8" not in texts(at)
    assert metric(at, "Open rejects") == "0" and metric(at, "Resolved since") == "1"


def query_result(at: AppTest) -> pd.DataFrame:
    """The result table (the others are the catalogue's)."""
    (result,) = [d.value for d in at.dataframe if "column_name" not in d.value.columns]
    return result


def test_sql_explorer_runs_a_query_and_offers_csv(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/sql_explorer.py")
    at.text_area(key="sql_text").input("select game_id from games order by game_id").run()
    at.button(key="sql_run").click().run()
    assert not at.exception
    result = query_result(at)
    assert list(result.columns) == ["game_id"] and len(result) > 3
    assert any(f"{len(result):,} rows in" in str(c.value) for c in at.caption)
    at.text_area(key="sql_text").input("select count(*) as n from games").run()
    at.button(key="sql_run").click().run()
    assert any(str(c.value).startswith("1 row in") for c in at.caption)  # not "1 rows"


def test_sql_explorer_refuses_writes_and_limits_rows(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/sql_explorer.py")
    at.text_area(key="sql_text").input("drop view games").run()
    at.button(key="sql_run").click().run()
    assert not at.exception
    assert any("only SELECT" in str(e.value) for e in at.error)
    at.text_area(key="sql_text").input("select * from range(50)").run()
    at.number_input(key="sql_rows").set_value(10).run()
    at.button(key="sql_run").click().run()
    assert len(query_result(at)) == 10
    assert any("cut at 10 rows" in str(c.value) for c in at.caption)


def test_sql_explorer_cannot_read_files_outside_the_warehouse(
    fixture_wh: Warehouse, use: Use, tmp_path: Path
) -> None:
    use(fixture_wh.root)
    outside = tmp_path / "secret.csv"
    outside.write_text("a\n1\n")
    with pytest.raises(data.QueryError):
        adhoc.run_sql(f"select * from read_csv('{outside}')")
    with pytest.raises(data.QueryError):
        adhoc.run_sql("select * from read_text('/etc/passwd')")
    assert adhoc.run_sql("select count(*) from games").frame.iloc[0, 0] > 0


def test_run_sql_time_limit(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    slow = "select count(*) from range(100000000000) a"
    with pytest.raises(data.QueryError, match="time limit"):
        adhoc.run_sql(slow, timeout_s=0.2)
    with pytest.raises(data.QueryError, match="exactly one"):
        adhoc.run_sql("select 1; select 2")


def test_run_sql_memory_limit(
    fixture_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The explorer's queries run in at most $BIG2_SQL_MEMORY (default a quarter of the
    machine's): past it a query stops with its own code; the page says the limit."""
    use(fixture_wh.root)
    big = "select count(*) from (select distinct range % 3000000 from range(6000000))"
    assert adhoc.query_memory() == sqlbuild.memory_limit(adhoc.MEMORY)
    assert adhoc.run_sql(big).frame.iloc[0, 0] == 3_000_000
    monkeypatch.setenv("BIG2_SQL_MEMORY", "48MB")
    with pytest.raises(data.QueryError, match="E_SQL_MEMORY_LIMIT: stopped at the memory limit"):
        adhoc.run_sql(big)
    assert adhoc.run_sql("select count(*) from games").frame.iloc[0, 0] > 0
    at = app("views/sql_explorer.py")
    assert any(re.search(r"45\.\d MiB of memory", str(c.value)) for c in at.caption), at.caption
    monkeypatch.setenv("BIG2_SQL_MEMORY", "lots")
    with pytest.raises(
        data.QueryError, match=r"E_SQL_USAGE: \$BIG2_SQL_MEMORY: memory limit 'lots'"
    ):
        adhoc.run_sql("select 1")
    at = app("views/sql_explorer.py")
    assert not at.exception and any("'lots'" in str(e.value) for e in at.error)


def test_marts_missing_are_announced(no_marts_wh: Warehouse, use: Use) -> None:
    """Without `big2 build` the mart pages say so and compute no second answer."""
    use(no_marts_wh.root)
    assert not data.marts_built(*data.SCORING_MARTS)
    for page, second in [
        ("views/leaderboard.py", "Standings"),
        ("views/player.py", "Leak finder"),
        ("views/must_block.py", "Per player"),
    ]:
        at = app(page)
        shown = texts(at)
        assert "run `big2 build --warehouse" in shown, page
        assert second not in shown and "Wins and cards left" not in shown, page
        assert not [d for d in at.dataframe if "obligations" in d.value.columns], page


def test_a_query_older_than_the_build_says_run_build(
    no_marts_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mart a page needs but the warehouse lacks (E_SQL_NOT_BUILT) is a message."""
    use(no_marts_wh.root)
    monkeypatch.setattr(data, "marts_built", lambda *names: True)
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page("views/leaderboard.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "run `big2 build --warehouse" in texts(at) and "E_SQL_NOT_BUILT" not in texts(at)
    with pytest.raises(data.QueryError, match="E_SQL_NOT_BUILT"):
        data.standings(data.NO_FILTERS)


def test_must_block_counts_match_the_actions_table(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    con = fixture_wh.connect()
    n_obl, n_viol = con.execute(
        "select count(*), count(*) filter (where block = 'violated') from actions "
        "where obligation is not null"
    ).fetchone()
    per_player = data.audit_by_player(data.NO_FILTERS)
    assert per_player["obligations"].sum() == n_obl
    assert per_player["violated"].sum() == n_viol


# ----- the layer rule ---------------------------------------------------------------------------

DASHBOARDS = ROOT / "dashboards"
NOT_IN_DASHBOARDS = ("pipeline.big2", "pipeline.cli", "pipeline.logs", "pipeline.replay")
#: The one module of those the dashboards call: the encoding hint of a file, told from the text
#: of its rejected lines as the warehouse keeps it (the Import health page; no log is read).
ALLOWED_IN_DASHBOARDS = ("pipeline.logs.encodings",)


@pytest.mark.parametrize("path", sorted(DASHBOARDS.rglob("*.py")), ids=lambda p: p.name)
def test_dashboards_hold_no_rules_and_pages_no_sql(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    bad = {n for n in names for f in NOT_IN_DASHBOARDS if n == f or n.startswith(f + ".")}
    bad -= set(ALLOWED_IN_DASHBOARDS)
    assert not bad, f"{path.name} imports {bad}"
    # pages name data functions, the data module names queries of sql/queries/: no SQL
    assert not re.search(r"\bselect\b[^\n]*\bfrom\b|\bselect\s*$", source, re.I | re.M), path.name


# ----- the marts: leaderboard, player, 頂大 and collusion -----------------------------------------


def frames(at: AppTest) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe]


def frame_with(at: AppTest, *columns: str, last: bool = False) -> pd.DataFrame:
    """The first (or last) table of the page with these columns."""
    found = [f for f in frames(at) if set(columns) <= set(f.columns)]
    assert found, (columns, [list(f.columns) for f in frames(at)])
    return found[-1] if last else found[0]


def test_leaderboard_standings_are_the_marts(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/leaderboard.py")
    board = frame_with(at, "player", "score", "title")
    con = fixture_wh.connect()
    mart = con.execute(
        "select player_id, total_score, title, overall_rank from mart_player_standings"
    ).df()
    con.close()
    merged = board.merge(mart, left_on="player", right_on="player_id")
    assert len(merged) == len(mart) > 0
    assert (merged["score"] == merged["total_score"]).all()
    # the titles in the locale of the interface (繁 by default), the ladder's as stored in the mart
    assert (merged["title_x"] == merged["title_y"].map(lambda t: terms.title(t, "繁"))).all()
    assert (merged["rank"] == merged["overall_rank"]).all()
    assert "whatif_score" not in board.columns
    charts = at.get("plotly_chart")
    assert len(charts) == 2  # the winnings graph and the luck-adjusted line beside it


def test_leaderboard_whatif_rescoring(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/leaderboard.py")
    assert at.selectbox(key="lb_settlement").disabled
    at.selectbox(key="lb_preset").select("mainland").run()
    assert not at.exception
    assert "rescored as **mainland**" in texts(at)
    board = frame_with(at, "player", "whatif_score", "whatif_title", "rank_change")
    con = fixture_wh.connect()
    con.execute("set variable w = (select params from rulesets where ruleset_id = 'mainland {}')")
    expected = con.execute(
        "select player_id, whatif_score, whatif_title from rescore_players(getvariable('w'))"
    ).df()
    con.close()
    merged = board.merge(expected, left_on="player", right_on="player_id")
    assert len(merged) == len(expected) > 0
    assert (merged["whatif_score_x"] == merged["whatif_score_y"]).all()
    assert (
        merged["whatif_title_x"] == merged["whatif_title_y"].map(lambda t: terms.title(t, "繁"))
    ).all()
    at.selectbox(key="lb_settlement").select("winner_takes_all").run()
    assert not at.exception and "settlement **winner_takes_all**" in texts(at)
    wta = frame_with(at, "player", "whatif_score")
    assert wta["whatif_score"].sum() == 0 or not wta["whatif_score"].equals(board["whatif_score"])


def test_leaderboard_filter_reaches_the_marts(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    ruleset = "mainland"
    f = data.Filters(ruleset=ruleset)
    expected = one(
        fixture_wh,
        "select sum(m.result) from mart_match_standings m join games g using (game_id) "
        f"where g.ruleset = '{ruleset}'",
    )[0]
    assert data.standings(f)["score"].sum() == expected
    hostile = data.Filters(ruleset="hk' or 1=1 --", player_id="x'); drop table games; --")
    for frame in (
        data.standings(hostile, data.whatif_json("taiwan", None)),
        data.winnings(hostile),
        data.audit_by_player(hostile),
        data.query("dash_obligations", hostile, player=None, next=None, only_failed=True, limit=9),
        data.query("dash_bao_games", hostile, limit=9),
        data.leaks(hostile, "p5"),
    ):
        assert frame.empty


def test_leak_finder(fixture_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch) -> None:
    use(fixture_wh.root)
    monkeypatch.setattr("dashboards.frames.MIN_GAMES", 1)  # the samples are a few games
    player = data.players(data.NO_FILTERS)[0]
    leaks = data.leaks(data.NO_FILTERS, player)
    assert len(leaks) >= 5
    assert leaks["z"].abs().is_monotonic_decreasing
    win = leaks[leaks["stat"] == "win rate"].iloc[0]
    n_games, n_wins = one(
        fixture_wh,
        f"select sum(n_games), sum(n_wins) from stats_player_games where player_id = '{player}'",
    )
    assert win["player_opportunities"] == n_games
    assert win["player_rate"] == pytest.approx(n_wins / n_games)
    at = app("views/player.py")
    assert at.selectbox(key="pl_player").value == player
    table = frame_with(at, "stat", "player_rate", "winners_rate", "z")
    assert table["stat"].tolist() == leaks["stat"].tolist()
    assert len(at.get("plotly_chart")) == 1


def test_player_chao_history_and_must_block_record(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    player, game_id, tier = one(
        fixture_wh,
        "select player_id, game_id, tier_name from mart_game_scores "
        "where is_loser and multiplier >= 2 order by game_id limit 1",
    )
    at = app()
    at.sidebar.selectbox(key="f_player").select(player).run()
    at.switch_page("views/player.py").run()
    assert not at.exception
    assert at.selectbox(key="pl_player").value == player
    hist = frame_with(at, "game_id", "tier_name", "multiplier", "replay")
    assert game_id in hist["game_id"].tolist() and tier in hist["tier_name"].tolist()
    assert hist["replay"].str.startswith("replayer?game_id=").all()
    tiers = frame_with(at, "tier", "losses")
    assert (
        tiers["losses"].sum()
        == one(
            fixture_wh,
            f"select count(*) from mart_game_scores where is_loser and player_id = '{player}'",
        )[0]
    )
    seats = frame_with(at, "position", "win_pct", "everyone_win_pct")
    assert (
        seats["games"].sum()
        == one(
            fixture_wh, f"select sum(n_games) from stats_player_games where player_id = '{player}'"
        )[0]
    )
    (obliged,) = one(fixture_wh, "select player_id from audit_obligations limit 1")
    at.sidebar.selectbox(key="f_player").select(obliged).run()
    assert not at.exception
    record = frame_with(at, "ruleset", "obligations", "violated", "bao_paid")
    assert (
        record["obligations"].sum()
        == one(fixture_wh, f"select count(*) from audit_obligations where player_id = '{obliged}'")[
            0
        ]
    )


def test_must_block_page_pairs_evidence_and_drill_down(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/must_block.py")
    per_player = frame_with(at, "player", "ruleset", "obligations", "bao_paid")
    assert (
        per_player["obligations"].sum()
        == one(fixture_wh, "select count(*) from audit_obligations")[0]
    )
    pairs = frame_with(at, "rank", "player_id", "partner_id", "verdict", "q_value")
    assert len(pairs) == one(fixture_wh, "select count(*) from collusion_ranking")[0]
    assert pairs["rank"].is_monotonic_increasing
    last = len(pairs) - 1
    at.selectbox(key="mb_pair").select(last).run()
    assert not at.exception
    a, b = pairs.iloc[last][["player_id", "partner_id"]]
    assert f"Evidence: {a} → {b}" in texts(at)
    ev = frame_with(at, "signal", "baseline", "p_value")
    assert (
        len(ev)
        == one(
            fixture_wh,
            f"select count(*) from collusion_evidence where player_id = '{a}' and partner_id = '{b}'",
        )[0]
    )
    drill = frame_with(at, "player", "next_player", "block", "replay", last=True)
    assert set(drill["player"]) == {a} and set(drill["next_player"]) == {b}
    assert (
        len(drill)
        == one(
            fixture_wh,
            "select count(*) from audit_obligations "
            f"where player_id = '{a}' and next_player_id = '{b}'",
        )[0]
    )
    assert all("&step=" in link for link in drill["replay"])
    at.sidebar.selectbox(key="f_player").select(a).run()  # the player filter keeps a's pairs
    assert not at.exception
    mine = frame_with(at, "rank", "player_id", "partner_id", "verdict")
    assert ((mine["player_id"] == a) | (mine["partner_id"] == a)).all()


def test_replayer_shows_the_game_scores(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id,) = one(fixture_wh, FULL_GAME_SQL)
    at = app("views/replayer.py", game_id=game_id)
    at.button(key="rp_last").click().run()
    assert not at.exception
    scores = [f for f in frames(at) if {"tier_name", "net"} <= set(f.columns)]
    assert (
        len(scores) == 1
        and len(scores[0])
        == one(fixture_wh, f"select players from games where game_id = '{game_id}'")[0]
    )


# ----- a running dashboard never blocks `big2 ingest` / `big2 build` -------------------------------


def test_build_succeeds_while_the_dashboard_is_serving(
    tmp_path: Path, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    build(wh)
    use(wh.root)
    before = data.stamp()
    for page in PAGES:  # every page has run its queries (and cached them)
        app(page)
    assert not data.standings(data.NO_FILTERS).empty
    assert adhoc.run_sql("select count(*) from games").frame.iloc[0, 0] > 0
    # another process writes: `big2 build` needs the file to itself
    cli = [sys.executable, "-m", "pipeline.cli", "build", "--warehouse", str(wh.root)]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    # and this very process can open it for writing: no read-only handle was left open
    build(wh)
    ingest([str(SAMPLES / "partial.jsonl")], wh)
    assert data.stamp() != before  # the next rerun reads the new state
    at = app()
    assert not at.exception
    n = one(wh, "select count(*) from games")[0]
    assert metric(at, "Games") == f"{n:,}"


@pytest.mark.parametrize("page", list(PAGES))
def test_page_when_the_filters_select_nothing(page: str, fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    opts = data.filter_options()
    assert opts.first is not None and opts.last is not None and opts.first < opts.last
    at = app()
    at.sidebar.date_input(key="f_from").set_value(opts.last).run()
    at.sidebar.date_input(key="f_to").set_value(opts.first).run()  # an empty period
    assert not at.exception
    assert metric(at, "Games") == "0"
    if page != "views/overview.py":
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_writer_holding_the_file_is_a_message_not_a_traceback(
    tmp_path: Path, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    wh.connect().close()  # the views are fresh
    use(wh.root)
    monkeypatch.setattr(reading, "BUSY_WAIT_S", 0.3)
    hold = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(30)"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", hold, str(wh.db_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
        state, message = data.status()
        assert state is data.State.BROKEN and "being written" in message
        at = app("views/leaderboard.py")
        assert "being written" in texts(at)
    finally:
        writer.kill()
        writer.wait()
    assert data.status()[0] is data.State.READY  # the writer is gone (failures are not cached)


def test_filtered_and_unfiltered_paths_agree(tmp_path: Path, use: Use) -> None:
    """Unfiltered views read the pre-aggregated marts; a filter that keeps every game takes the
    per-game path: both must give the same figures."""
    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    build(wh)
    use(wh.root)
    opts = data.filter_options()
    # only a redeal (no score, no action) has no start time: the period keeps every scored game
    assert one(
        wh, "select count(*) from games where started_at is null and outcome <> 'redeal'"
    ) == (0,)
    every = data.Filters(date_from=opts.first, date_to=opts.last)
    whatif = data.whatif_json("taiwan", None)
    same = ["player", "games", "wins", "score", "title", "whatif_score", "whatif_title"]
    for fn in (
        lambda f: data.standings(f)[same],
        lambda f: data.standings(f, whatif)[same],
        lambda f: data.audit_by_player(f),
    ):
        a, b = fn(data.NO_FILTERS), fn(every)
        if "games" in a:  # the players of the redeal alone (no game scored) are not in the period
            a = a[a["games"] > 0]
        a = a.sort_values(["player"]).reset_index(drop=True)
        b = b.sort_values(["player"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b, check_dtype=False)
    player = data.players(data.NO_FILTERS)[0]
    assert data.players(every)[0] == player
    pd.testing.assert_frame_equal(data.leaks(data.NO_FILTERS, player), data.leaks(every, player))


def test_seat_effect_counts_positions_in_the_games_direction_of_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clockwise games: the player page's positions after the first leader are those of
    stats_player_games (steps in the direction of play)."""
    import streamlit as st

    from pipeline.sim.sample import dumps, sample_match

    games = sample_match(seed=4, match_id="cw", n_games=12, overrides={"direction": "clockwise"})
    log = tmp_path / "cw.jsonl"
    log.write_text("".join(dumps(g) + "\n" for g in games), encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh)
    build(wh)
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    players = sorted({seat["player_id"] for g in games for seat in g["seats"]})
    with wh.connect() as con:
        expected = {
            p: con.execute(
                "select position, count(*), count(*) filter (where is_winner) "
                "from stats_player_games where player_id = ? group by 1 order by 1",
                [p],
            ).fetchall()
            for p in players
        }
    assert any(pos in (1, 3) for rows in expected.values() for pos, _, _ in rows)
    st.cache_data.clear()
    for p in players:
        seats = data.query("dash_seat_effects", data.Filters(), player_id=None, player=p)
        got = [(int(r.position), int(r.games), int(r.wins)) for r in seats.itertuples()]
        assert got == expected[p], p
    st.cache_data.clear()


def test_every_query_the_dashboards_name_is_a_file_of_sql_queries() -> None:
    named: set[str] = set()
    for path in DASHBOARDS.rglob("*.py"):
        named |= set(re.findall(r"\"(dash_\w+)\"", path.read_text(encoding="utf-8")))
    files = {p.stem for p in reading.queries_dir().glob("dash_*.sql")}
    assert len(named) > 20 and named <= files, named - files
    for name in files:
        assert reading.query_text(name).startswith("-- Grain: one row"), name


# ----- tables: readable headers, one format for scores, p-values and times -------------------

REPORT = "views/report.py"


def headers(at: AppTest) -> list[dict[str, dict[str, object]]]:
    """Per table of the page: column → its column config (label, type, format)."""
    out = []
    for d in at.dataframe:
        config = json.loads(d.proto.columns or "{}")
        cols = [str(c) for c in d.value.columns]
        out.append({c: {"label": c} | config.get(c, {}) for c in cols})
    return out


@pytest.mark.parametrize("page", sorted(PAGES))
def test_headers_are_readable(page: str, fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app(page)
    for table in headers(at):
        for column, config in table.items():
            shown = str(config["label"])
            assert "_" not in shown, (page, column, shown)
            if column in {"p_value", "p_combined", "p_bonferroni", "q_value"}:
                assert config["type_config"]["format"] == "%.2e", (page, column, config)
            if column in {"score", "whatif_score", "cumulative_score"} and page != REPORT:
                # the report's tables name their unit in their title (pipeline.report)
                assert shown.endswith("(money, or − penalty points)"), (page, column, shown)
                assert config["type_config"]["format"] == "localized", (page, column, config)
            if column == "started_at":
                assert shown == "started (UTC)", (page, shown)


def unformatted_shares(at: AppTest) -> list[tuple[str, object]]:
    """The float columns of a page's tables named as a share (``…_pct``, ``…_rate…``) that
    have no number format (drawn as 0.0936890045543266)."""
    out = []
    for d, config in zip(at.dataframe, headers(at), strict=True):
        for c in d.value.columns:
            share = {"pct", "rate"} & set(str(c).split("_"))
            if share and d.value[c].dtype.kind == "f":
                fmt = dict(config[str(c)].get("type_config") or {}).get("format")
                if not fmt:
                    out.append((str(c), d.value[c].iloc[0] if len(d.value) else None))
    return out


@pytest.mark.parametrize("page", sorted(PAGES))
def test_shares_have_a_number_format(page: str, fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    assert unformatted_shares(app(page)) == [], page


def test_times_in_the_display_zone(fixture_wh: Warehouse, use: Use) -> None:
    """The sidebar's display time zone (UTC by default) moves every time shown, to the minute."""
    use(fixture_wh.root)
    at = app()
    assert at.selectbox(key="f_tz").value == "UTC"
    utc = frame_with(at, "game_id", "started_at", last=True)
    at.selectbox(key="f_tz").set_value("Asia/Hong_Kong").run()
    hk = frame_with(at, "game_id", "started_at", last=True)
    assert (
        "started (Asia/Hong_Kong)"
        in json.loads(at.dataframe[-1].proto.columns)["started_at"]["label"]
    )
    known = utc["started_at"].notna()
    assert known.any()
    for a, b in zip(utc.loc[known, "started_at"], hk.loc[known, "started_at"], strict=True):
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", a), a  # one precision: the minute
        shift = pd.Timestamp(b) - pd.Timestamp(a)
        assert shift == pd.Timedelta(hours=8), (a, b)
    assert "HKT" in texts(at)  # the last import, in the zone


def test_one_action_numbering_everywhere(fixture_wh: Warehouse, use: Use) -> None:
    """Audit tables number actions as the replayer does: step = action_index + 1, and no table
    shows the 0-based action_index."""
    use(fixture_wh.root)
    for page in sorted(PAGES):
        at = app(page)
        for f in frames(at):
            assert "action_index" not in f.columns, (page, list(f.columns))
    at = app("views/must_block.py")
    violations = frame_with(at, "game_id", "step", "block")
    first = violations.iloc[0]
    assert f"step={int(first['step'])}" in first["replay"]
    replay = app("views/replayer.py", game_id=str(first["game_id"]), step=str(int(first["step"])))
    shown = texts(replay)
    assert f"**Step {int(first['step'])}** · trick {int(first['trick'])}" in shown
    assert "頂大: the next seat" in shown  # that step is the obligation's action


def test_filters_hidden_where_ignored_and_kept(fixture_wh: Warehouse, use: Use) -> None:
    """SQL explorer and Import health ignore the filters: they do not show them; the filters
    chosen before are still there on the next page that uses them."""
    use(fixture_wh.root)
    at = app()
    (ruleset,) = one(
        fixture_wh, "select ruleset from games group by 1 order by count(*), 1 limit 1"
    )
    at.sidebar.selectbox(key="f_ruleset").select(ruleset).run()
    for page in ("views/sql_explorer.py", "views/import_health.py"):
        at.switch_page(page).run()
        assert not at.exception
        keys = {w.key for w in at.sidebar.selectbox} | {w.key for w in at.sidebar.date_input}
        assert not keys & {"f_ruleset", "f_match", "f_player", "f_from", "f_to"}, (page, keys)
        assert "f_tz" in keys  # the display time zone still applies
        assert "Filters" not in [str(m.value) for m in at.sidebar.markdown]
    at.switch_page("views/leaderboard.py").run()
    assert at.sidebar.selectbox(key="f_ruleset").value == ruleset
    assert f"ruleset: {ruleset}" in texts(at)


def test_replayer_result_says_who_paid_whom(fixture_wh: Warehouse, use: Use) -> None:
    """The end of a game: a small table of each seat's result in the game's unit, and who paid
    whom: each seat's payments received less paid are its net."""
    use(fixture_wh.root)
    (game_id,) = one(
        fixture_wh,
        "select s.game_id from mart_game_scores s join games g using (game_id) "
        "where s.settlement <> 'penalty_points' and s.is_scored and g.full_info "
        "group by 1 having sum(abs(s.net)) > 0 order by 1 limit 1",
    )
    at = app("views/replayer.py", game_id=game_id)
    at.button(key="rp_last").click().run()
    assert not at.exception
    result = frame_with(at, "seat", "player_id", "result")
    assert len(result.columns) <= 6  # readable: not the 39-column row
    net = dict(
        fixture_wh.connect()
        .execute(f"select seat, net from mart_game_scores where game_id = '{game_id}'")
        .fetchall()
    )
    assert dict(zip(result["seat"], result["result"], strict=True)) == net
    config = json.loads(next(d for d in at.dataframe if "result" in d.value.columns).proto.columns)
    assert config["result"]["label"] == "result (money, + won / − lost)"
    paid = frame_with(at, "payer", "receiver", "amount")
    seat_of = dict(zip(result["player_id"], result["seat"], strict=True))
    flow = {s: 0.0 for s in net}
    for p in paid.itertuples():
        flow[seat_of[p.payer]] -= p.amount
        flow[seat_of[p.receiver]] += p.amount
    assert flow == pytest.approx(net)
    assert "Who paid whom" in texts(at)


def test_winnings_graph_one_game_colours_and_cap(fixture_wh: Warehouse, use: Use) -> None:
    """A one-game filter says there is nothing to plot (no empty axes); every player of the
    graph has their own colour (24 of them, Plotly's default repeats after 10); a cap is said."""
    use(fixture_wh.root)
    at = app("views/leaderboard.py")
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    assert charts
    for spec in charts.values():
        colours = [t["line"]["color"] for t in spec["data"]]
        assert len(set(colours)) == len(colours), colours
        assert set(colours) <= set(ui.PALETTE), colours
    assert len(set(ui.PALETTE)) >= data.WINNINGS_PLAYERS > 10  # no colour repeats past 10
    (n_players,) = one(fixture_wh, "select count(distinct player_id) from seats")
    shown = {t["name"] for spec in charts.values() for t in spec["data"]}
    capped = f"Showing the {len(shown)} most active of {n_players:,} players" in texts(at)
    assert capped is (n_players > len(shown)), (n_players, shown)
    (match_id,) = one(
        fixture_wh,
        "select match_id from games where match_id is not null group by 1 having count(*) = 1 "
        "order by 1 limit 1",
    )
    at.sidebar.selectbox(key="f_match").select(match_id).run()
    assert not at.exception
    assert "One game: nothing to plot" in texts(at)
    assert not at.get("plotly_chart")


def test_winnings_graph_cap_counts_the_filtered_players(fixture_wh: Warehouse, use: Use) -> None:
    """Under a player filter the cap counts the players of that player's games (the graph's
    own): all of them drawn, no "most active of" every player of the warehouse."""
    use(fixture_wh.root)
    player, n_with = one(
        fixture_wh,
        "select a.player_id, count(distinct b.player_id) from seats a join seats b using "
        "(game_id) group by 1 having count(distinct b.player_id) > 2 and count(distinct game_id) > 1 "
        "order by 2, 1 limit 1",
    )
    (n_all,) = one(fixture_wh, "select count(distinct player_id) from seats")
    assert n_all > n_with and n_with <= data.WINNINGS_PLAYERS  # the player did not meet everyone
    at = app("views/leaderboard.py", player=player)
    shown = {t["name"] for c in at.get("plotly_chart") for t in json.loads(c.proto.spec)["data"]}
    assert len(shown) == n_with, shown
    assert "most active of" not in texts(at)


def test_leak_finder_polarity_minimum_sample_and_advice(fixture_wh: Warehouse, use: Use) -> None:
    """Coloured by good or bad (polarity per stat), not the sign; no z-score under
    frames.MIN_GAMES games; one sentence of advice per leak."""
    from dashboards.frames import LEAK_POLARITY, LEAK_STATS, MIN_GAMES, leak_table

    assert {label for label, _, _ in LEAK_STATS} <= set(LEAK_POLARITY)
    counts = pd.DataFrame(
        {"who": ["player", "winners"], "n_players": [1, 3], "n_games": [200.0, 600.0],
         "n_wins": [20.0, 180.0], "n_twos_left": [90.0, 60.0], "n_twos_dealt": [400.0, 1200.0],
         "n_lead_single": [50.0, 100.0], "n_leads": [100.0, 300.0]}
    )  # fmt: skip
    t = leak_table(counts).set_index("stat")
    assert t.loc["win rate", "verdict"] == "worse"  # lower, and higher is better
    assert t.loc["2s left at the end", "verdict"] == "worse"  # higher, and lower is better
    assert t.loc["2s left at the end", "difference"] > 0
    assert t.loc["lead singles (of leads)", "verdict"] == "style"
    assert t.loc["win rate", "advice"] and t.loc["2s left at the end", "advice"]
    assert t["z"].notna().all()
    few = leak_table(counts.assign(n_games=[MIN_GAMES - 1.0, 600.0]))
    assert few["z"].isna().all() and few["player_rate"].notna().all()

    use(fixture_wh.root)
    (player, n) = one(
        fixture_wh,
        "select player_id, sum(n_games) from stats_player_games group by 1 order by 2, 1 limit 1",
    )
    assert n < MIN_GAMES
    at = app("views/player.py")
    at.selectbox(key="pl_player").set_value(player).run()
    assert not at.exception
    shown = texts(at)
    assert f"Fewer than {MIN_GAMES} games in this selection" in shown
    table = frame_with(at, "stat", "verdict", "advice", "z")
    assert table["z"].isna().all()
    (chart,) = at.get("plotly_chart")
    names = {t["name"] for t in json.loads(chart.proto.spec)["data"]}
    assert names <= {"better", "worse", "style", "same"}, names


def test_player_games_list_has_the_ruleset(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    at = app("views/player.py")
    player = at.selectbox(key="pl_player").value
    games = frame_with(at, "game_id", "ruleset", "is_winner", "cards_left", last=True)
    rulesets = dict(fixture_wh.connect().execute(  # a game's own: with its overrides
        "select game_id, ruleset_label(ruleset || ' ' || overrides) from games").fetchall())  # fmt: skip
    assert len(games) and all(
        rulesets[g] == r for g, r in zip(games["game_id"], games["ruleset"], strict=True)
    )
    assert player


def test_long_lists_show_their_first_rows_and_say_so(
    fixture_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a list of games or events holds its first data.LIST_ROWS rows and says it is cut (a
    # player of 1M games sent the browser 1M rows); a shorter list says nothing
    use(fixture_wh.root)
    monkeypatch.setattr(data, "LIST_ROWS", 2)
    at = app("views/player.py")
    player = at.selectbox(key="pl_player").value
    con = fixture_wh.connect()
    played = [
        g
        for (g,) in con.execute(
            "select s.game_id from seats s join games g using (game_id) where s.player_id = ? "
            "order by g.started_at desc nulls last, g.game_id",
            [player],
        ).fetchall()
    ]
    (n_rejects,) = con.execute("select count(*) from rejects").fetchone() or (0,)
    con.close()
    assert len(played) > 2 and n_rejects > 2
    games = frame_with(at, "game_id", "ruleset", "is_winner", "cards_left", last=True)
    assert games["game_id"].tolist() == played[:2]  # the newest two
    assert "The first 2 games, newest first; there are more" in texts(at)
    at = app("views/import_health.py")
    assert frame_with(at, "reject_no", "code", "message")["reject_no"].tolist() == [1, 2]
    assert "The first 2 rejected records, in import order; there are more" in texts(at)
    monkeypatch.setattr(data, "LIST_ROWS", len(played))
    at = app("views/player.py")
    games = frame_with(at, "game_id", "ruleset", "is_winner", "cards_left", last=True)
    assert games["game_id"].tolist() == played and "there are more" not in texts(at)


# ----- issue 13: key columns in the table's viewport at 1400 px (the browser test measures) ---


def column_orders(at: AppTest) -> list[list[str]]:
    """Per table of the page: the columns shown, in order (``column_order``)."""
    return [list(d.proto.column_order) for d in at.dataframe]


def shown_first(at: AppTest, *columns: str) -> list[str]:
    """The table whose first shown columns are ``columns``; its shown columns."""
    found = [o for o in column_orders(at) if o[: len(columns)] == list(columns)]
    assert found, (columns, column_orders(at))
    return found[0]


def test_key_columns_come_first(fixture_wh: Warehouse, use: Use) -> None:
    """The columns issue 13 found cut at 1400 px come first (the rest after, some hidden); the
    browser test checks they are whole in the table's viewport."""
    use(fixture_wh.root)
    at = app()
    matches = shown_first(at, "replay", "match")
    assert "last_game" not in matches and {"started_at", "ended_at", "players"} <= set(matches)
    labels = json.loads(at.dataframe[0].proto.columns)
    assert labels["ended_at"]["label"] == "ended (UTC)"  # a time, in the display zone
    at = app("views/leaderboard.py")
    at.selectbox(key="lb_preset").set_value("mainland").run()
    shown_first(at, "rank", "whatif_rank", "rank_change", "player", "score", "whatif_score")
    at = app("views/must_block.py")
    shown_first(at, "replay", "game_id", "step", "player", "next_player", "obligation", "block")
    pairs = shown_first(at, "rank", "player_id", "partner_id", "verdict", "q_value")
    assert "soft_feed_rate_toward" not in pairs  # in the evidence
    shown_first(at, "signal", "p_value")
    at = app("views/import_health.py")
    rejects = shown_first(at, "reject_no", "code", "message")
    assert "raw" not in rejects
    at = app("views/player.py")
    shown_first(at, "stat", "verdict", "player_rate", "winners_rate")


def test_sql_explorer_catalogue_describes_and_says_where_to_start(
    fixture_wh: Warehouse, use: Use
) -> None:
    """Each table, view and mart with the description `big2 sql --tables` has (the catalog's
    comments), its columns' too; the tables to start with first; a search narrows the list."""
    from pipeline.sqlbuild import catalogue

    use(fixture_wh.root)
    at = app("views/sql_explorer.py")
    assert "Where to start:" in texts(at) and "`mart_game_scores`" in texts(at)
    labels = [str(e.label) for e in at.expander]
    assert labels[0].startswith("⭐ ") and not labels[-1].startswith("⭐")
    con = reading.open_readonly(fixture_wh)
    try:
        cli = catalogue(con)
    finally:
        con.close()
    grains = {t: d for t, _, c, d in cli if c == "*"}
    captions = [str(c.value) for c in at.caption]
    assert grains["mart_game_scores"].startswith("Grain: one row per seat per game")
    assert grains["mart_game_scores"] in captions
    assert "⭐ mart_game_scores (view)" in labels or "⭐ mart_game_scores (table)" in labels
    cols = [d.value for d in at.dataframe if "description" in d.value.columns]
    described = {
        (c.split(" ")[0], d) for t, _, c, d in cli if t == "mart_game_scores" and c != "*" and d
    }
    assert described and any(
        {(r.column_name, r.description) for r in f.itertuples() if r.description} == described
        for f in cols
    )
    at.text_input(key="sql_find").input("包牌").run()
    fewer = [str(e.label) for e in at.expander]
    assert 0 < len(fewer) < len(labels)


# ----- issue 13: rate figures -----------------------------------------------------------------


def minutes_by_hand(wh: Warehouse, gap: float) -> dict[str, float]:
    """Each player's minutes at the table as ``dash_player_rates`` says it counts them, from the
    games and seats tables."""
    seats = (
        wh.connect()
        .execute(
            "select s.player_id, g.game_id, g.started_at from seats s join games g using (game_id) "
            "where g.outcome <> 'redeal'"
        )
        .df()
    )
    seats["t"] = pd.to_datetime(seats["started_at"], utc=True, format="ISO8601")
    seats = seats.sort_values(["player_id", "t", "game_id"])
    seats["gap"] = seats.groupby("player_id")["t"].shift(-1).sub(seats["t"]).dt.total_seconds() / 60
    within = seats["gap"].where((seats["gap"] > 0) & (seats["gap"] <= gap))
    typical = float(within.median())
    seats["minutes"] = within.fillna(typical)
    return {str(p): float(m) for p, m in seats.groupby("player_id")["minutes"].sum().items()}


def test_rate_figures_per_game_and_per_hour(fixture_wh: Warehouse, use: Use) -> None:
    """Score per game and per hour per player (hours from the games' start times, the way the
    page says), on the leaderboard and the player page."""
    use(fixture_wh.root)
    at = app("views/leaderboard.py")
    rates = frame_with(at, "player", "score_per_game", "score_per_hour", "hours")
    board = frame_with(at, "rank", "player", "score", "wins")
    scores = dict(zip(board["player"], board["score"], strict=True))
    by_hand = minutes_by_hand(fixture_wh, data.GAP_MINUTES)
    assert len(rates) > 3
    for r in rates.itertuples():
        assert r.score == pytest.approx(scores[r.player])
        assert r.score_per_game == pytest.approx(r.score / r.games)
        assert r.hours == pytest.approx(by_hand[r.player] / 60)
        assert r.score_per_hour == pytest.approx(r.score / r.hours)
    assert "typical game" in texts(at)
    top = rates.iloc[0]
    at = app("views/player.py")
    at.selectbox(key="pl_player").set_value(top["player"]).run()
    shown = {m.label: m.value for m in at.metric}
    assert shown["Score per game"] == f"{top['score_per_game']:,.2f}"
    assert shown["Score per hour"] == f"{top['score_per_hour']:,.1f}"


def test_no_per_hour_figure_without_times(tmp_path: Path, use: Use) -> None:
    """Games without start times: a score per game, no hours and no score per hour."""
    lines = (SAMPLES / "games.jsonl").read_text(encoding="utf-8").splitlines()
    untimed = tmp_path / "untimed.jsonl"
    stripped = [json.loads(x) for x in lines if x.strip()]
    for rec in stripped:
        rec.pop("started_at", None)
    untimed.write_text("".join(json.dumps(r) + "\n" for r in stripped), encoding="utf-8")
    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(untimed)], wh)
    build(wh)
    use(wh.root)
    assert one(wh, "select count(*) from games where started_at is not null") == (0,)
    at = app("views/leaderboard.py")
    rates = frame_with(at, "player", "score_per_game", "score_per_hour", "hours")
    assert rates["score_per_game"].notna().all()
    assert rates["hours"].isna().all() and rates["score_per_hour"].isna().all()
    at = app("views/player.py")
    shown = {m.label: m.value for m in at.metric}
    assert shown["Score per hour"] == "—" and "Hours at the table" not in shown


# ----- issue 13: the winnings graph under the what-if, by date and by match --------------------


def plotly_values(values: object) -> list[object]:
    """A Plotly trace's values: a list, or a typed array (``{"dtype", "bdata"}``, base64)."""
    if isinstance(values, dict):
        import base64

        import numpy as np

        raw = base64.b64decode(values["bdata"])
        return list(np.frombuffer(raw, dtype=values["dtype"]).tolist())
    assert isinstance(values, list), values
    return values


def traces(at: AppTest, index: int = 0) -> dict[str, tuple[list[object], list[float]]]:
    """Player → (x, y) of a Plotly chart of the page."""
    spec = json.loads(at.get("plotly_chart")[index].proto.spec)
    return {
        t["name"]: (plotly_values(t["x"]), [float(v) for v in plotly_values(t["y"])])  # type: ignore[arg-type]
        for t in spec["data"]
    }


def test_winnings_graph_whatif_by_date_and_by_match(fixture_wh: Warehouse, use: Use) -> None:
    """The graph ends where the standings do (the what-if's when one is chosen), and plots by
    game number, by date (each game's start) or by match (one point per match)."""
    use(fixture_wh.root)
    at = app("views/leaderboard.py")
    own = frame_with(at, "rank", "player", "score", "wins")
    lines = traces(at)
    for player, (_, y) in lines.items():
        assert y[-1] == pytest.approx(float(own.set_index("player").loc[player, "score"]))
    at.selectbox(key="lb_preset").set_value("mainland").run()
    whatif = frame_with(at, "player", "whatif_score").set_index("player")
    changed = 0
    for player, (_, y) in traces(at).items():
        assert y[-1] == pytest.approx(float(whatif.loc[player, "whatif_score"]))
        changed += y[-1] != float(whatif.loc[player, "score"])
    assert changed, "the what-if changes no total: the test proves nothing"
    assert "what-if: mainland" in at.get("plotly_chart")[0].proto.spec
    at.button_group(key="lb_by").set_value("match").run()
    n_matches = one(fixture_wh, "select count(distinct match_key) from mart_game_scores")[0]
    for player, (x, y) in traces(at).items():
        assert x == sorted(x) and len(set(x)) == len(x) and max(x) <= n_matches  # type: ignore[type-var]
        assert y[-1] == pytest.approx(float(whatif.loc[player, "whatif_score"]))
    at.button_group(key="lb_by").set_value("date").run()
    for _, (x, _) in traces(at).items():
        assert all(re.match(r"\d{4}-\d\d-\d\d", str(v)) for v in x), x
    assert "date (UTC)" in at.get("plotly_chart")[0].proto.spec


# ----- issue 13: one locale for the game terms and the rank-ladder titles -----------------------


def test_locale_of_titles_and_game_terms_on_every_page(fixture_wh: Warehouse, use: Use) -> None:
    """繁 (the default, as the rest of the interface), 简 or English: the rank-ladder titles (stored
    Simplified) and the game terms (炒, 包牌, 頂大) read one way on every page."""
    use(fixture_wh.root)
    stored = one(fixture_wh, "select title from mart_player_standings order by player_id")[0]
    assert stored == "待业"  # the spec's ladder, Simplified
    at = app("views/leaderboard.py")
    assert at.sidebar.selectbox(key="f_locale").value == "繁"
    assert set(frame_with(at, "player", "title")["title"]) == {"待業"}
    at.sidebar.selectbox(key="f_locale").set_value("en").run()
    assert set(frame_with(at, "player", "title")["title"]) == {"Unemployed"}
    at.switch_page("views/player.py").run()
    heads = [str(h.value) for h in at.subheader]
    assert "chao history" in heads and "must-block record" in heads, heads
    assert {m.label: m.value for m in at.metric}["Rank-ladder title"] == "Unemployed"
    for config in headers(at):
        for c in config.values():
            assert not re.search("[炒包頂]", str(c["label"])), c
    at.switch_page("views/must_block.py").run()
    assert "must-block and collusion" in str(at.title[0].value)
    at.sidebar.selectbox(key="f_locale").set_value("简").run()
    assert "顶大 and collusion" in str(at.title[0].value)
    at.switch_page("views/leaderboard.py").run()
    assert set(frame_with(at, "player", "title")["title"]) == {"待业"}


GAME_TERMS = re.compile("[炒包頂顶]")


@pytest.mark.parametrize("page", [p for p in PAGES if p not in UNFILTERED])
def test_english_pages_name_no_game_term_in_chinese(
    page: str, fixture_wh: Warehouse, use: Use
) -> None:
    """In English, the headings, captions, table headers and cells of a page name the game
    terms in English (the leak finder's stats, the 頂大 page's notes, the report's sections)."""
    use(fixture_wh.root)
    at = app()
    at.sidebar.selectbox(key="f_locale").set_value("en").run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    for line in texts(at).splitlines():
        if not line.startswith("<"):  # the replayer's cards as HTML
            assert not GAME_TERMS.search(line), (page, line)
    for config in headers(at):
        for c in config.values():
            assert not GAME_TERMS.search(str(c["label"])), (page, c)
    for shown in frames(at):
        for column in shown.columns:
            assert not GAME_TERMS.search(str(column)), (page, column)
            cells = [v for v in shown[column] if isinstance(v, str) and GAME_TERMS.search(v)]
            assert not cells, (page, column, cells[:3])


# ----- issue 13: more filters (seat, opponent, players, outcome, 炒 tier) and saved filters ----


def game_ids(wh: Warehouse, sql: str) -> set[str]:
    return {str(r[0]) for r in wh.connect().execute(sql).fetchall()}


def test_more_filters_select_the_games_and_are_bound(fixture_wh: Warehouse, use: Use) -> None:
    """Each new filter (the player's seat, an opponent, the players at the table, the outcome,
    a loser's 炒 tier) selects the games the tables say, on every page through one macro
    (dash_filtered_games); values are bound parameters, never formatted SQL."""
    use(fixture_wh.root)
    cases = {
        data.Filters(player_id="p5", seat=0): "select game_id from seats where player_id = 'p5' "
        "and seat = 0",
        data.Filters(opponent="p6"): "select game_id from seats where player_id = 'p6'",
        data.Filters(player_id="p5", opponent="p6"): "select game_id from seats where player_id"
        " = 'p6' intersect select game_id from seats where player_id = 'p5'",
        data.Filters(n_players=2): "select game_id from games where players = 2",
        data.Filters(outcome="redeal"): "select game_id from games where outcome = 'redeal'",
        data.Filters(chao_tier=2): "select game_id from mart_game_scores where is_loser and "
        "multiplier = 2",
        data.Filters(player_id="p4", chao_tier=1): "select game_id from mart_game_scores where "
        "is_loser and multiplier = 1 and player_id = 'p4'",
    }
    for f, sql in cases.items():
        expected = game_ids(fixture_wh, sql)
        assert expected, sql  # the samples have such games: the case proves something
        got = set(data.query("dash_games", f, limit=1000)["game_id"])
        assert got == expected, (f, got, expected)
        assert data.overview(f)["n_games"] == len(expected)
        if f.outcome != "redeal":  # a redeal scores nobody
            board = data.standings(f)
            assert (
                board["games"].sum()
                == one(fixture_wh, f"select count(*) from seats where game_id in ({sql})")[0]
            )
        assert not data.rollup(f)  # the rollups answer a ruleset and a period only
        tiers = data.query("dash_chao_tiers", f, player="p4")  # the player page's 炒 losses
        losses = "select count(*) from mart_game_scores where player_id = 'p4' and is_loser"
        assert tiers["losses"].sum() == one(fixture_wh, f"{losses} and game_id in ({sql})")[0]
    hostile = data.Filters(opponent="x' or 1=1 --", outcome="played_out'); drop table games; --")
    assert data.query("dash_games", hostile, limit=1000).empty
    assert data.overview(data.NO_FILTERS)["n_games"] > 0
    # the sidebar: under "More filters"; the player's seat only with a player
    at = app()
    assert at.sidebar.selectbox(key="f_seat").disabled
    at.sidebar.selectbox(key="f_players").set_value(2).run()
    games = frame_with(at, "game_id", "outcome", last=True)
    assert set(games["game_id"]) == game_ids(fixture_wh, cases[data.Filters(n_players=2)])
    assert "Filters: players at the table: 2" in texts(at)
    at.sidebar.selectbox(key="f_players").set_value(None).run()
    at.sidebar.selectbox(key="f_tier").set_value(2).run()
    at.switch_page("views/must_block.py").run()
    assert not at.exception and at.session_state["filters"].chao_tier == 2


def test_saved_filters_in_the_link_and_beside_the_warehouse(
    tmp_path: Path, fixture_wh: Warehouse, use: Use
) -> None:
    """A link's query parameters reproduce the view; named sets are saved in a JSON file beside
    the warehouse (not in it) and load back."""
    use(fixture_wh.root)
    at = app(player="p5", players="4", tier="x")  # a value that does not parse is left out
    f = at.session_state["filters"]
    assert (f.player_id, f.n_players, f.chao_tier) == ("p5", 4, None)
    assert at.query_params["player"] == ["p5"] or at.query_params["player"] == "p5"
    # the caption names them as the sidebar does, not by their parameters (player_id …)
    assert "Filters: player: p5; players at the table: 4" in texts(at)
    at.sidebar.selectbox(key="f_outcome").set_value("played_out").run()
    assert dict(at.query_params).get("outcome") in ("played_out", ["played_out"])
    path = fixture_wh.root.with_name(fixture_wh.root.name + ".filters.json")
    path.unlink(missing_ok=True)
    at.sidebar.text_input(key="f_save_name").input("p5 at four").run()
    at.sidebar.button(key="f_save").click().run()
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "p5 at four": {"player": "p5", "players": "4", "outcome": "played_out"}
    }
    assert not any(p.name.endswith(".filters.json") for p in fixture_wh.root.rglob("*"))
    at.sidebar.button(key="f_clear").click().run()
    assert at.session_state["filters"] == data.NO_FILTERS
    at.sidebar.selectbox(key="f_saved_pick").set_value("p5 at four").run()
    at.sidebar.button(key="f_load").click().run()
    f = at.session_state["filters"]
    assert (f.player_id, f.n_players, f.outcome) == ("p5", 4, "played_out")
    path.unlink()


#: The dashboards' modules stay small: about 300 lines (data.py names queries, the helpers are
#: split by concern: tables, sidebar, saved filters, terms), pages thin.
MAX_LINES = 320


@pytest.mark.parametrize("path", sorted(DASHBOARDS.rglob("*.py")), ids=lambda p: p.name)
def test_modules_stay_small(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.name}: {n} lines (split it by concern)"


def test_one_title_rule_for_the_standings_queries(fixture_wh: Warehouse) -> None:
    """dash_title (sql/macros/dash_title.sql), the standings queries' one title rule: the
    highest threshold at most the score, as the marts' titles."""
    con = fixture_wh.connect()
    try:
        got = con.execute(
            "select dash_title(-5), dash_title(999), dash_title(1000), dash_title(1e7), "
            "dash_title(null)"
        ).fetchone()
        assert got == ("待业", "待业", "科员", "主席", None)
        (bad,) = con.execute(
            "select count(*) from mart_player_standings where title <> dash_title(total_score)"
        ).fetchone() or (1,)
        assert bad == 0
    finally:
        con.close()
    board = (SQL_DIR / "macros" / "dash_board.sql").read_text(encoding="utf-8")
    assert "dash_title(score)" in board and "rank_ladder" not in board
    for name in ("dash_standings", "dash_standings_rollup", "dash_standings_whatif",
                 "dash_standings_rollup_whatif"):  # fmt: skip
        text = reading.query_text(name)
        assert "dash_board(own, wi)" in text and "rank_ladder" not in text, name


def test_the_ruleset_filter_offers_each_presets_variants(fixture_wh: Warehouse, use: Use) -> None:
    # the sidebar listed the preset names only: a game logged with overrides (a preset plus
    # house rules) was counted with the preset's other games. Each variant (preset + overrides)
    # is offered under its preset now; a variant keeps exactly its games, the preset (as a
    # saved link has it) every game of the preset
    use(fixture_wh.root)
    per = dict(fixture_wh.connect().execute(
        "select ruleset || ' ' || overrides, count(*) from games group by 1").fetchall())  # fmt: skip
    hk = sorted(v for v in per if v.startswith("hk "))
    assert len(hk) >= 3 and "hk {}" in hk  # the fixture: hk alone and with overrides
    at = app(ruleset="hk")  # a link of before: the preset
    box = at.sidebar.selectbox(key="f_ruleset")
    assert box.value == "hk" and metric(at, "Games") == str(sum(per[v] for v in hk))
    listed = box.options
    assert listed.index("hk") < min(listed.index(f"  ↳ {label}") for label in (
        'hk {"players": 2}', "hk, no overrides")) < listed.index("mainland")  # fmt: skip
    for variant in hk:
        at.sidebar.selectbox(key="f_ruleset").select(variant).run()
        assert not at.exception, [e.value for e in at.exception]
        assert metric(at, "Games") == str(per[variant]), variant
        assert at.query_params["ruleset"] == variant  # in the link, for the next visit
        shown = frame_with(at, "game_id", "ruleset", "winner")["ruleset"]  # each game's own
        assert set(shown) == {variant.removesuffix(" {}")}, variant
    later = app(ruleset='hk {"players": 2}')
    assert later.sidebar.selectbox(key="f_ruleset").value == 'hk {"players": 2}'
    assert metric(later, "Games") == str(per['hk {"players": 2}'])
