"""The dashboards under Streamlit's AppTest: every page on a small fixture warehouse (the
samples ingested through the real pipeline), on an empty one and on none at all.

The browser test (``tests/browser/``) drives the same app in chromium.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboards import data
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dashboards" / "app.py"
SAMPLES = ROOT / "data" / "samples"
SAMPLE_FILES = ("games.jsonl", "bad.jsonl", "partial.jsonl")

#: page file → texts its headings must show on the fixture warehouse
PAGES = {
    "views/overview.py": ["Import health", "Recent matches", "Recent games"],
    "views/leaderboard.py": ["Wins and cards left", "Running totals"],
    "views/player.py": ["Seat effect", "頂大 record", "Games"],
    "views/replayer.py": [],
    "views/must_block.py": ["Per player", "Pairs: who fails to block whom"],
    "views/import_health.py": ["Import batches", "Rejects by error code", "Rejected records"],
    "views/sql_explorer.py": [],
}
#: pages that have something to show for a warehouse with imports but no game
SHOWS_EMPTY = {"views/import_health.py", "views/sql_explorer.py"}


@pytest.fixture(scope="module")
def fixture_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("dash") / "warehouse")
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
def use(monkeypatch: pytest.MonkeyPatch) -> Use:
    """``use(wh_root)`` points the app at a warehouse (as ``big2 dashboard`` does)."""

    def point(root: Path) -> None:
        monkeypatch.setenv("BIG2_WAREHOUSE", str(root))

    return point


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
    assert at.sidebar.selectbox(key="f_ruleset") is not None  # the shared filters are there


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
    assert metric(at, "Rejected records") == f"{n_rejects:,}"
    assert n_rejects > 0 and f"{n_rejects} records were rejected" in texts(at)


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
    assert data.games(hostile).empty
    assert data.overview(data.NO_FILTERS)["n_games"] > 0


# ----- hand replayer ---------------------------------------------------------------------------


def step_text(at: AppTest) -> str:
    return next(str(m.value) for m in at.markdown if str(m.value).startswith("**Step "))


def test_replayer_game_from_url_and_buttons(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    (game_id,) = one(fixture_wh, FULL_GAME_SQL)
    at = app("views/replayer.py", game_id=game_id)
    assert at.selectbox(key="replayer_game").value == game_id
    n = len(data.game_actions(game_id))
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
    seats = data.game_seats(game_id)
    actions = data.game_actions(game_id)
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
    assert any("rows in" in str(c.value) for c in at.caption)


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


def test_run_sql_time_limit(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    slow = "select count(*) from range(100000000000) a"
    with pytest.raises(data.QueryError, match="time limit"):
        data.run_sql(slow, timeout_s=0.2)
    with pytest.raises(data.QueryError, match="exactly one"):
        data.run_sql("select 1; select 2")


def test_marts_missing_are_announced(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    assert not data.mart_exists("standings")
    at = app("views/leaderboard.py")
    assert data.MARTS["standings"] in texts(at)
    at = app("views/must_block.py")
    assert data.MARTS["collusion_pairs"] in texts(at)


def test_must_block_counts_match_the_actions_table(fixture_wh: Warehouse, use: Use) -> None:
    use(fixture_wh.root)
    con = fixture_wh.connect()
    n_obl, n_viol = con.execute(
        "select count(*), count(*) filter (where block = 'violated') from actions "
        "where obligation is not null"
    ).fetchone()
    per_player = data.must_block_players(data.NO_FILTERS)
    assert per_player["obligations"].sum() == n_obl
    assert per_player["violated"].sum() == n_viol


# ----- the layer rule ---------------------------------------------------------------------------

DASHBOARDS = ROOT / "dashboards"
NOT_IN_DASHBOARDS = ("pipeline.big2", "pipeline.cli", "pipeline.logs", "pipeline.replay")


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
    assert not bad, f"{path.name} imports {bad}"
    if path.parent.name == "views":  # pages name data functions, never SQL
        assert not re.search(r"\bselect\s+[\w*,. ]+\s+from\s+\w+", source, re.I), path.name


# ----- marts plug in when built ------------------------------------------------------------------

FAKE_MARTS = {
    "mart_player_standings": "select player_id, count(*) as n_games, 'fake-title' as title "
    "from seats group by 1",
    "mart_game_scores": "select game_id, seat, 7 as result from seats",
    "audit_players": "select 'fake-auditor' as player_id, 1 as n_obligations",
    "collusion_ranking": "select 'fake-a' as player_id, 'fake-b' as partner_id, 0.5 as q_value",
}


@pytest.fixture(scope="module")
def mart_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """The samples plus stand-ins for the marts of issues 6 and 7 (as `big2 build` makes them)."""
    import duckdb

    wh = Warehouse(tmp_path_factory.mktemp("dash-marts") / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    con = duckdb.connect(str(wh.db_path))
    for name, sql in FAKE_MARTS.items():
        con.execute(f"create view {name} as {sql}")
    con.close()
    return wh


def test_marts_are_shown_when_built(mart_wh: Warehouse, use: Use) -> None:
    use(mart_wh.root)
    assert all(data.mart_exists(role) for role in data.MARTS)
    at = app("views/leaderboard.py")
    assert any("title" in d.value.columns for d in at.dataframe)
    assert data.MARTS["standings"] + "` (issue 6)" not in texts(at)
    at = app("views/must_block.py")
    frames = [d.value for d in at.dataframe]
    assert any("fake-auditor" in f.to_string() for f in frames)
    assert any("fake-b" in f.to_string() for f in frames)
    (game_id,) = one(mart_wh, FULL_GAME_SQL)
    at = app("views/replayer.py", game_id=game_id)
    at.button(key="rp_last").click().run()
    assert not at.exception
    scores = [d.value for d in at.dataframe if "result" in d.value.columns]
    assert len(scores) == 1 and set(scores[0]["result"]) == {7}


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
