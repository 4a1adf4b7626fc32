"""A gzip JSON Lines file cut into blocks of whole lines by the import's main process, each
block's bytes handed to the core in one call (:func:`pipeline.ingest.block_rows`): the same
warehouse rows, rejects and counts as the plain file (ranges its workers read) and as the
streaming reader's items sent one by one (the path gzip files took before), whatever shapes the
lines take (``test_range_rows``' lines), with caps small and large, blocks cut small and large,
the stream read in small and large pieces, on the core and in pure Python; and a truncated or
corrupt stream is rejected where the streaming reader rejects it.
"""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline import ingest, native
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES
from pipeline.warehouse import Table, Warehouse
from tests.native import MODULE, NEEDS_CORE
from tests.native.test_range_rows import _files

pytestmark = NEEDS_CORE


def _tables(wh: Path, names: dict[str, str]) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows but the batch id, each file's name as ``names`` maps it."""
    con = Warehouse(wh).connect()
    try:
        out = {}
        for table in Table:
            cols = [r[0] for r in con.execute(f"describe {table.value}").fetchall()]
            keep = ", ".join(f'"{c}"' for c in cols if c != "batch_id")
            rows = con.execute(f"select {keep} from {table.value}").fetchall()
            out[table.value] = sorted(
                (tuple(names.get(v, v) if isinstance(v, str) else v for v in row) for row in rows),
                key=repr,
            )
        return out
    finally:
        con.close()


def _import(
    log: Path, wh: Path, max_line_bytes: int, workers: int = 1
) -> tuple[Any, dict[str, Any]]:
    summary = ingest.ingest(
        [str(log)],
        Warehouse(wh),
        workers=workers,
        max_line_bytes=max_line_bytes,
        max_rejects_per_file=3,
    )
    (counts,) = summary.files.values()
    named = {counts.file: "F", ingest.file_label(counts.file): "F"}
    account = (counts.read, counts.stored, counts.duplicate, counts.rejected, summary.reasons)
    return account, _tables(wh, named)


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    yield monkeypatch


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    file=_files(),
    games=st.sampled_from([1, 3, 5000]),
    chunk_bytes=st.sampled_from([50, 3000, ingest.CHUNK_BYTES]),
    scan=st.sampled_from([7, ingest.SCAN_BYTES]),
    on_core=st.booleans(),
)
@example(
    file=(b"[1]\n" + b" " * 50 + b"\n[2]\n", 40), games=5, chunk_bytes=50, scan=7, on_core=True
)
def test_a_gzip_file_imports_as_the_plain_file_and_the_items(
    file: tuple[bytes, int], games: int, chunk_bytes: int, scan: int, on_core: bool
) -> None:
    data, max_line_bytes = file
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        patch.setattr(native, "_MODULE", MODULE if on_core else None)  # else BIG2_PURE_PYTHON's
        patch.setattr(native, "_THIS_THREAD", native._PerThread())
        patch.setattr(ingest, "CHUNK_GAMES", games)
        patch.setattr(ingest, "CHUNK_BYTES", chunk_bytes)
        patch.setattr(ingest, "SCAN_BYTES", scan)
        root = Path(tmp)
        plain, packed = root / "r.jsonl", root / "r.jsonl.gz"
        plain.write_bytes(data)
        packed.write_bytes(gzip.compress(data))
        want = _import(plain, root / "plain", max_line_bytes)
        assert _import(packed, root / "blocks", max_line_bytes) == want
        patch.setattr(ingest, "_is_gzip_jsonl", lambda *_: False)  # the items, as before
        # the items were cut into chunks by count of non-blank lines, blocks and ranges by
        # count of lines not empty: a conflict may fall in one chunk or across two, and its
        # reject keeps its record either way (a repeat's, or read back: _ReadBack)
        assert _import(packed, root / "items", max_line_bytes) == want


def _gzip_lines(n: int) -> bytes:
    from tests.native.test_range_rows import _bytes

    return b"".join(_bytes("big2", k % 4, k) + b"\n" for k in range(n))


@pytest.mark.parametrize("how", ["truncated", "crc", "garbage"])
def test_a_broken_stream_is_rejected_where_the_reader_rejects_it(
    small: pytest.MonkeyPatch, tmp_path: Path, how: str
) -> None:
    """The lines before the break are imported, then the reader's reject of the break."""
    small.setattr(ingest, "CHUNK_GAMES", 3)
    packed = bytearray(gzip.compress(_gzip_lines(10)))
    if how == "truncated":
        del packed[len(packed) * 2 // 3 :]
    elif how == "crc":
        packed[-8] ^= 0xFF
    else:
        packed += b"not gzip"
    log = tmp_path / "b.jsonl.gz"
    log.write_bytes(bytes(packed))
    got = _import(log, tmp_path / "blocks", DEFAULT_MAX_LINE_BYTES)
    small.setattr(ingest, "_is_gzip_jsonl", lambda *_: False)
    want = _import(log, tmp_path / "items", DEFAULT_MAX_LINE_BYTES)
    assert got == want
    account, _ = got
    assert account[4].keys() & {"E_GZIP", "E_GZIP_TRUNCATED"}, account
    assert 0 < account[1] < 10 or how != "truncated", account


def test_gzip_blocks_go_to_the_core_in_one_call(small: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A gzip file of games the core reads reaches the workers as blocks of bytes, and no
    line of it goes to Python one by one."""

    def no_python(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a line went to Python")

    log = tmp_path / "g.jsonl.gz"
    log.write_bytes(gzip.compress(_gzip_lines(12) + b"\n \r\n"))
    small.setattr(ingest, "CHUNK_GAMES", 5)
    pieces = list(ingest._blocks(log, DEFAULT_MAX_LINE_BYTES))
    assert [type(p).__name__ for p in pieces] == ["LineBlock"] * 3
    assert [p.first_line for p in pieces] == [1, 6, 11]  # type: ignore[union-attr]
    small.setattr(ingest, "iter_jsonl_lines", no_python)
    small.setattr(native, "replay_game", no_python)
    small.setattr(ingest, "chunk_rows", no_python)
    account, tables = _import(log, tmp_path / "wh", DEFAULT_MAX_LINE_BYTES)
    assert account[:4] == (12, 12, 0, 0)
    assert len(tables["games"]) == 12


def test_a_line_over_the_cap_is_not_held_whole(small: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A run that passes a chunk and a line holds a line over the cap: the streaming reader
    reads it in the main process (its reject), it is not sent as a block."""
    small.setattr(ingest, "CHUNK_BYTES", 100)
    small.setattr(ingest, "SCAN_BYTES", 64)
    log = tmp_path / "long.jsonl.gz"
    log.write_bytes(gzip.compress(b"[1]\n" + b"x" * 5000 + b"\n[2]\n[3]"))
    pieces = list(ingest._blocks(log, 50))
    assert isinstance(pieces[0], list)
    assert [getattr(item, "code", None) for item in pieces[0]] == [None, "E_LINE_TOO_LONG"]
    assert pieces[1:] == [ingest.LineBlock(str(log), b"[2]\n[3]", 3)]


def test_two_worker_threads_store_what_one_worker_stores(
    small: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With two workers on the core (threads of the import), a gzip file's blocks and a plain
    file's ranges are replayed two at a time, each thread on its own core: the same rows,
    rejects and counts as one worker."""
    small.setattr(ingest, "CHUNK_GAMES", 4)
    data = _gzip_lines(30) + b"{oops\n" + _gzip_lines(3)  # a reject and three repeats
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert ingest._on_threads([plain, packed], None, 2)
    want = _import(plain, tmp_path / "one", DEFAULT_MAX_LINE_BYTES)
    assert want[0][:4] == (34, 30, 3, 1)
    for log in (plain, packed):
        assert _import(log, tmp_path / f"two-{log.name}", DEFAULT_MAX_LINE_BYTES, 2) == want
