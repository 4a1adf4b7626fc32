"""Benchmark of the dashboards (issue 8): each page's first render and a filter change, timed
with Streamlit's AppTest on a warehouse of N games.

The warehouse: ``bench.sql.BASE_GAMES`` legal sample games (every preset, 6-game matches) are
ingested through the real pipeline, then, inside that warehouse's own DuckDB file, its table
views (``games``, ``seats``, ``actions``, ``tricks``, ``rejects``) are replaced by tables
replicated to N games (new game, match and player ids per copy; :func:`bench.sql.replicated_db`)
and ``big2 build``'s SQL (:func:`pipeline.sqlbuild.build_sql`) makes every mart on them. The
warehouse's manifest is unchanged, so the app opens it as it is (no view refresh).

Timed, per page: **first render** = switching to the page with every ``st.cache_data`` cache
cleared (all its queries run, the sidebar's filter options included); **filter change** = then
picking a ruleset in the sidebar (every query of the page runs again for the new filter); on the
pages that show no filters (Import health, SQL explorer), picking another display time zone.
N comes from ``BIG2_BENCH_DASHBOARD_GAMES`` (comma-separated; default 100000); DuckDB uses its
default threads. ``BIG2_BENCH_DASHBOARD_WAREHOUSE``: also the pages of that built warehouse, and
its Dou Dizhu pages when it holds Dou Dizhu games (the game selector on Dou Dizhu, a Dou Dizhu
ruleset for the change). The issue aims at 1M games: < 2 s first render, < 500 ms filter change.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import duckdb

from bench import Figure, benchmark
from bench.sql import TABLES, base_logs, replicated_db
from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

APP = Path(__file__).resolve().parent.parent / "dashboards" / "app.py"
PAGES = (
    ("overview", "views/overview.py"),
    ("leaderboard", "views/leaderboard.py"),
    ("player", "views/player.py"),
    ("replayer", "views/replayer.py"),
    ("頂大 and collusion", "views/must_block.py"),
    ("import health", "views/import_health.py"),
    ("SQL explorer", "views/sql_explorer.py"),
)
#: The Dou Dizhu pages, timed on a warehouse that holds Dou Dizhu games: the game selector on
#: Dou Dizhu (``?game=ddz``), the most common Dou Dizhu ruleset for the filter change.
DDZ_PAGES = (
    ("Dou Dizhu leaderboard", "views/ddz_leaderboard.py"),
    ("Dou Dizhu player", "views/ddz_player.py"),
    ("Dou Dizhu replayer", "views/ddz_replayer.py"),
    ("farmer cooperation", "views/ddz_coop.py"),
)


def replicated_warehouse(tmp: Path, n_games: int) -> Warehouse:
    """A warehouse whose DuckDB file holds ``n_games`` games (replicated tables) and the marts."""
    log = tmp / "base.jsonl"
    log.write_text("".join(json.dumps(g) + "\n" for g in base_logs()), encoding="utf-8")
    wh = Warehouse(tmp / f"wh-{n_games}")
    ingest([str(log)], wh, workers=1)
    wh.connect().close()  # the views are fresh: the app will not refresh them
    scratch = tmp / f"scratch-{n_games}.duckdb"
    replicated_db(scratch, n_games, wh).close()
    con = duckdb.connect(str(wh.db_path))
    try:
        con.execute(f"attach '{scratch.as_posix()}' as r (read_only)")
        for table in TABLES:
            con.execute(f"drop view if exists {table}")
            con.execute(f"create or replace table {table} as select * from r.{table}")
        con.execute("detach r")
        sqlbuild.build_sql(con)
        con.execute("checkpoint")
    finally:
        con.close()
    scratch.unlink()
    return wh


def time_pages(wh: Warehouse) -> list[tuple[str, float, float]]:
    """(page, first render s, filter change s) for every page, on ``wh``."""
    saved = os.environ.get("BIG2_WAREHOUSE")
    os.environ["BIG2_WAREHOUSE"] = str(wh.root)
    try:
        return _time_pages(wh)
    finally:
        if saved is None:
            os.environ.pop("BIG2_WAREHOUSE", None)
        else:
            os.environ["BIG2_WAREHOUSE"] = saved


def _time_pages(wh: Warehouse) -> list[tuple[str, float, float]]:
    con = duckdb.connect(str(wh.db_path), read_only=True)
    top = "select ruleset from games where {} group by 1 order by count(*) desc, 1 limit 1"
    (big2,) = con.execute(top.format("coalesce(game_kind, 'big2') = 'big2'")).fetchone() or (None,)
    (ddz,) = con.execute(top.format("game_kind = 'doudizhu'")).fetchone() or (None,)
    con.close()
    out = [_time_page(label, page, big2) for label, page in PAGES]
    if ddz is not None:
        out += [_time_page(label, page, ddz, game="ddz") for label, page in DDZ_PAGES]
    return out


def _time_page(
    label: str, page: str, ruleset: str | None, game: str | None = None
) -> tuple[str, float, float]:
    """(label, first render s, filter change s) of one page (``game``: the ``?game=`` chosen);
    the change picks ``ruleset``, or another display time zone on a page without the filters
    or a warehouse without that game's games (``ruleset`` None)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=600)
    if game is not None:
        at.query_params["game"] = game
    at.run()  # the app is open (on the game's first page) ...
    st.cache_data.clear()  # ... and nothing is cached: the page's first render
    start = time.perf_counter()
    at.switch_page(page).run()
    first = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"{label}: {[e.value for e in at.exception]}")
    start = time.perf_counter()
    if ruleset is not None and any(w.key == "f_ruleset" for w in at.sidebar.selectbox):
        at.sidebar.selectbox(key="f_ruleset").select(ruleset).run()
    else:  # no filters shown (or no game to filter): change the display time zone
        at.sidebar.selectbox(key="f_tz").select("Asia/Hong_Kong").run()
    change = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"{label}: {[e.value for e in at.exception]}")
    return label, first, change


@benchmark("dashboard.pages")
def dashboard_pages() -> list[Figure]:
    """Each page's first render and a ruleset filter change, per N (``BIG2_BENCH_DASHBOARD_GAMES``);
    and on the built warehouse ``BIG2_BENCH_DASHBOARD_WAREHOUSE`` names, when set (e.g. the one
    ``big2 simulate -n 1000000 --ingest`` makes: few players with every game each, where the
    replicated warehouses have many players with few games), with the Dou Dizhu pages too when
    it holds Dou Dizhu games (:data:`DDZ_PAGES`)."""
    sizes = [int(n) for n in os.environ.get("BIG2_BENCH_DASHBOARD_GAMES", "100000").split(",")]
    figures: list[Figure] = []
    given = os.environ.get("BIG2_BENCH_DASHBOARD_WAREHOUSE")
    if given:
        wh = Warehouse(given)
        con = wh.connect()
        (n_games,) = con.execute("select count(*) from games").fetchone() or (0,)
        con.close()
        for label, first, change in time_pages(wh):
            figures.append((f"{given} ({n_games:,} games): {label}, first render", first, "s"))
            figures.append((f"{given} ({n_games:,} games): {label}, filter change", change, "s"))
    with tempfile.TemporaryDirectory() as tmp_name:
        for n in sizes:
            tmp = Path(tmp_name) / str(n)
            tmp.mkdir()
            wh = replicated_warehouse(tmp, n)
            for label, first, change in time_pages(wh):
                figures.append((f"{n:,} games: {label}, first render", first, "s"))
                figures.append((f"{n:,} games: {label}, filter change", change, "s"))
    return figures
