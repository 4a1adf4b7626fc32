"""The build's memory: each statement commits on its own (a transaction would hold every new
table until its end), ``--memory-limit`` / ``--threads`` set DuckDB's, a limit too small is
``E_SQL_MEMORY`` (exit 3) with the old ``warehouse.duckdb`` untouched and nothing left beside
it, and what a killed build spilled is cleared by the next one."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline import sqlbuild
from pipeline.cli import app
from pipeline.sim.sample import dumps, sample_game
from pipeline.sqlbuild import SqlError
from pipeline.warehouse import Warehouse

runner = CliRunner()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse of 12 games, built."""
    root = tmp_path_factory.mktemp("mem")
    log = root / "games.jsonl"
    games = (dumps(sample_game(seed=s, game_id=f"g{s}")) for s in range(12))
    log.write_text("".join(g + "\n" for g in games), encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(log), "-w", str(root / "wh")])
    assert result.exit_code == 0, result.output
    return root / "wh"


def _beside(wh: Path) -> list[str]:
    return sorted(p.name for p in wh.glob("warehouse.duckdb.*"))


def test_each_step_is_committed_as_it_goes(
    warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mart that fails last leaves the marts before it committed on the connection: no
    transaction held them (under one, DuckDB keeps every new table until the commit, and 1M
    games then needed more than 4 GB; docs/sql.md, Build time)."""
    files = sqlbuild.sql_files

    def with_a_broken_mart(folder: str) -> dict[str, str]:
        found = files(folder)
        if folder == "marts":  # read after every other mart: built last
            found = {**found, "zz_broken": "select no_such_column from stats_players"}
        return found

    monkeypatch.setattr(sqlbuild, "sql_files", with_a_broken_mart)
    counted: list[int] = []

    def fill(con: duckdb.DuckDBPyConnection) -> None:
        try:
            sqlbuild.build_sql(con)
        except SqlError:
            (n,) = con.execute("select count(*) from stats_players").fetchone() or (0,)
            counted.append(n)
            raise

    with pytest.raises(SqlError) as caught:
        Warehouse(warehouse).publish(fill)
    assert caught.value.code == "E_SQL_BUILD" and caught.value.context["object"] == "zz_broken"
    assert counted and counted[0] > 0
    assert _beside(warehouse) == []  # the failed build's file is gone all the same


def test_limit_and_threads_are_the_builds(warehouse: Path) -> None:
    result = runner.invoke(
        app, ["build", "-w", str(warehouse), "--memory-limit", "300MB", "--threads", "1"]
    )
    assert result.exit_code == 0, result.output
    assert f"built {len(sqlbuild.sql_files('marts'))} marts" in result.output
    assert _beside(warehouse) == []


def test_a_limit_too_small_is_its_own_failure_and_changes_nothing(warehouse: Path) -> None:
    db = warehouse / "warehouse.duckdb"
    before = db.stat()
    result = runner.invoke(app, ["build", "-w", str(warehouse), "--memory-limit", "1MB"])
    assert result.exit_code == 3, result.output  # the machine's limit, not bad input
    assert "big2: error: E_SQL_MEMORY: " in result.output
    assert "memory_limit 976.5 KiB" in result.output and "--memory-limit" in result.output
    after = db.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )
    assert _beside(warehouse) == []  # no new file, WAL or spill folder left


def test_the_environment_sets_the_limit(warehouse: Path) -> None:
    result = runner.invoke(app, ["build", "-w", str(warehouse)], env={"BIG2_BUILD_MEMORY": "1MB"})
    assert result.exit_code == 3 and "E_SQL_MEMORY" in result.output


def _simulating(command: str, log: Path) -> list[str]:
    """``big2 demo`` or ``big2 simulate --ingest`` of 3 games, the log written to ``log``."""
    return {
        "demo": ["demo", "-n", "3", "--log", str(log), "--no-dashboard"],
        "simulate": ["simulate", "-n", "3", "--out", str(log), "--ingest"],
    }[command]


@pytest.mark.parametrize("command", ["demo", "simulate"])
def test_the_commands_that_import_build_under_the_limit(tmp_path: Path, command: str) -> None:
    """``big2 demo`` and ``big2 simulate --ingest`` take the limit too (``BIG2_BUILD_MEMORY``
    here): the import stays, the build fails out of memory, ``E_BUILD_FAILED`` and exit 3 as
    for ``big2 ingest``; under a limit with room both build."""
    args = _simulating(command, tmp_path / "sim.jsonl")
    wh = tmp_path / "wh"
    result = runner.invoke(app, [*args, "-w", str(wh)], env={"BIG2_BUILD_MEMORY": "1MB"})
    assert result.exit_code == 3, result.output
    assert "E_BUILD_FAILED" in result.output and "memory_limit 976.5 KiB" in result.output
    assert Warehouse(wh).entries()  # the import committed
    passed = runner.invoke(app, [*args, "-w", str(tmp_path / "wh2"), "--memory-limit", "256MB"])
    assert passed.exit_code == 0, passed.output
    assert "SQL marts built in" in passed.output


@pytest.mark.parametrize("command", ["build", "ingest", "simulate", "demo"])
def test_a_limit_duckdb_cannot_read_is_refused_before_anything_runs(
    tmp_path: Path, warehouse: Path, command: str
) -> None:
    batches = len(Warehouse(warehouse).entries())
    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=99, game_id="new")) + "\n", encoding="utf-8")
    if command in ("build", "ingest"):
        args = ["build"] if command == "build" else ["ingest", str(log)]
    else:
        args = _simulating(command, tmp_path / "sim.jsonl")
    result = runner.invoke(app, [*args, "-w", str(warehouse), "--memory-limit", "lots"])
    assert result.exit_code == 2, result.output
    assert "E_SQL_USAGE: memory limit 'lots': Memory must have a number" in result.output
    assert len(Warehouse(warehouse).entries()) == batches  # the import did not run
    assert not (tmp_path / "sim.jsonl").exists()  # nor the simulation


def test_ingest_no_build_refuses_a_memory_limit(tmp_path: Path, warehouse: Path) -> None:
    """``--memory-limit`` limits the build only: with ``--no-build`` it is refused before the
    import (it was ignored, even a value DuckDB cannot read); ``BIG2_BUILD_MEMORY`` in the
    environment, which other commands read too, is not."""
    batches = len(Warehouse(warehouse).entries())
    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=98, game_id="nb")) + "\n", encoding="utf-8")
    args = ["ingest", str(log), "-w", str(warehouse), "--no-build"]
    for limit in ("lots", "1GB"):
        result = runner.invoke(app, [*args, "--memory-limit", limit])
        assert result.exit_code == 2, result.output
        assert f"E_SQL_USAGE: --memory-limit {limit} with --no-build" in result.output
        assert len(Warehouse(warehouse).entries()) == batches  # the import did not run
    result = runner.invoke(app, args, env={"BIG2_BUILD_MEMORY": "1GB"})
    assert result.exit_code == 0, result.output
    assert len(Warehouse(warehouse).entries()) == batches + 1


def test_what_a_killed_build_spilled_is_cleared_by_the_next(warehouse: Path) -> None:
    spilled = warehouse / "warehouse.duckdb.new-1-abcdef.tmp"
    spilled.mkdir()
    (spilled / "duckdb_temp_storage_DEFAULT-0.tmp").write_bytes(b"\0" * 4096)
    (warehouse / "warehouse.duckdb.new-1-abcdef").write_bytes(b"")
    result = runner.invoke(app, ["build", "-w", str(warehouse)])
    assert result.exit_code == 0, result.output
    assert _beside(warehouse) == []


def test_verify_names_what_a_killed_build_left_and_repair_deletes_it(warehouse: Path) -> None:
    """``E_BUILD_LEFTOVER`` (exit 1) for each file or folder a stopped build left, with its
    size; none while a build holds the lock (they are its own); ``verify --repair`` deletes
    them, unless a build runs."""
    import fcntl

    left = warehouse / "warehouse.duckdb.new-1-abcdef"
    left.write_bytes(b"\0" * 2_500_000)
    (warehouse / "warehouse.duckdb.new-1-abcdef.wal").write_bytes(b"")
    (warehouse / "warehouse.duckdb.new-1-abcdef.tmp").mkdir()
    (warehouse / "warehouse.duckdb.new-1-abcdef.tmp" / "spill.tmp").write_bytes(b"\0" * 1_200_000)
    result = runner.invoke(app, ["verify", "-w", str(warehouse)])
    assert result.exit_code == 1, result.output
    assert "E_BUILD_LEFTOVER: warehouse.duckdb.new-1-abcdef (2.5 MB) was left by a build" in (
        result.output
    )
    assert "E_BUILD_LEFTOVER: warehouse.duckdb.new-1-abcdef.tmp (1.2 MB)" in result.output
    assert result.output.count("E_BUILD_LEFTOVER") == 3
    with (warehouse / ".build.lock").open("a") as lock:  # a build runs: its files
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        result = runner.invoke(app, ["verify", "-w", str(warehouse)])
        assert result.exit_code == 0, result.output
        assert "a build is running" not in result.output  # its marts are not stale
        result = runner.invoke(app, ["verify", "--repair", "-w", str(warehouse)])
        assert result.exit_code == 0, result.output
        assert len(_beside(warehouse)) == 3  # not deleted under a running build
    result = runner.invoke(app, ["verify", "--repair", "-w", str(warehouse)])
    assert result.exit_code == 0, result.output
    assert result.output.count("(left by a stopped build)") == 3
    assert "nothing to repair" not in result.output
    assert _beside(warehouse) == []


def test_stats_player_games_spills_rather_than_failing(tmp_path: Path) -> None:
    """20,000 games under 144 MB: ``stats_player_games`` failed there (and at 0.4-0.5 GB for
    100,000 games, 2-3 GB for 1M) while a smaller and a larger limit passed, until it was built
    without DuckDB's ``build_side_probe_side`` optimizer (``sqlbuild.MART_SETTINGS``)."""
    log, wh = tmp_path / "g.jsonl", tmp_path / "wh"
    for args in (
        ["simulate", "-n", "20000", "--seed", "3", "--out", str(log)],
        ["ingest", str(log), "-w", str(wh), "--no-build"],
        ["build", "-w", str(wh), "--memory-limit", "144MB", "--threads", "2"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
    with Warehouse(wh).connect() as con:
        (seats,) = con.execute("select count(*) from stats_player_games").fetchone() or (0,)
    assert seats > 60_000  # 20,000 games of 3-4 seats, redeals left out


def test_a_mart_out_of_memory_under_its_settings_is_built_again_under_duckdbs(
    warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MART_SETTINGS`` helps under some limits and not under others (1M games at 256 MB): a
    mart that runs out of memory under them is built once more under DuckDB's own settings.
    Here a mart of one 3M-element list (no spilling it) under an 8 MB limit of its own."""
    files = sqlbuild.sql_files

    def with_a_hungry_mart(folder: str) -> dict[str, str]:
        found = files(folder)
        if folder == "marts":
            found = {**found, "zz_hungry": "select list(range) as l from range(3000000)"}
        return found

    monkeypatch.setattr(sqlbuild, "sql_files", with_a_hungry_mart)
    monkeypatch.setattr(sqlbuild, "MART_SETTINGS", {"zz_hungry": {"memory_limit": "8MB"}})
    with duckdb.connect() as con:
        con.execute("set memory_limit = '8MB'")
        with pytest.raises(duckdb.OutOfMemoryException):  # it does run out under them
            con.execute("select list(range) as l from range(3000000)").fetchall()
    summary = sqlbuild.build(Warehouse(warehouse))
    assert summary.rows["zz_hungry"] == 1
    assert list(summary.retried) == ["zz_hungry"]
    with Warehouse(warehouse).connect() as con:
        (n,) = con.execute("select len(l) from zz_hungry").fetchone() or (0,)
    assert n == 3_000_000
    result = runner.invoke(app, ["build", "-w", str(warehouse)])  # says so
    assert result.exit_code == 0, result.output
    assert "zz_hungry ran out of memory under its own settings (" in result.output
    monkeypatch.setattr(sqlbuild, "MART_SETTINGS", {"zz_hungry": {"memory_limit": "1GB"}})
    result = runner.invoke(app, ["build", "-w", str(warehouse)])  # room: no second try
    assert result.exit_code == 0 and "ran out of memory" not in result.output


def test_a_mart_that_fails_otherwise_is_not_built_again(
    warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        sqlbuild, "MART_SETTINGS", {"stats_player_games": {"disabled_optimizers": "no_such"}}
    )
    with pytest.raises(Exception, match="no_such"):
        sqlbuild.build(Warehouse(warehouse))
