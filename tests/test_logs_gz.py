"""The gzip reader (`pipeline.logs.gz`): ISA-L's inflate while the stream is sound, and for a
damaged file the error the standard library's `gzip` module gives, after the bytes it inflated
before the damage (to within the reader's step)."""

from __future__ import annotations

import functools
import gzip
import random
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.logs import gz
from pipeline.logs.gz import open_gzip

Read = Callable[[IO[bytes]], bytes]


def _lines(seed: int, n: int) -> bytes:
    rng = random.Random(seed)
    return b"".join(
        b'{"game_id": "g%d", "cards": "%s"}\n'
        % (k, rng.randbytes(rng.randint(1, 60)).hex().encode())
        for k in range(n)
    )


def _by_lines(fh: IO[bytes]) -> bytes:
    return b"".join(iter(lambda: fh.readline(1000), b""))


def _by_blocks(fh: IO[bytes]) -> bytes:
    return b"".join(iter(lambda: fh.read1(1 << 20), b""))  # type: ignore[attr-defined]


def _outcome(opener: Callable[[Path], IO[bytes]], path: Path, read: Read) -> tuple[bytes, object]:
    """What a reader gives of a file, a read at a time: the bytes, then its error (type and
    text) or None."""
    got: list[bytes] = []
    with opener(path) as fh:
        try:
            while chunk := read(fh):
                got.append(chunk)
        except Exception as err:
            return b"".join(got), (type(err), str(err))
    return b"".join(got), None


def _one_line(fh: IO[bytes]) -> bytes:
    return fh.readline(1000)


def _one_block(fh: IO[bytes]) -> bytes:
    return fh.read1(1 << 20)  # type: ignore[attr-defined,no-any-return]


def _std(path: Path) -> IO[bytes]:
    return gzip.open(path, "rb")


def _small_reads(fh: IO[bytes]) -> bytes:
    return fh.read1(1 << 10)  # type: ignore[attr-defined,no-any-return]


def _as_the_gzip_module(path: Path, read: Read) -> tuple[bytes, object]:
    """Read ``path`` with ``open_gzip`` (``read`` at a time) and hold it to the ``gzip``
    module read 1 KiB at a time (about all it inflates before an error): a sound file gives
    the same bytes; a damaged one the same error, after the same bytes to within
    8 KiB (``gz._STEP``)."""
    got, error = _outcome(open_gzip, path, read)
    most, std_error = _outcome(_std, path, _small_reads)
    assert error == std_error
    if error is None:
        assert got == most
    else:
        assert got.startswith(most) or most.startswith(got)
        assert len(got) >= len(most) - 8 * 1024
    return got, error


@functools.cache
def _damaged() -> dict[str, bytes]:
    good = gzip.compress(_lines(1, 30_000))
    mid = len(good) // 2
    return {
        "sound": good,
        "two members": good + good,
        "zero padding after it": good + b"\0\0\0",
        "empty file": b"",
        "cut in the middle": good[:mid],
        "header only": good[:10],
        "flipped bytes early": good[:30] + bytes(b ^ 0x55 for b in good[30:60]) + good[60:],
        "flipped bytes mid-way": good[:mid] + bytes(b ^ 0x55 for b in good[mid : mid + 20]) + good[mid + 20 :],
        "not gzip": b"this is not gzip\n",
        "bad CRC": good[:-8] + b"\0\0\0\0" + good[-4:],
        "bad length": good[:-4] + b"\1\0\0\0",
        "bytes after the last member": good + b"garbage!",
    }  # fmt: skip


@pytest.mark.parametrize("read", [_one_line, _one_block], ids=["readline", "read1"])
@pytest.mark.parametrize("case", list(_damaged()))
def test_as_the_gzip_module_reads(tmp_path: Path, case: str, read: Read) -> None:
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(_damaged()[case])
    got, error = _as_the_gzip_module(path, read)
    if case in ("sound", "two members", "zero padding after it"):
        assert error is None and got
    elif case != "empty file":
        assert error is not None  # the damage is one the gzip module reports
    if case in ("cut in the middle", "bad CRC", "bytes after the last member"):
        assert len(got) > 1_000_000  # what came before the damage was read


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    cut=st.floats(0.0, 1.0),
    flip=st.one_of(st.none(), st.tuples(st.floats(0.0, 1.0), st.integers(1, 255))),
    tail=st.sampled_from([b"", b"\0", b"\x1f", b"\x1f\x8b", b"junk"]),
)
def test_any_damage_as_the_gzip_module(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    cut: float,
    flip: tuple[float, int] | None,
    tail: bytes,
) -> None:
    """A file cut anywhere, a byte changed anywhere, something after it: read line by line,
    the same bytes and error as the gzip module's (:func:`_as_the_gzip_module`)."""
    data = bytearray(gzip.compress(_lines(seed, 1_500)))
    if flip is not None:
        at = min(int(flip[0] * len(data)), len(data) - 1)
        data[at] ^= flip[1]
    data = data[: max(1, int(cut * len(data)))] if cut < 0.9 else data
    path = tmp_path_factory.mktemp("gz") / "log.jsonl.gz"
    path.write_bytes(bytes(data) + tail)
    _as_the_gzip_module(path, _one_line)


def test_a_sound_file_is_read_by_isal_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standard library's reader never runs for a sound file (it is the slow one)."""
    path = tmp_path / "log.jsonl.gz"
    text = _lines(2, 20_000)
    path.write_bytes(gzip.compress(text) + gzip.compress(text))

    def refuse(*_: object) -> None:
        raise AssertionError("fell back to the gzip module")

    monkeypatch.setattr(gz, "_StdGzip", refuse)
    with open_gzip(path) as fh:
        assert _by_lines(fh) == text + text
    with open_gzip(path) as fh:
        assert _by_blocks(fh) == text + text


def test_the_stream_given_is_read_and_closed(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(b"{}\n" * 10))
    raw = open(path, "rb")  # noqa: SIM115 (open_gzip closes it)
    with open_gzip(path, raw) as fh:
        assert fh.read() == b"{}\n" * 10
    assert raw.closed
