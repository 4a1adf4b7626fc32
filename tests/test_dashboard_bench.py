"""The dashboards' benchmark (bench/dashboard.py) runs end to end on a small replicated warehouse."""

from __future__ import annotations

from pathlib import Path

import duckdb

from bench import REGISTRY
from bench.dashboard import DDZ_PAGES, PAGES, dashboard_pages, replicated_warehouse, time_pages
from pipeline.cli.demo import write_ddz_log
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse


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


def test_the_dou_dizhu_pages_are_timed_on_a_warehouse_of_dou_dizhu_games(tmp_path: Path) -> None:
    log = tmp_path / "ddz.jsonl"
    write_ddz_log(log, seed=3)
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh)
    build(wh)
    timed = time_pages(wh)
    assert [label for label, _, _ in timed] == [label for label, _ in (*PAGES, *DDZ_PAGES)]
    assert all(first > 0 and change > 0 for _, first, change in timed)
