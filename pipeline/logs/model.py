"""Typed game records, as parsed from any log shape (JSON Lines, CSV) before replay.

These are plain data, the same for every game: cards are already parsed into the game's
canonical ids / masks, seats are 0-based and numbered in counter-clockwise order. Nothing here
imports a game: each game's parser (:mod:`pipeline.games`) fills a :class:`GameRecord` with its
own actions and declared result (Big Two's: :mod:`pipeline.big2.logformat`), and
:mod:`pipeline.replay` feeds a record to its game.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


def file_label(path: str | os.PathLike[str]) -> str:
    r"""A file's name as stored in ``Source.file``: bytes of the name that are not UTF-8 (Python
    holds them as surrogate escapes, which no UTF-8 column stores) written as ``\xff``.

    >>> file_label("logs/day1.jsonl"), file_label("logs/d\udcff.jsonl")
    ('logs/day1.jsonl', 'logs/d\\xff.jsonl')
    """
    name = os.fspath(path)
    if name.isascii():
        return name
    try:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no byte escape
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a record came from: file and 1-based line (CSV: the first row of the game)."""

    file: str
    line: int


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A player at a seat."""

    seat: int
    player_id: str
    name: str | None = None
    balance: float | None = None  # starting bankroll balance for the match, when given


#: The three information levels of a game (docs/log-format.md): the deal, the plays, the result.
INFO_LEVELS = ("full", "partial", "result")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game from a log, parsed but not yet replayed."""

    game_id: str
    content_hash: str  # sha256 of the game's canonical JSON: duplicate / conflict detection
    game_kind: str  # the game (pipeline.games): "big2", "doudizhu"
    ruleset: str
    overrides: tuple[tuple[str, Any], ...]
    seats: tuple[SeatInfo, ...]
    actions: tuple[Any, ...]  # the game's logged actions (Big Two: big2.logformat.LogAction)
    match_id: str | None = None
    game_number: int = 1
    table_id: str | None = None
    tournament_id: str | None = None
    started_at: str | None = None  # ISO 8601 as logged
    hands: tuple[int, ...] | None = None  # full deal, one mask per seat; None = partial info
    declared: Any = None  # the result the log claims (Big Two: big2.logformat.DeclaredResult)
    truth: dict[str, Any] | None = field(default=None, compare=False)  # simulator ground truth
    format_version: int = 1
    tournament_kind: str | None = None  # e.g. "knockout" (晉級賽) or "points" (積分賽)
    tournament_round: int | None = None
    sheet: Any = None  # a result-only game: its sheet line (Big Two: big2.scoresheet.SheetResult)
    source: Source | None = field(default=None, compare=False)  # where the record was read
    raw: str = field(default="", compare=False, repr=False)  # the record as read (for rejects)

    @property
    def info_level(self) -> str:
        """``full`` (the deal), ``partial`` (the plays) or ``result`` (a score sheet's line).

        >>> GameRecord("g", "", "big2", "hk", (), (), ()).info_level
        'partial'
        """
        if self.sheet is not None:
            return "result"
        return "partial" if self.hands is None else "full"


#: Rejects of one file an import stores one by one; the rest are counted in one summary row
#: (``big2 ingest --max-rejects-per-file``).
DEFAULT_MAX_REJECTS_PER_FILE = 1000


@dataclass(frozen=True, slots=True)
class Reject:
    """A game that could not be read or replayed, with the evidence (one rejects-table row).

    ``action_index`` is the 0-based index into the game's actions, when one action is at
    fault; ``raw`` is the record as read (capped for over-long lines).
    """

    source: Source
    game_id: str | None
    action_index: int | None
    code: str
    message: str
    raw: str
