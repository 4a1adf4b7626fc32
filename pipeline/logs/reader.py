"""Pick the reader for a log file by its name: JSON Lines or CSV, plain or gzip.

>>> log_shape(Path("day1.jsonl.gz")), log_shape(Path("day1.csv")), log_shape(Path("games.csv"))
('jsonl', 'csv', None)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import LogFormatError
from pipeline.logs.csv_logs import is_games_csv, read_csv
from pipeline.logs.jsonl import DEFAULT_MAX_LINE_BYTES, read_jsonl
from pipeline.logs.model import GameRecord, Reject

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")
CSV_SUFFIXES = (".csv", ".csv.gz")


def log_shape(path: Path) -> str | None:
    """``"jsonl"``, ``"csv"`` (an actions CSV), or None (a games CSV or not a log)."""
    name = path.name.lower()
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(CSV_SUFFIXES) and not is_games_csv(path):
        return "csv"
    return None


def read_log(
    path: str | Path, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[GameRecord | Reject]:
    """Stream one log file: a record or a reject per game (bad input never raises).

    A file that cannot be opened, or whose name is not a log shape, raises
    :class:`LogFormatError` (``E_FILE``): that is unusable input, not a rejected game.
    """
    path = Path(path)
    shape = log_shape(path)
    if shape == "jsonl":
        return read_jsonl(path, max_line_bytes=max_line_bytes)
    if shape == "csv":
        return read_csv(path, max_line_bytes=max_line_bytes)
    raise LogFormatError(
        "E_FILE",
        f"{str(path)!r} is not a log: expected {', '.join(JSONL_SUFFIXES + CSV_SUFFIXES)} "
        "(a games CSV is read with its actions CSV)",
        file=str(path),
    )
