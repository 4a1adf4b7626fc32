"""Kill points: an import killed at every durable step of its commit, and a mart build killed
part-way, leave a warehouse that verifies, holds each game at most once and takes the same
import again to exactly the expected content (docs/reliability.md).

The import's durable steps are found by running it once in counting mode
(``tests/reliability/faults.py``); then it is run again once per step and killed there with
``os._exit`` (no clean-up, as SIGKILL), each in a child forked from one process that has
imported the command line (the imports of a fresh interpreter paid once per step kind). The scale version (more games, kill points in time
with two workers) is the ``reliability.kill_points`` benchmark.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.ingest import ingest
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[2]
FAULTS = Path(__file__).with_name("faults.py")
#: What verify may report after a kill: files of the batch that never committed, and the new
#: ``warehouse.duckdb`` of a build killed before it replaced the old one (the next build, or
#: ``verify --repair``, deletes it: tests/test_build_memory.py).
LEFT_BY_A_KILL = {"E_ORPHAN_FILE", "E_BUILD_LEFTOVER"}


def write_games(path: Path, start: int, n: int) -> set[str]:
    ids = {f"k{i}" for i in range(start, start + n)}
    with path.open("w", encoding="utf-8") as fh:
        for i in range(start, start + n):
            fh.write(dumps(sample_game(seed=i, game_id=f"k{i}")) + "\n")
    return ids


def child_env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def stored_ids(wh_dir: Path) -> list[str]:
    with Warehouse(wh_dir).connect() as con:
        return [row[0] for row in con.execute("select game_id from games").fetchall()]


@pytest.fixture(scope="module")
def setting(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, set[str], set[str]]:
    """A template warehouse holding 5 games, and a log of 30 more with one bad line."""
    root = tmp_path_factory.mktemp("kill")
    first, more = root / "first.jsonl", root / "more.jsonl"
    before = write_games(first, 0, 5)
    added = write_games(more, 100, 30)
    with more.open("a", encoding="utf-8") as fh:
        fh.write('{"game_id": "broken"\n')
    template = root / "template"
    ingest([str(first)], Warehouse(template))
    return template, more, before, added


def run_with_fault(tmp: Path, step: str, n: int, args: list[str]) -> tuple[int, dict[str, int]]:
    counts = tmp / f"counts-{step}-{n}.json"
    proc = subprocess.run(
        [sys.executable, str(FAULTS), str(counts), step, str(n), "--", *args],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode not in (0, 137):
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.returncode, json.loads(counts.read_text()) if counts.exists() else {}


def assert_consistent_then_complete(
    wh_dir: Path, log: Path, before: set[str], added: set[str]
) -> None:
    wh = Warehouse(wh_dir)
    # the stored data (neither the template's import nor ingest() builds the marts)
    problems = [p for p in wh.verify(marts=False) if p.code not in LEFT_BY_A_KILL]
    assert problems == [], problems
    ids = stored_ids(wh_dir)
    assert len(ids) == len(set(ids)), "a game is stored twice"
    assert set(ids) in (before, before | added), "a batch is partly visible"
    ingest([str(log)], wh)  # the same import again completes the warehouse
    ids = stored_ids(wh_dir)
    assert sorted(ids) == sorted(before | added)
    # ingest() builds no marts, so a killed build's file is still there: no other problem
    assert [p for p in wh.verify(marts=False) if p.code != "E_BUILD_LEFTOVER"] == []
    with wh.connect() as con:
        row = con.execute("select count(*) from rejects where code = 'E_JSON'").fetchone()
    assert row == (1,), "the bad line is kept once, whatever the kills"


def kill_at_each(tmp: Path, step: str, points: range, args: list[str]) -> dict[int, int]:
    """Run ``big2 ARGS -w <tmp>/wh-<n>`` killed at call ``n`` of ``step``, for each point: in
    children forked from one process that has imported the command line (faults.py --fork)."""
    jobs = [
        {
            "n": n,
            "counts": str(tmp / f"counts-{step}-{n}.json"),
            "log": str(tmp / f"out-{step}-{n}.txt"),
            "args": [*args, "-w", str(tmp / f"wh-{n}")],
        }
        for n in points
    ]
    jobs_file = tmp / f"jobs-{step}.json"
    jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(FAULTS), "--fork", str(jobs_file), step],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    codes = {int(n): code for n, code in json.loads(proc.stdout.splitlines()[-1]).items()}
    for n, code in codes.items():
        if code not in (0, 137):
            raise AssertionError(
                f"exit {code}: {(tmp / f'out-{step}-{n}.txt').read_text()[-2000:]}"
            )
    return codes


@pytest.mark.parametrize("step", ["replace", "fsync"])
def test_an_import_killed_at_every_durable_step(
    tmp_path: Path, setting: tuple[Path, Path, set[str], set[str]], step: str
) -> None:
    template, log, before, added = setting
    args = ["ingest", str(log), "--workers", "1"]
    counting = tmp_path / "counting"
    shutil.copytree(template, counting)
    code, counts = run_with_fault(tmp_path, step, 0, [*args, "-w", str(counting)])
    assert code == 0 and counts.get(step, 0) >= 3, counts  # the commit has steps to kill at
    points = range(1, counts[step] + 1)
    for n in points:
        shutil.copytree(template, tmp_path / f"wh-{n}")
    codes = kill_at_each(tmp_path, step, points, args)
    assert sorted(codes) == list(points)
    for n in points:
        assert codes[n] == 137, f"{step} call {n} of {counts[step]} did not kill the import"
        assert_consistent_then_complete(tmp_path / f"wh-{n}", log, before, added)


def test_a_mart_build_killed_part_way_is_rebuilt(
    tmp_path: Path, setting: tuple[Path, Path, set[str], set[str]]
) -> None:
    template, log, before, added = setting
    wh_dir = tmp_path / "wh"
    shutil.copytree(template, wh_dir)
    ingest([str(log)], Warehouse(wh_dir))
    big2 = [sys.executable, "-m", "pipeline.cli"]
    build = [*big2, "build", "-w", str(wh_dir)]
    # the kills land at fifths of a whole build's time on this machine, as fast as it is now
    started = time.monotonic()
    subprocess.run(build, env=child_env(), capture_output=True, timeout=300, check=True)
    whole = time.monotonic() - started
    killed = 0
    for fifth in (1, 2, 3, 4):
        proc = subprocess.Popen(
            build, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(whole * fifth / 5)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        proc.wait(timeout=60)
        # the base tables are untouched by a build; what the kill left is named, no more
        problems = Warehouse(wh_dir).verify()
        assert {p.code for p in problems} <= {"E_BUILD_LEFTOVER"}, problems
    assert killed >= 2, f"the builds ended before their kills (a whole one took {whole:.1f} s)"
    done = subprocess.run(
        [*big2, "build", "--test", "-w", str(wh_dir)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with Warehouse(wh_dir).connect() as con:
        row = con.execute("select count(distinct game_id) from mart_game_scores").fetchone()
    assert row == (len(before | added),)
