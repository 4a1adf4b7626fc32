"""`big2 ingest` of mixed Big Two and Dou Dizhu files on the native core and on the Python
path (``BIG2_PURE_PYTHON=1``, the reference): the same stored rows in every table, rejects
included (issue 15). Real files, real subprocesses, real Parquet + DuckDB warehouses."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from pipeline import native
from pipeline.warehouse import Table, Warehouse
from tests.native import MODULE, NEEDS_CORE
from tests.native import test_ddz_differential as ddz
from tests.native import test_differential as big2
from tests.native.test_ingest import _both_ways

pytestmark = NEEDS_CORE


def _mixed_lines(n: int) -> list[str]:
    """Dou Dizhu games (every option, the bots and the engine's, three notations, full and
    partial), each now and then followed by a mutated copy, between Big Two games."""
    rng = random.Random(16)
    notations = ["compact", "pretty", "list"]
    out: list[str] = []
    for seed in range(n):
        game = ddz._game(
            seed, seed % len(ddz.OPTIONS), ddz.BOTS[seed % 4], notations[seed % 3], seed % 5 == 1
        )
        game["game_id"] = f"ddz-{seed}"
        out.append(orjson.dumps(game).decode())
        if seed % 2 == 0:
            how = ddz.MUTATIONS[seed // 2 % len(ddz.MUTATIONS)]
            bad = ddz._mutate(game, how, rng)
            bad["game_id"] = f"{game['game_id']}-{how}"
            out.append(orjson.dumps(bad).decode())
        if seed % 3 == 0:
            b2 = big2._game(seed, seed % len(big2.OPTIONS), notations[seed % 3], seed % 4 == 1)
            out.append(orjson.dumps(b2).decode())
    marked = big2._game(7, 0, "compact", False)  # a Big Two line holding the Dou Dizhu mark
    marked["game_id"], marked["seats"][0]["name"] = "big2-marked", "doudizhu"
    out.append(orjson.dumps(marked).decode())
    first = orjson.loads(out[0])
    out += [
        out[0],  # a duplicate
        orjson.dumps({**first, "match_id": "other"}).decode(),  # a conflict (same id)
        orjson.dumps({**first, "game_id": "ddz-iso", "started_at": "yesterday"}).decode(),
    ]
    return out


def test_a_mixed_import_gives_the_same_rows_on_the_core_and_in_python(tmp_path: Path) -> None:
    py, rs = _both_ways(_mixed_lines(120), tmp_path)
    con = Warehouse(tmp_path / "py").connect()
    try:
        (n_ddz,) = con.execute(
            "select count(*) from games where game_id like 'ddz-%' and landlord is not null"
        ).fetchone() or (0,)
        codes = {code for (code,) in con.execute("select code from rejects").fetchall()}
    finally:
        con.close()
    assert n_ddz > 60 and len(py["actions"]) > 5000
    assert any(row[0] == "big2-marked" for row in py["games"])
    assert {"E_DDZ_OUT_OF_TURN", "E_RESULT_MISMATCH", "E_CONFLICT", "E_SCHEMA"} <= codes, codes
    for table in py:
        assert rs[table] == py[table], table


def test_ddz_lines_replay_on_the_core_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the core on, a chunk's Dou Dizhu lines never reach the Python engine: the core
    replays them and builds their rows."""
    import pipeline.replay
    from pipeline.ingest import chunk_rows
    from pipeline.logs.model import Source

    def no_python(kind: str) -> Any:
        raise AssertionError(f"the Python engine replayed a {kind} line")

    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    games = [
        ddz._game(seed, seed % len(ddz.OPTIONS), ddz.BOTS[seed % 4], "compact", seed % 2 == 1)
        for seed in range(40)
    ]
    items: list[Any] = [
        (Source("d.jsonl", k + 1), orjson.dumps(g).decode()) for k, g in enumerate(games)
    ]
    done = chunk_rows(items, "b1")
    stored = done.tables[Table.GAMES]
    assert stored.num_rows == 40 and not done.reject_codes
    assert done.tables[Table.ACTIONS].num_rows == sum(len(g["actions"]) for g in games)
