"""`big2 dashboard`: the streamlit command it runs (the real start is in tests/browser/)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline import cli

ROOT = Path(__file__).resolve().parent.parent


def test_dashboard_command_line(tmp_path: Path) -> None:
    argv, env = cli.dashboard_command(tmp_path / "wh", port=8765)
    assert argv[:4] == [sys.executable, "-m", "streamlit", "run"]
    assert Path(argv[4]) == ROOT / "dashboards" / "server.py"  # app.py behind the Host guard
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert argv[argv.index("--server.port") + 1] == "8765"
    assert argv[argv.index("--server.headless") + 1] == "true"
    assert env["BIG2_WAREHOUSE"] == (tmp_path / "wh").resolve().as_posix()


def test_dashboard_relative_warehouse_becomes_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BIG2_WAREHOUSE", raising=False)
    _, env = cli.dashboard_command(None)
    assert env["BIG2_WAREHOUSE"] == (tmp_path / "data" / "warehouse").as_posix()


def test_big2_dashboard_execs_streamlit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, list[str], dict[str, str]]] = []
    monkeypatch.setattr(os, "execve", lambda path, argv, env: calls.append((path, argv, env)))
    result = CliRunner().invoke(
        cli.app, ["dashboard", "--warehouse", str(tmp_path), "--port", "8611", "--host", "0.0.0.0"]
    )
    assert result.exit_code == 0, result.output
    assert "http://0.0.0.0:8611/" in result.output
    ((path, argv, env),) = calls
    assert path == sys.executable and argv[argv.index("--server.port") + 1] == "8611"
    assert argv[argv.index("--server.address") + 1] == "0.0.0.0"
    assert env["BIG2_WAREHOUSE"] == tmp_path.resolve().as_posix()


def test_big2_dashboard_refuses_a_bad_port() -> None:
    result = CliRunner().invoke(cli.app, ["dashboard", "--port", "70000"])
    assert result.exit_code == 2


def test_big2_dashboard_passes_the_sql_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--sql-memory-limit` reaches the SQL explorer as $BIG2_SQL_MEMORY in DuckDB's words; one
    DuckDB cannot read stops the command before streamlit starts."""
    calls: list[dict[str, str]] = []
    monkeypatch.setattr(os, "execve", lambda path, argv, env: calls.append(env))
    monkeypatch.delenv("BIG2_SQL_MEMORY", raising=False)
    argv = ["dashboard", "--warehouse", str(tmp_path)]
    assert CliRunner().invoke(cli.app, [*argv, "--sql-memory-limit", "512MiB"]).exit_code == 0
    assert CliRunner().invoke(cli.app, argv).exit_code == 0
    assert calls[0]["BIG2_SQL_MEMORY"] == "512.0 MiB" and "BIG2_SQL_MEMORY" not in calls[1]
    bad = CliRunner().invoke(cli.app, [*argv, "--sql-memory-limit", "lots"])
    assert bad.exit_code == 2 and "E_SQL_USAGE: memory limit 'lots'" in bad.output
    assert len(calls) == 2
