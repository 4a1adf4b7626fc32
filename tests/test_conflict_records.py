"""An ``E_CONFLICT`` reject keeps the record that conflicts, on every path of the import.

A game whose id is stored with other content is rejected as ``E_CONFLICT``. When the game came
in a worker's part (the usual case: a re-import of corrected logs, or one id twice far apart in
an import), the batch has its id, hash and source but not its text; the import reads the
records back from their file (``pipeline.ingest._ReadBack``, ``Batch.read_back``), once per
file, and keeps a record only when its game id and content hash are the conflict's.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path
from typing import Any

import pytest

from pipeline import ingest as ingest_module
from pipeline import native
from pipeline.ingest import ingest
from pipeline.logs.model import Source
from pipeline.sim.sample import _csv_rows, dumps, sample_game
from pipeline.warehouse import Added, Warehouse
from pipeline.warehouse.store import CONFLICT_CODE, ReadBack, StoredGame

needs_core = pytest.mark.skipif(not native.available(), reason="needs the native core")

PATHS = [
    pytest.param(1, True, id="core-1-worker", marks=needs_core),
    pytest.param(2, True, id="core-2-threads", marks=needs_core),
    pytest.param(1, False, id="python-1-worker"),
]


def _pure(monkeypatch: pytest.MonkeyPatch, core: bool) -> None:
    if not core:
        monkeypatch.setattr(native, "_MODULE", None)
        monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())


def _conflicts(wh: Warehouse) -> list[tuple[Any, ...]]:
    with wh.connect() as con:
        return con.execute(
            "select file, line, game_id, raw from rejects where code = ? order by file, line",
            [CONFLICT_CODE],
        ).fetchall()


def _write_csv(folder: Path, stem: str, games: list[dict[str, Any]]) -> Path:
    game_rows, action_rows = _csv_rows(games)
    for rows, name in ((game_rows, f"{stem}.games.csv"), (action_rows, f"{stem}.csv")):
        with (folder / name).open("w", newline="", encoding="utf-8") as out:
            csv.writer(out, lineterminator="\n").writerows(rows)
    return folder / f"{stem}.csv"


@pytest.mark.parametrize(("workers", "core"), PATHS)
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_reimport_of_changed_games_keeps_each_changed_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, core: bool, suffix: str
) -> None:
    """Games stored by a first import, then edited (same ids, other content) in another file:
    each ``E_CONFLICT`` reject names its line and keeps that line's text."""
    _pure(monkeypatch, core)
    first = tmp_path / f"a{suffix}"
    second = tmp_path / f"b{suffix}"
    opener: Any = gzip.open if suffix.endswith(".gz") else open
    with opener(first, "wt", encoding="utf-8") as out:
        out.write("".join(dumps(sample_game(seed=i, game_id=f"g{i}")) + "\n" for i in range(12)))
    edited = [dumps(sample_game(seed=100 + i, game_id=f"g{i}")) for i in (0, 5, 11)]
    new = dumps(sample_game(seed=200, game_id="fresh"))
    with opener(second, "wt", encoding="utf-8") as out:
        out.write(f"{edited[0]}\n\n{new}\n{edited[1]}\n{edited[2]}\n")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(first)], wh, workers=workers)
    summary = ingest([str(second)], wh, workers=workers)
    assert summary.reasons == {CONFLICT_CODE: 3}
    name = str(second)
    assert _conflicts(wh) == [
        (name, 1, "g0", edited[0]),
        (name, 4, "g5", edited[1]),
        (name, 5, "g11", edited[2]),
    ]


@pytest.mark.parametrize(("workers", "core"), PATHS)
def test_a_changed_csv_game_keeps_its_csv_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, core: bool
) -> None:
    """A CSV pair's conflicting game keeps its rows as any reject of a CSV game does: the
    games CSV's header and row, then the actions CSV's header and the game's rows."""
    _pure(monkeypatch, core)
    first = _write_csv(tmp_path, "a", [sample_game(seed=i, game_id=f"g{i}") for i in range(4)])
    second = _write_csv(tmp_path, "b", [sample_game(seed=50, game_id="g2")])
    wh = Warehouse(tmp_path / "wh")
    ingest([str(first)], wh, workers=workers)
    ingest([str(second)], wh, workers=workers)
    ((file, line, game_id, raw),) = _conflicts(wh)
    assert (file, line, game_id) == (str(second), 2, "g2")
    games = (tmp_path / "b.games.csv").read_text(encoding="utf-8").splitlines()
    actions = second.read_text(encoding="utf-8").splitlines()
    assert raw.splitlines() == games + actions


@pytest.mark.parametrize(("workers", "core"), PATHS)
def test_one_id_twice_in_two_chunks_keeps_the_second_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, core: bool
) -> None:
    """One import, one file: an id seen again in a later chunk with other content (the batch
    finds it against its own games, not the warehouse's) keeps the later line; so does an id
    met again in the next file."""
    _pure(monkeypatch, core)
    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", 3)
    lines = [dumps(sample_game(seed=i, game_id=f"g{i}")) for i in range(8)]
    again = dumps(sample_game(seed=77, game_id="g1"))
    log, other = tmp_path / "log.jsonl", tmp_path / "other.jsonl"
    log.write_text("\n".join([*lines, again]) + "\n", encoding="utf-8")
    later = dumps(sample_game(seed=78, game_id="g6"))
    other.write_text(later + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log), str(other)], wh, workers=workers)
    assert _conflicts(wh) == [(str(log), 9, "g1", again), (str(other), 1, "g6", later)]


@pytest.mark.parametrize(("workers", "core"), PATHS)
def test_many_conflicts_are_read_back_as_they_come_each_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, core: bool
) -> None:
    """More conflicts than wait at once (``READ_BACK_AT``): the file is read on from where the
    last read-back stopped, never from its start again, and every record is kept."""
    _pure(monkeypatch, core)
    monkeypatch.setattr(ingest_module, "CHUNK_GAMES", 4)
    monkeypatch.setattr(ingest_module, "READ_BACK_AT", 3)
    starts: list[str] = []
    real = ingest_module._chunks

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1:  # no progress callback: a read-back's reader
            starts.append(path.name)
        return real(path, *args, **kwargs)

    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(dumps(sample_game(seed=i, game_id=f"g{i}")) + "\n" for i in range(20)))
    edited = [dumps(sample_game(seed=300 + i, game_id=f"g{i}")) for i in range(20)]
    second.write_text("\n".join(edited) + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(first)], wh, workers=workers)
    monkeypatch.setattr(ingest_module, "_chunks", counted)
    ingest([str(second)], wh, workers=workers)
    assert _conflicts(wh) == [(str(second), i + 1, f"g{i}", edited[i]) for i in range(20)]
    assert starts.count("b.jsonl") == 1  # one reader, read on from batch to batch


def test_a_record_read_back_that_is_not_the_conflicts_is_not_kept(tmp_path: Path) -> None:
    """``Batch.read_back``: a line whose game id or content hash is not the conflict's (the
    file changed after it was imported) is not kept; the reject is stored all the same, as it
    is by the commit when nothing reads its record."""
    wh = Warehouse(tmp_path / "wh")
    digest = "ab" * 32
    with wh.batch() as batch:
        for n, game_id in enumerate(("g1", "g2", "g3", "g4")):
            stored = StoredGame(game_id, digest[:16], "00" * 8, Source("f.jsonl", n + 1))
            assert batch._settle(stored, None) is Added.CONFLICT
        assert batch.unread() == {"f.jsonl": 4}
        asked: list[list[int]] = []

        def read(lines: list[int]) -> dict[int, ReadBack]:
            asked.append(lines)
            return {
                1: ReadBack("g1", digest, "the record"),
                2: ReadBack("g2", "cd" * 32, "other content"),
                3: ReadBack("other id", digest, "another game"),
            }

        batch.read_back("f.jsonl", read)
        assert asked == [[1, 2, 3, 4]] and batch.unread() == {}
        batch.commit()
    assert [(line, raw) for _, line, _, raw in _conflicts(wh)] == [
        (1, "the record"),
        (2, None),
        (3, None),
        (4, None),
    ]


def test_conflicts_nothing_reads_back_are_stored_by_the_commit(tmp_path: Path) -> None:
    """A batch whose caller reads nothing back (not an import) stores its conflicts' rejects
    at the commit, without their records; none is lost."""
    wh = Warehouse(tmp_path / "wh")
    with wh.batch() as batch:
        batch._settle(StoredGame("g1", "11" * 8, "22" * 8, Source("x.jsonl", 7)), None)
        summary = batch.commit()
    assert summary.rejects == 1
    assert _conflicts(wh) == [("x.jsonl", 7, "g1", None)]


def test_a_file_gone_before_its_read_back_loses_no_reject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file deleted between its import and the read-back: the rejects are stored, without
    their records, and the import commits."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(dumps(sample_game(seed=1, game_id="g1")) + "\n", encoding="utf-8")
    second.write_text(dumps(sample_game(seed=2, game_id="g1")) + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(first)], wh)
    real = ingest_module._ReadBack.read

    def gone(self: ingest_module._ReadBack, file: str, lines: list[int]) -> Any:
        second.unlink(missing_ok=True)
        return real(self, file, lines)

    monkeypatch.setattr(ingest_module._ReadBack, "read", gone)
    summary = ingest([str(second)], wh)
    assert summary.reasons == {CONFLICT_CODE: 1}
    assert _conflicts(wh) == [(str(second), 1, "g1", None)]
