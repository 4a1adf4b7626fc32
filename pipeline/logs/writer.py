"""Write log files (docs/log-format.md), whatever their game.

:class:`LogWriter` streams game objects as JSON Lines, gzip-compressed for ``.gz`` (with a
fixed header, so the same games give the same bytes); :func:`dumps` writes one game as one
line, :func:`seats_of` the envelope's ``seats``. Each game turns a played game into its log
object itself (Big Two: :func:`pipeline.big2.logwriter.game_log`).

>>> dumps({"game_id": "g1", "seats": seats_of(["a", "b"])})
'{"game_id": "g1", "seats": [{"seat": 0, "player_id": "a"}, {"seat": 1, "player_id": "b"}]}'
"""

from __future__ import annotations

import contextlib
import glob
import gzip
import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from isal import igzip

from pipeline.workers import alive

#: ISA-L's deflate level of :class:`LogWriter` (0-3; 2, its default: 4.3x zlib's level 2 on a
#: log here, 0.17 against 0.72 CPU-s for 80 MB, and 1.5 % smaller; zlib's level 9 cost ~4x the
#: native simulator's own time)
GZIP_LEVEL = 2
#: The bytes :class:`LogWriter` hands its gzip layer at a time (deflate's output depends on its
#: input's cuts: fixed pieces make the file a function of its text alone).
GZIP_PIECE = 1 << 16


def seats_of(player_ids: Sequence[str], names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The ``seats`` list of a log: one entry per seat, in seat order.

    >>> seats_of(["u1", "u2"], ["Kit", "May"])[1]
    {'seat': 1, 'player_id': 'u2', 'name': 'May'}
    """
    out: list[dict[str, Any]] = []
    for seat, pid in enumerate(player_ids):
        entry: dict[str, Any] = {"seat": seat, "player_id": pid}
        if names is not None:
            entry["name"] = names[seat]
        out.append(entry)
    return out


def utc(timestamp: float) -> datetime:
    """A Unix timestamp as an aware UTC datetime.

    >>> utc(0).isoformat()
    '1970-01-01T00:00:00+00:00'
    """
    return datetime.fromtimestamp(timestamp, tz=UTC)


def dumps(game: Mapping[str, Any]) -> str:
    """One game as one JSON line (no newline)."""
    return json.dumps(game, ensure_ascii=False, separators=(", ", ": "))


def stale_files(path: Path) -> list[Path]:
    """The hidden files :class:`LogWriter` writes ``path`` into (``.<name>.<pid>.tmp``) whose
    writer's process is gone: left by a writer killed before it could rename or remove it. The
    file of a writer still running (another simulation into the same path) is not one.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / f".x.jsonl.{os.getpid()}.tmp").write_bytes(b"")  # this process: alive
    >>> stale_files(folder / "x.jsonl")
    []
    """
    prefix, suffix = f".{path.name}.", ".tmp"
    found = []
    for candidate in path.parent.glob(f"{glob.escape(prefix)}*{suffix}"):
        pid = candidate.name[len(prefix) : -len(suffix)]
        if pid.isdigit() and not alive(int(pid)):
            found.append(candidate)
    return sorted(found)


class LogWriter:
    """Stream JSON lines into ``.jsonl`` or ``.jsonl.gz`` (fixed gzip header: same input, same bytes).

    Deflate's output depends on how its input is cut into calls, so the gzip layer is handed
    the text in pieces of :data:`GZIP_PIECE` bytes whatever the writes were (a line at a time,
    or a simulation worker's block of matches): the same lines give the same file.

    The file appears whole or not at all: the lines go to a hidden file beside it
    (``.<name>.<pid>.tmp``), renamed over ``path`` when the writer closes; a writer left by an
    exception (an interrupted simulation) removes it, and ``path`` keeps what it held. A writer
    killed outright (SIGKILL, a power cut) cannot: the next writer of ``path`` removes the hidden
    files of writers whose process is gone (:func:`stale_files`).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "x.jsonl.gz"
    >>> with LogWriter(path) as out:
    ...     out.write({"a": 1})
    >>> gzip.decompress(path.read_bytes())
    b'{"a": 1}\\n'
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.count = 0
        for stale in stale_files(self.path):
            stale.unlink(missing_ok=True)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self._raw: IO[bytes] = self._tmp.open("wb")
        self._gz: gzip.GzipFile | None = None
        self._pending = bytearray()  # the text not yet handed to the gzip layer
        if self.path.name.endswith(".gz"):
            self._gz = igzip.IGzipFile(  # type: ignore[no-untyped-call]
                filename="", mode="wb", fileobj=self._raw, mtime=0, compresslevel=GZIP_LEVEL
            )

    def write_line(self, line: str) -> None:
        """Write one game already serialised by :func:`dumps`."""
        self._put((line + "\n").encode())
        self.count += 1

    def write(self, game: Mapping[str, Any]) -> None:
        self.write_line(dumps(game))

    def write_block(self, data: bytes, lines: int) -> None:
        """Write ``lines`` lines already serialised and encoded as UTF-8, each ended by a
        newline (one write, not one per line: what a simulation's workers hand back).

        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "x.jsonl"
        >>> with LogWriter(path) as out:
        ...     out.write({"a": 1})
        ...     out.write_block(b'{"b": 2}\\n{"c": 3}\\n', 2)
        >>> path.read_bytes(), out.count
        (b'{"a": 1}\\n{"b": 2}\\n{"c": 3}\\n', 3)
        """
        self._put(data)
        self.count += lines

    def _put(self, data: bytes) -> None:
        if self._gz is None:
            self._raw.write(data)
            return
        pending = self._pending
        pending += data
        whole = len(pending) - len(pending) % GZIP_PIECE
        if whole:
            with memoryview(pending) as view:
                for start in range(0, whole, GZIP_PIECE):
                    self._gz.write(view[start : start + GZIP_PIECE])
            del pending[:whole]

    def close(self) -> None:
        """Finish the file and put it in place (over what ``path`` held)."""
        if self._gz is not None:
            self._gz.write(self._pending)
            self._gz.close()
        self._raw.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Drop what was written: ``path`` keeps what it held."""
        with contextlib.suppress(OSError, ValueError):  # the file goes anyway (a full disk)
            if self._gz is not None:
                self._gz.close()
        self._raw.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()
