"""`big2 ingest` / `big2 verify` end to end: real files, a real Parquet + DuckDB warehouse."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.ingest import IngestError, expand_paths, ingest
from pipeline.sim.sample import bad_lines, dumps, sample_game
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
runner = CliRunner()


def write_games(path: Path, n: int, *, start: int = 0) -> list[str]:
    ids = [f"g{i}" for i in range(start, start + n)]
    with path.open("w", encoding="utf-8") as fh:
        for i, gid in zip(range(start, start + n), ids, strict=True):
            fh.write(dumps(sample_game(seed=i, game_id=gid)) + "\n")
    return ids


def write_many(path: Path, n: int) -> None:
    """``n`` distinct games quickly: 20 played games, repeated under new ids."""
    base = [sample_game(seed=i, game_id="x") for i in range(20)]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(dumps({**base[i % 20], "game_id": f"m{i}"}) + "\n")


def count(wh: Warehouse, sql: str) -> int:
    with wh.connect() as con:
        row = con.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def test_ingest_samples_then_reimport_stores_nothing_twice(tmp_path: Path) -> None:
    wh_dir = tmp_path / "wh"
    first = runner.invoke(app, ["ingest", str(SAMPLES), "--warehouse", str(wh_dir)])
    assert first.exit_code == 0, first.output
    assert "top reject reasons" in first.output
    wh = Warehouse(wh_dir)
    stored = count(wh, "select count(*) from games")
    rejects = count(wh, "select count(*) from rejects")
    assert stored >= 10 and rejects >= 10
    second = runner.invoke(app, ["ingest", str(SAMPLES), "--warehouse", str(wh_dir)])
    assert second.exit_code == 0, second.output
    assert count(wh, "select count(*) from games") == stored
    assert count(wh, "select count(*) from rejects") == rejects
    assert count(wh, "select count(*) - count(distinct game_id) from games") == 0
    ok = runner.invoke(app, ["verify", "--warehouse", str(wh_dir)])
    assert ok.exit_code == 0 and "OK" in ok.output


def test_every_bad_line_is_a_reject_and_the_good_games_land(tmp_path: Path) -> None:
    log = tmp_path / "mixed.jsonl"
    expected = bad_lines()
    log.write_bytes(
        b"".join(line if line.endswith(b"\n") else line + b"\n" for _, line in expected)
    )
    wh = Warehouse(tmp_path / "wh")
    summary = ingest([str(log)], wh)
    want_bad = [code for code, _ in expected if code]
    total = summary.total()
    assert total.rejected == len(want_bad)
    assert total.stored == sum(1 for code, _ in expected if not code)
    with wh.connect() as con:
        rows = con.execute("select code, file, line from rejects order by line").fetchall()
    assert sorted(r[0] for r in rows) == sorted(want_bad)
    assert all(r[1] == str(log) and r[2] >= 1 for r in rows)


def test_strict_exits_1_when_anything_was_rejected(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ingest", str(SAMPLES / "bad.jsonl"), "-w", str(tmp_path / "wh"), "--strict"]
    )
    assert result.exit_code == 1


def test_unusable_input_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(tmp_path / "nope.jsonl"), "-w", str(tmp_path)])
    assert result.exit_code == 2
    assert "E_NO_INPUT" in result.output
    with pytest.raises(IngestError, match="E_NO_INPUT"):
        expand_paths([str(tmp_path / "*.jsonl")])


def test_globs_and_folders_expand_to_log_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    write_games(tmp_path / "a" / "one.jsonl", 1)
    write_games(tmp_path / "two.jsonl", 1, start=1)
    (tmp_path / "notes.txt").write_text("not a log")
    assert [p.name for p in expand_paths([str(tmp_path)])] == ["one.jsonl", "two.jsonl"]
    assert [p.name for p in expand_paths([str(tmp_path / "*.jsonl")])] == ["two.jsonl"]


def test_same_id_other_content_is_a_conflict(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(dumps(sample_game(seed=1, game_id="same")) + "\n")
    b.write_text(dumps(sample_game(seed=2, game_id="same")) + "\n")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(a)], wh)
    summary = ingest([str(b)], wh)
    assert summary.reasons["E_CONFLICT"] == 1
    assert count(wh, "select count(*) from rejects where code = 'E_CONFLICT'") == 1
    assert count(wh, "select count(*) from games") == 1


def test_two_workers_store_the_same_rows_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 7)
    log = tmp_path / "many.jsonl"
    write_games(log, 40)
    with log.open("a") as fh:  # a repeat inside the file, and one bad line
        fh.write(dumps(sample_game(seed=3, game_id="g3")) + "\n{oops\n")
        # a repeat inside one chunk: the worker hands the replayed game back (pickled)
        fh.write(2 * (dumps(sample_game(seed=100, game_id="g100")) + "\n"))
    results = []
    for workers in (1, 2):
        wh = Warehouse(tmp_path / f"wh{workers}")
        summary = ingest([str(log)], wh, workers=workers)
        total = summary.total()
        with wh.connect() as con:
            actions = con.execute(
                "select game_id, action_index, seat, cards_mask from actions order by all"
            ).fetchall()
        results.append((total.read, total.stored, total.duplicate, total.rejected, actions))
    assert results[0] == results[1]
    assert results[0][:4] == (44, 41, 2, 1)


def test_a_killed_import_leaves_the_warehouse_consistent(tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    write_many(log, 6000)  # several seconds of work: the kill lands mid-import
    wh_dir = tmp_path / "wh"
    first = tmp_path / "first.jsonl"
    write_games(first, 5, start=1000)
    assert runner.invoke(app, ["ingest", str(first), "-w", str(wh_dir)]).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "pipeline.cli", "ingest", str(log), "-w", str(wh_dir)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(2.5)
    assert proc.poll() is None, "the import finished before the kill: make the input bigger"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    wh = Warehouse(wh_dir)
    assert count(wh, "select count(*) from games") == 5  # the killed batch is not visible
    assert all(p.code == "E_ORPHAN_FILE" for p in wh.verify())
    # one process: this test is about the killed batch, and a pool forked from the test runner's
    # worker (pytest-xdist: a process with other threads) once lost a worker in CI
    summary = ingest([str(log)], wh, workers=1)
    assert summary.total().stored == 6000
    assert count(wh, "select count(*) from games") == 6005
    # ingest() does not build: the marts the CLI built over the first batch are stale
    assert [p.code for p in wh.verify()] == ["E_MARTS_STALE"]


def test_summary_names_each_file(tmp_path: Path) -> None:
    write_games(tmp_path / "a.jsonl", 2)
    (tmp_path / "b.jsonl").write_text(json.dumps({"game_id": "x"}) + "\n")
    result = runner.invoke(app, ["ingest", str(tmp_path), "-w", str(tmp_path / "wh")])
    assert result.exit_code == 0, result.output
    assert "a.jsonl" in result.output and "b.jsonl" in result.output
    assert "E_SCHEMA" in result.output
