"""Turn a played game into a log object (docs/log-format.md), and write log files.

:func:`game_log` is the one way a game played by the engine becomes a log object: the
simulator (:mod:`pipeline.sim`) and the samples (:mod:`pipeline.sim.sample`) both use it.
:class:`LogWriter` streams objects as JSON Lines, gzip-compressed for ``.gz`` (with a fixed
header, so the same games give the same bytes).

>>> import random
>>> from pipeline.big2.playout import random_playout
>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.big2.playout import deal
>>> rs = load_ruleset("hk")
>>> hands, stock = deal(rs, random.Random(3))
>>> game, _ = random_playout(rs, random.Random(3), hands=hands, stock=stock)
>>> meta = GameMeta(game_id="g1", preset="hk", seats=seats_of(["a", "b", "c", "d"]))
>>> obj = game_log(game, meta=meta, hands=hands, stock=stock)
>>> obj["game_id"], len(obj["actions"]) == len(game.history), obj["result"]["winner"] == game.result.winner
('g1', True, True)
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from pipeline.big2.state import ActionRecord, ActionType, Game
from pipeline.cards import cards_of, format_card, format_cards

FORMAT_VERSION = 1
#: gzip level of :class:`LogWriter` (fast deflate: level 9 cost ~4x the native simulator's time)
GZIP_LEVEL = 2


class Notation(StrEnum):
    """How cards are written in a log: ``3d 4c`` (compact), ``3♦4♣`` (pretty), ``["3d", "4c"]`` (list)."""

    COMPACT = "compact"
    PRETTY = "pretty"
    LIST = "list"


def cards_text(mask: int, notation: Notation = Notation.COMPACT) -> str | list[str]:
    """A card mask in one of the log notations.

    >>> from pipeline.cards import mask_of, parse_cards
    >>> m = mask_of(parse_cards("3d 4c"))
    >>> cards_text(m), cards_text(m, Notation.PRETTY), cards_text(m, Notation.LIST)
    ('3d 4c', '3♦4♣', ['3d', '4c'])
    """
    if notation == Notation.PRETTY:
        return format_cards(mask)
    if notation == Notation.LIST:
        return [format_card(c, compact=True) for c in cards_of(mask)]
    return format_cards(mask, compact=True)


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


@dataclass(frozen=True, kw_only=True)
class GameMeta:
    """What a log says about a game besides its deal and actions."""

    game_id: str
    preset: str
    seats: Sequence[Mapping[str, Any]]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    match_id: str | None = None
    game_number: int = 1
    table_id: str | None = None
    started_at: datetime | None = None
    previous_winner: int | None = None


def action_entry(
    record: ActionRecord, notation: Notation = Notation.COMPACT, ts: float | None = None
) -> dict[str, Any]:
    """One engine record as a log action (a swap's shown card is implied by the deal)."""
    entry: dict[str, Any] = {"seat": record.seat, "action": record.type.value}
    if record.type == ActionType.PLAY:
        entry["cards"] = cards_text(record.cards, notation)
    elif record.type == ActionType.CLAIM:
        assert record.claim is not None
        entry["claim"] = record.claim.value
    elif record.type == ActionType.PASS and record.drawn is not None:
        entry["drawn"] = format_card(record.drawn, compact=True)
    if ts is not None:
        entry["ts"] = ts
    return entry


def game_log(
    game: Game,
    *,
    meta: GameMeta,
    hands: Sequence[int],
    stock: Sequence[int] = (),
    times: Sequence[float] | None = None,
    notation: Notation = Notation.COMPACT,
    truth: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A finished game as a full-information log object.

    ``hands`` and ``stock`` are the deal as dealt (before any leftover joins a hand);
    ``times`` one Unix timestamp per action of ``game.history``.
    """
    result = game.result
    if result is None:
        raise ValueError(f"game {meta.game_id} is not finished")
    if times is not None and len(times) != len(game.history):
        raise ValueError(f"{len(times)} timestamps for {len(game.history)} actions")
    actions = [
        action_entry(r, notation, None if times is None else times[i])
        for i, r in enumerate(game.history)
    ]
    obj: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "game_kind": "big2",
        "game_id": meta.game_id,
        "ruleset": {"preset": meta.preset, "overrides": dict(meta.overrides)},
        "match_id": meta.match_id,
        "game_number": meta.game_number,
        "table_id": meta.table_id,
        "started_at": None if meta.started_at is None else meta.started_at.isoformat(),
        "seats": [dict(s) for s in meta.seats],
        "deal": {
            "hands": [cards_text(h, notation) for h in hands],
            "stock": [format_card(c, compact=True) for c in stock],
        },
        "previous_winner": meta.previous_winner,
        "actions": actions,
        "result": {"winner": result.winner, "cards_left": list(result.cards_left)},
    }
    if truth is not None:
        obj["truth"] = dict(truth)
    return obj


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
            self._gz = gzip.GzipFile(
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
