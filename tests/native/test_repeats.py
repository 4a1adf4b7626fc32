"""A game met again in its chunk (a log that writes lines twice, a game edited in place): on the
core the batch judges it by the game id and content hash the core found, without replaying it
again in Python (``pipeline.ingest.Repeat``, ``Batch.add_known``); the same rows, counts and
rejects as the pure Python path, which replays every repeat."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pipeline import ingest as ingest_module
from pipeline import native
from pipeline.ingest import ingest
from pipeline.logs.model import Source
from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_lines
from pipeline.sim.sample import _csv_rows, dumps, sample_game
from pipeline.warehouse import Added, Warehouse
from tests.native import NEEDS_CORE
from tests.native.test_ingest import _ingest, _rows

pytestmark = NEEDS_CORE


def _repeated(lines: list[str]) -> list[str]:
    """Each line, then: every third again as it is, every third edited (a conflict), every
    fifth a third time; blank lines between some."""
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if i % 3 == 0:
            out.append(line)
        elif i % 3 == 1:
            obj = json.loads(line)
            obj["table_id"] = f"{obj.get('table_id')}-edited"
            out.append(json.dumps(obj))
        if i % 5 == 0:
            out += ["", line]
    return out


def _lines() -> list[str]:
    big2 = [dumps(sample_game(seed=i, game_id=f"g{i}")) for i in range(24)]
    cfg = DdzSimConfig(games=6, seed=5, bots=("random",) * 3, preset="ddz", feeder=0)
    ddz = [dumps(game) for match in simulate_lines(cfg) for game in match]
    return _repeated(big2) + _repeated(ddz)


def test_repeats_store_what_python_stores(tmp_path: Path) -> None:
    """A plain file and a gzip file of Big Two and Dou Dizhu games met again in their chunk
    (duplicates, conflicts, a game thrice), imported on the core and in pure Python: the same
    tables, rejects (each conflict with its line) and counts."""
    lines = _lines()
    plain, packed = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    packed.write_bytes(gzip.compress(("\n".join(reversed(lines)) + "\n").encode()))
    out = {}
    for how, pure in (("py", True), ("rs", False)):
        summary = _ingest([plain, packed], tmp_path / how, pure=pure)
        (total,) = [line for line in summary.splitlines() if "total" in line]  # the counts
        out[how] = (_rows(tmp_path / how), total)
    assert out["rs"] == out["py"]
    # 57 lines a file: 30 games, 10 edited copies (conflicts), 17 copies as they are
    assert [int(c) for c in out["rs"][1].split("│")[2:6]] == [114, 30, 64, 20]
    rejects = out["rs"][0]["rejects"]
    assert rejects and all(row[-1] for row in rejects)  # each keeps its line


def _import(path: Path, wh: Path, workers: int = 1) -> Any:
    return ingest([str(path)], Warehouse(wh), workers=workers)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_core_replays_no_repeat_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """On the core no repeat reaches the Python engine: a duplicate and a conflict are told by
    the core's id and hash."""
    log = tmp_path / "twice.jsonl"
    lines = [dumps(sample_game(seed=i, game_id=f"g{i}")) for i in range(10)]
    edited = dumps(sample_game(seed=99, game_id="g4"))
    log.write_text("\n".join([*lines, *lines, edited]) + "\n", encoding="utf-8")

    def no_python(*_: Any, **__: Any) -> Any:
        raise AssertionError("a repeat was replayed again")

    monkeypatch.setattr(native, "replay_game", no_python)
    summary = _import(log, tmp_path / "wh", workers)
    total = summary.total()
    assert (total.read, total.stored, total.duplicate, total.rejected) == (21, 10, 10, 1)
    with Warehouse(tmp_path / "wh").connect() as con:
        got = con.execute("select line, game_id, code, raw from rejects").fetchall()
    assert got == [(21, "g4", "E_CONFLICT", edited)]


def test_a_repeat_whose_first_copy_the_batch_lacks_is_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the batch holds no copy of a repeat's id (the first copy's rows could not be
    built: made so here), the repeat is replayed in full and stored, as before."""
    log = tmp_path / "twice.jsonl"
    line = dumps(sample_game(seed=1, game_id="g1"))
    log.write_text(f"{line}\n{line}\n", encoding="utf-8")
    real = ingest_module.write_part

    def without_games(spec: Any, number: int, tables: Any, **kw: Any) -> Any:
        return real(spec, number, {}, **kw)  # the chunk's first copy lost on the way

    monkeypatch.setattr(ingest_module, "write_part", without_games)
    replayed: list[str] = []
    real_replayed = ingest_module.Repeat.replayed

    def counted(self: ingest_module.Repeat) -> Any:
        replayed.append(self.record.game_id)
        return real_replayed(self)

    monkeypatch.setattr(ingest_module.Repeat, "replayed", counted)
    total = _import(log, tmp_path / "wh").total()
    assert replayed == ["g1"]
    assert (total.read, total.stored, total.duplicate) == (2, 1, 0)
    with Warehouse(tmp_path / "wh").connect() as con:
        assert con.execute("select game_id, source_line from games").fetchall() == [("g1", 2)]


def test_csv_repeats_keep_their_csv_rows(tmp_path: Path) -> None:
    """A CSV game whose id comes again in the actions file, split (the CSV reader's own
    reject), and a CSV pair's game edited in a second pair: the conflict keeps the CSV rows."""
    import csv
    import io

    games = [sample_game(seed=i, game_id=f"g{i}") for i in range(4)]
    edited = sample_game(seed=50, game_id="g2")
    for stem, chosen in (("a", games), ("b", [games[0], edited])):
        game_rows, action_rows = _csv_rows(chosen)
        for rows, name in ((game_rows, f"{stem}.games.csv"), (action_rows, f"{stem}.csv")):
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows(rows)
            (tmp_path / name).write_text(out.getvalue(), encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")], wh)
    with wh.connect() as con:
        rows = con.execute("select file, game_id, code, raw from rejects").fetchall()
    ((file, game_id, code, raw),) = rows
    assert (Path(file).name, game_id, code) == ("b.csv", "g2", "E_CONFLICT")
    assert raw.startswith("game_id,ruleset,") and "\ng2," in raw


def test_add_known_judges_by_id_and_hash(tmp_path: Path) -> None:
    """``Batch.add_known``: None for an id the batch does not hold (nothing counted), else a
    duplicate (same hash) or a conflict (its reject keeps the record), an id more than once."""
    from pipeline.big2.logformat import record_from_obj
    from pipeline.replay import replay
    from pipeline.sim.sample import sample_game as game_of

    obj = game_of(seed=3, game_id="g3")
    record = record_from_obj(obj, source=Source("x.jsonl", 1), raw="line 1", content_hash="ab" * 32)
    wh = Warehouse(tmp_path / "wh")
    with wh.batch() as batch:
        assert batch.add_known([("g3", "ab" * 32, Source("x.jsonl", 2), "line 2")]) == [None]
        assert batch.duplicates == batch.conflicts == 0
        assert batch.add_game(replay(record)) is Added.STORED
        got = batch.add_known(
            [
                ("g3", "ab" * 32, Source("x.jsonl", 2), "line 2"),
                ("g3", "cd" * 32, Source("x.jsonl", 3), "line 3"),
                ("g3", "ab" * 32, Source("x.jsonl", 4), "line 4"),
            ]
        )
        assert got == [Added.DUPLICATE, Added.CONFLICT, Added.DUPLICATE]
        batch.commit()
    with wh.connect() as con:
        kept = con.execute("select line, code, raw from rejects").fetchall()
    assert kept == [(3, "E_CONFLICT", "line 3")]
