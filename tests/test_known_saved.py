"""The games index an import leaves at its commit (``known-games.npy`` and its stamp): the next
import maps it instead of reading every games file, and only when it is the index of the games
committed now, byte for byte as saved; anything else (no file, a flipped byte, a batch
committed without it, a failed save) and the import reads the games files as before."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import Warehouse
from pipeline.warehouse.known import KnownGames, game_keys
from pipeline.warehouse.store import KNOWN_FILE, KNOWN_STAMP

runner = CliRunner()


def _log(path: Path, seeds: range, prefix: str = "g") -> Path:
    games = (dumps(sample_game(seed=s, game_id=f"{prefix}{s}")) for s in seeds)
    path.write_text("".join(g + "\n" for g in games), encoding="utf-8")
    return path


def _ingest(log: Path, wh: Path) -> str:
    result = runner.invoke(app, ["ingest", str(log), "-w", str(wh), "--no-build"])
    assert result.exit_code == 0, result.output
    return result.output


def _keys_of(known: KnownGames, path: Path) -> list[tuple[int, int, int]]:
    """Every key of an index (id digest's two words, content prefix), sorted: the index's order
    of two ids sharing a high word is its own."""
    known.save(path)
    hi, lo, prefix = np.load(path).tolist()
    return sorted(zip(hi, lo, prefix, strict=True))


def test_an_import_leaves_the_index_of_what_it_committed(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    _ingest(_log(tmp_path / "a.jsonl", range(8)), wh.root)
    _ingest(_log(tmp_path / "b.jsonl", range(8, 13)), wh.root)
    stamp = json.loads((wh.root / KNOWN_STAMP).read_text(encoding="utf-8"))
    assert stamp["games"] == 13 and (wh.root / KNOWN_FILE).is_file()
    saved = wh.known_index()
    assert len(saved) == 13
    assert _keys_of(saved, tmp_path / "s.npy") == _keys_of(wh.read_known(), tmp_path / "r.npy")
    assert wh.verify(marts=False) == []  # not a file of any table: no orphan (--no-build)


def test_the_next_import_reads_no_games_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the saved index, duplicates and conflicts are judged as before, and no games file
    is read for it."""
    wh = Warehouse(tmp_path / "wh")
    _ingest(_log(tmp_path / "a.jsonl", range(6)), wh.root)

    def refuse(self: Warehouse) -> KnownGames:
        raise AssertionError("read the games files")

    monkeypatch.setattr(Warehouse, "read_known", refuse)
    again = ingest([str(tmp_path / "a.jsonl")], wh).total()
    assert (again.stored, again.duplicate) == (0, 6)
    edited = sample_game(seed=0, game_id="g0")
    edited["started_at"] = "2020-01-01T00:00:00+00:00"
    (tmp_path / "c.jsonl").write_text(dumps(edited) + "\n", encoding="utf-8")
    other = ingest([str(tmp_path / "c.jsonl"), str(_log(tmp_path / "d.jsonl", range(6, 8)))], wh)
    assert (other.total().stored, other.reasons["E_CONFLICT"]) == (2, 1)
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (8,)


def test_the_workers_read_the_saved_index_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the batch's index is the saved one, the chunks judge against that file: no copy
    of it is written for them; the commit's save is the one write, and the next import (in
    the same process, the file replaced) judges against the new one."""
    wh = Warehouse(tmp_path / "wh")
    ingest([str(_log(tmp_path / "a.jsonl", range(5)))], wh)
    written: list[str] = []
    save = KnownGames.save

    def spy(self: KnownGames, path: Path) -> str:
        written.append(path.name)
        return save(self, path)

    monkeypatch.setattr(KnownGames, "save", spy)
    for workers in (1, 2):
        log = _log(tmp_path / f"b{workers}.jsonl", range(10 * workers, 10 * workers + 4))
        first = ingest([str(log)], wh, workers=workers).total()
        again = ingest([str(log)], wh, workers=workers).total()
        assert (first.stored, again.stored, again.duplicate) == (4, 0, 4)
    assert written == [KNOWN_FILE + ".tmp"] * 2  # the commits that stored games
    assert not list((wh.root / "games").glob("*.known.tmp"))


def test_a_damaged_or_stale_index_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    _ingest(_log(tmp_path / "a.jsonl", range(6)), wh.root)
    assert wh.saved_known() is not None
    index = wh.root / KNOWN_FILE
    data = bytearray(index.read_bytes())
    data[-3] ^= 0x01  # a flipped bit in the keys: the file is not the one saved
    index.write_bytes(bytes(data))
    assert wh.saved_known() is None
    # a batch committed without saving it: the stamp is of the games before
    monkeypatch.setattr(Warehouse, "save_known", lambda self, known: False)
    _ingest(_log(tmp_path / "b.jsonl", range(6, 9)), wh.root)
    monkeypatch.undo()
    assert wh.saved_known() is None
    assert len(wh.known_index()) == 9
    _ingest(_log(tmp_path / "a.jsonl", range(9)), wh.root)  # all 9 known: nothing stored
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (9,)
    assert (
        json.loads((wh.root / KNOWN_STAMP).read_text(encoding="utf-8"))["games"] == 9
    )  # saved again, though nothing was stored


def test_a_failed_save_leaves_the_import_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    _ingest(_log(tmp_path / "a.jsonl", range(4)), wh.root)

    save = KnownGames.save

    def full_disk(self: KnownGames, path: Path) -> str:
        if path.name == KNOWN_FILE + ".tmp":  # the saved index (not the workers' scratch copy)
            raise OSError(28, "No space left on device")
        return save(self, path)

    monkeypatch.setattr(KnownGames, "save", full_disk)
    _ingest(_log(tmp_path / "b.jsonl", range(4, 7)), wh.root)
    monkeypatch.undo()
    assert not (wh.root / KNOWN_STAMP).exists()  # no stamp names an index it does not hold
    assert wh.saved_known() is None
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (7,)
    assert len(wh.known_index()) == 7


def test_an_index_of_other_games_is_not_saved(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    _ingest(_log(tmp_path / "a.jsonl", range(3)), wh.root)
    other = KnownGames()
    other.add_keys(game_keys(["x1", "x2"], ["ab" * 32, "cd" * 32]))
    assert not wh.save_known(other)  # 2 games where 3 are committed
    assert len(wh.known_index()) == 3


#: Games to import in random sequences: each one as logged, or with another start time (its
#: content hash differs: a conflict when its id is stored already).
POOL = [sample_game(seed=s, game_id=f"p{s}") for s in range(8)]


def _edited(game: dict[str, Any]) -> dict[str, Any]:
    return {**game, "started_at": "2020-01-01T00:00:00+00:00"}


@settings(max_examples=8, deadline=None)
@given(
    imports=st.lists(
        st.lists(st.tuples(st.integers(0, len(POOL) - 1), st.booleans()), min_size=1, max_size=6),
        min_size=2,
        max_size=4,
    )
)
def test_imports_judge_alike_with_and_without_the_saved_index(
    tmp_path_factory: pytest.TempPathFactory, imports: list[list[tuple[int, bool]]]
) -> None:
    """Any sequence of imports of repeated and edited games: the same counts, rejects and stored
    games whether each import maps the index the one before saved or reads the games files."""
    root = tmp_path_factory.mktemp("seq")
    outcomes = []
    for saved in (True, False):
        wh = Warehouse(root / f"wh-{saved}")
        seen = []
        for k, games in enumerate(imports):
            log = root / f"{saved}-{k}.jsonl"
            lines = (dumps(_edited(POOL[i]) if edit else POOL[i]) for i, edit in games)
            log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            with (
                mock.patch.object(Warehouse, "saved_known", lambda self: None)
                if not saved
                else (contextlib.nullcontext())
            ):
                total = ingest([str(log)], wh)
            t = total.total()
            seen.append((t.stored, t.duplicate, t.rejected, sorted(total.reasons.items())))
        with wh.connect() as con:
            stored = con.execute("select game_id, content_hash from games order by all").fetchall()
        outcomes.append((seen, stored))
        if saved:  # the index saved by the last import is that of what is stored
            assert wh.saved_known() is not None or not stored
    assert outcomes[0] == outcomes[1]
