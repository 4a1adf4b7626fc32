"""Score sheets, whatever their game: files of games recorded only by their result
(information level ``result``), which name no ``game_kind`` and often no rules.

Each shape belongs to a game, registered in :data:`pipeline.games.SHEETS` (Big Two's CSV score
sheet and big-two-scorer text: :mod:`pipeline.big2.scoresheet`); :func:`sheet_shape_of` tells a
file's shape by asking each in turn, :func:`read_sheet` hands the file to its game's reader.
:class:`SheetRules` are the rules a sheet that names none is stored with (``big2 ingest
--ruleset PRESET --set key=value``).

>>> from pathlib import Path
>>> SHEET_SHAPES, sheet_shape_of(Path("day1.jsonl")), SheetRules().preset is None
(('sheet', 'scorer'), None, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.games import SHEETS, sheet_shape
from pipeline.logs.model import GameRecord, Reject

#: ``--format`` values of the score sheets, in the order a file's content is tried.
SHEET_SHAPES = tuple(SHEETS)


@dataclass(frozen=True, slots=True)
class SheetRules:
    """The rules of a score sheet that names none: a preset (None: the sheet's game's
    default) and overrides (``--ruleset``, ``--set``), stored with each game like any log's
    ruleset."""

    preset: str | None = None
    overrides: tuple[tuple[str, Any], ...] = ()


def sheet_shape_of(path: Path) -> str | None:
    """The first score-sheet shape a file reads as (its name, then its content), or None."""
    return next((name for name in SHEET_SHAPES if sheet_shape(name).looks_like(path)), None)


def read_sheet(shape: str, path: Path, rules: SheetRules) -> Iterator[GameRecord | Reject]:
    """Stream a score sheet of ``shape``: a record per game, a reject per line it cannot read."""
    items: Iterator[GameRecord | Reject] = sheet_shape(shape).read(path, rules)
    return items
