"""A real browser through every dashboard page: ``big2 dashboard`` on a free port, Debian's
chromium driven by Playwright (no browser download), screenshots in ``tests/artifacts/``.

Skipped only where chromium is not installed *and* this is not CI; in CI (``CI=true``) a
missing chromium or Playwright fails the test (``.ci/run`` installs chromium).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = ROOT / "data" / "samples"
ARTIFACTS = ROOT / "tests" / "artifacts"
IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 30_000
#: The window of issue 13's checks: every key column and every figure fits at 1400 px.
VIEWPORT = {"width": 1400, "height": 1000}

if CHROMIUM is None and not IN_CI:
    pytest.skip("chromium is not installed (CI installs it)", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _big2() -> list[str]:
    script = Path(sys.executable).with_name("big2")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pipeline.cli"]


@dataclass(frozen=True)
class Server:
    url: str
    n_games: int
    game_id: str  # a full-information game with a 頂大 moment


@contextmanager
def dashboard(warehouse: Path, log_path: Path) -> Iterator[str]:
    """``big2 dashboard`` on a free port, as a user starts it; its URL once it answers."""
    port = _free_port()
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [*_big2(), "dashboard", "--warehouse", str(warehouse), "--port", str(port)],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    text = log_path.read_text(encoding="utf-8", errors="replace")
                    pytest.fail(f"big2 dashboard did not start (exit {proc.poll()}):\n{text}")
                time.sleep(0.3)
            yield url
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)  # our own process group (start_new_session)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("browser")
    wh = Warehouse(base / "warehouse")
    summary = ingest([str(SAMPLES / n) for n in ("games.jsonl", "bad.jsonl", "partial.jsonl")], wh)
    build(wh)  # the marts, as `big2 ingest` makes them
    con = wh.connect()
    row = con.execute(
        "select g.game_id from games g join actions a using (game_id) "
        "where g.full_info and a.obligation is not null order by 1 limit 1"
    ).fetchone()
    con.close()  # the dashboard opens its own read-only connection
    assert row is not None, "the samples have no 頂大 moment"
    with dashboard(wh.root, base / "dashboard.log") as url:
        yield Server(url=url, n_games=summary.total().stored, game_id=row[0])


@pytest.fixture(scope="module")
def mended(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A club's log imported with a game cut short, then mended and imported again (its reject
    resolved), beside a game id stored twice (E_CONFLICT: open) and a GBK score sheet
    (E_ENCODING: open); the dashboard's URL."""
    from pipeline.sim.sample import dumps, sample_game

    base = tmp_path_factory.mktemp("mended")
    log, other = base / "club.jsonl", base / "other.jsonl"
    g1, g2 = (dumps(sample_game(seed=s, game_id=f"g{s}")) for s in (1, 2))
    log.write_text(g1[:200] + "\n" + g2 + "\n", encoding="utf-8")
    sheet = base / "mainland.csv"
    sheet.write_bytes(
        "date,match,players,cards_left\r\n2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13\r\n".encode(
            "gbk"
        )
    )
    wh = Warehouse(base / "warehouse")
    ingest([str(log), str(sheet)], wh)
    log.write_text(g1 + "\n" + g2 + "\n", encoding="utf-8")
    other.write_text(dumps(sample_game(seed=3, game_id="g2")) + "\n", encoding="utf-8")
    ingest([str(log), str(other)], wh)
    build(wh)
    with dashboard(wh.root, base / "dashboard.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.fail("CI=true but chromium is not installed (.ci/run installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # chromium is here, so the test must run: the dev extra is missing
        pytest.fail("playwright is not installed: pip install -e '.[dev]'")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT, base_url=server.url)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        yield pg
    finally:
        context.close()


#: True while Streamlit runs the script (its status widget offers "Stop").
RUNNING_JS = """() => {
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  return !w || !/Stop|Running/.test(w.innerText);
}"""


def _settle(page: Any, charts: int = 0) -> None:
    """Wait until Streamlit has finished running the script and drawn ``charts`` Plotly charts."""
    page.wait_for_load_state("networkidle")
    page.wait_for_function(RUNNING_JS)
    if charts:
        page.wait_for_function(
            f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}"
        )
    page.wait_for_timeout(300)


def _check(page: Any, name: str, *texts: str, charts: int = 0) -> None:
    """Every text visible, no Streamlit exception box; save a screenshot (also on failure)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        for text in texts:
            # visible: a rerun may leave a hidden copy of the text behind
            page.get_by_text(text, exact=False).filter(visible=True).first.wait_for()
        _settle(page, charts)
    finally:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    errors = page.locator('[data-testid="stException"]')
    assert errors.count() == 0, errors.first.inner_text()


#: Per table of the page: the headers the grid draws (only the columns in its viewport, a
#: column cut at the right edge included), how many pixels it scrolls sideways, and per
#: visible column the text of its cells.
TABLES_JS = """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).map(d => {
  const s = d.querySelector('.dvn-scroller');
  const heads = Array.from(d.querySelectorAll('table th'));
  return {
    over: s ? s.scrollWidth - s.clientWidth : 0,
    headers: heads.map(t => t.innerText.trim()),
    cells: heads.map(t => Array.from(d.querySelectorAll(
      `table td[aria-colindex="${t.getAttribute('aria-colindex')}"]`)).map(c => c.innerText.trim())),
  };
})"""
#: The metric values whose text is wider than their box (drawn with an ellipsis).
CUT_METRICS_JS = """() => Array.from(document.querySelectorAll('[data-testid="stMetricValue"]'))
  .filter(e => Array.from(e.querySelectorAll('*')).some(c => c.scrollWidth > c.clientWidth + 1))
  .map(e => e.innerText)"""
NUMBER = re.compile(r"^[−+-]?[\d,.]+(e[−+-]?\d+)?%?$")


def _fully_shown(table: dict[str, Any], i: int) -> bool:
    """Column ``i`` is whole in the table's viewport: not the last one drawn, or the table does
    not scroll sideways (the last one drawn may be cut at the right edge)."""
    return i < len(table["headers"]) - 1 or table["over"] <= 1


def _is(header: str, name: str) -> bool:
    return header == name or header.startswith(name + " (")


def _visible(page: Any, *columns: str) -> None:
    """Each named column (a header, or the start of one: ``score`` for ``score (unit)``;
    ``"ended/players"``: the ``players`` of the table with an ``ended`` column) is whole in the
    viewport of a table of the page; no number of any table is cut at its right edge; no
    metric is cut. Streamlit draws a page's tables one after another after a rerun: the check
    is repeated until it holds or ``VISIBLE_WAIT_S`` has passed (then its failure is raised)."""
    deadline = time.monotonic() + VISIBLE_WAIT_S
    while True:
        try:
            _visible_now(page, columns)
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(250)


#: How long :func:`_visible` waits for the tables of a page to be drawn.
VISIBLE_WAIT_S = 15.0


def _visible_now(page: Any, columns: tuple[str, ...]) -> None:
    tables = page.evaluate(TABLES_JS)
    for column in columns:
        anchor, _, name = column.rpartition("/")
        where = [
            (t, i) for t in tables for i, h in enumerate(t["headers"])
            if _is(h, name) and (not anchor or any(_is(a, anchor) for a in t["headers"]))
        ]  # fmt: skip
        assert where, (name, [t["headers"] for t in tables])
        assert any(_fully_shown(t, i) for t, i in where), (name, [t["headers"] for t, _ in where])
    for t in tables:
        for i, cells in enumerate(t["cells"]):
            if not _fully_shown(t, i):
                numbers = [c for c in cells if NUMBER.match(c)]
                assert not numbers, f"numbers cut in column {t['headers'][i]!r}: {numbers[:3]}"
    assert page.evaluate(CUT_METRICS_JS) == []


def _choose(page: Any, key: str, option: str) -> None:
    """Pick ``option`` in the selectbox of ``key``: its list opened again when a rerun drawn
    meanwhile closed it (a loaded machine), three tries."""
    for attempt in range(3):
        page.locator(f".st-key-{key}").get_by_role("combobox").click()
        choice = page.get_by_role("option", name=option, exact=True)
        try:
            choice.wait_for(state="visible", timeout=TIMEOUT_MS // 3)
        except Exception:  # playwright's TimeoutError: open the list again
            if attempt == 2:
                raise
            _settle(page)
            continue
        choice.click()
        return


def _step(page: Any, step: int) -> None:
    """Wait until the replayer shows ``step`` (after a click or a key)."""
    page.get_by_text(re.compile(rf"^Step {step} / \d+")).first.wait_for(state="visible")
    _settle(page)


def _csv_header(page: Any, button: str) -> list[str]:
    """The header of the CSV the page's ``button`` downloads."""
    with page.expect_download() as download:
        page.get_by_role("button", name=button).click()
    path = download.value.path()
    with open(path, encoding="utf-8-sig") as f:
        return f.readline().strip().split(",")


def _nav(page: Any, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()


def test_every_page(page: Any, server: Server) -> None:
    page.goto("/")
    _check(page, "overview", "big2-replay", "Recent matches", "Open rejects")
    games = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    assert games == str(server.n_games)
    _visible(page, "ended/players", "ended/games", "outcome/winner", "outcome/started")

    _nav(page, "Leaderboard")
    _check(page, "leaderboard", "Standings", "Winnings graph", "the rank ladder", charts=2)
    page.locator(".st-key-lb_preset").get_by_role("combobox").click()  # rescore: what-if
    page.get_by_role("option", name="mainland (what-if)").click()
    _check(page, "leaderboard_whatif", "rescored as", "beside the score", charts=2)
    _visible(page, "rank change", "what-if score", "what-if title", "title", "score per hour")

    _nav(page, "Player")
    _check(page, "player", "Leak finder", "炒 history", "頂大 record", "Seat effect", charts=1)
    _visible(page, "verdict", "advice", "包牌 paid")
    page.locator(".st-key-pl_player").get_by_role("combobox").click()
    page.get_by_role("option", name="p7", exact=True).click()  # the one caught 炒 in the samples
    _check(page, "player_chao", "炒 history", "頂大 record", charts=1)
    _visible(page, "multiplier/炒", "multiplier/net", "multiplier/started")

    _nav(page, "頂大 and collusion")
    _check(
        page,
        "must_block",
        "Per player",
        "包牌 paid",
        "Pairs: who fails to block whom",
        "Evidence:",
        "The games:",
    )
    _visible(page, "obligation", "outcome", "why", "partner/verdict", "q-value", "signal/p-value")
    # the table shows the key columns; its button downloads every one (the toolbar's: the shown)
    header = _csv_header(page, "Download the pairs (CSV, every column)")
    assert {"player_id", "partner_id", "q_value", "p_soft_pass", "soft_feed_rate_toward"} <= set(
        header
    )  # the last two hidden

    _nav(page, "Report")
    _check(page, "report", "Players", "Who paid whom", "Biggest games")
    _visible(page, "receiver/amount", "place")

    _nav(page, "Import health")
    _check(
        page, "import_health", "Rejects by error code", "Rejected records", "Show record", charts=1
    )
    _visible(page, "reject no./code", "reject no./message", "reject no./line", "batch/rejects")
    assert "raw" in _csv_header(page, "Download these rejected records (CSV, every column)")

    _nav(page, "SQL explorer")
    _check(page, "sql_explorer", "Tables", "Query (one SELECT)")
    page.get_by_role("button", name="Run ▶").click()
    _check(page, "sql_explorer_result", "rows in", "Download CSV")


def test_import_health_resolved_rejects(browser: Any, mended: str) -> None:
    """The open rejects by default; the resolved ones under Status: resolved, with the game,
    import and file that resolved each, in view at 1400 px."""
    context = browser.new_context(viewport=VIEWPORT, base_url=mended)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto("/import_health")
        _check(
            page,
            "import_health_open",
            "Open rejects",
            "Resolved since",
            "E_CONFLICT",
            "Files not in UTF-8",  # the GBK sheet's hint, with its command
            "GB18030 (GBK: Simplified Chinese)",
            "iconv -f GB18030 -t UTF-8",
            charts=1,
        )
        _choose(page, "ih_status", "resolved")
        _check(page, "import_health_resolved", "Resolved", "by import", "game g1", charts=1)
        _visible(page, "reject no./code", "reject no./resolved by game", "reject no./resolved")
    finally:
        context.close()


def test_replayer_steps(page: Any, server: Server) -> None:
    page.goto(f"/replayer?game_id={server.game_id}")
    _check(page, "replayer_deal", "Hand replayer", "Step 0 /", "Seat 0")
    for step in (1, 2, 3):
        page.get_by_role("button", name="Next ▶").click()
        _step(page, step)
    _check(page, "replayer_step3", "Step 3 /", "On the table")
    page.get_by_role("button", name="◀ Previous").click()
    _step(page, 2)
    _check(page, "replayer_step2", "Step 2 /")
    page.evaluate("document.activeElement && document.activeElement.blur()")  # no widget focused
    page.keyboard.press("ArrowRight")
    _step(page, 3)
    _check(page, "replayer_key_right", "Step 3 /")
    page.get_by_role("button", name="Last ⏭").click()
    _check(page, "replayer_end", "Result", "wins")


def test_replayer_ding_dai_moment(page: Any, server: Server) -> None:
    page.goto(f"/replayer?game_id={server.game_id}&step=5")
    _check(page, "replayer_link_step", "Step 5 /")
    page.get_by_role("button", name=re.compile(r"^step \d+: seat")).first.click()
    _check(page, "replayer_ding_dai", "頂大: the next seat")


def test_no_warehouse_is_a_friendly_message(browser: Any, tmp_path: Path) -> None:
    with dashboard(tmp_path / "none", tmp_path / "dashboard.log") as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=url)
        try:
            pg = context.new_page()
            pg.set_default_timeout(TIMEOUT_MS)
            pg.goto("/")
            _check(pg, "no_warehouse", "No warehouse at", "Import some games")
            _nav(pg, "Hand replayer")
            _check(pg, "no_warehouse_replayer", "Hand replayer", "Import some games")
        finally:
            context.close()
    assert not (tmp_path / "none").exists()


def test_the_ruleset_filter_lists_the_variants(page: Any, server: Server) -> None:
    # each preset with its variants (the preset + house-rule overrides) under it; a variant
    # keeps its own games, and the link keeps it; a link with the preset keeps them all
    page.goto("/?ruleset=hk")
    _check(page, "ruleset_preset", "big2-replay", "Recent matches")
    games = page.locator('[data-testid="stMetricValue"]').first
    n_hk = int(games.inner_text())
    assert 1 < n_hk < server.n_games  # the samples: hk alone and with overrides, and others
    page.locator(".st-key-f_ruleset").get_by_role("combobox").click()
    options = [t.strip() for t in page.get_by_role("option").all_inner_texts()]
    hk = options.index("hk")
    assert options[hk + 1 : hk + 3] == ["↳ hk, no overrides", '↳ hk {"players": 2}'], options
    page.get_by_role("option", name='↳ hk {"players": 2}').click()
    _check(page, "ruleset_variant", 'ruleset: hk {"players": 2}')
    assert games.inner_text() == "1"
    assert "ruleset=hk+%7B%22players%22" in page.url or "ruleset=hk%20%7B" in page.url, page.url
