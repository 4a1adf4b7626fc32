"""Reliability: concurrent pairs, failures and kills, each run as real ``big2`` subprocesses.

One writer, many readers (docs/warehouse.md#concurrency): a reader never writes and never makes
a writer fail; the marts are stamped with the batches they cover and stale marts are reported;
a full disk, a dead worker or a signal is a one-line message with its exit code, never a
traceback, and leaves a consistent warehouse and no worker process behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.test_ingest import needs_core, write_games, write_many

ROOT = Path(__file__).resolve().parent.parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
EXIT_FAILED = 3
FAULTS = Path(__file__).with_name("faults.py")


def big2(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "pipeline.cli", *(str(a) for a in args)]


def run(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        big2(*args), env=ENV, capture_output=True, text=True, timeout=timeout, check=False
    )


#: An import on the pure Python path: its workers are processes (on the core, a JSON Lines
#: file's are threads of the import's own process).
PROCESSES = {**ENV, "BIG2_PURE_PYTHON": "1"}


def start(*args: str | Path, env: dict[str, str] = ENV) -> subprocess.Popen[str]:
    return subprocess.Popen(
        big2(*args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=30)


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def opened_or_ended(proc: subprocess.Popen[str], path: Path) -> bool:
    """``proc`` holds ``path`` open, or has ended (then waiting longer cannot help)."""
    return holds_file(proc.pid, path) or proc.poll() is not None


def stopped(pid: int) -> bool:
    """A process stopped by a signal (state T)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def children_of(pid: int) -> list[tuple[int, bytes]]:
    """The child processes of ``pid`` with their command lines."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append((int(stat.parent.name), cmdline))
    return out


def workers_of(pid: int) -> list[int]:
    """The pool workers of a ``big2`` process: the children of its forkserver (not
    multiprocessing's helpers, the forkserver and the resource tracker)."""
    out = []
    for child, cmdline in children_of(pid):
        if b"forkserver" in cmdline:
            out.extend(worker for worker, _ in children_of(child))
        elif b"resource_tracker" not in cmdline:
            out.append(child)
    return out


def holds_file(pid: int, path: Path) -> bool:
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == str(path):
                return True
        except OSError:
            continue
    return False


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.fixture(scope="module")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse with one batch of 8 games and its marts, built once per module."""
    root = tmp_path_factory.mktemp("built")
    log = root / "first.jsonl"
    write_games(log, 8)
    wh = Warehouse(root / "wh")
    ingest([str(log)], wh)
    build(wh)
    return wh.root


@pytest.fixture
def built(built_once: Path, tmp_path: Path) -> Warehouse:
    """A copy of the module's warehouse of 8 games and its marts, this test's own."""
    shutil.copytree(built_once, tmp_path / "wh")
    return Warehouse(tmp_path / "wh")


def stamp_covers_all(wh: Warehouse) -> bool:
    stamp = wh.file_stamp()
    assert stamp is not None
    return stamp.marts and stamp.batch_ids == tuple(e.batch_id for e in wh.entries())


# ----- one writer, many readers ---------------------------------------------------------------


def test_a_long_sql_never_makes_an_ingest_or_its_mart_build_fail(
    built: Warehouse, tmp_path: Path
) -> None:
    long_query = "select sum(hash(range)) from range(5000000000)"
    for i in range(2):
        log = tmp_path / f"more{i}.jsonl"
        write_games(log, 3, start=100 + 10 * i)
        reader = start("sql", long_query, "-w", built.root)
        try:
            # a deadline, not a pace: the reader's start-up is slow on a loaded machine
            wait_for(partial(opened_or_ended, reader, built.db_path), 120, "the reader to open")
            assert reader.poll() is None, reader.communicate()
            # held mid-query, its connection open, without taking the CPUs the import needs
            # (running, its query kept both busy for the import's whole time)
            os.kill(reader.pid, signal.SIGSTOP)
            done = run("ingest", log, "-w", built.root)
            assert reader.poll() is None, "the reader ended before the ingest: make it longer"
        finally:
            stop(reader)
        assert done.returncode == 0, done.stderr
        assert "warning" not in done.stderr and "error" not in done.stderr
        assert "SQL marts built" in done.stdout
        assert stamp_covers_all(built)  # the marts cover every batch, the new one included
    assert built.verify() == []


def test_sql_during_imports_never_fails_and_never_writes(built: Warehouse, tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    write_many(log, 2000)
    writer = start("ingest", log, "-w", built.root, "--workers", "1")
    reads = []
    try:
        while writer.poll() is None and len(reads) < 5:
            reads.append(run("sql", "select count(*) from games", "-w", built.root))
    finally:
        _out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert reads and all(r.returncode == 0 for r in reads), [r.stderr for r in reads]
    assert not any("cannot write" in r.stderr for r in reads)
    assert stamp_covers_all(built)


def test_a_read_never_writes_the_warehouse(built: Warehouse, tmp_path: Path) -> None:
    log = tmp_path / "more.jsonl"
    write_games(log, 2, start=50)
    assert run("ingest", log, "-w", built.root, "--no-build").returncode == 0
    before = snapshot(built.db_path)
    listing = sorted(p.name for p in built.root.iterdir())
    read = run("sql", "select count(*) from games", "--format", "csv", "-w", built.root)
    assert read.returncode == 0, read.stderr
    assert read.stdout.split() == ["count_star()", "10"]  # the unbuilt batch is read too
    assert snapshot(built.db_path) == before  # same bytes, same mtime
    assert sorted(p.name for p in built.root.iterdir()) == listing


def test_build_succeeds_while_a_reader_holds_a_connection(built: Warehouse) -> None:
    hold = (
        "import sys, time; from pipeline.warehouse import Warehouse; "
        "c = Warehouse(sys.argv[1]).connect(); "
        "print(c.execute('select count(*) from games').fetchall()[0][0], flush=True); "
        "time.sleep(60)"
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", hold, str(built.root)], env=ENV, stdout=subprocess.PIPE, text=True
    )
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "8"
        for _ in range(3):
            done = run("build", "-w", built.root)
            assert done.returncode == 0, done.stderr
    finally:
        stop(reader)
    assert stamp_covers_all(built) and built.verify() == []


def test_stale_marts_are_detected_then_rebuilt(built: Warehouse, tmp_path: Path) -> None:
    assert stamp_covers_all(built)
    log = tmp_path / "more.jsonl"
    write_games(log, 4, start=200)
    assert run("ingest", log, "-w", built.root, "--no-build").returncode == 0
    stale = run("verify", "-w", built.root)
    assert stale.returncode == 1
    assert "E_MARTS_STALE" in stale.stdout and "cover 8 of 12 games" in stale.stdout
    assert run("build", "-w", built.root).returncode == 0
    fresh = run("verify", "-w", built.root)
    assert fresh.returncode == 0, fresh.stdout


def test_marts_over_a_batch_a_repair_dropped_say_so(built: Warehouse) -> None:
    """Marts built over a batch ``verify --repair`` then dropped are stale, and the message
    names that batch (it said they covered 0 of 0 games, 0 of 0 batches: nothing amiss)."""
    (batch,) = built.entries()
    (games_file,) = built.files("games")
    data = bytearray(games_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    games_file.write_bytes(bytes(data))
    built.repair()
    assert built.entries() == []
    problem = built.marts_problem()
    assert problem is not None and problem.code == "E_MARTS_STALE"
    assert f"1 batch no longer in manifest.jsonl ({batch.batch_id}" in problem.message, problem
    assert problem.message.endswith("run `big2 build`")


def test_marts_never_built_are_reported_then_built(tmp_path: Path) -> None:
    """``ingest --no-build`` into a new warehouse: ``verify`` says there are no marts and
    what to run (as ``big2 sql`` and ``big2 report`` find none), until ``big2 build``; a
    warehouse whose batches stored nothing has nothing to build."""
    wh_dir = tmp_path / "wh"
    log = tmp_path / "day.jsonl"
    log.write_text("")  # a batch that stores nothing: no file to build on
    assert run("ingest", log, "-w", wh_dir, "--no-build").returncode == 0
    empty = run("verify", "-w", wh_dir)
    assert empty.returncode == 0 and "OK (1 batch)" in empty.stdout, empty.stdout
    write_games(log, 4)
    assert run("ingest", log, "-w", wh_dir, "--no-build").returncode == 0
    missing = run("verify", "-w", wh_dir)
    assert missing.returncode == 1, missing.stdout
    assert "E_MARTS_STALE: no marts are built" in missing.stdout
    assert "0 of 4 games" in missing.stdout and "run `big2 build`" in missing.stdout
    assert run("build", "-w", wh_dir).returncode == 0
    fresh = run("verify", "-w", wh_dir)
    assert fresh.returncode == 0 and "OK (2 batches)" in fresh.stdout, fresh.stdout


def test_verify_during_an_import_says_it_runs_and_exits_0(built: Warehouse, tmp_path: Path) -> None:
    # The import stops itself (SIGSTOP) at its first fsync: its first part file is written,
    # the batch not committed. verify runs then, whatever the speed of the core, and the import
    # is continued and finishes.
    log = tmp_path / "more.jsonl"
    write_games(log, 20, start=400)
    counts = tmp_path / "counts.json"
    stop_at_fsync_1 = [sys.executable, str(FAULTS), "--stop", str(counts), "fsync", "1", "--"]
    writer = subprocess.Popen(
        [*stop_at_fsync_1, "ingest", str(log), "-w", str(built.root), "--workers", "1"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: stopped(writer.pid) or writer.poll() is not None, 60, "the import to stop")
        assert writer.poll() is None, "the import never stopped at an fsync"
        assert any(built.root.glob("*/*.parquet.tmp")), "the import has no part file yet"
        during = run("verify", "-w", built.root)
        assert stopped(writer.pid)
    finally:
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGCONT)
        _out, err = writer.communicate(timeout=60)
    assert during.returncode == 0, during.stdout + during.stderr
    assert "an import is running" in during.stdout and "E_ORPHAN_FILE" not in during.stdout
    assert writer.returncode == 0, err
    assert run("verify", "-w", built.root).returncode == 0
    assert len(built.entries()) == 2


def test_simulate_ingest_queues_behind_a_running_import(tmp_path: Path) -> None:
    """``simulate --ingest`` (and ``demo``) wait for an import as ``big2 ingest`` does (which
    holds the build lock from its start): they failed with E_WAREHOUSE_BUSY instead."""
    wh = Warehouse(tmp_path / "wh")
    out = tmp_path / "sim.jsonl"
    sim = ["simulate", "-n", "4", "--out", out, "--workers", "1", "--ingest", "-w", wh.root]
    with wh.building(), wh.batch():  # what `big2 ingest` holds while it reads
        proc = start(*sim)
        try:
            waiting = proc.stderr.readline() if proc.stderr is not None else ""
        finally:
            if proc.poll() is not None:
                stop(proc)
    _out, err = proc.communicate(timeout=60)
    assert "waiting for the build or import" in waiting, waiting + err
    assert proc.returncode == 0, waiting + err
    assert [e.counts["stored"] for e in wh.entries()] == [0, 4]  # the held batch stored none


# ----- failures: full disk, dead worker, signals -------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 32 MiB filesystem (tmpfs; needs root), unmounted afterwards: room for two
    warehouse.duckdb files of a small warehouse (a build writes the new one beside the old, ~8
    MiB each with both games' marts), not for much more."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(disk: Path, leave: int) -> Path:
    """Fill ``disk`` until ``leave`` bytes are free."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    filler = disk / "filler"
    with filler.open("wb") as fh:
        fh.write(b"\0" * max(free - leave, 0))
    return filler


def test_a_full_disk_during_an_import_is_a_message_and_nothing_is_committed(
    small_disk: Path, tmp_path: Path
) -> None:
    wh = Warehouse(small_disk / "wh")
    first = tmp_path / "first.jsonl"
    write_games(first, 8)
    ingest([str(first)], wh)
    build(wh)
    log = tmp_path / "big.jsonl"
    write_many(log, 3000)
    filler = fill(small_disk, 64 << 10)
    done = run("ingest", log, "-w", wh.root, "--workers", "1")
    assert done.returncode == EXIT_FAILED, done.stderr
    assert "big2: error: E_DISK_FULL" in done.stderr and "Traceback" not in done.stderr
    assert "nothing of this import was committed" in done.stderr
    filler.unlink()
    assert len(wh.entries()) == 1 and wh.verify() == []


def test_a_full_disk_during_a_simulation_names_the_file_it_left_as_it_was(
    small_disk: Path,
) -> None:
    out = small_disk / "sim.jsonl"
    out.write_bytes(b"the previous run\n")
    fill(small_disk, leave=64 * 1024)
    done = CliRunner().invoke(app, ["simulate", "-n", "2000", "--out", str(out), "--workers", "1"])
    assert done.exit_code == 3, done.output
    assert f"big2: error: E_DISK_FULL: no space left on the device of {out}" in done.output
    assert "the file is as it was" in done.output and "Traceback" not in done.output
    assert out.read_bytes() == b"the previous run\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "sim.jsonl"]


def test_a_full_disk_during_the_mart_build_keeps_the_import_and_says_so(
    small_disk: Path, tmp_path: Path
) -> None:
    wh = Warehouse(small_disk / "wh")
    first = tmp_path / "first.jsonl"
    write_games(first, 8)
    ingest([str(first)], wh)
    build(wh)
    log = tmp_path / "more.jsonl"
    write_games(log, 3, start=300)
    filler = fill(small_disk, 1 << 20)  # room for the batch, not for a new warehouse.duckdb
    done = run("ingest", log, "-w", wh.root)
    assert done.returncode == EXIT_FAILED, done.stderr
    assert "big2: error: E_BUILD_FAILED" in done.stderr and "E_DISK_FULL" in done.stderr
    assert "Traceback" not in done.stderr and "FatalException" not in done.stderr
    assert len(wh.entries()) == 2  # the import is stored
    assert not list(small_disk.glob("wh/warehouse.duckdb.new-*"))  # the half build is gone
    assert [p.code for p in wh.verify()] == ["E_MARTS_STALE"]
    filler.unlink()
    assert run("build", "-w", wh.root).returncode == 0
    assert wh.verify() == []


def test_a_worker_killed_mid_import_is_a_message_and_nothing_is_committed(
    built: Warehouse, tmp_path: Path
) -> None:
    log = tmp_path / "big.jsonl"
    write_many(log, 40000)  # chunks left for the workers after the import's own first ones
    proc = start("ingest", log, "-w", built.root, "--workers", "2", env=PROCESSES)
    try:
        wait_for(lambda: len(workers_of(proc.pid)) >= 2, 120, "the workers")
        time.sleep(0.5)
        os.kill(workers_of(proc.pid)[0], signal.SIGKILL)
        _out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
    assert proc.returncode == EXIT_FAILED, err
    assert "big2: error: E_WORKER_DIED" in err and "Traceback" not in err
    assert len(built.entries()) == 1 and built.verify() == []


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_import_leaves_no_worker_behind(
    built: Warehouse, tmp_path: Path, sig: signal.Signals
) -> None:
    log = tmp_path / "big.jsonl"
    write_many(log, 12000)
    proc = start("ingest", log, "-w", built.root, "--workers", "2", env=PROCESSES)
    workers: list[int] = []
    try:
        wait_for(lambda: len(workers_of(proc.pid)) >= 2, 120, "the workers")
        workers = workers_of(proc.pid)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        wait_for(lambda: not any(alive(w) for w in workers), 5, f"workers {workers} to die")
        _out, err = proc.communicate(timeout=30)
    finally:
        for pid in workers:  # only when the test failed: leave nothing behind
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        stop(proc)
    assert len(built.entries()) == 1
    if sig == signal.SIGKILL:
        assert proc.returncode == -sig
        assert all(p.code == "E_ORPHAN_FILE" for p in built.verify())  # its tmp files
    else:
        assert proc.returncode == 128 + sig
        assert "big2: error: E_INTERRUPTED: stopped by SIGTERM" in err
        assert "nothing of the interrupted work was committed" in err
        assert "Traceback" not in err
        assert built.verify() == []  # the batch aborted: its tmp files are gone


@needs_core  # without the core, the workers are processes (above)
@pytest.mark.parametrize(
    ("sig", "kind"), [(signal.SIGINT, "jsonl"), (signal.SIGTERM, "jsonl"), (signal.SIGINT, "csv")]
)
def test_an_import_on_threads_stopped_mid_way_commits_nothing_and_leaves_no_file(
    built: Warehouse, tmp_path: Path, sig: signal.Signals, kind: str
) -> None:
    """On the core, a JSON Lines or CSV file's workers are threads of the import's own process:
    a signal stops the import once their running chunks are done, and none of them writes into
    the batch after it aborted."""
    log = tmp_path / f"big.{kind}"
    if kind == "csv":
        from bench.aims import write_csv_games

        write_csv_games(log, 40000)
    else:
        write_many(log, 40000)
    proc = start("ingest", log, "-w", built.root, "--workers", "2")
    try:
        wait_for(
            lambda: any(built.root.glob("*/*.parquet.tmp")) or proc.poll() is not None,
            120,
            "a part file",
        )
        assert workers_of(proc.pid) == []  # threads: no worker process
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=30)
    finally:
        stop(proc)
    assert proc.returncode == 128 + sig, err
    assert f"big2: error: E_INTERRUPTED: stopped by {sig.name}" in err
    assert "Traceback" not in err
    assert len(built.entries()) == 1
    assert built.verify() == []
    assert not list(built.root.glob("*/*.parquet*.tmp"))


@needs_core
@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_signal_on_threads_is_held_until_a_chunk_is_in(
    built: Warehouse, tmp_path: Path, kind: str
) -> None:
    """With worker threads in the process, a signal is not raised wherever the main thread
    is (it could leave a lock held that a worker waits for: the import would never end) but
    held until the next chunk's result is in; then nothing is committed. The signal comes
    inside the first progress report: the Interrupted is raised by the check, not there."""
    from pipeline.ingest import Interrupted

    log = tmp_path / f"big.{kind}"
    if kind == "csv":
        from bench.aims import write_csv_games

        write_csv_games(log, 12000)
    else:
        write_many(log, 12000)
    reports = []

    def report(progress: object) -> None:
        reports.append(progress)
        if len(reports) == 1:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler has run: had it raised, it would have been here

    with pytest.raises(Interrupted) as stopped:
        ingest([log], built, workers=2, on_progress=report)
    assert stopped.value.signum == signal.SIGINT and not stopped.value.committed
    assert stopped.traceback[-1].name == "check"
    assert len(built.entries()) == 1
    assert built.verify() == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
