"""A build over a warehouse without games of one kind (docs/sql.md, "Build time"): the staging
views of that game that hold no row are shadowed by empty ones while the marts build
(``sqlbuild._shadow_empty``), which must change no row of any table, in a full build and in an
incremental one that then adds the first games of that kind."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from marts_helpers import table_differences, write_runs

from pipeline import sqlbuild
from pipeline.cli.demo import write_ddz_log
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

BOTS4 = ("random", "greedy", "heuristic", "random")
BIG2_VIEWS = ["stg_games", "stg_seats", "stg_actions", "stg_tricks"]
DDZ_VIEWS = ["stg_ddz_games", "stg_ddz_seats", "stg_ddz_actions"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A Big Two log (two presets, 4 and 3 players) and a Dou Dizhu log."""
    root = tmp_path_factory.mktemp("kinds")
    big2 = root / "big2.jsonl"
    with big2.open("w", encoding="utf-8") as out:
        runs = [("hk", {}, BOTS4, 24), ("hk", {"players": 3}, BOTS4[:3], 8)]
        write_runs(out, runs, seed=31, prefix="k")
    ddz = root / "ddz.jsonl"
    write_ddz_log(ddz, seed=5)
    return {"big2": big2, "ddz": ddz}


def _build(wh: Warehouse, monkeypatch: pytest.MonkeyPatch, *, shadows: bool) -> list[list[str]]:
    """A full build of ``wh``, with or without the shadows; the views shadowed."""
    seen: list[list[str]] = []
    shadow = sqlbuild._shadow_empty

    def spy(con: duckdb.DuckDBPyConnection) -> list[str]:
        seen.append(shadow(con) if shadows else [])
        return seen[-1]

    with monkeypatch.context() as patched:
        patched.setattr(sqlbuild, "_shadow_empty", spy)
        sqlbuild.build(wh, full=True)
    return seen


def _copy(wh: Warehouse, to: Path) -> Warehouse:
    """The same committed batches in another folder, without the built file."""
    shutil.copytree(wh.root, to, ignore=shutil.ignore_patterns("warehouse.duckdb*"))
    return Warehouse(to)


@pytest.mark.parametrize(
    ("kinds", "shadowed"),
    [(["ddz"], BIG2_VIEWS), (["big2"], DDZ_VIEWS), (["big2", "ddz"], [])],
    ids=["dou-dizhu-only", "big-two-only", "both"],
)
def test_the_shadows_change_no_row(
    logs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kinds: list[str],
    shadowed: list[str],
) -> None:
    fast = Warehouse(tmp_path / "fast")
    ingest([str(logs[k]) for k in kinds], fast, workers=1)
    plain = _copy(fast, tmp_path / "plain")
    assert _build(fast, monkeypatch, shadows=True) == [shadowed]
    _build(plain, monkeypatch, shadows=False)
    assert table_differences(fast.db_path, plain.db_path) == {}
    views = []
    for wh in (fast, plain):  # the same views published, none bound to a shadow
        con = duckdb.connect(str(wh.db_path), read_only=True)
        try:
            rows = con.execute(
                "select view_name, sql from duckdb_views() where not internal order by 1"
            ).fetchall()
            views.append([(name, sql.replace(str(wh.root), "<root>")) for name, sql in rows])
        finally:
            con.close()
    assert views[0] == views[1] and {name for name, _ in views[0]} >= set(shadowed)
    con = fast.connect()
    try:
        assert {name: r for name, r in sqlbuild.run_tests(con).items() if r} == {}
    finally:
        con.close()


def test_the_first_games_of_a_kind_are_added_as_a_full_build_would(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    """Dou Dizhu games built with the Big Two views shadowed, then Big Two games imported: the
    incremental build adds them to the empty Big Two marts, as a full build of both does."""
    wh = Warehouse(tmp_path / "wh")
    ingest([str(logs["ddz"])], wh, workers=1)
    sqlbuild.build(wh)
    ingest([str(logs["big2"])], wh, workers=1)
    added = sqlbuild.build(wh)
    assert added.added_games is not None and added.added_games > 0
    assert added.rows["mart_game_scores"] > 0 and added.rows["ddz_game_scores"] > 0
    full = _copy(wh, tmp_path / "full")
    sqlbuild.build(full, full=True)
    assert table_differences(wh.db_path, full.db_path) == {}
