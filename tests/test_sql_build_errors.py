"""A build step that fails says why: a file of ``sql/`` that does not build (``E_SQL_BUILD``), or
DuckDB out of the memory it may use (``E_SQL_MEMORY``, the file being fine)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import duckdb
import pytest

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.sqlbuild import SqlError, build_step
from pipeline.warehouse import Warehouse

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"

#: A statement that needs far more than 32 MB: a list of 20M numbers kept per group.
HUNGRY = (
    "create table t as select range % 1000 as g, list(range) as l from range(20000000) group by 1"
)


def test_out_of_memory_is_its_own_code() -> None:
    con = duckdb.connect()
    con.execute("set memory_limit = '32MB'")
    con.execute("set threads = 1")
    (memory,) = con.execute("select current_setting('memory_limit')").fetchone() or ("?",)
    with pytest.raises(SqlError) as caught:
        build_step(con, "stats_player_games", HUNGRY, memory)
    err = caught.value
    assert err.code == "E_SQL_MEMORY"
    assert err.context == {"object": "stats_player_games"}
    assert err.message.startswith("stats_player_games: DuckDB ran out of the memory it may use")
    assert (
        f"memory_limit {memory}" in err.message and "the old warehouse.duckdb stays" in err.message
    )
    assert "DuckDB: Out of Memory Error:" in err.message
    # DuckDB's advice names settings big2 has no option for: left out
    assert "Possible solutions" not in err.message
    assert isinstance(err.__cause__, duckdb.OutOfMemoryException)


def test_the_same_statement_with_room_builds() -> None:
    con = duckdb.connect()
    con.execute("set memory_limit = '4GB'")
    build_step(con, "stats_player_games", HUNGRY.replace("20000000", "20000"), "4GB")
    assert con.execute("select count(*) from t").fetchone() == (1000,)


def test_a_broken_file_is_a_build_error() -> None:
    con = duckdb.connect()
    with pytest.raises(SqlError) as caught:
        build_step(con, "mart_x", "create table x as select no_such_column from range(3)", "1GB")
    assert caught.value.code == "E_SQL_BUILD"
    assert caught.value.message.startswith("mart_x: Binder Error")


def test_a_signal_during_a_build_statement_is_an_interrupt_not_a_runtime_error() -> None:
    """A signal's handler that raises while DuckDB runs a build statement: DuckDB stops it and
    raises ``RuntimeError: Query interrupted`` (the handler's exception gone), which the CLI
    printed as a traceback, exit 1; it is a ``KeyboardInterrupt`` (``E_INTERRUPTED``)."""

    class Stop(Exception):
        pass

    def stop(signum: int, frame: object) -> None:
        raise Stop

    old = signal.signal(signal.SIGUSR1, stop)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt, match=r"slow\.sql: Query interrupted"):
            # a long statement that DuckDB on one thread stops at once (~0.3 s; on more,
            # seconds later); bounded memory should the signal be missed
            con = duckdb.connect(config={"threads": 1, "memory_limit": "256MB"})
            build_step(con, "slow.sql", "create table t as select i from range(100000000) r(i)", "")
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, old)


def test_a_signal_during_a_statement_besides_the_steps_is_an_interrupt_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for a statement of the build that is no step of ``sql/`` (the comments, the
    rulesets): ``build`` raises ``KeyboardInterrupt``, which ``big2 ingest``'s build turns into
    "the import had committed" (a ``RuntimeError`` said nothing was), and leaves no new file."""
    wh = Warehouse(tmp_path / "wh")
    ingest([str(SAMPLES / "games.jsonl")], wh)

    class Stop(Exception):
        pass

    def stop(signum: int, frame: object) -> None:
        raise Stop

    def slow_comments(con: duckdb.DuckDBPyConnection) -> int:
        con.execute("set threads = 1")  # one thread: DuckDB stops at once
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        con.execute("select count(*) from range(100000000000)")
        return 0

    monkeypatch.setattr(sqlbuild, "write_comments", slow_comments)
    old = signal.signal(signal.SIGUSR1, stop)
    try:
        with pytest.raises(KeyboardInterrupt, match="the build: Query interrupted"):
            sqlbuild.build(wh)
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert not list(wh.root.glob("warehouse.duckdb.new-*"))
