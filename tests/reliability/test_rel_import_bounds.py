"""Reliability: an import's memory and time stay bounded whatever its input holds, it never
writes into a damaged warehouse, and clearing orphans never removes a committed file
(issue 11, items 4, 6 and 8). The scale versions (2M junk lines, 1 GB of newlines) are in
``bench/``.

Memory is measured in a fresh Python process: its peak resident size (``VmHWM``, which
starts afresh at ``exec``, where ``ru_maxrss`` keeps the forking parent's peak) minus its
resident size before the import.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.ingest import IngestError, Progress, _lines_of, ingest
from pipeline.logs.jsonl import iter_jsonl_lines
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import SCHEMAS, Table, Warehouse, WarehouseError, store

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

_MEASURE = """
import json, sys
import pandas, pyarrow.dataset  # libraries an import loads on first use: not growth per line
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

def status_mb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no " + field)

wh = Warehouse(sys.argv[1])
before = status_mb("VmRSS")
summary = ingest(sys.argv[2:], wh, workers=1)
total = summary.total()
print(json.dumps({"grew_mb": status_mb("VmHWM") - before, "read": total.read,
                  "stored": total.stored, "rejected": total.rejected}))
"""


def measured_ingest(wh_dir: Path, *logs: Path) -> dict[str, float]:
    """Run ``ingest`` in a fresh process; how much its peak RSS grew, and its counts."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(wh_dir), *map(str, logs)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, float] = json.loads(proc.stdout.splitlines()[-1])
    return out


def count(wh: Warehouse, sql: str) -> int:
    with wh.connect() as con:
        row = con.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def write_games(path: Path, n: int, *, start: int = 0, junk: int = 0) -> None:
    """``n`` sample games, then ``junk`` lines that are not JSON."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(start, start + n):
            fh.write(dumps(sample_game(seed=i, game_id=f"g{i}")) + "\n")
        fh.writelines(f"junk {i}\n" for i in range(junk))


def tree(root: Path) -> dict[str, bytes]:
    """Every file under a folder with its bytes (but the lock file, which an import opens)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


# ----- item 4: memory and time bounds -----------------------------------------------------
JUNK_LINES = 200_000


def test_junk_lines_keep_memory_bounded_and_store_a_capped_number_of_rejects(
    tmp_path: Path,
) -> None:
    log = tmp_path / "junk.jsonl.gz"
    with gzip.open(log, "wb") as fh:
        fh.write(b"junk\n" * JUNK_LINES)
    wh_dir = tmp_path / "wh"
    run = measured_ingest(wh_dir, log)
    assert run["rejected"] == JUNK_LINES  # every bad line is counted ...
    wh = Warehouse(wh_dir)
    with wh.connect() as con:
        codes = con.execute("select code, count(*) from rejects group by 1 order by 1").fetchall()
        (summary,) = con.execute(
            "select line, message from rejects where code = 'E_TOO_MANY_REJECTS'"
        ).fetchall()
    # ... the first 1,000 are stored one by one, the rest counted in one summary row
    assert codes == [("E_JSON", 1000), ("E_TOO_MANY_REJECTS", 1)]
    assert summary[0] == 1001
    assert f"{JUNK_LINES - 1000:,} more rejects" in summary[1]
    assert f"E_JSON {JUNK_LINES - 1000:,}" in summary[1]
    # measured: ~45 MB (DuckDB, Parquet writers: the same for 2M lines); before the cap,
    # every reject's key as Python strings: 126 MB for 200k lines (964 MB peak for 2M)
    assert run["grew_mb"] < 80, run


def test_max_rejects_per_file_option(tmp_path: Path) -> None:
    log = tmp_path / "mixed.jsonl"
    write_games(log, 2, junk=20)
    wh_dir = tmp_path / "wh"
    result = runner.invoke(
        app, ["ingest", str(log), "-w", str(wh_dir), "--max-rejects-per-file", "5"]
    )
    assert result.exit_code == 0, result.output
    assert "E_JSON" in result.output  # the summary lists all 20 rejects by reason
    wh = Warehouse(wh_dir)
    assert count(wh, "select count(*) from games") == 2
    assert count(wh, "select count(*) from rejects where code = 'E_JSON'") == 5
    assert count(wh, "select count(*) from rejects where code = 'E_TOO_MANY_REJECTS'") == 1
    # the same file again stores nothing: not the detailed rejects, not the summary row
    again = ingest([str(log)], wh, max_rejects_per_file=5)
    assert again.total().rejected == 20 and again.reasons["E_JSON"] == 20
    assert count(wh, "select count(*) from rejects") == 6
    bad = runner.invoke(
        app, ["ingest", str(log), "-w", str(wh_dir), "--max-rejects-per-file", "-1"]
    )
    assert bad.exit_code == 2


def test_reimport_does_not_read_the_rejects_of_other_files(tmp_path: Path) -> None:
    """A warehouse with 300k rejects of another file: importing 3 games reads none of them."""
    wh = Warehouse(tmp_path / "wh")
    n = 300_000
    other = str(tmp_path / "other.jsonl")
    rows = pa.table(
        {
            "batch_id": ["b"] * n,
            "file": [other] * n,
            "line": list(range(1, n + 1)),
            "game_id": [None] * n,
            "action_index": [None] * n,
            "code": ["E_JSON"] * n,
            "message": [f"invalid JSON: Expecting value at column {i % 97}" for i in range(n)],
            "raw": [""] * n,
        },
        schema=SCHEMAS[Table.REJECTS],
    )
    with wh.batch() as batch:
        batch.add_rows({Table.REJECTS: rows})
    assert count(wh, "select count(*) from rejects") == n
    small = tmp_path / "small.jsonl"
    write_games(small, 3, junk=1)
    run = measured_ingest(wh.root, small)
    assert (run["stored"], run["rejected"]) == (3, 1)
    # measured: ~53 MB (DuckDB views, Parquet writers); loading every stored reject as
    # Python tuples took 225 MB here (1.3 GB peak for 2M rejects)
    assert run["grew_mb"] < 100, run
    # what a batch does read: the stored rejects of its own files
    assert len(wh.known_rejects([str(small)])) == 1
    assert len(wh.known_rejects([other])) == n


def test_blank_runs_are_skipped_fast_and_progress_shows_while_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.ingest.PROGRESS_EVERY", 0.0)
    blank = 20_000_000
    log = tmp_path / "blank.jsonl.gz"
    with gzip.open(log, "wb", compresslevel=0) as fh:  # stored: many reads, many reports
        for _ in range(blank // (1 << 20)):
            fh.write(b"\n" * (1 << 20))
        fh.write(b"\r\n  \n" * 3 + b"\n" * (blank % (1 << 20) - 6))
        fh.write(dumps(sample_game(seed=1, game_id="after")).encode() + b"\n\n\n{oops\n")
    seen: list[Progress] = []
    summary = ingest([str(log)], Warehouse(tmp_path / "wh"), workers=1, on_progress=seen.append)
    assert (summary.total().stored, summary.total().rejected) == (1, 1)
    wh = Warehouse(tmp_path / "wh")
    with wh.connect() as con:
        assert con.execute("select source_line from games").fetchall() == [(blank + 1,)]
        assert con.execute("select line from rejects").fetchall() == [(blank + 4,)]
    during = [p for p in seen if p.games == 0]
    assert len(during) >= 2, "no progress while the blank lines were read"
    assert during[-1].bytes_done > during[0].bytes_done > 0
    assert all(p.bytes_total == log.stat().st_size for p in seen)


class _Counting:
    """A byte stream's proxy that counts its ``readline`` calls (and can peek if it can)."""

    def __init__(self, fh: Any) -> None:
        self.fh, self.lines_read = fh, 0

    def readline(self, size: int = -1) -> bytes:
        self.lines_read += 1
        return cast(bytes, self.fh.readline(size))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fh, name)


def test_a_run_of_blank_lines_is_passed_a_buffer_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """What keeps 20M blank lines a scan (the test above, ~0.8 s) and not one ``readline`` each
    (~60 s): the reader of a file and the reader of a gzip file's block (``_lines_of``, whose
    bytes once came through a stream that could not peek) each read a run of 1M blank lines in
    a few calls, its lines still counted."""
    blank = 1_000_000
    data = b"{}\n" + b"\n" * blank + b"[]\n"
    streams: list[_Counting] = []

    def counted(fh: Any, *args: Any, **kwargs: Any) -> Any:
        streams.append(_Counting(fh))
        return iter_jsonl_lines(streams[-1], *args, **kwargs)

    monkeypatch.setattr("pipeline.ingest.iter_jsonl_lines", counted)
    from_file = counted(io.BufferedReader(io.BytesIO(data)), "f.jsonl")
    for items in (from_file, _lines_of(data, "f.jsonl.gz", 1, 1 << 20)):
        assert [item[0].line for item in items if isinstance(item, tuple)] == [1, blank + 2]
    assert len(streams) == 2
    assert all(s.lines_read < 50 for s in streams), [s.lines_read for s in streams]


def test_chunks_are_cut_by_bytes_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline import ingest as ingest_module

    monkeypatch.setattr(ingest_module, "CHUNK_BYTES", 100)
    log = tmp_path / "long.jsonl"
    log.write_text("".join("x" * 60 + "\n" for _ in range(5)))
    sizes = [len(c) for c in ingest_module._chunks(log, 1 << 20)]
    assert sizes == [2, 2, 1]


def test_the_ranges_are_cut_like_the_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain file's ranges (read by the workers themselves) are cut where its chunks are."""
    from pipeline import ingest as ingest_module

    monkeypatch.setattr(ingest_module, "CHUNK_BYTES", 100)
    log = tmp_path / "long.jsonl"
    log.write_text("".join("x" * 60 + "\n" for _ in range(5)))
    spans = list(ingest_module._ranges(log))
    assert [(s.first_line, s.length // 61) for s in spans] == [(1, 2), (3, 2), (5, 1)]


def test_the_games_index_grows_by_its_keys_not_by_copies_of_them() -> None:
    """The batch's index of its games (24 bytes a game) takes each chunk's keys; merging its
    levels once cost 77 bytes a game at the peak (a sort of the concatenation)."""
    import tracemalloc

    import numpy as np

    from pipeline.warehouse.known import NEW, SAME, KnownGames

    rng = np.random.default_rng(15)
    known = KnownGames()
    n, chunk = 600_000, 2000
    tracemalloc.start()
    try:
        peak = 0
        for _ in range(n // chunk):
            keys = rng.integers(0, 2**63, size=(chunk, 3), dtype=np.uint64)
            tracemalloc.reset_peak()
            known.add_keys(keys)
            peak = max(peak, tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()
    assert len(known) == n
    assert peak < 40 * n, f"{peak / n:.0f} bytes a game at the peak"
    verdicts, _ = known.judge(keys)
    assert (verdicts == SAME).all()
    other = rng.integers(0, 2**63, size=(chunk, 3), dtype=np.uint64)
    assert (known.judge(other)[0] == NEW).all()


# ----- item 8: one file, one name -------------------------------------------------------
def test_relative_and_absolute_paths_store_no_reject_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    write_games(logs / "day.jsonl", 2, junk=3)
    wh = Warehouse(tmp_path / "wh")
    monkeypatch.chdir(logs)
    ingest(["day.jsonl"], wh)
    ingest([str(logs / "day.jsonl")], wh)
    ingest(["../logs/./day.jsonl", "."], wh)
    (tmp_path / "link").symlink_to(logs)
    ingest([str(tmp_path / "link" / "day.jsonl")], wh)
    assert count(wh, "select count(*) from rejects") == 3
    assert count(wh, "select count(*) from games") == 2
    real = str((logs / "day.jsonl").resolve())
    with wh.connect() as con:
        files = con.execute(
            "select distinct source_file from games union select distinct file from rejects"
        ).fetchall()
    assert files == [(real,)]


def test_a_symlink_loop_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "nothing.jsonl")
    wh = Warehouse(tmp_path / "wh")
    with pytest.raises(IngestError, match=r"E_NO_INPUT.*symbolic link loop"):
        ingest([str(tmp_path / "a.jsonl")], wh)
    with pytest.raises(IngestError, match=r"symbolic link to .*nothing.jsonl.*does not exist"):
        ingest([str(tmp_path / "gone.jsonl")], wh)
    result = runner.invoke(app, ["ingest", str(tmp_path / "a.jsonl"), "-w", str(wh.root)])
    assert result.exit_code == 2 and "symbolic link loop" in result.output


# ----- item 6: a damaged warehouse is not imported into -----------------------------------
@pytest.fixture
def filled(tmp_path: Path) -> tuple[Warehouse, Path]:
    log = tmp_path / "first.jsonl"
    write_games(log, 20, junk=2)
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh)
    assert wh.verify(marts=False) == []
    return wh, log


@pytest.mark.parametrize("table", [Table.GAMES, Table.REJECTS, Table.ACTIONS])
def test_a_corrupted_parquet_file_stops_the_import(
    filled: tuple[Warehouse, Path], table: Table
) -> None:
    wh, log = filled
    (path,) = wh.files(table)
    data = bytearray(path.read_bytes())
    if table == Table.ACTIONS:  # not hashed before an import: its footer is checked
        data[-5] ^= 0xFF
    else:  # one flipped byte, same size: only the checksum tells
        data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    before = tree(wh.root)
    with pytest.raises(WarehouseError, match="E_WAREHOUSE_DAMAGED") as err:
        ingest([str(log)], wh)
    rel = path.relative_to(wh.root).as_posix()
    assert rel in err.value.message and "big2 verify" in err.value.message
    assert "restore" in err.value.message and "--repair" in err.value.message
    assert tree(wh.root) == before  # nothing stored, nothing removed
    result = runner.invoke(app, ["ingest", str(log), "-w", str(wh.root)])
    assert result.exit_code == 2 and "E_WAREHOUSE_DAMAGED" in result.output
    assert tree(wh.root) == before


def test_a_truncated_file_stops_the_import(filled: tuple[Warehouse, Path]) -> None:
    wh, log = filled
    (path,) = wh.files(Table.SEATS)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(WarehouseError, match=r"E_WAREHOUSE_DAMAGED.*bytes, the manifest says"):
        ingest([str(log)], wh)


def test_an_emptied_manifest_deletes_nothing(
    tmp_path: Path, filled: tuple[Warehouse, Path]
) -> None:
    wh, _ = filled
    committed = {k: v for k, v in tree(wh.root).items() if k.endswith(".parquet")}
    assert len(committed) == 5
    wh.manifest_path.write_bytes(b"")
    other = tmp_path / "other.jsonl"
    write_games(other, 3, start=100)
    with pytest.raises(WarehouseError, match=r"E_WAREHOUSE_DAMAGED.*E_UNLISTED_FILE") as err:
        ingest([str(other)], wh)
    assert "manifest.jsonl" in err.value.message
    assert {k: v for k, v in tree(wh.root).items() if k in committed} == committed
    # even with the ledger gone too, the files are set aside, never deleted
    wh.ledger_path.unlink()
    ingest([str(other)], wh)
    kept = tree(wh.root)
    for rel, data in committed.items():
        assert kept.get(f"quarantine/{rel}") == data
    assert count(wh, "select count(*) from games") == 3 and wh.verify(marts=False) == []


def test_verify_names_a_lost_manifest_line_as_the_import_does(
    filled: tuple[Warehouse, Path],
) -> None:
    """A committed file whose manifest line is gone is what the import refuses
    (``E_UNLISTED_FILE``); ``verify`` called it an orphan the next import would set aside."""
    wh, log = filled
    wh.manifest_path.write_bytes(b"")
    with pytest.raises(WarehouseError) as refused:
        ingest([str(log)], wh)
    found = wh.verify(marts=False)
    assert [str(p) for p in found] == [str(p) for p in refused.value.context["problems"]], found
    assert found and {p.code for p in found} == {"E_UNLISTED_FILE"}


def test_only_tmp_orphans_are_deleted(filled: tuple[Warehouse, Path]) -> None:
    wh, log = filled
    tmp = wh.root / "games" / "batch-x.parquet.tmp"
    tmp.write_bytes(b"half a file")
    stray = wh.root / "games" / "batch-y.parquet"
    stray.write_bytes(b"a batch that never committed")
    ingest([str(log)], wh)
    assert not tmp.exists() and not stray.exists()
    moved = wh.root / "quarantine" / "games" / "batch-y.parquet"
    assert moved.read_bytes() == b"a batch that never committed"
    assert wh.verify(marts=False) == []


def test_verify_repair_sets_the_damaged_batch_aside(filled: tuple[Warehouse, Path]) -> None:
    wh, log = filled
    extra = log.with_name("extra.jsonl")
    write_games(extra, 2, start=50)
    ingest([str(extra)], wh)
    (games_file, _) = wh.files(Table.GAMES)
    damaged = games_file.read_bytes()
    games_file.write_bytes(damaged[:-1] + bytes([damaged[-1] ^ 1]))
    first_batch = wh.entries()[0].batch_id
    result = runner.invoke(app, ["verify", "--repair", "-w", str(wh.root)])
    assert result.exit_code == 1, result.output  # the stored data is sound, no marts built
    assert f"batch {first_batch} dropped" in result.output
    assert (
        "E_MARTS_STALE: no marts are built" in result.output and "E_CHECKSUM" not in result.output
    )
    assert (wh.root / "quarantine" / games_file.relative_to(wh.root)).read_bytes()[:-1] == (
        damaged[:-1]
    )
    summary = ingest([str(log)], wh)  # the dropped batch's log, imported again
    assert summary.total().stored == 20
    assert count(wh, "select count(*) from games") == 22 and wh.verify(marts=False) == []
    assert runner.invoke(app, ["build", "-w", str(wh.root)]).exit_code == 0
    again = runner.invoke(app, ["verify", "--repair", "-w", str(wh.root)])
    assert again.exit_code == 0 and "nothing to repair" in again.output


@pytest.mark.parametrize("table", [Table.ACTIONS, Table.SEATS, Table.TRICKS, Table.REJECTS])
def test_verify_repair_sets_aside_a_damaged_file_of_any_table(
    filled: tuple[Warehouse, Path], table: Table
) -> None:
    """One flipped byte in a file of any table (same size, the footer sound: an import's
    check does not hash actions, seats or tricks) is what ``verify`` reports, and what
    ``verify --repair`` sets aside."""
    wh, log = filled
    extra = log.with_name("extra.jsonl")
    write_games(extra, 2, start=50, junk=1)
    ingest([str(extra)], wh)
    first = wh.entries()[0]
    rel = next(f.path for f in first.files if f.table == table.value)
    data = bytearray((wh.root / rel).read_bytes())
    data[100] ^= 0xFF
    (wh.root / rel).write_bytes(bytes(data))
    found = runner.invoke(app, ["verify", "-w", str(wh.root)])
    assert found.exit_code == 1 and f"E_CHECKSUM: {rel} has sha256" in found.output
    result = runner.invoke(app, ["verify", "--repair", "-w", str(wh.root)])
    assert f"batch {first.batch_id} dropped" in result.output, result.output
    assert (wh.root / "quarantine" / rel).read_bytes() == bytes(data)
    assert len(wh.entries()) == 1 and wh.entries()[0].batch_id != first.batch_id
    assert runner.invoke(app, ["build", "-w", str(wh.root)]).exit_code == 0
    after = runner.invoke(app, ["verify", "-w", str(wh.root)])
    assert after.exit_code == 0 and "OK (1 batch)" in after.output, after.output


@pytest.mark.parametrize("damaged", [False, True])
def test_verify_repair_hashes_each_file_once(
    filled: tuple[Warehouse, Path], damaged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the repair hashes every file to find the damage; the check after it hashed them all
    # again (1.1 GB at 1M games): it takes the repair's digests, and finds the same
    wh, log = filled
    extra = log.with_name("extra.jsonl")
    write_games(extra, 2, start=50)
    ingest([str(extra)], wh)
    if damaged:
        (games_file, _) = wh.files(Table.GAMES)
        data = games_file.read_bytes()
        games_file.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    hashed: list[Path] = []
    real = store.sha256_file

    def counted(path: Path) -> str:
        hashed.append(path)  # list.append: safe from the hashing threads
        return real(path)

    monkeypatch.setattr(store, "sha256_file", counted)
    files = [wh.root / f.path for e in wh.entries() for f in e.files]
    result = runner.invoke(app, ["verify", "--repair", "-w", str(wh.root)])
    assert result.exit_code == 1, result.output  # no marts built: E_MARTS_STALE
    assert sorted(hashed) == sorted(files)
    assert ("dropped from the manifest" in result.output) == damaged
    assert "E_CHECKSUM" not in result.output and "E_MARTS_STALE" in result.output
    assert len(wh.entries()) == (1 if damaged else 2)


def test_a_build_that_fails_on_a_damaged_file_names_it(filled: tuple[Warehouse, Path]) -> None:
    """DuckDB's error on a damaged Parquet file does not always name it ("Payload value
    bigger than allowed. Corrupted file?"): the build's error names the damaged files."""
    wh, _ = filled
    (path,) = wh.files(Table.ACTIONS)
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8  # the footer and its length, kept
    data[4:-footer] = bytes(len(data) - 4 - footer)  # every page zeroed: unreadable
    path.write_bytes(bytes(data))
    result = runner.invoke(app, ["build", "--full", "-w", str(wh.root)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    rel = path.relative_to(wh.root).as_posix()
    assert f"the warehouse is damaged: E_CHECKSUM: {rel} has sha256" in result.output
    assert "big2 verify --repair" in result.output


def test_the_cap_keeps_the_same_rejects_with_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pipeline.ingest.CHUNK_GAMES", 7)
    log = tmp_path / "mixed.jsonl"
    write_games(log, 5, junk=30)
    stored = []
    for workers in (1, 2):
        wh = Warehouse(tmp_path / f"wh{workers}")
        ingest([str(log)], wh, workers=workers, max_rejects_per_file=10)
        with wh.connect() as con:
            stored.append(
                con.execute("select line, code, message from rejects order by 1").fetchall()
            )
    assert stored[0] == stored[1]
    assert [line for line, _, _ in stored[0]] == [*range(6, 16), 16]  # 10 in full, then the rest
    assert "20 more rejects" in stored[0][-1][2] and "lines 16-35" in stored[0][-1][2]


def test_a_truncated_gzip_keeps_the_games_before_the_cut(tmp_path: Path) -> None:
    """Guard: the counted reader must not lose the lines decoded before a gzip ends early."""
    lines = b"".join(
        (dumps(sample_game(seed=i % 20, game_id=f"t{i}")) + "\n").encode() for i in range(300)
    )
    log = tmp_path / "cut.jsonl.gz"
    log.write_bytes(gzip.compress(lines)[:-30])
    summary = ingest([str(log)], Warehouse(tmp_path / "wh"))
    assert summary.total().stored == 299 and summary.reasons == {"E_GZIP_TRUNCATED": 1}
