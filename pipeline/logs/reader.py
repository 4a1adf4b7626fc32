"""Pick the reader for a log file by its name (JSON Lines or CSV, plain or gzip) or, for the
score sheets (:mod:`pipeline.logs.scoresheet`, each a game's shape), by its content;
``--format`` names it.

>>> log_shape(Path("day1.jsonl.gz")), log_shape(Path("day1.csv")), log_shape(Path("games.csv"))
('jsonl', 'csv', None)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import LogFormatError
from pipeline.logs.csv_logs import is_games_csv, read_csv
from pipeline.logs.encodings import utf16_advice
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES, read_jsonl
from pipeline.logs.model import GameRecord, Reject
from pipeline.logs.scoresheet import SHEET_SHAPES, SheetRules, read_sheet, sheet_shape_of

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
CSV_SUFFIXES = (".csv", ".csv.gz")
#: The shapes a file is read as a log in, for the messages about files that are none.
LOG_NAMES = (
    f"{', '.join(JSONL_SUFFIXES + CSV_SUFFIXES)}, a tab-separated .tsv or .txt score sheet or a "
    "big-two-scorer .txt"
)
#: The shapes ``--format`` may name.
LOG_FORMATS = ("jsonl", "csv", *SHEET_SHAPES)


def log_shape(path: Path, log_format: str | None = None) -> str | None:
    """``"jsonl"``, ``"csv"`` (an actions CSV), a score sheet's shape (``"sheet"``: a CSV score
    sheet, told by its header; ``"scorer"``: a big-two-scorer ``.txt``, told by its content),
    or None (a games CSV or not a log). ``log_format`` (``--format``) names the shape instead."""
    if log_format is not None:
        return log_format
    name = path.name.lower()
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    sheet = sheet_shape_of(path)
    if sheet is not None:
        return sheet
    if name.endswith(CSV_SUFFIXES) and not is_games_csv(path):
        return "csv"
    return None


def read_log(
    path: str | Path,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    log_format: str | None = None,
    rules: SheetRules | None = None,
) -> Iterator[GameRecord | Reject]:
    """Stream one log file: a record or a reject per game (bad input never raises).

    A file that cannot be opened, or whose name is not a log shape, raises
    :class:`LogFormatError` (``E_FILE``): that is unusable input, not a rejected game.
    ``rules``: the ruleset of a score sheet that names none (``--ruleset``, ``--set``).
    """
    path = Path(path)
    shape = log_shape(path, log_format)
    if shape in SHEET_SHAPES:
        return read_sheet(shape, path, rules or SheetRules())
    if shape == "jsonl":
        return read_jsonl(path, max_line_bytes=max_line_bytes)
    if shape == "csv":
        return read_csv(path, max_line_bytes=max_line_bytes)
    raise LogFormatError(
        "E_FILE",
        f"{str(path)!r} is not a log: expected {LOG_NAMES} (a games CSV is read with its "
        f"actions CSV; --format names the shape of any other file){utf16_advice([path])}",
        file=str(path),
    )
