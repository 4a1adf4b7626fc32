"""An import worker's range on the core (:func:`pipeline.ingest.range_rows`): the core reads
the range and cuts its lines itself (``native/src/lines.rs``), handing back only the lines it
leaves to Python. Its rows, rejects, repeats and items read are those of
:func:`pipeline.ingest.chunk_rows` over :func:`pipeline.ingest.range_items` (the Python
reader's lines), whatever shapes the lines take: blank lines of every kind of space, ``\\r\\n``,
a BOM, bytes that are not UTF-8, lines over the cap (blank ones too), no newline at the end,
Big Two and Dou Dizhu games, rejects, repeats, conflicts and lines only Python reads.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline import ingest, native
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES
from tests.native import MODULE, NEEDS_CORE
from tests.native import test_ddz_differential as ddz
from tests.native import test_differential as big2

pytestmark = NEEDS_CORE


def _pool() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(7)
    games = [big2._game(seed, seed % len(big2.OPTIONS), "compact", seed == 3) for seed in range(4)]
    marked = {**games[0], "seats": [{**s, "name": "doudizhu"} for s in games[0]["seats"]]}
    return {
        "big2": games,
        "ddz": [ddz._game(seed, 0, ddz.BOTS[seed], "compact", False) for seed in range(2)],
        "bad": [big2._mutate(games[1], "out_of_turn", rng), big2._mutate(games[2], "result", rng)],
        "marked": [marked],  # a Big Two line holding the Dou Dizhu mark
    }


POOL = _pool()

#: Lines other than games: blank ones (ASCII spaces, Unicode spaces Python's ``str.strip``
#: drops), lines Python reads (bad JSON, a schema error, unusual characters), bytes that are
#: not UTF-8, a BOM, a control character.
OTHER = [
    b"", b" ", b"\t \t", b"\r", b"\x0b\x0c", b"\x1c\x1f", "\u3000".encode(), "\u00a0 \u2028".encode(),
    "\u3000x".encode(), b"[1, 2", b'{"format_version": 1}', b'{"game_id": "\xff"}', b"\xc3",
    "\ufeff".encode(), "\ufeff[]".encode(), b"\x1b", " " * 50, "é",
]  # fmt: skip

_LINE = st.one_of(
    st.tuples(
        st.sampled_from(["big2", "ddz", "bad", "marked"]), st.integers(0, 3), st.integers(0, 4)
    ),
    st.tuples(st.just("other"), st.integers(0, len(OTHER) - 1), st.just(0)),
)


def _bytes(kind: str, k: int, game_id: int) -> bytes:
    if kind == "other":
        line = OTHER[k]
        return line.encode() if isinstance(line, str) else line
    games = POOL[kind]
    game = {**games[k % len(games)], "game_id": f"{kind}-{game_id}"}
    return orjson.dumps(game)


@st.composite
def _files(draw: st.DrawFn) -> tuple[bytes, int]:
    lines = draw(st.lists(_LINE, min_size=1, max_size=24))
    ends = draw(st.lists(st.sampled_from([b"\n", b"\r\n", b"\r\r\n"]), min_size=len(lines)))
    out = [_bytes(*line) + ends[i % len(ends)] for i, line in enumerate(lines)]
    if draw(st.booleans()):
        out[0] = b"\xef\xbb\xbf" + out[0]  # a BOM on line 1
    if draw(st.booleans()):
        out[-1] = out[-1].rstrip(b"\r\n")  # no newline at the end
    max_line_bytes = draw(st.sampled_from([DEFAULT_MAX_LINE_BYTES, 3000, 40, 1]))
    return b"".join(out), max_line_bytes


def _summary(done: Any) -> Any:
    if isinstance(done, str):
        return done
    repeats = [(g.record.game_id, g.record.source) for g in done.repeats]
    return done.reject_codes, repeats, done.read


def _same(got: Any, want: Any) -> None:
    assert _summary(got) == _summary(want)
    if isinstance(want, str):
        return
    assert set(got.tables) == set(want.tables)
    for table, rows in want.tables.items():
        assert got.tables[table].equals(rows), table


@pytest.fixture
def on_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    monkeypatch.setattr(ingest, "CHUNK_GAMES", 5)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(_files())
@example((b"[1]\n\n" + b" " * 50 + b"\n[2]\n", 40))  # a blank line over the cap after a blank one
def test_a_range_on_the_core_is_the_python_readers(
    on_core: None, tmp_path: Path, file: tuple[bytes, int]
) -> None:
    data, max_line_bytes = file
    log = tmp_path / "r.jsonl"
    log.write_bytes(data)
    for span in ingest._ranges(log):
        want = ingest.chunk_rows(ingest.range_items(span, max_line_bytes), "b1")  # type: ignore[arg-type]
        _same(ingest.range_rows(span, "b1", max_line_bytes), want)


def test_common_lines_stay_on_the_core(
    on_core: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A range of games the core reads (and blank lines) hands no line back to Python."""

    def no_python(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a line went to Python")

    log = tmp_path / "g.jsonl"
    lines = [_bytes("big2", k % 4, k) for k in range(9)] + [_bytes("ddz", 0, 9), b"", b" \r"]
    log.write_bytes(b"\n".join(lines))
    spans = list(ingest._ranges(log))
    want = [ingest.chunk_rows(ingest.range_items(s), "b1") for s in spans]  # type: ignore[arg-type]
    monkeypatch.setattr(ingest, "range_items", no_python)
    monkeypatch.setattr(native, "replay_game", no_python)
    monkeypatch.setattr(ingest, "iter_jsonl_lines", no_python)
    got = [ingest.range_rows(s, "b1") for s in spans]
    assert [g.read for g in got] == [5, 5, 0]
    for mine, reference in zip(got, want, strict=True):
        _same(mine, reference)


def test_a_changed_file_is_named_as_the_python_reader_names_it(
    on_core: None, tmp_path: Path
) -> None:
    """The core reads a range with ``range_items``' checks and says the same."""
    log = tmp_path / "g.jsonl"
    log.write_text("[1]\n" * 12)
    first, second, third = ingest._ranges(log)

    def both(span: ingest.LineRange) -> str:
        got = ingest.range_rows(span, "b1")
        assert got == ingest.range_items(span), got
        assert isinstance(got, str)
        return got

    log.write_text("[1]\n[10]\n" + "[1]\n" * 10)  # shifted: the cut is mid-line now
    assert "byte 19 is no longer the newline" in both(second)
    log.write_text("[1]\n" * 11 + "[1] x")  # the last range no longer ends a line
    assert "byte 47 is no longer the newline" in both(third)
    with log.open("r+") as fh:
        fh.truncate(30)
    assert "10 bytes shorter" in both(second)
    other = tmp_path / "other.jsonl"
    other.write_text("[1]\n" * 12)
    other.replace(log)
    assert "replaced" in both(first)
    log.unlink()
    assert "cannot be opened again (No such file or directory)" in both(first)
