"""The dashboards' benchmark (bench/dashboard.py) runs end to end on a small replicated warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb

from bench import REGISTRY
from bench.dashboard import PAGES, dashboard_pages, replicated_warehouse, time_pages


def test_registered() -> None:
    assert REGISTRY["dashboard.pages"] is dashboard_pages


def test_replicated_warehouse_and_page_timings(tmp_path: Path) -> None:
    wh = replicated_warehouse(tmp_path, 1000)
    con = duckdb.connect(str(wh.db_path), read_only=True)
    n_games, n_scored = con.execute(
        "select (select count(*) from games), (select count(distinct game_id) from mart_game_scores)"
    ).fetchone() or (0, 0)
    con.close()
    assert n_games == n_scored and 1000 <= n_games < 1500
    timed = time_pages(wh)
    assert [label for label, _, _ in timed] == [label for label, _ in PAGES]
    assert all(first > 0 and change > 0 for _, first, change in timed)
