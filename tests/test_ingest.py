"""`big2 ingest` / `big2 verify` end to end: real files, a real Parquet + DuckDB warehouse."""

from __future__ import annotations

import gc
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipeline import native
from pipeline.cli import app
from pipeline.ingest import (
    IngestError,
    Progress,
    _in_order,
    _no_gc,
    _on_threads,
    expand_paths,
    ingest,
)
from pipeline.logs.model import Source
from pipeline.sim.sample import bad_lines, dumps, sample_game
from pipeline.warehouse import Added, Warehouse

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


def details_rows(output: str) -> int:
    """The rows of the query the summary's ``details:`` line gives, run as a shell would split
    that line (``big2 sql QUERY -w WAREHOUSE``)."""
    (line,) = [x for x in output.splitlines() if x.startswith("details: ")]
    words = shlex.split(line.removeprefix("details: "))
    query, where = words[words.index("sql") + 1], words[words.index("-w") + 1]
    done = runner.invoke(app, ["sql", query, "-w", where, "--format", "csv"])
    assert done.exit_code == 0, done.output
    return len(done.stdout.splitlines()) - 1  # the header


def test_a_reimport_shows_where_its_rejects_are_stored(tmp_path: Path) -> None:
    """Rejects met again are stored once, by the import that met them first: a re-import's
    summary says so, and its examples and ``details:`` query show those rows."""
    log = tmp_path / "bad.jsonl"
    log.write_bytes((SAMPLES / "bad.jsonl").read_bytes())
    argv = ["ingest", str(log), "-w", str(tmp_path / "wh"), "--no-build", "--top", "0"]
    first = runner.invoke(app, argv)
    assert first.exit_code == 0, first.output
    n = count(Warehouse(tmp_path / "wh"), "select count(*) from rejects")
    assert n >= 5 and details_rows(first.stdout) == n
    assert "met before" not in first.stdout
    second = runner.invoke(app, argv)
    assert second.exit_code == 0, second.output
    assert f"{n} rejects met before: stored by an earlier import" in second.stdout
    reasons = second.stdout.split("top reject reasons:\n", 1)[1].splitlines()
    assert all(re.search(r"E_\w+ +\S*bad\.jsonl:\d+$", x) for x in reasons[:5]), reasons
    assert details_rows(second.stdout) == n
    assert count(Warehouse(tmp_path / "wh"), "select count(*) from rejects") == n


def test_the_details_line_quotes_a_warehouse_path_for_the_shell(tmp_path: Path) -> None:
    where = tmp_path / "sp ace" / "it's $wh"
    log = tmp_path / "a `b`.jsonl"
    log.write_bytes((SAMPLES / "bad.jsonl").read_bytes())
    done = runner.invoke(app, ["ingest", str(log), "-w", str(where), "--no-build"])
    assert done.exit_code == 0, done.output
    assert details_rows(done.stdout) == count(Warehouse(where), "select count(*) from rejects")


@pytest.mark.parametrize("workers", [0, -3])
def test_ingest_refuses_fewer_than_one_worker(tmp_path: Path, workers: int) -> None:
    """As `big2 ingest --workers` does: no summary of "0 workers" from the library either."""
    with pytest.raises(IngestError, match=f"workers must be 1 or more, got {workers}"):
        ingest([str(SAMPLES / "games.jsonl")], Warehouse(tmp_path / "wh"), workers=workers)
    assert not (tmp_path / "wh").exists()


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
    # refused before the warehouse is touched: a mistyped -w is not made a folder (with a lock)
    fresh = runner.invoke(app, ["ingest", str(tmp_path / "nope.jsonl"), "-w", str(tmp_path / "w")])
    assert fresh.exit_code == 2 and "E_NO_INPUT" in fresh.output
    assert not (tmp_path / "w").exists()
    with pytest.raises(IngestError, match="E_NO_INPUT"):
        expand_paths([str(tmp_path / "*.jsonl")])


def test_globs_and_folders_expand_to_log_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    write_games(tmp_path / "a" / "one.jsonl", 1)
    write_games(tmp_path / "two.jsonl", 1, start=1)
    (tmp_path / "notes.txt").write_text("not a log")
    assert [p.name for p in expand_paths([str(tmp_path)])] == ["one.jsonl", "two.jsonl"]
    assert [p.name for p in expand_paths([str(tmp_path / "*.jsonl")])] == ["two.jsonl"]


def test_big2_ingest_walks_its_folders_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the CLI expands PATH... first (E_NO_INPUT before the warehouse is touched) and hands the
    # files to the import, which expanded them again: a folder of many logs walked twice
    (tmp_path / "logs" / "a").mkdir(parents=True)
    write_games(tmp_path / "logs" / "a" / "one.jsonl", 2)
    write_games(tmp_path / "logs" / "two.jsonl", 1, start=2)
    calls: list[list[str]] = []

    def counted(paths: list[str]) -> list[Path]:
        calls.append(list(paths))
        return expand_paths(paths)

    monkeypatch.setattr("pipeline.ingest.expand_paths", counted)
    argv = ["ingest", str(tmp_path / "logs"), "-w", str(tmp_path / "wh"), "--no-build"]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert calls == [[str(tmp_path / "logs")]]
    assert "3 games read" in result.output  # the files of the one expansion, in its order
    assert result.output.index("one.jsonl") < result.output.index("two.jsonl")


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


def test_the_import_works_while_its_pool_starts() -> None:
    # a pool whose first task is held until the importing thread has taken one itself: it
    # takes tasks while the pool starts or has no answer yet, and the results come back in
    # the tasks' order
    here = threading.get_ident()
    release = threading.Event()

    def task(k: int) -> tuple[int, bool]:
        in_importer = threading.get_ident() == here
        if in_importer:
            release.set()
        if k == 0:
            assert release.wait(30)
        return k, in_importer

    with ThreadPoolExecutor(2) as pool:
        got = list(_in_order(pool, [(task, (k,)) for k in range(12)], 2))
    assert [k for k, _ in got] == list(range(12))
    assert not got[0][1] and any(in_importer for _, in_importer in got)


def test_the_collector_stays_off_until_the_last_replaying_thread_is_done() -> None:
    # two threads replay chunks at once: the one done first must not turn the process's
    # collector back on under the other, and the last one leaves it as it was
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with _no_gc():
            inside.set()
            assert leave.wait(30)

    assert gc.isenabled()
    thread = threading.Thread(target=other)
    thread.start()
    try:
        assert inside.wait(30)
        with _no_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the other thread still replays
    finally:
        leave.set()
        thread.join()
    assert gc.isenabled()


def test_logs_take_threads_on_the_core_score_sheets_among_them(tmp_path: Path) -> None:
    """On the core, an import's workers are threads, score sheets or not (a sheet's chunks
    would be pickled to worker processes: ``test_a_sheet_and_a_log_on_threads``); without
    it, processes."""
    plain, packed, actions = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz", tmp_path / "c.csv"
    sheet = tmp_path / "club.csv"
    sheet.write_text("date,match,players,cards_left\n", encoding="utf-8")
    assert _on_threads([plain, packed, actions], None, 2) == native.available()
    assert _on_threads([plain, sheet], None, 2) == native.available()
    # one worker: a thread beside this one only for a gzip file or a CSV (this one inflates
    # it, or reads it)
    assert _on_threads([plain, packed], None, 1) == native.available()
    assert _on_threads([plain, actions], None, 1) == native.available()
    assert not _on_threads([plain], None, 1)
    assert not _on_threads([plain, sheet], None, 1)
    assert _on_threads([packed, sheet], None, 1) == native.available()


def test_a_sheet_and_a_log_on_threads(tmp_path: Path) -> None:
    """A score sheet and a JSON Lines log imported together by two workers store what one
    worker stores, game for game."""
    from bench.sheets import write_scorer

    sheet, log = tmp_path / "day.txt", tmp_path / "g.jsonl"
    write_scorer(sheet, 300)
    write_games(log, 40)
    stored = []
    for workers in (1, 2):
        wh = Warehouse(tmp_path / f"wh{workers}")
        summary = ingest([str(sheet), str(log)], wh, workers=workers)
        assert (summary.workers, summary.total().stored) == (workers, 340)
        with wh.connect() as con:
            stored.append(
                con.execute(
                    "select game_id, content_hash, winner from games order by game_id"
                ).fetchall()
            )
    assert stored[0] == stored[1] and len(stored[0]) == 340


def test_score_sheets_count_for_no_bytes_in_the_default_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --workers, a large input takes one worker a core, but score sheets weigh
    nothing in it: their games would be read here and pickled to worker processes (two
    workers ran at about half one worker's rate)."""
    from bench.sheets import write_scorer

    monkeypatch.setattr("pipeline.ingest.PARALLEL_MIN_BYTES", 1)
    sheet, log = tmp_path / "day.txt", tmp_path / "g.jsonl"
    write_scorer(sheet, 40)
    write_games(log, 3)
    alone = ingest([str(sheet)], Warehouse(tmp_path / "a"))
    assert (alone.workers, alone.total().stored) == (1, 40)
    both = ingest([str(sheet), str(log)], Warehouse(tmp_path / "b"))
    assert (both.workers, both.total().stored) == (os.cpu_count() or 1, 43)


def test_each_part_file_is_fsynced_once_before_the_manifest_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the parts' fsyncs run in a thread while the import goes on; the commit waits for them
    # (it fsyncs none twice: each fsync flushes the disk's cache) before the manifest line
    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 4)
    log = tmp_path / "g.jsonl"
    write_games(log, 10)
    fsynced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        fsynced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    wh = Warehouse(tmp_path / "wh")
    assert ingest([str(log)], wh, workers=1).total().stored == 10
    parts = [
        str(wh.root / f.path) + ".tmp" for e in wh.entries() for f in e.files if ".part-" in f.path
    ]
    assert len(parts) == 3 * 4  # three chunks, four tables
    assert sorted(p for p in fsynced if p in parts) == sorted(parts)
    manifest = fsynced.index(str(wh.root / "manifest.jsonl"))
    assert all(fsynced.index(p) < manifest for p in parts)


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
    # killed as soon as its first part file is being written (a fixed sleep once let the
    # faster core commit and start the mart build before the kill)
    deadline = time.monotonic() + 60
    while not any(wh_dir.glob("*/*.parquet.tmp")) and proc.poll() is None:
        assert time.monotonic() < deadline, "the import wrote no part file in 60 s"
        time.sleep(0.01)
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


def test_a_chunk_hands_back_no_rows_only_its_part(tmp_path: Path) -> None:
    """What a worker sends the main process for a chunk: counts, the games' 24-byte keys,
    its part files' names; the rows are in the part files (they were ~10 KB a game)."""
    import pickle

    from pipeline.ingest import process_chunk

    log = tmp_path / "g.jsonl"
    write_games(log, 50)
    lines = log.read_text(encoding="utf-8").splitlines()
    items: list[Any] = [(Source(str(log), i + 1), line) for i, line in enumerate(lines)]
    wh = Warehouse(tmp_path / "wh")
    with wh.batch() as batch:
        result = process_chunk(str(log), items, batch.part_spec(), batch.new_part())
        assert len(pickle.dumps(result)) < 50 * 100
        assert batch.add_part(result.part)[Added.STORED] == 50
    assert count(wh, "select count(*) from games") == 50


def test_a_reimport_writes_no_part_file(tmp_path: Path) -> None:
    """The workers leave out the games the warehouse holds: a re-import writes no games."""
    log = tmp_path / "g.jsonl"
    write_games(log, 12)
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh, workers=1)
    again = ingest([str(log)], wh, workers=2).total()
    assert (again.stored, again.duplicate) == (0, 12)
    last = wh.entries()[-1]
    assert last.files == () and last.counts["duplicates"] == 12
    assert not list((tmp_path / "wh").glob("*/*.tmp"))  # nor the games index it read


# ----- workers read their own ranges of a plain JSON Lines file ----------------------------
needs_core = pytest.mark.skipif(not native.available(), reason="the native core's path")


@needs_core  # without it, the first chunks run here while the worker processes start
def test_the_main_process_reads_no_line_of_a_plain_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, a plain file's lines are read by the workers (each its own byte range),
    not read here and sent to them: this process's line reader may not even work."""
    import pipeline.ingest

    def no_reading(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the main process read the lines of a plain file")

    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 7)
    monkeypatch.setattr(pipeline.ingest, "iter_jsonl_lines", no_reading)
    log = tmp_path / "g.jsonl"
    write_games(log, 30)
    with log.open("a") as fh:
        fh.write("\n{oops\n" + dumps(sample_game(seed=3, game_id="g3")) + "\n")
    wh = Warehouse(tmp_path / "wh")
    total = ingest([str(log)], wh, workers=2).total()
    assert (total.read, total.stored, total.duplicate, total.rejected) == (32, 30, 1, 1)
    with wh.connect() as con:
        assert con.execute("select line, code from rejects").fetchall() == [(32, "E_JSON")]
        lines = con.execute("select source_line from games order by 1").fetchall()
    assert [n for (n,) in lines] == list(range(1, 31))


ODD_LINES = (
    '\ufeff{"bom": 1}\n\n  \n\r\n{oops\r\n' + "x" * 300 + "\n\n\n\n" + "[1]\n" * 9 + "\n" * 40
)


@given(
    length=st.integers(0, 60),
    offset=st.integers(0, 60),
    size=st.integers(0, 70),
    scan=st.integers(1, 9),
)
@settings(max_examples=300, deadline=None)
def test_scan_blocks_with_a_size_are_the_blocks_without(
    length: int, offset: int, size: int, scan: int
) -> None:
    """The blocks ``_scan_blocks`` reads asking for no more than a byte past the size it was
    told are those it reads asking for whole blocks, whatever the file's size now (grown past
    it, or shrunk)."""
    import io as stdio

    from pipeline import ingest as ingest_module

    data = bytes(range(length))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ingest_module, "SCAN_BYTES", scan)
        plain = list(ingest_module._scan_blocks(stdio.BytesIO(data), offset))
        told = list(ingest_module._scan_blocks(stdio.BytesIO(data), offset, size))
    assert told == plain


@pytest.mark.parametrize("scan", [1, 2, 5, 64, 1 << 20])
@pytest.mark.parametrize("games", [1, 3, 1000])
def test_ranges_read_the_lines_the_whole_file_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scan: int, games: int
) -> None:
    """Cut anywhere (any scan block size, any chunk size), the ranges read the same lines,
    sources and rejects as one reader of the whole file: a BOM, blank and CRLF lines, a line
    over the cap, bytes that are not UTF-8, no newline at the end."""
    from pipeline import ingest as ingest_module
    from pipeline.logs.jsonl import iter_jsonl_lines

    monkeypatch.setattr(ingest_module, "SCAN_BYTES", scan)
    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", games)
    monkeypatch.setattr(ingest_module, "CHUNK_BYTES", 200)
    log = tmp_path / "odd.jsonl"
    log.write_bytes(ODD_LINES.encode() + b'{"bad": "\xff"}\n\n[2]')
    with log.open("rb") as fh:
        whole = list(iter_jsonl_lines(fh, str(log), max_line_bytes=100))
    spans = list(ingest_module._ranges(log))
    assert spans[0].offset == 0 and sum(s.length for s in spans) == log.stat().st_size
    assert all(a.offset + a.length == b.offset for a, b in itertools.pairwise(spans))
    got = []
    for span in spans:
        items = ingest_module.range_items(span, 100)
        assert not isinstance(items, str), items
        got.extend(items)
    assert got == whole
    assert len(whole) == 14 and whole[-1] == (Source(str(log), 61), "[2]")
    codes = [(r.source.line, r.code) for r in whole if not isinstance(r, tuple)]
    assert codes == [(6, "E_LINE_TOO_LONG"), (59, "E_ENCODING")]


def test_a_file_changed_under_its_ranges_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A range is read as it was cut, or not at all: a file replaced, shortened or shifted
    since is named as changed (appended lines past the cut are not read)."""
    from pipeline import ingest as ingest_module

    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", 2000)
    log = tmp_path / "g.jsonl"
    log.write_text("[1]\n" * 3000)
    first, second = ingest_module._ranges(log)
    with log.open("a") as fh:  # appended after the cut: the ranges read as before
        fh.write("[2]\n")
    assert len(ingest_module.range_items(second)) == 1000
    log.write_text("[1]\n[10]\n" + "[1]\n" * 2998)  # shifted: the cut is mid-line now
    assert "newline" in str(ingest_module.range_items(second))
    with log.open("r+") as fh:
        fh.truncate(100)
    assert "shorter" in str(ingest_module.range_items(first))
    other = tmp_path / "other.jsonl"
    other.write_text("[1]\n" * 3000)
    other.replace(log)
    assert "replaced" in str(ingest_module.range_items(first))


def test_an_import_of_a_file_changed_while_read_commits_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.ingest

    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 5)
    log = tmp_path / "g.jsonl"
    write_games(log, 12)
    read_range = pipeline.ingest.process_range
    calls = []

    def shrinking(span: Any, *args: Any) -> Any:
        calls.append(span)
        if len(calls) == 2:
            with log.open("r+") as fh:
                fh.truncate(span.offset + 10)
        return read_range(span, *args)

    monkeypatch.setattr(pipeline.ingest, "process_range", shrinking)
    _without_the_core(monkeypatch)  # the core's workers cut their runs themselves (below)
    wh = Warehouse(tmp_path / "wh")
    with pytest.raises(IngestError) as caught:
        ingest([str(log)], wh, workers=1)
    assert caught.value.code == "E_FILE_CHANGED" and "shorter" in caught.value.message
    assert wh.entries() == [] and not list(wh.root.glob("*/*.tmp"))
    assert wh.verify() == []


@pytest.mark.parametrize("workers", [1, 2])
def test_small_files_one_of_which_changed_while_read_commit_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """A file of a chunk of small files replaced once it was cut: the import names it and
    commits nothing (the other files' rows written for the chunk go too)."""
    import pipeline.ingest

    files = [tmp_path / f"{k}.jsonl" for k in range(3)]
    for k, f in enumerate(files):
        write_games(f, 2, start=2 * k)
    whole = pipeline.ingest._small_pieces

    def replacing(path: Path, *args: Any) -> Any:
        span = whole(path, *args)
        if path == files[1]:  # cut, then another file in its place
            other = tmp_path / "other.jsonl"
            other.write_bytes(path.read_bytes())
            other.replace(path)
        return span

    monkeypatch.setattr(pipeline.ingest, "_small_pieces", replacing)
    wh = Warehouse(tmp_path / "wh")
    with pytest.raises(IngestError) as caught:
        ingest([str(f) for f in files], wh, workers=workers)
    assert caught.value.code == "E_FILE_CHANGED" and str(files[1]) in caught.value.message
    assert "replaced" in caught.value.message
    assert wh.entries() == [] and not list(wh.root.glob("*/*.tmp"))
    assert wh.verify() == []


def _without_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process on the pure Python path from here on (`BIG2_PURE_PYTHON=1`'s)."""
    monkeypatch.setattr(native, "_MODULE", None)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())


@needs_core
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("change", ["replaced", "shifted"])
def test_the_workers_name_a_file_changed_between_their_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, workers: int
) -> None:
    """The core's workers read each run as they cut it: a file replaced, or no longer cut at
    a newline where the next run starts, is changed, and nothing is committed."""
    import pipeline.ingest

    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 5)
    log = tmp_path / "g.jsonl"
    write_games(log, 12)
    take_run = pipeline.ingest.process_run

    def changing(cursor: Any, ticket: int, *args: Any) -> Any:
        if ticket == 1:  # once the first run is cut, before the second is
            with cursor.turns:
                cursor.turns.wait_for(lambda: cursor.turn == 1)
                if change == "replaced":
                    other = tmp_path / "other.jsonl"
                    other.write_bytes(log.read_bytes())
                    other.replace(log)
                else:
                    log.write_bytes(b"[1]\n" + log.read_bytes())
        return take_run(cursor, ticket, *args)

    monkeypatch.setattr(pipeline.ingest, "process_run", changing)
    wh = Warehouse(tmp_path / "wh")
    with pytest.raises(IngestError) as caught:
        ingest([str(log)], wh, workers=workers)
    want = "replaced" if change == "replaced" else "no longer the newline"
    assert caught.value.code == "E_FILE_CHANGED" and want in caught.value.message
    assert wh.entries() == [] and not list(wh.root.glob("*/*.tmp"))


def _core_runs_of(path: Path, max_line_bytes: int) -> list[tuple[int, int, int, bool]]:
    """The runs the core reads from the start of ``path`` one after another, as
    `ingest.process_run` moves through it: ``(offset, length, first line, ends_line)``, a run
    longer than the core holds as its length -1."""
    from pipeline import ingest as ingest_module

    core = native.core_rows()
    assert core is not None
    st = path.stat()
    rule = (
        ingest_module.CHUNK_GAMES,
        ingest_module.CHUNK_BYTES,
        ingest_module.SCAN_BYTES,
        ingest_module.CHUNK_BYTES + max_line_bytes + 1,
    )
    out, offset, line = [], 0, 1
    while True:
        got = core.read_run(str(path), offset, st.st_dev, st.st_ino, rule)
        if got[0] == "end":
            return out
        if got[0] == "long":
            here = ingest_module.LineRange(str(path), offset, 0, line, True, 0, 0)
            span, newlines = ingest_module._run_at(here)
            out.append((offset, -1, line, span.ends_line))
            length, ends_line, at_end = span.length, span.ends_line, newlines < 0
        else:
            _, length, newlines, ends_line, at_end = got
            out.append((offset, length, line, ends_line))
        offset, line = offset + length, line + newlines
        if at_end or not ends_line:
            return out


@needs_core
@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from([b"", b" ", b"[1]", b"x" * 9, b"{}" * 30, b"\r", b"\xff"]), max_size=50
    ),
    end=st.booleans(),
    scan=st.integers(1, 70),
    games=st.integers(1, 9),
    most=st.integers(1, 150),
)
def test_the_core_cuts_its_runs_where_the_ranges_are_cut(
    lines: list[bytes], end: bool, scan: int, games: int, most: int
) -> None:
    """One worker's runs, read and cut by the core (`process_run`), are the ranges the main
    thread cuts (`_ranges`), whatever the blocks, blank lines, chunk sizes and long runs."""
    import tempfile

    from pipeline import ingest as ingest_module

    data = b"\n".join(lines) + (b"\n" if end else b"")
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(ingest_module, "SCAN_BYTES", scan)
        mp.setattr(ingest_module, "CHUNK_GAMES", games)
        mp.setattr(ingest_module, "CHUNK_BYTES", most)
        path = Path(tmp) / "g.jsonl"
        path.write_bytes(data)
        limit = most + 40 + 1  # max_line_bytes 40: some runs are too long for the core
        want = [
            (r.offset, r.length if r.length <= limit else -1, r.first_line, r.ends_line)
            for r in ingest_module._ranges(path)
        ]
        assert _core_runs_of(path, 40) == want


@needs_core
@pytest.mark.parametrize("games", [1, 3, 1000])
def test_the_workers_read_a_plain_file_once_and_store_what_python_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, games: int
) -> None:
    """On the core, nothing scans a plain file before the workers read it (`_ranges` is not
    called), one worker or two cutting their runs in turn, and the rows and rejects are those
    of the Python path reading the ranges cut here: blank lines across blocks, a line over the
    cap, a run too long for the core, bytes that are not UTF-8, no newline at the end, a game
    repeated and one contradicted in later runs (the first copy in the file is stored)."""
    from pipeline import ingest as ingest_module

    monkeypatch.setattr(ingest_module, "SCAN_BYTES", 64)
    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", games)
    monkeypatch.setattr(ingest_module, "CHUNK_BYTES", 3000)
    log = tmp_path / "odd.jsonl"
    write_games(log, 6)
    text = log.read_bytes()
    other = dumps(sample_game(seed=40, game_id="g2")).encode() + b"\n"  # g2, other content
    long_line = b"y" * 12_000 + b"\n"  # over the cap; its run is over what the core holds
    odd = ODD_LINES.encode() + text + b"\n" * 70 + long_line + b'{"bad": "\xff"}\n' + other
    log.write_bytes(odd + text[:-1])
    ranges = ingest_module._ranges

    def no_scan(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the file was scanned before the workers read it")

    monkeypatch.setattr(ingest_module, "_ranges", no_scan)
    digests = []
    for workers in (1, 2):
        wh = Warehouse(tmp_path / f"wh{workers}")
        total = ingest([str(log)], wh, workers=workers, max_line_bytes=6000).total()
        assert (total.stored, total.duplicate, total.rejected) == (6, 6, 15)
        digests.append(warehouse_digest(wh, tmp_path))
    monkeypatch.setattr(ingest_module, "_ranges", ranges)
    _without_the_core(monkeypatch)
    wh = Warehouse(tmp_path / "python")
    ingest([str(log)], wh, workers=1, max_line_bytes=6000)
    assert digests == [warehouse_digest(wh, tmp_path)] * 2


@needs_core
def test_the_last_runs_of_an_import_on_threads_are_shared_among_its_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two worker threads cut the last file's last runs smaller (the games left shared among
    them, down to ``TAIL_GAMES``), so that neither waits for the other's last whole run; an
    earlier file's runs and one worker's stay whole. The rows are those of one worker."""
    from pipeline import ingest as ingest_module

    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", 40)
    monkeypatch.setattr(ingest_module, "TAIL_GAMES", 5)
    monkeypatch.setattr(ingest_module, "SMALL_FILE_BYTES", 0)  # each file its own runs
    first, last = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_games(first, 100)
    write_games(last, 200, start=100)
    parts, digests = {}, []
    for workers in (1, 2):
        wh = Warehouse(tmp_path / f"wh{workers}")
        ingest([str(first), str(last)], wh, workers=workers)
        with wh.connect() as con:
            parts[workers] = con.execute(
                "select filename, count(*) from read_parquet(?, filename = true) "
                "group by filename order by filename",
                [str(wh.root / "games" / "*.parquet")],
            ).fetchall()
        digests.append(warehouse_digest(wh, tmp_path))
    assert digests[0] == digests[1]
    one = [n for _, n in parts[1]]
    two = [n for _, n in parts[2]]
    assert one == [40, 40, 20, 40, 40, 40, 40, 40]
    assert sum(two) == 300 and two[:3] == [40, 40, 20]  # the first file's runs: whole
    tail = two[3:]
    assert tail[:3] == [40, 40, 40] and 5 in tail and len(tail) > 5
    assert all(a >= b for a, b in itertools.pairwise(tail[:-1])), tail  # shrinking to the end


#: The rows a mixed import stored before workers wrote their own part files (the import
#: as of commit b47eca8, one Parquet file per table per batch): row counts and a digest of
#: each table's sorted rows without ``batch_id``, the paths of the temporary folder cut off.
#: Regenerate only if the rows are meant to change: ``python tests/test_ingest.py``.
GOLDEN = ROOT / "tests" / "data" / "ingest_mixed_golden.json"


def write_mixed(folder: Path) -> list[list[str]]:
    """The imports of the mixed test, in order: simulated games and copies of the samples
    (rejects, a CSV pair, a score sheet), the same again (all duplicates) with two files
    that repeat and contradict each other's games and the stored ones (in one chunk, across
    chunks of 7 games, across files)."""
    import shutil

    sim = folder / "sim.jsonl"
    write_games(sim, 30)
    samples = folder / "samples"
    shutil.copytree(SAMPLES, samples)
    mixed, more = folder / "mixed.jsonl", folder / "more.jsonl"
    with mixed.open("w", encoding="utf-8") as fh:
        lines = [sample_game(seed=3, game_id="g3"), sample_game(seed=99, game_id="g5")]
        lines += [sample_game(seed=i, game_id=f"n{i}") for i in range(100, 115)]
        lines.insert(6, sample_game(seed=101, game_id="n101"))  # in the chunk of its first
        lines.insert(12, sample_game(seed=7, game_id="n100"))  # a conflict, another chunk
        lines.append(sample_game(seed=100, game_id="n100"))  # and a duplicate
        fh.write("".join(dumps(g) + "\n" for g in lines) + "{oops\n")
    with more.open("w", encoding="utf-8") as fh:
        lines = [sample_game(seed=i, game_id=f"n{i}") for i in (103, 104, 120, 121)]
        lines += [sample_game(seed=8, game_id="n105"), sample_game(seed=8, game_id="g1")]
        fh.write("".join(dumps(g) + "\n" for g in lines))
    return [[str(sim), str(samples)], [str(sim), str(samples), str(mixed), str(more)]]


def warehouse_digest(
    wh: Warehouse, folder: Path, leave_out: frozenset[str] = frozenset()
) -> dict[str, object]:
    """Per table its row count and the sha256 of its sorted rows, ``batch_id`` (and the
    columns ``leave_out`` names) left out and ``folder`` cut from every text."""
    import hashlib

    out: dict[str, object] = {}
    cut = str(folder.resolve())
    with wh.connect() as con:
        for table in ("games", "seats", "actions", "tricks", "rejects"):
            cols = [r[0] for r in con.execute(f"describe {table}").fetchall()]
            keep = ", ".join(f'"{c}"' for c in cols if c != "batch_id" and c not in leave_out)
            rows = con.execute(f"select {keep} from {table}").fetchall()
            texts = sorted(json.dumps([str(v).replace(cut, "<tmp>") for v in r]) for r in rows)
            digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
            out[table] = [len(rows), digest]
    return out


def mixed_import(folder: Path, workers: int) -> dict[str, object]:
    """Run the mixed imports into a new warehouse; their summaries and the rows stored."""
    imports = write_mixed(folder)
    wh = Warehouse(folder / "wh")
    summaries = []
    for paths in imports:
        summary = ingest(paths, wh, workers=workers)
        files = {
            Path(f.file).name: [f.read, f.stored, f.duplicate, f.rejected]
            for f in summary.files.values()
        }
        summaries.append({"files": files, "reasons": dict(sorted(summary.reasons.items()))})
    assert wh.verify(marts=False) == []  # ingest() builds no marts
    return {"summaries": summaries, "tables": warehouse_digest(wh, folder)}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_mixed_import_stores_the_rows_it_stored_before_part_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 7)  # read in this process
    got = mixed_import(tmp_path, workers)
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))
    with Warehouse(tmp_path / "wh").connect() as con:
        n = con.execute("select count(*) from games where game_id like 'n%'").fetchone()
    assert n == (17,)  # n100-n114, n120 and n121 once each: the repeats left out


if __name__ == "__main__":  # regenerate GOLDEN (from the import it must match)
    import tempfile

    import pipeline.ingest

    pipeline.ingest.CHUNK_GAMES = 7
    with tempfile.TemporaryDirectory() as tmp:
        result = mixed_import(Path(tmp), 1)
    GOLDEN.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def write_small_files(folder: Path) -> list[Path]:
    """Small log files, in their import's order: games, rejects (more than the cap of
    one a file), a game twice in one file, once more in another (a duplicate) and contradicted
    in a third (a conflict), a game the warehouse holds (stored before, here a duplicate) and
    one it holds otherwise (a conflict), a file of blank lines only, an empty file, a file that
    does not end with a newline; gzip files, one of them cut short (its stream fails: read
    alone); CSV pairs, their games CSV's rejects (a games row twice, one with no actions),
    an action row's, a game stored before in the import (a duplicate)."""
    import csv
    import gzip
    import io

    from pipeline.sim.sample import _csv_rows

    folder.mkdir()
    game = {
        gid: dumps(sample_game(seed=i, game_id=gid)) + "\n" for i, gid in enumerate("abcdefghij")
    }
    other = {gid: dumps(sample_game(seed=50 + i, game_id=gid)) + "\n" for i, gid in enumerate("cg")}
    texts = {
        "01.jsonl": game["a"] + game["b"] + "{oops\n[1]\n" + game["b"],
        "02.jsonl": "\n\n" + game["c"] + "x" * 80 + "\n",
        "03.jsonl": game["b"] + other["c"] + game["d"],
        "04.jsonl": "\n" * 30,
        "05.jsonl": "",
        "06.jsonl": game["e"] + game["f"] + other["g"] + game["h"].rstrip("\n"),
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "07.jsonl.gz").write_bytes(gzip.compress((game["i"] + "[2]\n" + game["a"]).encode()))
    (folder / "08.jsonl.gz").write_bytes(gzip.compress((game["j"] * 2).encode())[:-20])
    (folder.parent / "before.jsonl").write_text(game["f"] + game["g"], encoding="utf-8")
    for stem, ids in (("09", "kal"), ("10", "nm")):
        games = [
            sample_game(seed=ord(g), game_id=g) if g != "a" else json.loads(game["a"]) for g in ids
        ]
        for g in games:
            g.pop("truth", None)
        game_rows, action_rows = _csv_rows(games)
        if stem == "09":
            game_rows.append(game_rows[1])  # k's games row again
            game_rows.append([*game_rows[1][:1], *game_rows[2][1:]])  # a row for k, again
            action_rows[-1][2] = "x"  # l's last action: no seat
        else:
            game_rows.append(["o", *game_rows[1][1:]])  # a game with no actions
        for rows, name in ((game_rows, f"{stem}.games.csv"), (action_rows, f"{stem}.csv")):
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows(rows)
            (folder / name).write_text(out.getvalue(), encoding="utf-8")
    return sorted(f for f in folder.iterdir() if not f.name.endswith(".games.csv"))


@pytest.mark.parametrize("workers", [1, 2])
def test_small_files_share_a_chunk_and_store_what_each_stores_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """Small files (JSON Lines, gzip, CSV pairs) read one after the other make one chunk and
    one part (four Parquet files, not four a file), and store the rows, rejects and per-file
    counts the same files store each in its own chunk."""
    from pipeline import ingest as ingest_module

    files = write_small_files(tmp_path / "logs")
    small_wh = tmp_path / "grouped"
    got = []
    for wh_dir, small in ((small_wh, ingest_module.SMALL_FILE_BYTES), (tmp_path / "alone", 0)):
        # 0: no file is small, each its own chunk
        monkeypatch.setattr(ingest_module, "SMALL_FILE_BYTES", small)
        wh = Warehouse(wh_dir)
        ingest([str(tmp_path / "before.jsonl")], wh)
        seen: list[Progress] = []
        summary = ingest(
            [str(f) for f in files],
            wh,
            workers=workers,
            max_rejects_per_file=1,
            on_progress=seen.append,
        )
        total = summary.total()
        assert (seen[-1].games, seen[-1].rejected) == (total.read, total.rejected)
        per_file = {
            Path(f.file).name: (f.read, f.stored, f.duplicate, f.rejected)
            for f in summary.files.values()
        }
        parts = len(list((wh.root / "games").glob(f"batch-{summary.batch_id}.part-*")))
        # a conflict's reject keeps its record whether the game it contradicts came in the
        # same chunk (a repeat, replayed in Python) or not (read back from its file)
        digest = warehouse_digest(wh, tmp_path)
        with wh.connect() as con:
            kept = con.execute("select count(raw) from rejects where code = 'E_CONFLICT'")
            assert kept.fetchone() == (3,)
        got.append((per_file, dict(summary.reasons), digest, parts))
        assert wh.verify(marts=False) == []  # ingest() builds no marts
    (*same, grouped), (*same_alone, alone) = got
    assert same == same_alone
    # eight files hold games (the blank and empty ones none); the cut gzip file is read alone,
    # between two chunks of small files
    assert grouped == 3 and alone == 8
    per_file, reasons = same[0], same[1]
    assert per_file["01.jsonl"] == (5, 2, 1, 2)  # a, b stored; b again; {oops and [1]
    assert per_file["03.jsonl"] == (3, 1, 1, 1)  # b a duplicate, c contradicted, d stored
    assert per_file["06.jsonl"] == (4, 2, 1, 1)  # f held before; g held otherwise
    assert per_file["04.jsonl"] == per_file["05.jsonl"] == (0, 0, 0, 0)
    assert per_file["07.jsonl.gz"] == (3, 1, 1, 1)  # i stored, [2], a again
    assert reasons == {
        "E_JSON": 2,
        "E_SCHEMA": 3,
        "E_CONFLICT": 3,
        "E_GZIP_TRUNCATED": 1,
        "E_CSV_DUPLICATE_GAME": 2,
        "E_CSV_NO_ACTIONS": 1,
    }
    # k stored; its games row twice more, a contradicted (the CSV keeps fewer fields), l no seat
    assert per_file["09.csv"] == (5, 1, 0, 4)
    assert per_file["10.csv"] == (3, 2, 0, 1)  # n, m stored; o has no actions
    with Warehouse(small_wh).connect() as con:
        caps = con.execute("select file from rejects where code = 'E_TOO_MANY_REJECTS'")
        assert sorted(Path(f).name for (f,) in caps.fetchall()) == ["01.jsonl", "09.csv"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_folders_shared_games_csv_is_rejected_about_once(tmp_path: Path, workers: int) -> None:
    """Two actions CSVs share their folder's ``games.csv`` (no ``<stem>.games.csv``): each
    reader finds the other's games there without actions and the file's own bad rows; the
    import rejects a row ``E_CSV_NO_ACTIONS`` only when neither file had its actions, and the
    games CSV's own rejects once. Imported alone, a file still rejects the rows it lacks."""
    import csv
    import io

    from pipeline.sim.sample import _csv_rows

    def text(rows: list[list[str]]) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()

    games = [sample_game(seed=k, game_id=f"g{k}") for k in range(3)]
    game_rows, action_rows = _csv_rows(games)
    (tmp_path / "games.csv").write_text(text([*game_rows, game_rows[1]]))  # g0 twice
    for name, gid in (("a.csv", "g0"), ("b.csv", "g1")):  # g2: no actions anywhere
        body = [r for r in action_rows[1:] if r[0] == gid]
        (tmp_path / name).write_text(text([action_rows[0], *body]))

    def rejects(*names: str) -> list[tuple[str, str | None]]:
        wh = Warehouse(tmp_path / f"wh-{'-'.join(names)}-{workers}")
        summary = ingest([str(tmp_path / n) for n in names], wh, workers=workers)
        con = wh.connect()
        try:
            got = con.execute("select code, game_id from rejects order by all").fetchall()
        finally:
            con.close()
        assert summary.total().rejected == len(got)
        return [tuple(row) for row in got]

    assert rejects("a.csv", "b.csv") == [
        ("E_CSV_DUPLICATE_GAME", "g0"),
        ("E_CSV_NO_ACTIONS", "g2"),
    ]
    con = Warehouse(tmp_path / f"wh-a.csv-b.csv-{workers}").connect()
    try:
        (message,) = con.execute("select message from rejects where game_id = 'g2'").fetchone()
    finally:
        con.close()
    assert message == "game 'g2' has no rows in the 2 actions CSVs that share it (a.csv … b.csv)"
    (tmp_path / "a0.csv").write_text("game_id,seq\n")  # a header short of columns: has them all
    assert rejects("a.csv", "a0.csv", "b.csv") == [  # a0.csv read second
        ("E_CSV_DUPLICATE_GAME", "g0"),
        ("E_CSV_HEADER", None),
    ]
    assert rejects("b.csv") == [
        ("E_CSV_DUPLICATE_GAME", "g0"),
        ("E_CSV_NO_ACTIONS", "g0"),
        ("E_CSV_NO_ACTIONS", "g2"),
    ]


def _shared_folder_case(root: Path, seed: int) -> tuple[list[str], set[str]]:
    """A folder of actions CSVs sharing one ``games.csv`` (rows shuffled, one repeated, one
    broken, one missing), each game's actions in no file, one, or two; and the same actions
    files in ``pairs/``, each with a whole copy of the games CSV as its ``<stem>.games.csv``.
    Returns the actions files' names and the games with a row but no actions anywhere."""
    import csv
    import io
    import random

    from pipeline.sim.sample import _csv_rows

    rng = random.Random(seed)

    def text(rows: list[list[str]]) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()

    games = [sample_game(seed=seed * 100 + k, game_id=f"g{k}") for k in range(14)]
    game_rows, action_rows = _csv_rows(games)
    header, rows = game_rows[0], game_rows[1:]
    rng.shuffle(rows)
    missing = rows.pop()[0]  # a game with actions and no row
    rows.insert(rng.randrange(len(rows)), rows[rng.randrange(len(rows))])  # a row twice
    rows.insert(rng.randrange(len(rows)), ["broken", "row"])
    names = [f"day{k}.csv" for k in range(4)]
    files: dict[str, list[str]] = {n: [] for n in names}
    for k in range(len(games)):
        copies = 1 if f"g{k}" == missing else rng.choice((0, 1, 1, 2))
        for name in rng.sample(names, copies):
            files[name].append(f"g{k}")
    (root / "pairs").mkdir()
    for name, ids in files.items():
        rng.shuffle(ids)
        body = [r for gid in ids for r in action_rows[1:] if r[0] == gid]
        for folder in (root, root / "pairs"):
            (folder / name).write_text(text([action_rows[0], *body]))
        (root / "pairs" / name.replace(".csv", ".games.csv")).write_text(text([header, *rows]))
    (root / "games.csv").write_text(text([header, *rows]))
    held = {r[0] for r in rows[1:] if len(r) == len(header)} | {rows[0][0]}
    played = {gid for ids in files.values() for gid in ids}
    return names, {gid for gid in held if gid.startswith("g")} - played


@pytest.mark.parametrize(("core", "workers"), [(True, 1), (False, 1), (True, 2)])
def test_a_shared_games_csv_is_read_once_and_imports_as_whole_pairs_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, core: bool, workers: int
) -> None:
    """Actions CSVs sharing their folder's ``games.csv`` import the games, duplicates and
    rejects that the same files import as pairs (each with a whole copy of it), but for the
    games CSV's own rejects (once, not once per file) and ``E_CSV_NO_ACTIONS`` (the rows no
    file had actions for, once); and the games CSV is read once, plus once for each file that
    repeats a game an earlier file had (the first reading let go of its row)."""
    from pipeline.logs import csv_logs

    if core and not native.available():
        pytest.skip("the native core is not built")
    if not core:
        monkeypatch.setattr(native, "_MODULE", None)
    opened: list[str] = []
    real_open = csv_logs.open_log

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(Path(path).name)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(csv_logs, "open_log", counted)
    for seed in range(4):
        root = tmp_path / str(seed)
        root.mkdir()
        names, no_actions = _shared_folder_case(root, seed)
        got: dict[str, Any] = {}
        for way, folder in (("shared", root), ("pairs", root / "pairs")):
            opened.clear()
            wh = Warehouse(tmp_path / f"wh-{seed}-{way}")
            summary = ingest([str(folder / n) for n in names], wh, workers=workers)
            with wh.connect() as con:
                stored = con.execute("select game_id, content_hash from games order by 1")
                games = stored.fetchall()
                rejects = con.execute(
                    "select regexp_extract(file, '[^/]*$'), line, code, game_id, message "
                    "from rejects order by all"
                ).fetchall()
                got[way] = (games, summary.total().duplicate, rejects, list(opened))
        stored, duplicates, rejects, opened_shared = got["shared"]
        assert (stored, duplicates) == got["pairs"][:2]
        assert stored and duplicates
        own = {"day0.games.csv": "games.csv"}  # the first pair's copy of the games CSV
        pair_rejects = [(own.get(f, f), *rest) for f, *rest in got["pairs"][2]]
        games_csv = [r[:4] for r in pair_rejects if r[0] == "games.csv"]
        expected = [r[:4] for r in pair_rejects if not r[0].endswith("games.csv")]
        expected += [r for r in games_csv if r[2] != "E_CSV_NO_ACTIONS"]
        actual = [r[:4] for r in rejects if r[2] != "E_CSV_NO_ACTIONS"]
        assert sorted(actual) == sorted(expected)
        assert {"E_CSV_DUPLICATE_GAME", "E_CSV", "E_CSV_NO_GAME"} <= {r[2] for r in actual}
        lacking = [r for r in rejects if r[2] == "E_CSV_NO_ACTIONS"]
        assert {r[3] for r in lacking} == no_actions
        assert len(lacking) == len(no_actions)
        assert all(
            "the 4 actions CSVs that share it (day0.csv … day3.csv)" in r[4] for r in lacking
        )
        # the games CSV read once, and again for each file repeating an earlier file's game
        with_row = {r[0] for r in stored}  # (stored: those with a row in the games CSV)
        repeats = 0
        played: set[str] = set()
        for name in names:
            ids = {line.split(",")[0] for line in (root / name).read_text().splitlines()[1:]}
            repeats += bool(ids & played & with_row)
            played |= ids
        assert opened_shared.count("games.csv") == 1 + repeats


def test_an_import_that_stores_nothing_new_does_not_rebuild_current_marts(tmp_path: Path) -> None:
    """A re-import whose games and rejects are all in the warehouse commits no file: the marts
    stay as built (the same warehouse.duckdb, byte for byte) and `big2 verify` passes; an
    import that stores a reject, or marts already stale, still build."""
    import hashlib

    wh = Warehouse(tmp_path / "wh")

    def run(*args: str) -> str:
        result = runner.invoke(app, ["ingest", *args, "-w", str(wh.root)])
        assert result.exit_code == 0, result.output
        return result.output

    def db_digest() -> str:
        return hashlib.sha256(wh.db_path.read_bytes()).hexdigest()

    games, bad, partial = (str(SAMPLES / n) for n in ("games.jsonl", "bad.jsonl", "partial.jsonl"))
    assert "SQL marts built in" in run(games)
    built = db_digest()
    again = run(games)
    assert "SQL marts not rebuilt: this import stored nothing new" in again
    assert "SQL marts built in" not in again and db_digest() == built
    assert runner.invoke(app, ["verify", "-w", str(wh.root)]).exit_code == 0
    assert "SQL marts built in" in run(bad)  # its rejects are new: a batch with files
    assert "SQL marts not rebuilt" in run(bad)  # the same rejects again: none new
    run(partial, "--no-build")  # new games, no build: the marts are stale
    assert "SQL marts built in" in run(games)  # nothing new, but the marts were stale
    assert runner.invoke(app, ["verify", "-w", str(wh.root)]).exit_code == 0
