"""A build says how far it is: ``on_step`` as each step starts (its name, the steps done, all of
them), and the commands that build draw it as a progress bar on stderr."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from pipeline import sqlbuild
from pipeline.cli import app
from pipeline.cli import ingest as cli_ingest
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import Warehouse

runner = CliRunner()


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse of 6 games, imported without a build."""
    root = tmp_path_factory.mktemp("progress")
    log = root / "games.jsonl"
    games = (dumps(sample_game(seed=s, game_id=f"g{s}")) for s in range(6))
    log.write_text("".join(g + "\n" for g in games), encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(log), "-w", str(root / "wh"), "--no-build"])
    assert result.exit_code == 0, result.output
    return root / "wh"


def test_each_step_is_told_once_in_order(warehouse: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    summary = sqlbuild.build(Warehouse(warehouse), on_step=lambda *step: seen.append(step))
    total = sqlbuild.build_steps()
    names = [name for name, _, _ in seen]
    assert [done for _, done, _ in seen] == list(range(total))
    assert {t for _, _, t in seen} == {total}
    assert len(set(names)) == len(names) == total
    assert names[0] == "rulesets" and names[-1] == "comments"
    # every step the summary times, and every mart, in the order they ran
    assert names == [name for name in summary.timings if name != "publish"]
    assert set(summary.rows) <= set(names)
    assert names.index("stats_player_games") > names.index("mart_game_scores")
    assert max(map(len, names)) < cli_ingest.STEP_WIDTH  # the bar keeps its place


def test_a_mart_built_again_is_one_step(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mart out of memory under its MART_SETTINGS runs once more (_step_with_settings): the
    bar does not count it twice."""
    files = sqlbuild.sql_files

    def with_a_hungry_mart(folder: str) -> dict[str, str]:
        found = files(folder)
        if folder == "marts":
            found = {**found, "zz_hungry": "select list(range) as l from range(3000000)"}
        return found

    monkeypatch.setattr(sqlbuild, "sql_files", with_a_hungry_mart)
    monkeypatch.setattr(sqlbuild, "MART_SETTINGS", {"zz_hungry": {"memory_limit": "8MB"}})
    seen: list[tuple[str, int, int]] = []
    summary = sqlbuild.build(Warehouse(warehouse), on_step=lambda *step: seen.append(step))
    assert list(summary.retried) == ["zz_hungry"]
    assert [name for name, _, _ in seen].count("zz_hungry") == 1
    assert seen[-1] == ("comments", sqlbuild.build_steps() - 1, sqlbuild.build_steps())


@pytest.mark.parametrize("command", ["build", "ingest"])
def test_the_commands_draw_the_bar_on_stderr(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """On a terminal: the bar's last frame says the last step and the count; nothing of it on
    stdout, which keeps the summary alone."""
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=160, stderr=True)
    monkeypatch.setattr(cli_ingest, "err_console", terminal)
    args = ["build", "-w", str(warehouse)]
    if command == "ingest":
        log = tmp_path / "more.jsonl"
        log.write_text(dumps(sample_game(seed=99, game_id="more")) + "\n", encoding="utf-8")
        args = ["ingest", str(log), "-w", str(warehouse)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    total = sqlbuild.build_steps()
    drawn = screen.getvalue()
    assert "build" in drawn and f"{total - 1}/{total} steps" in drawn and "comments" in drawn
    assert "steps" not in result.stdout
