"""`big2 ingest` on the native core and on the Python path: the same warehouse rows, the same
rejects (issue 15). Real files, real subprocesses, real Parquet + DuckDB warehouses."""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from pipeline import native
from pipeline.warehouse import Table, Warehouse
from tests.native import MODULE, NEEDS_CORE
from tests.native.test_differential import MUTATIONS, OPTIONS, _game, _mutate

ROOT = Path(__file__).resolve().parents[2]
pytestmark = NEEDS_CORE

#: Columns that differ between two imports of the same files (the batch and its time).
_PER_IMPORT = {"batch_id"}


def _lines(n: int) -> list[str]:
    """Simulated games under every option, in every notation, full and partial, each good
    game followed now and then by a mutated copy (most of them rejected), plus bad lines."""
    rng = random.Random(15)
    notations = ["compact", "pretty", "list"]
    out: list[str] = []
    for seed in range(n):
        game = _game(seed, seed % len(OPTIONS), notations[seed % 3], seed % 4 == 1)
        out.append(orjson.dumps(game).decode())
        if seed % 3 == 0:
            how = MUTATIONS[seed % len(MUTATIONS)]
            bad = _mutate(game, how, rng)
            bad["game_id"] = f"{game['game_id']}-{how}"
            out.append(orjson.dumps(bad).decode())
    first = orjson.loads(out[0])
    out += [
        out[0],  # a duplicate
        orjson.dumps({**first, "match_id": "other"}).decode(),  # a conflict (same id)
        '{"format_version": 1, "game_id": "cut',  # invalid JSON
        orjson.dumps({**first, "game_id": "no-seats", "seats": 4}).decode(),  # schema
        orjson.dumps({**first, "game_id": "iso-ts", "started_at": "yesterday"}).decode(),
        "[1, 2]",
    ]
    return out


def _ingest(files: list[Path], wh: Path, *, pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    # the worktree first; a build of the core put on PYTHONPATH by hand stays on it
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    if pure:
        env[native.PURE_ENV] = "1"
    cmd = [sys.executable, "-m", "pipeline.cli", "ingest", *map(str, files), "-w", str(wh)]
    proc = subprocess.run(
        [*cmd, "--workers", "1", "--no-build"], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _rows(wh: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = Warehouse(wh).connect()
    try:
        out = {}
        for table in Table:
            names = [r[0] for r in con.execute(f"describe {table.value}").fetchall()]
            keep = ", ".join(f'"{n}"' for n in names if n not in _PER_IMPORT)
            out[table.value] = con.execute(
                f"select {keep} from {table.value} order by all"
            ).fetchall()
        return out
    finally:
        con.close()


def _both_ways(lines: list[str], tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The lines as a plain file and a gzip file, imported in pure Python (``py/``) and on the
    core (``rs/``): each warehouse's rows."""
    plain = tmp_path / "games.jsonl"
    plain.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    packed = tmp_path / "more.jsonl.gz"
    packed.write_bytes(gzip.compress(("\n".join(lines[len(lines) // 2 :]) + "\n").encode()))
    files = [plain, packed]
    _ingest(files, tmp_path / "py", pure=True)
    _ingest(files, tmp_path / "rs", pure=False)
    return _rows(tmp_path / "py"), _rows(tmp_path / "rs")


def test_ingest_gives_the_same_rows_on_the_core_and_in_python(tmp_path: Path) -> None:
    py, rs = _both_ways(_lines(150), tmp_path)
    assert len(py["games"]) > 100 and len(py["actions"]) > 5000
    con = Warehouse(tmp_path / "py").connect()
    codes = {code for (code,) in con.execute("select code from rejects").fetchall()}
    con.close()
    assert {"E_JSON", "E_SCHEMA", "E_CONFLICT", "E_NOT_HIGHER"} <= codes, codes
    for table in py:
        assert rs[table] == py[table], table


def test_ingest_replays_on_the_core_itself(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With the core on, a chunk of common-shape lines never reaches the Python engine."""
    import pyarrow.parquet as pq

    import pipeline.replay
    from pipeline.ingest import process_chunk
    from pipeline.logs.model import Source

    def no_python(kind: str) -> Any:
        raise AssertionError(f"the Python engine replayed a {kind} line")

    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    games = [_game(seed, seed % len(OPTIONS), "compact", seed % 2 == 1) for seed in range(40)]
    items: list[Any] = [
        (Source("c.jsonl", k + 1), orjson.dumps(g).decode()) for k, g in enumerate(games)
    ]
    with Warehouse(tmp_path).batch() as batch:  # the chunk writes its rows as part files
        result = process_chunk("c.jsonl", items, batch.part_spec(), batch.new_part())
        tables = {
            Table(f.table): pq.read_table(tmp_path / (f.path + ".tmp")) for f in result.part.files
        }
    stored = tables[Table.GAMES]
    assert stored.num_rows + len(result.reject_codes) == 40 and stored.num_rows >= 30
    assert set(result.reject_codes) <= {"E_PARTIAL_COUNTS"}  # the core's own reject
    kept = set(stored["game_id"].to_pylist())
    n = sum(len(g["actions"]) for g in games if g["game_id"] in kept)
    assert tables[Table.ACTIONS].num_rows == n


def test_an_import_on_the_core_does_not_import_pandas(tmp_path: Path) -> None:
    # pyarrow imports pandas (~0.25 s a process) on its first conversion from Python objects:
    # an import of good games on the core, its workers and its commit make none (the pure
    # Python path does, and a reject's row is built in Python)
    games = [orjson.dumps(_game(s, s % len(OPTIONS), "compact", False)).decode() for s in range(6)]
    log = tmp_path / "g.jsonl"
    log.write_text("\n".join(games) + "\n")
    code = (
        "import sys\n"
        "from pipeline.ingest import ingest\n"
        "from pipeline.warehouse import Warehouse\n"
        "s = ingest([sys.argv[1]], Warehouse(sys.argv[2]), workers=int(sys.argv[3]))\n"
        "assert s.total().stored == 6, s.total()\n"
        "print('pandas' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    for workers in (1, 2):
        wh = tmp_path / f"wh{workers}"
        cmd = [sys.executable, "-c", code, str(log), str(wh), str(workers)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["False"], (workers, done.stdout)
