"""Write log files (docs/log-format.md), whatever their game.

:class:`LogWriter` streams game objects as JSON Lines, gzip-compressed for ``.gz`` (with a
fixed header, so the same games give the same bytes); :func:`dumps` writes one game as one
line, :func:`seats_of` the envelope's ``seats``. Each game turns a played game into its log
object itself (Big Two: :func:`pipeline.big2.logwriter.game_log`).

>>> dumps({"game_id": "g1", "seats": seats_of(["a", "b"])})
'{"game_id": "g1", "seats": [{"seat": 0, "player_id": "a"}, {"seat": 1, "player_id": "b"}]}'
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from isal import igzip

#: ISA-L's deflate level of :class:`LogWriter` (0-3; 2, its default: 4.3x zlib's level 2 on a
#: log here, 0.17 against 0.72 CPU-s for 80 MB, and 1.5 % smaller; zlib's level 9 cost ~4x the
#: native simulator's own time)
GZIP_LEVEL = 2


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


class LogWriter:
    """Stream JSON lines into ``.jsonl`` or ``.jsonl.gz`` (fixed gzip header: same input, same bytes).

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
        self._raw: IO[bytes] = self.path.open("wb")
        self._gz: gzip.GzipFile | None = None
        if self.path.name.endswith(".gz"):
            self._gz = igzip.IGzipFile(  # type: ignore[no-untyped-call]
                filename="", mode="wb", fileobj=self._raw, mtime=0, compresslevel=GZIP_LEVEL
            )
        target = self._raw if self._gz is None else self._gz
        self._out = io.TextIOWrapper(target, encoding="utf-8", newline="\n")

    def write_line(self, line: str) -> None:
        """Write one game already serialised by :func:`dumps`."""
        self._out.write(line)
        self._out.write("\n")
        self.count += 1

    def write(self, game: Mapping[str, Any]) -> None:
        self.write_line(dumps(game))

    def close(self) -> None:
        self._out.flush()
        self._out.detach()
        if self._gz is not None:
            self._gz.close()
        self._raw.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
