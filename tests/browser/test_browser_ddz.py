"""The Dou Dizhu pages in a real browser (as ``test_browser.py``: ``big2 dashboard`` on a free
port, Debian's chromium through Playwright, 1400×1000, screenshots in ``tests/artifacts/ddz_*``)
on a mixed warehouse: ``big2 simulate --ruleset ddz`` games with a planted feeder, and the
sample Big Two logs, ingested and built.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.browser.test_browser import (
    SAMPLES,
    TIMEOUT_MS,
    _big2,
    _check,
    _csv_header,
    _nav,
    _step,
    _visible,
    dashboard,
)
from tests.browser.test_browser import browser as browser  # the chromium fixture
from tests.test_dashboard_ddz import capped_game

FEEDER = "sim-ddz-5-p2-random"
#: The tables of the page that scroll up and down though they hold at most ~30 rows (35 px a
#: row): a short table is drawn whole (``ui.table(whole=True)``), none of its rows out of sight
#: (the player's 11th strategy stat, the feed rate, was).
SCROLLED_SHORT_TABLES_JS = """() => Array.from(document.querySelectorAll(
  '[data-testid="stDataFrame"] .dvn-scroller'))
  .filter(s => s.scrollHeight < 1100 && s.scrollHeight > s.clientHeight + 1)
  .map(s => Array.from(s.closest('[data-testid="stDataFrame"]').querySelectorAll('table th'))
    .map(t => t.innerText.trim()).join(' | '))"""


@pytest.fixture(scope="module")
def ddz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    """The dashboard's URL and one played-out Dou Dizhu game's log line (and a copy of it under
    a variant, ``ddz {"multiplier_cap": 1}``)."""
    base = tmp_path_factory.mktemp("browser-ddz")
    log = base / "ddz.jsonl"
    cmd = [*_big2(), "simulate", "-r", "ddz", "--games", "40", "--feeder", "2", "--seed", "5",
           "--workers", "1", "--out", str(log)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(s) for s in log.read_text(encoding="utf-8").splitlines()]
    game = next(ln for ln in lines if ln["result"]["outcome"] == "played_out")
    variant = base / "variant.jsonl"  # one game of a variant: ddz with a house-rule override
    seats = game["seats"]  # the players' own ids: a longer id widens the pages' tables
    variant.write_text(json.dumps(capped_game(game) | {"seats": seats}) + "\n", encoding="utf-8")
    wh = Warehouse(base / "warehouse")
    ingest([str(log), str(variant), str(SAMPLES / "games.jsonl")], wh)
    build(wh)
    with dashboard(wh.root, base / "dashboard.log") as url:
        yield url, game


@pytest.fixture
def page(browser: Any, ddz_server: tuple[str, dict[str, Any]]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, base_url=ddz_server[0])
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    try:
        yield pg
    finally:
        context.close()


def test_ddz_pages(page: Any) -> None:
    page.goto("/")
    _check(page, "ddz_big2_overview", "big2-replay", "Recent games")
    page.locator('[data-testid="stSidebar"]').get_by_text("Dou Dizhu 鬥地主", exact=True).click()
    _check(page, "ddz_leaderboard", "Dou Dizhu leaderboard", "Standings", "Win rates by role",
           charts=2)  # fmt: skip
    assert "game=ddz" in page.url
    assert page.evaluate(SCROLLED_SHORT_TABLES_JS) == []
    # as the Big Two pages (test_browser.py): no number cut at a table's right edge, the key
    # columns whole in view; the standings' 13 columns cut "landlord wins" at 1400 px
    # columns cut at 1400 px; the roles' records are tables of their own beside each other
    _visible(page, "score/rank", "score/player", "score", "score/win %", "rank-ladder title",
             "rank/games", "rank/wins", "rank/win %", "role/games", "hand strength/win %")  # fmt: skip
    # the tables' own CSVs hold their shown columns: the page's download holds every one
    standings = _csv_header(page, "Download the standings (CSV, every column)")
    assert {"landlord_wins", "farmer_win_pct", "title", "score"} <= set(standings), standings
    page.locator(".st-key-ddz_lb_preset").get_by_role("combobox").click()  # rescore: what-if
    page.get_by_role("option", name="ddz (what-if)", exact=True).click()
    _check(page, "ddz_leaderboard_whatif", "rescored as", charts=2)
    _visible(page, "rank change", "what-if score", "what-if title", "what-if score/win %")

    _nav(page, "Player")
    _check(page, "ddz_player", "Dou Dizhu player", "Strategy stats", "Bidding discipline", "Games")
    assert page.evaluate(SCROLLED_SHORT_TABLES_JS) == []
    _visible(page, "stat/player", "stat/other players", "hands/everyone's bid rate",
             "role/score", "role/multiplier", "role/outcome", "seat/own highest bid",
             "seat/hand strength", "seat/outcome")  # fmt: skip
    games = _csv_header(page, "Download these games (CSV, every column)")
    assert {"role", "score", "max_bid", "hand_strength", "outcome"} <= set(games), games

    _nav(page, "Farmer cooperation")
    _check(page, "ddz_coop", "Farmer cooperation audit", "most suspect first", "Evidence", FEEDER)
    _visible(page, "feed z", "feed rate", "baseline rate", "baseline turns", "partner beat rate",
             "partner follows", "table play/step", "table play/played")  # fmt: skip
    ranking = _csv_header(page, "Download the ranking (CSV, every column)")
    assert {"feed_z", "n_baseline_turns", "partner_beat_rank", "n_partner_follows"} <= set(ranking)


def test_ddz_replayer(page: Any, ddz_server: tuple[str, dict[str, Any]]) -> None:
    game = ddz_server[1]
    page.goto(f"/ddz_replayer?game_id={game['game_id']}&game=ddz")
    _check(page, "ddz_replayer_deal", "Dou Dizhu replayer", "Step 0 /", "Kitty (底牌)", "face down")
    page.get_by_role("button", name="Next ▶").click()
    _step(page, 1)
    _check(page, "ddz_replayer_auction", "Step 1 /", "Auction")
    page.get_by_role("button", name="Last ⏭").click()
    n = len(game["actions"])
    _step(page, n)
    _check(page, "ddz_replayer_end", "Result", "Who paid whom", "地主 landlord", "農民 farmer")
    page.get_by_text("All actions").click()  # the expander's table too
    _visible(page, "winner/score", "winner/spring", "payer/amount", "phase/multiplier")


def test_ddz_ruleset_filter_lists_the_variants(page: Any) -> None:
    # as the Big Two pages': the variant (ddz + overrides) under its preset, its own game only
    page.goto("/?game=ddz&ruleset=ddz")
    _check(page, "ddz_ruleset_preset", "Dou Dizhu leaderboard", "Standings")
    games = page.locator('[data-testid="stMetricValue"]').first
    assert int(games.inner_text()) > 1
    page.locator(".st-key-f_ruleset").get_by_role("combobox").click()
    options = [t.strip() for t in page.get_by_role("option").all_inner_texts()]
    ddz = options.index("ddz")
    assert options[ddz + 1 : ddz + 3] == ["↳ ddz, no overrides", '↳ ddz {"multiplier_cap": 1}']
    page.get_by_role("option", name='↳ ddz {"multiplier_cap": 1}').click()
    _check(page, "ddz_ruleset_variant", 'ruleset: ddz {"multiplier_cap": 1}')
    assert games.inner_text() == "1"
    assert "game=ddz" in page.url
