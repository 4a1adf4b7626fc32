"""The CSV reader: an actions CSV (one row per action) plus a small games CSV.

The actions CSV has the header ``game_id,seq,seat,action,cards,ts`` (optional extra
columns ``claim`` and ``drawn`` for Big Two, ``value`` and ``kind`` for Dou Dizhu); a game's
rows are consecutive and numbered by ``seq`` (1, 2, 3 … or 0, 1, 2 …). The games CSV —
``<stem>.games.csv`` next to the actions file, else ``games.csv`` in the same folder — has one
row per game (see docs/log-format.md); its ``game_kind`` column says the game (``big2`` when
empty, or ``doudizhu`` with the Dou Dizhu columns: kitty, set-aside and face-up cards, first
bidder and the declared result).

Each game is turned into the same object as a JSON Lines game and checked by its game's parser
(:func:`pipeline.logs.records.parse_game`, through :mod:`pipeline.games`, as for JSON Lines);
its content hash is that object's, so a game hashes the same in either shape. The actions CSV
is streamed game by game; the games CSV only as far as the game whose actions come
(:class:`_GamesCsv`), so a pair in one order of games is read in bounded memory.

>>> games_csv_for(Path("logs/day1.csv")).name, is_games_csv(Path("logs/day1.games.csv"))
('day1.games.csv', True)
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

from pipeline.errors import E_CSV_COLUMN, E_GAME_TOO_LONG, LogFormatError
from pipeline.games import DEFAULT_KIND, CsvColumns, find_game, game_for, kinds
from pipeline.logs.jsonl import (
    DEFAULT_MAX_LINE_BYTES,
    RAW_PREFIX_BYTES,
    READ_ERRORS,
    open_log,
    read_failure,
)
from pipeline.logs.model import GameRecord, Reject, Source, file_label
from pipeline.logs.records import MAX_ACTIONS, check_surrogates, parse_game

ACTION_COLUMNS = ("game_id", "seq", "seat", "action", "cards", "ts")
GAME_COLUMNS = ("game_id", "ruleset", "players")
#: The optional games-CSV columns every game reads (``hands`` and ``winner`` through the
#: game's own :attr:`pipeline.games.CsvColumns.fill`); each game adds its own columns.
SHARED_GAME_COLUMNS = (
    "game_kind", "overrides", "match_id", "game_number", "table_id", "tournament_id",
    "tournament_kind", "tournament_round", "started_at", "names", "hands", "winner",
)  # fmt: skip


@cache
def _games_csv() -> tuple[CsvColumns, ...]:
    return tuple(game_for(kind).csv for kind in kinds())


def optional_game_columns() -> tuple[str, ...]:
    """The shared optional games-CSV columns, then each registered game's own.

    >>> optional_game_columns()[len(SHARED_GAME_COLUMNS):][:2]
    ('stock', 'start_counts')
    """
    return SHARED_GAME_COLUMNS + tuple(c for g in _games_csv() for c in g.game_columns)


def optional_action_columns() -> tuple[str, ...]:
    """Each registered game's own actions-CSV columns.

    >>> optional_action_columns()
    ('claim', 'drawn', 'value', 'kind')
    """
    return tuple(c for g in _games_csv() for c in g.action_columns)


_SURROGATE = re.compile("[\udc80-\udcff]")
_TOO_LONG = "\x00too-long\x00"


SHARED_GAMES_CSV = ("games.csv", "games.csv.gz")
"""A folder's games CSV, for the actions CSVs without their own, plain before gzipped."""


def is_games_csv(path: Path) -> bool:
    """Whether a file is a games CSV (read with its actions CSV, not on its own)."""
    name = path.name.removesuffix(".gz")
    return name == "games.csv" or name.endswith(".games.csv")


def games_csv_for(path: Path) -> Path:
    """The games CSV that goes with an actions CSV, the first that exists of ``<stem>.games.csv``,
    ``<stem>.games.csv.gz``, ``games.csv``, ``games.csv.gz`` (its own before the folder's, each
    plain before gzipped, whether the actions CSV is gzipped or not); none: ``<stem>.games.csv``,
    whose E_CSV_GAMES_FILE reject names it.

    >>> games_csv_for(Path("nowhere/day1.csv.gz")).name
    'day1.games.csv'
    """
    name = path.name.removesuffix(".gz").removesuffix(".csv")
    own = path.with_name(f"{name}.games.csv")
    for candidate in (own, own.with_name(f"{own.name}.gz"), *map(path.with_name, SHARED_GAMES_CSV)):
        if candidate.exists():
            return candidate
    return own


def is_shared_games_csv(path: Path) -> bool:
    """Whether a games CSV is a folder's (``games.csv`` or ``games.csv.gz``), which several
    actions CSVs may share, rather than one actions CSV's own.

    >>> is_shared_games_csv(Path("logs/games.csv.gz")), is_shared_games_csv(Path("logs/d1.games.csv"))
    (True, False)
    """
    return path.name in SHARED_GAMES_CSV


class _Lines:
    """Decoded lines for :mod:`csv`, each read with a byte cap; over-long lines are noted."""

    def __init__(self, fh: IO[bytes] | _Source, max_line_bytes: int) -> None:
        self.fh = fh
        self.cap = max_line_bytes
        self.too_long: dict[int, tuple[int, str]] = {}  # physical line → (bytes, prefix)
        self.line = 0
        self.not_utf8 = 0  # lines read so far with bytes that are not UTF-8
        self.last = ""  # the last line read

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = self.fh.readline(self.cap + 1)
        if not line:
            raise StopIteration
        self.line += 1
        if len(line) > self.cap and not line.endswith(b"\n"):
            prefix, size = line[:RAW_PREFIX_BYTES], len(line)
            while not line.endswith(b"\n"):
                line = self.fh.readline(1 << 16)
                if not line:
                    break
                size += len(line)
            self.too_long[self.line] = (size, prefix.decode("utf-8", "backslashreplace"))
            return _TOO_LONG + "\n"
        text = line.decode("utf-8", "surrogateescape")
        if self.line == 1:
            text = text.removeprefix("\ufeff")
        if not text.isascii() and _SURROGATE.search(text):
            self.not_utf8 += 1
        self.last = text
        return text


def _cell_text(cell: str) -> str:
    """A cell as storable text: bytes that were not UTF-8 written as ``\\xff`` escapes."""
    if not _SURROGATE.search(cell):
        return cell
    return cell.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _raw_text(rows: list[list[str]], delimiter: str = ",") -> str:
    r"""Rows as a reject keeps them: CSV text (tab-separated for a file so,
    :func:`header_delimiter`), each cell as :func:`_cell_text` writes it.

    >>> _raw_text([["a", "b,c"], ["\udcff"]]), _raw_text([["a", "b,c"]], "\t")
    ('a,"b,c"\n\\xff', 'a\tb,c')
    """
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    text = out.getvalue()
    if not text.isascii() and _SURROGATE.search(text):  # a cell to escape: each, again
        out = io.StringIO()
        writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
        writer.writerows([list(map(_cell_text, r)) for r in rows])
        text = out.getvalue()
    return text.rstrip("\n")


def _delimited(lines: _Lines) -> tuple[str, Iterator[str]]:
    """A CSV file's delimiter, told by its first line (:func:`header_delimiter`), and its
    lines from that one on, for ``csv.reader``."""
    first = next(lines, None)
    if first is None:
        return ",", lines
    return header_delimiter(first), itertools.chain([first], lines)


def unknown_columns(kind: str, unknown: list[str], known: tuple[str, ...]) -> str:
    """The message of an ``E_CSV_COLUMN`` reject.

    >>> unknown_columns("actions", ["server_ms"], ("game_id", "seq"))
    "actions CSV header: unknown column(s) 'server_ms' ignored, their values not imported (the games are read from the known columns: game_id, seq)"
    """
    names = ", ".join(repr(_cell_text(c)) for c in unknown)
    return (
        f"{kind} CSV header: unknown column(s) {names} ignored, their values not imported "
        f"(the games are read from the known columns: {', '.join(known)})"
    )


def header_delimiter(header: str) -> str:
    r"""The delimiter of a CSV file, told by its header line: a tab when the line has tabs and
    no comma (Excel's "Unicode text", once converted to UTF-8, is tab-separated), else a comma.

    >>> header_delimiter("game_id\tseq\tseat\r\n"), header_delimiter("date,match,notes\tx\n")
    ('\t', ',')
    """
    return "\t" if "\t" in header and "," not in header else ","


def unnamed_columns(header: Sequence[str]) -> list[int]:
    """The columns a CSV header names not (an empty cell, as Excel writes its trailing empty
    columns, ``game_id,seq,…,ts,,,``): ignored while their cells are empty, never an unknown
    column; a value in one is ``E_CSV_COLUMN`` (:func:`unnamed_values`).

    >>> unnamed_columns(["game_id", "seq", "", "ts", "", ""])
    [2, 4, 5]
    """
    return [k for k, name in enumerate(header) if not name]


def filled_unnamed(row: Sequence[str], unnamed: Sequence[int]) -> list[tuple[int, str]]:
    """The cells of ``row`` with a value (what ``str.strip`` leaves) in the ``unnamed``
    columns, each as (column, cell).

    >>> filled_unnamed(["g1", "1", " ", "x"], [2, 3, 4])
    [(3, 'x')]
    """
    return [(k, row[k]) for k in unnamed if k < len(row) and row[k].strip()]


def unnamed_values(kind: str, filled: list[tuple[int, str]], line: int) -> str:
    """The message of an ``E_CSV_COLUMN`` reject for a value in a column the header names not
    (one a file, at its first such row; columns counted from 1, as a spreadsheet's).

    >>> unnamed_values("actions", [(6, "x")], 12)
    "actions CSV line 12: column 7 has no name in the header but holds 'x': the column is ignored, its values not imported (name it in the header, or clear it: a column with no name and nothing in it, as Excel writes empty ones, is ignored without a reject)"
    >>> unnamed_values("games", [(6, "x"), (8, "y")], 2)[:80]
    "games CSV line 2: columns 7, 9 have no name in the header but hold 'x', 'y': the"
    """
    columns = ", ".join(str(k + 1) for k, _ in filled)
    values = ", ".join(repr(_cell_text(v)[:80]) for _, v in filled)
    which = (
        f"column {columns} has no name in the header but holds {values}: the column is"
        if len(filled) == 1
        else f"columns {columns} have no name in the header but hold {values}: the columns are"
    )
    return (
        f"{kind} CSV line {line}: {which} ignored, {'its' if len(filled) == 1 else 'their'}"
        " values not imported (name it in the header, or clear it: a column with no name and"
        " nothing in it, as Excel writes empty ones, is ignored without a reject)"
    )


def int_cell(text: str, path: str, action_index: int | None = None) -> int:
    try:
        return int(text)
    except ValueError:
        raise LogFormatError(
            "E_SCHEMA",
            f"{path}: expected a whole number, got {text!r}",
            path=path,
            action_index=action_index,
        ) from None


def ints_cell(text: str, path: str) -> list[int]:
    return [int_cell(t, f"{path}[{k}]") for k, t in enumerate(text.split("|"))]


def number_cell(text: str, path: str) -> int | float:
    """A whole number, else a decimal one (a Dou Dizhu amount under a fractional stake).

    >>> number_cell("24", "games.amount"), number_cell("-1.5", "games.scores[1]")
    (24, -1.5)
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise LogFormatError(
            "E_SCHEMA", f"{path}: expected a number, got {text!r}", path=path
        ) from None
    return value


def bool_cell(text: str, path: str) -> bool:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    raise LogFormatError("E_SCHEMA", f"{path}: expected true or false, got {text!r}", path=path)


@dataclass(slots=True)
class _GamesHeader:
    """A games CSV's header and what reading each row needs of it, worked out once."""

    names: list[str]
    raw: str  # as _raw_text writes it
    delimiter: str = ","  # a tab for a tab-separated file (header_delimiter)
    foreign: dict[str, list[tuple[str, str]]] = field(init=False, default_factory=dict)
    #: the known columns the header has not, each as an empty cell (a row's cells start so)
    blank: dict[str, str] = field(init=False)
    #: the columns it names not (:func:`unnamed_columns`)
    unnamed: list[int] = field(init=False)

    def __post_init__(self) -> None:
        known = GAME_COLUMNS + optional_game_columns()
        self.blank = {name: "" for name in known if name not in self.names}
        self.unnamed = unnamed_columns(self.names)

    def layout(self) -> tuple[int, list[tuple[str, int]], list[int], list[int], list[int]]:
        """What :meth:`PlainRowsOf.game_heads` takes of this header: its width, each column
        by name (the last of a name written twice, as a row's cells are looked up), the
        columns foreign to Big Two and to Dou Dizhu (:meth:`foreign_columns`), and those it
        names not.

        >>> _GamesHeader(["game_id", "kitty", "game_id", "stock", ""], "").layout()
        (5, [('game_id', 2), ('kitty', 1), ('stock', 3)], [1], [3], [4])
        """
        at = {name: k for k, name in enumerate(self.names) if name}
        foreign = [[at[name] for name, _ in self.foreign_columns(kind)] for kind in CORE_HEAD_KINDS]
        return len(self.names), list(at.items()), foreign[0], foreign[1], self.unnamed

    def foreign_columns(self, kind: str) -> list[tuple[str, str]]:
        """The other games' columns the header has, for a row of game ``kind`` (a cell in one
        is ``E_SCHEMA``): (column, its game's kind) each, worked out once a kind (``foreign``)."""
        got = self.foreign.get(kind)
        if got is None:
            mine = (find_game(kind) or game_for(DEFAULT_KIND)).csv
            got = self.foreign[kind] = [
                (name, other)
                for other in kinds()
                if game_for(other).csv is not mine
                for name in game_for(other).csv.game_columns
                if name in self.names
            ]
        return got


#: A :attr:`_GameRow.core_head` the core was not asked for (no object text is empty).
_NOT_MADE = ""


@dataclass(slots=True)
class _GameRow:
    """A games-CSV row as held until its game's actions come (:class:`_GamesCsv`): one text a
    row (its cells when they are asked for), as a file read ahead of its games may hold many."""

    game_id: str
    line: int
    header: _GamesHeader
    text: str  # the row's line, or as _raw_text writes it (csv.reader reads its cells back)
    #: its Big Two object's text as the core made it with the row (GameHeads.rows; None:
    #: Python makes it), or _NOT_MADE
    core_head: str | None = _NOT_MADE

    def cells(self) -> defaultdict[str, str]:
        """Each column's cell, stripped ("" for a column the header has not)."""
        row = next(csv.reader([self.text], delimiter=self.header.delimiter))
        cells = defaultdict(str, self.header.blank)
        cells.update(zip(self.header.names, map(str.strip, row), strict=True))
        return cells

    def raw(self) -> str:
        """The header and the row, as a reject keeps them."""
        return f"{self.header.raw}\n{self.text}"


def _game_obj(g: _GameRow) -> dict[str, Any]:
    """The JSON Lines object equivalent to one games-CSV row (actions added later)."""
    cell = g.cells().__getitem__

    overrides_text = cell("overrides") or "{}"
    if overrides_text == "{}":  # most rows: nothing to parse or check
        overrides: Any = {}
    else:
        try:
            overrides = json.loads(overrides_text)
        except ValueError as err:
            raise LogFormatError(
                "E_SCHEMA", f"games.overrides: not JSON ({err})", path="games.overrides"
            ) from None
        check_surrogates({"games.overrides": overrides})
    players = [p.strip() for p in cell("players").split("|")] if cell("players") else []
    names = cell("names").split("|") if cell("names") else []
    seats: list[dict[str, Any]] = []
    for s, pid in enumerate(players):
        seat: dict[str, Any] = {"seat": s, "player_id": pid}
        if s < len(names) and names[s]:
            seat["name"] = names[s]
        seats.append(seat)
    kind = cell("game_kind") or "big2"
    obj: dict[str, Any] = {
        "format_version": 1,
        "game_kind": kind,
        "game_id": cell("game_id"),
        "ruleset": {"preset": cell("ruleset"), "overrides": overrides},
        "seats": seats,
    }
    for name in ("match_id", "table_id", "tournament_id", "tournament_kind", "started_at"):
        if cell(name):
            obj[name] = cell(name)
    for name in ("game_number", "tournament_round"):
        if cell(name):
            obj[name] = int_cell(cell(name), f"games.{name}")
    for name, other_kind in g.header.foreign_columns(kind):
        if cell(name):
            raise LogFormatError(
                "E_SCHEMA",
                f"games.{name}: a {game_for(other_kind).csv.title} column, on {kind} game "
                f"{cell('game_id')!r} (set game_kind = {other_kind})",
                path=f"games.{name}",
            )
    (find_game(kind) or game_for(DEFAULT_KIND)).csv.fill(cell, obj)
    return obj


def _action_objs(rows: list[list[str]], at: dict[str, int], kind: str) -> list[dict[str, Any]]:
    """A game's action rows as JSON Lines objects, each row as long as the header (the reader
    checked), ``at`` the column of each name (the last of a name written twice): ``seat``,
    ``action``, then the cards and each optional column the row fills, then ``ts`` (a number,
    else the text: an ISO 8601 time, checked with the rest of the game).

    >>> _action_objs([["g", "1", "0", "play", "3d", "7.5"]],
    ...              {"seat": 2, "action": 3, "cards": 4, "ts": 5}, "big2")
    [{'seat': 0, 'action': 'play', 'cards': '3d', 'ts': 7.5}]
    """
    game = find_game(kind)
    cells = [(n, at[n]) for n in ("cards", *optional_action_columns()) if n in at]
    foreign = {  # another game's columns: a row filling one is the game's error
        n
        for n, _ in cells
        if game is not None and n != "cards" and n not in game.csv.action_columns
    }
    seat_at, action_at, ts_at = at["seat"], at["action"], at["ts"]
    out: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        seat = row[seat_at].strip()
        try:
            obj: dict[str, Any] = {"seat": int(seat), "action": row[action_at].strip()}
        except ValueError:
            int_cell(seat, f"actions[{index}].seat", index)  # raises its error
            raise
        for name, i in cells:
            text = row[i].strip()
            if not text:
                continue
            if name in foreign:
                raise _foreign_column(name, text, index, kind)
            obj[name] = (
                int_cell(text, f"actions[{index}].value", index) if name == "value" else text
            )
        ts = row[ts_at].strip()
        if ts:
            try:
                obj["ts"] = float(ts)
            except ValueError:
                obj["ts"] = ts  # an ISO 8601 time; checked with the rest of the game
        out.append(obj)
    return out


def _foreign_column(name: str, text: str, index: int, kind: str) -> LogFormatError:
    """The error of an action row filling another game's column."""
    owner = next(g for g in _games_csv() if name in g.action_columns)
    path = f"actions[{index}].{name}"
    return LogFormatError(
        "E_SCHEMA",
        f"{path}: {text!r} in a {kind} game ({name} is a {owner.title} column)",
        path=path,
        action_index=index,
    )


@dataclass(slots=True)
class _Group:
    game_id: str
    line: int
    rows: list[list[str]] = field(default_factory=list)  # the rows kept (MAX_ACTIONS)
    problem: tuple[str, str, int | None] | None = None  # code, message, action index
    last_seq: int | None = None
    n_rows: int = 0  # every row of the game, also those beyond MAX_ACTIONS that are not kept
    last_line: int = 0


def _parsed(obj: dict[str, Any], source: Source, game_id: str, raw: str) -> GameRecord | Reject:
    """A CSV game's object read by its game's parser: its record, or its reject (``raw``: the
    game's CSV rows)."""
    try:
        return parse_game(obj, source=source, raw=raw)
    except LogFormatError as err:
        return Reject(source, game_id, err.context.get("action_index"), err.code, err.message, raw)


def _finite(value: Any) -> bool:
    """Whether no float in ``value`` is NaN or infinite.

    >>> _finite({"a": [1, 2.5, None]}), _finite({"a": [float("nan")]})
    (True, False)
    """
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def json_line(obj: dict[str, Any]) -> bytes | None:
    """The JSON line a game's object equals (orjson's compact text, UTF-8), or None when it
    has none that reads back the same: an integer beyond 64 bits (orjson refuses it), a NaN or
    an infinity (orjson writes ``null``), a lone surrogate.

    >>> json_line({"a": [1, 2.5], "b": "♦"}).decode()
    '{"a":[1,2.5],"b":"♦"}'
    >>> json_line({"ts": float("inf")}), json_line({"n": 2**70}), json_line({"n": None})
    (None, None, b'{"n":null}')
    """
    try:
        text = orjson.dumps(obj)
    except orjson.JSONEncodeError:
        return None
    if b"null" in text and not _finite(obj):  # a NaN or an infinity is written as null
        return None
    return text


@dataclass(slots=True)
class CsvGame:
    """A CSV game in good shape as the JSON line it equals (:func:`read_csv_lines`), for the
    native core to read and replay as it reads a JSON Lines game; the same game for the
    Python path (:meth:`record`) where the core leaves it to Python. Not frozen: a frozen
    dataclass is made ~4× slower, and the reading thread makes one a game."""

    source: Source
    game_id: str
    text: bytes  # the game's JSON line (json_line), UTF-8
    #: its games-CSV and actions-CSV rows, headers first, as a reject keeps them: the text, or
    #: the text up to the action rows and those rows as the core read them (UTF-8), joined
    #: only for a reject (:attr:`raw`); on the core, the games-CSV row (``row``) is put before
    #: the text then too, not for every game
    raw_head: str
    raw_rows: bytes | None = None
    row: _GameRow | None = None
    #: a cell of ``raw_rows`` is in quotes: a reject keeps the rows as ``csv.writer`` writes
    #: their cells, not as they stand
    quoted: bool = False

    @property
    def raw(self) -> str:
        """The game's CSV rows, as a reject keeps them."""
        head = self.raw_head if self.row is None else f"{self.row.raw()}\n{self.raw_head}"
        if self.raw_rows is None:
            return head
        rows = self.raw_rows.decode()
        if self.quoted:  # the core read each cell as csv.reader does
            rows = _raw_text(list(csv.reader(rows.split("\n"))))
        return f"{head}\n{rows}"

    def record(self) -> GameRecord | Reject:
        """The game read by its game's parser, as :func:`read_csv` gives it."""
        return _parsed(orjson.loads(self.text), self.source, self.game_id, self.raw)


class PlainRows(Protocol):
    """The native core's reader of an actions CSV's plain rows (``big2_native.CsvGames``)."""

    def games(
        self, data: bytes, at_eof: bool, line: int, head: Callable[[str], tuple[str, int] | None]
    ) -> tuple[int, int, str, list[tuple[str, int, bytes, bytes, bool]]]:
        """The games of ``data`` (whole lines from a game's first row, ``line`` the first's
        number), each game's JSON object without its closing brace and the optional columns it
        may fill (a bit each) from ``head`` (None: the Python reader's): (bytes read, the line
        after them, ``"end"``, ``"more"`` or ``"python"``, the games read as ``(game_id, line,
        text, rows, quoted)``: the rows as they stand, ``quoted`` when a cell of them is in
        quotes)."""
        ...


class GameHeads(Protocol):
    """The core's Big Two games-CSV objects under one header (``big2_native.CsvGameHeads``)."""

    def head(self, text: str) -> str | None:
        """A Big Two games-CSV row's JSON object without its closing brace, as
        :func:`_game_obj` and :func:`json_line` make it, when the row leaves no doubt (one
        line, each cell without a quote or wholly in quotes with none inside, whole numbers as
        digits, texts with no escape, ``overrides`` empty or
        ``{}``, no other game's column filled); else None (then they make it)."""
        ...

    def rows(
        self, data: bytes, at_eof: bool, line: int, cap: int
    ) -> tuple[int, int, str, list[tuple[str, int, str, str | None]]]:
        """The games CSV's rows in ``data`` (whole lines after its header, ``line`` the first's
        number; ``at_eof``: the file ends with them), blank ones skipped, while they are plain
        (one line, no NUL or carriage return inside, each cell without a quote or wholly in
        quotes with none inside, UTF-8, under the cap ``cap``, as many cells as the header):
        (bytes read, the line after them, ``"end"``, ``"more"`` or ``"python"``: ``csv.reader``
        reads the row there, the rows as ``(game_id, line, text, head)``, ``head`` as
        :meth:`head` answers)."""
        ...


class IdNumbers(Protocol):
    """Game id → a number, as a dict of them answers (:class:`_CsvReader`'s ids): a ``dict``,
    or on the native core ``big2_native.GameIds`` (~31 bytes an id against a dict's ~130)."""

    def get(self, game_id: str, default: int, /) -> int: ...

    def __setitem__(self, game_id: str, n: int, /) -> None: ...

    def setdefault(self, game_id: str, n: int, /) -> int: ...


class PlainRowsOf(Protocol):
    """The native core's readers of a CSV pair's plain rows (``pipeline.native.csv_games``)."""

    def __call__(
        self,
        width: int,
        seq: int,
        seat: int,
        action: int,
        ts: int,
        optional: list[tuple[str, int, bool]],
        max_rows: int,
        cap: int,
        unnamed: list[int],
    ) -> PlainRows:
        """The reader of an actions header's plain rows: its width, seq, seat, action and ts
        columns, (name, column, whole number) of the cards and the optional columns, rows a
        game may have, the line cap, the columns the header names not (a game with a value
        in one is this reader's)."""
        ...

    def game_heads(
        self,
        width: int,
        columns: list[tuple[str, int]],
        foreign: list[int],
        foreign_ddz: list[int],
        unnamed: list[int],
    ) -> GameHeads:
        """The core's maker of games-CSV objects for a games header (its rows read by the
        core, :meth:`GameHeads.rows`, or the rows ``head`` asks for while
        :meth:`PlainRows.games` runs), Big Two's and Dou Dizhu's: its width, each column by
        name (the last of a name written twice), the columns it has of games other than
        Big Two and other than Dou Dizhu, and those it names not (``rows`` stops at a row with
        a value in one: ``csv.reader`` reads it)."""
        ...


#: The kinds of the games whose games-CSV objects the core makes (:meth:`PlainRowsOf.game_heads`),
#: and how a Dou Dizhu object it made starts.
CORE_HEAD_KINDS = (DEFAULT_KIND, "doudizhu")
_DDZ_HEAD = '{"format_version":1,"game_kind":"doudizhu",'

#: The core's reader of a header's plain rows, the games-CSV part of a game it asks for, the
#: header's raw, and, for each game it was handed in its last call, how many of the games CSV's
#: rejects had been met by then and the game's row (:meth:`_CsvReader._plain_core`).
_PlainCore = tuple[
    PlainRows, Callable[[str], tuple[str, int] | None], str, list[tuple[int, _GameRow]]
]

#: Bytes of an actions file handed to the core at a time.
_PLAIN_BLOCK = 1 << 20


class _Source:
    """A CSV file's bytes after its header (the actions file's or the games CSV's), a block at
    a time, for the core and the Python reader to take turns: whole lines from the position
    for the core (:meth:`lines`, then the position moved past what it read), a line at a time
    for the Python reader (:meth:`readline`, as a file's), and back to the start of the last
    line it read (:meth:`back`: that line is held until the position moves past it)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.buf = b""
        self.pos = 0  # where the next read starts
        self.last = 0  # where the last line readline gave starts
        self.eof = False
        self.error: BaseException | None = None  # a read that failed, raised at the next

    def more(self) -> bool:
        """Hold the file's next block too, letting go of what lies before ``last`` and the
        position; False at the file's end. A read that fails (a ``.gz`` cut short) raises
        once the bytes read before it are held (``read`` would lose them)."""
        if self.eof:
            return False
        if self.error is not None:
            raise self.error
        parts: list[bytes] = []
        size = 0
        while size < _PLAIN_BLOCK:
            try:
                part = self.fh.read1(_PLAIN_BLOCK - size)  # type: ignore[attr-defined]
            except READ_ERRORS as err:
                if not parts:
                    raise
                self.error = err
                break
            if not part:
                break
            parts.append(part)
            size += len(part)
        block = b"".join(parts)
        if not block:
            self.eof = True
            return False
        keep = min(self.last, self.pos)
        self.buf = self.buf[keep:] + block
        self.pos -= keep
        self.last -= keep
        return True

    def readline(self, limit: int) -> bytes:
        """The next line with its newline, at most ``limit`` bytes of it (``readline``'s)."""
        while True:
            end = self.buf.find(b"\n", self.pos, self.pos + limit)
            if end >= 0 or len(self.buf) - self.pos >= limit or not self.more():
                stop = end + 1 if end >= 0 else min(len(self.buf), self.pos + limit)
                self.last, self.pos = self.pos, stop
                return self.buf[self.last : stop]

    def held_lines(self) -> int:
        """The whole lines held past the position: read from the file, not yet taken."""
        return self.buf.count(b"\n", self.pos)

    def back(self) -> None:
        """Read again from the start of the last line :meth:`readline` gave."""
        self.pos = self.last

    def lines(self) -> tuple[bytes, bool]:
        """The whole lines held from the position (none when no newline is held yet), and
        whether the file ends with them (then the rest, a last line without its newline)."""
        if self.eof:
            return self.buf[self.pos :], True
        return self.buf[self.pos : self.buf.rfind(b"\n", self.pos) + 1], False


class _GamesCsv:
    """The games CSV, read only as far as the games asked for: a row is held from when it is
    read to when its game's actions take it. An export lists the games in the same order in
    both files, so a few rows are held at a time, not the file; rows read ahead of their games
    (another order, or a game with no row, which reads to the end) wait, at worst all of them.
    The rejects met on the way wait in :attr:`rejects` until the reader hands them on."""

    def __init__(self, rows: Iterator[Reject | _GameRow]) -> None:
        self.held: dict[str, _GameRow] = {}  # read, not yet taken, in the file's order
        self.more: Iterator[Reject | _GameRow] | None = rows
        self.rejects: list[Reject] = []

    def read_row(self) -> _GameRow | None:
        """The next row, now held (the rejects before it kept); None at the end."""
        while self.more is not None:
            got = next(self.more, None)
            if got is None:
                self.more = None
            elif isinstance(got, Reject):
                self.rejects.append(got)
            else:
                self.held[got.game_id] = got
                return got
        return None

    def find(self, game_id: str) -> _GameRow | None:
        """``game_id``'s row (the file read up to it), left held; None if the file has none."""
        row = self.held.get(game_id)
        while row is None and (got := self.read_row()) is not None:
            row = got if got.game_id == game_id else None
        return row

    def take(self, game_id: str) -> _GameRow | None:
        """:meth:`find`, the row no longer held."""
        row = self.find(game_id)
        if row is not None:
            del self.held[game_id]
        return row

    def handed(self, upto: int | None = None) -> Iterator[Reject]:
        """The rejects met so far (``upto``: the first that many of them), each once."""
        rejects = self.rejects[:upto]
        del self.rejects[:upto]
        yield from rejects

    def rest(self) -> list[_GameRow]:
        """The rows not taken, the file read to its end (its rejects kept)."""
        while self.read_row() is not None:
            pass
        return list(self.held.values())


class SharedGames:
    """A games CSV that several actions CSVs share (a folder's ``games.csv``, for the files
    without a ``<stem>.games.csv``: :func:`games_csv_for`), read once for all of them, as far
    as each one's games need, in the order ``users`` lists them (an import's order): the rows
    read ahead wait for a later file, the games CSV's own rejects come once, and the last
    file rejects ``E_CSV_NO_ACTIONS`` the rows no file had actions for (none when a file's
    actions header could not be read: it counts as having them all). A game whose actions
    come in two of the files takes its row again from a second reading of the games CSV,
    made for the later file (the first reading let go of the row when it was taken).

    Each file read alone reads the games CSV whole instead, rejecting every row it lacks
    (mostly the other files' games)."""

    def __init__(
        self, path: Path, users: Sequence[Path], id_numbers: Callable[[], IdNumbers] = dict
    ) -> None:
        self.path = path
        self.users = [Path(u) for u in users]
        self.rows: tuple[_GamesCsv, Generator[Reject | _GameRow, None, None]] | None = None
        # each game id met: its games-CSV row's line × (files + 1), + the number (from 1) of
        # the file its actions were read in (see _CsvReader.ids)
        self.ids = id_numbers()
        self.whole = False  # a file's actions header could not be read

    def tag(self, path: Path) -> int:
        """``path``'s number among the files that share this games CSV (from 1)."""
        return self.users.index(path) + 1

    def users_text(self) -> str:
        """The files that share the games CSV, as a reject names them.

        >>> shared = SharedGames(Path("logs/games.csv"), [Path("logs/d1.csv"), Path("logs/d2.csv")])
        >>> shared.tag(Path("logs/d2.csv")), shared.users_text()
        (2, 'the 2 actions CSVs that share it (d1.csv … d2.csv)')
        """
        first, last = self.users[0].name, self.users[-1].name
        return f"the {len(self.users)} actions CSVs that share it ({first} … {last})"

    def close(self) -> None:
        """Close the games CSV (at the last file's end, or when the import stops early)."""
        if self.rows is not None:
            self.rows[1].close()


class _CsvReader:
    def __init__(
        self,
        path: Path,
        games_path: Path,
        max_line_bytes: int,
        *,
        as_lines: bool = False,
        plain_rows: PlainRowsOf | None = None,
        shared: SharedGames | None = None,
        id_numbers: Callable[[], IdNumbers] = dict,
    ) -> None:
        self.path = path
        self.id_numbers = id_numbers
        self.as_lines = as_lines
        self.plain_rows = plain_rows  # the core's reader of plain rows (as_lines only)
        self.name = file_label(path)
        self.games_path = games_path
        self.cap = max_line_bytes
        self.games = _GamesCsv(iter(()))  # read() opens the games CSV
        self.shared = shared
        # a second reading of a shared games CSV, for the rows earlier files took
        self.again: tuple[_GamesCsv, Generator[Reject | _GameRow, None, None]] | None = None
        # each game id met, one entry (as many as the files hold: an IdNumbers, compact on the
        # core): its games-CSV row's line × ``base`` (0: none), + ``tag`` once its actions were
        # read in this file (see _seen; a games CSV shared by several files numbers them,
        # SharedGames)
        self.ids = id_numbers() if shared is None else shared.ids
        self.base = 2 if shared is None else len(shared.users) + 1
        self.tag = 1 if shared is None else shared.tag(path)
        self.header: list[str] = []
        # the lines of the actions and the games CSV being read, for a read that fails
        self.lines = self.games_lines = _Lines(io.BytesIO(), 0)
        self.plain_line = 0  # the line the core's reading of plain rows reached
        # the files' blocks the core and the Python reader take turns on (on the core)
        self.src = self.games_src = _Source(io.BytesIO())
        self.at: dict[str, int] = {}  # the actions header's column of each name (the last)
        self.seq_at = 0  # its seq column (the first)
        self.unnamed: list[int] = []  # its columns without a name (unnamed_columns)
        self.delimiter = ","  # its delimiter (header_delimiter)

    def _reject(
        self,
        line: int,
        game_id: str | None,
        code: str,
        message: str,
        raw: str,
        *,
        index: int | None = None,
        file: str | None = None,
    ) -> Reject:
        return Reject(Source(file or self.name, line), game_id, index, code, message, raw)

    def _seen(self, game_id: str) -> bool:
        """Whether ``game_id``'s actions were read in this file (its games-CSV row then taken
        or known to be missing: looking for it read that file to its end, so no row of it
        comes later)."""
        return self.ids.get(game_id, 0) % self.base == self.tag

    def _see(self, game_id: str) -> None:
        value = self.ids.get(game_id, 0)
        self.ids[game_id] = value - value % self.base + self.tag

    def _take(self, game_id: str) -> _GameRow | None:
        """``game_id``'s games-CSV row, no longer held; from a second reading of a shared
        games CSV when an earlier file took it (its actions came there too)."""
        value = self.ids.get(game_id, 0)
        if not (value % self.base and value // self.base):
            return self.games.take(game_id)
        if self.again is None:
            rows = self._game_rows(self.id_numbers())
            self.again = (_GamesCsv(rows), rows)
        again = self.again[0]
        row = again.take(game_id)
        again.rejects.clear()  # told by the first reading
        return row

    # ----- games CSV ---------------------------------------------------------------------
    def _game_rows(self, ids: IdNumbers | None = None) -> Generator[Reject | _GameRow, None, None]:
        """The games CSV's rows in order, and its rejects where they come (a row whose game
        has one already is rejected, the first kept; each game's line noted in ``ids``, by
        default :attr:`ids`); a read that fails (a ``.csv.gz`` cut short) its reject, last."""
        try:
            yield from self._game_rows_read(ids)
        except READ_ERRORS as err:
            line = self.games_lines.line + self.games_src.held_lines()
            yield read_failure(err, file_label(self.games_path), line)

    def _game_rows_read(
        self, ids: IdNumbers | None = None
    ) -> Generator[Reject | _GameRow, None, None]:
        ids = self.ids if ids is None else ids
        gname = file_label(self.games_path)
        try:
            fh = open_log(self.games_path)
        except LogFormatError as err:
            yield self._reject(
                0,
                None,
                "E_CSV_GAMES_FILE",
                f"no games CSV for {self.name}: {err.message}",
                "",
                file=gname,
            )
            return
        with fh:
            src = self.games_src = _Source(fh)  # on the core, the core and csv.reader take turns
            lines = self.games_lines = _Lines(fh if self.plain_rows is None else src, self.cap)
            sep, first_lines = _delimited(lines)  # a tab: Excel's "Unicode text" as UTF-8
            reader = csv.reader(first_lines, delimiter=sep)
            try:
                header = [h.strip() for h in next(reader, [])]
            except csv.Error as err:
                yield self._reject(
                    1, None, "E_CSV_HEADER", f"games CSV header unreadable: {err}", "", file=gname
                )
                return
            missing = [c for c in GAME_COLUMNS if c not in header]
            unknown = [
                c
                for c in header
                if c and c not in GAME_COLUMNS and c not in optional_game_columns()
            ]
            if missing:
                yield self._reject(
                    1,
                    None,
                    "E_CSV_HEADER",
                    f"games CSV header: missing {', '.join(missing)} column(s)",
                    _raw_text([header], sep),
                    file=gname,
                )
                return
            if unknown:
                yield self._reject(
                    1,
                    None,
                    E_CSV_COLUMN,
                    unknown_columns("games", unknown, GAME_COLUMNS + optional_game_columns()),
                    _raw_text([header], sep),
                    file=gname,
                )
            id_at = max(k for k, name in enumerate(header) if name == "game_id")  # a dict's
            head = _GamesHeader(header, _raw_text([header], sep), sep)
            told = False  # of a value in a column the header names not (once a file)
            # on the core, its rows while they are plain (each with its object's text), a
            # block at a time; csv.reader reads each other row
            # (the core reads commas: a tab-separated file is csv.reader's alone)
            core = self.plain_rows if sep == "," else None
            plain = None if core is None else core.game_heads(*head.layout())
            while True:
                if plain is not None:
                    stop = "more"
                    while stop == "more":
                        data, at_eof = src.lines()
                        read, after, stop, rows = plain.rows(data, at_eof, lines.line + 1, self.cap)
                        src.pos = src.last = src.pos + read
                        lines.line = after - 1
                        for game_id, line, text, core_head in rows:
                            game_row = _GameRow(game_id, line, head, text, core_head)
                            yield self._first_row(game_row, ids, gname) or game_row
                        if stop == "more":
                            if len(src.buf) - src.pos > _PLAIN_BLOCK + self.cap:
                                break  # a line too long to wait for: csv.reader's
                            src.more()  # at the file's end, the next lines() says so
                    if stop == "end":
                        return
                line, not_utf8 = lines.line + 1, lines.not_utf8
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except csv.Error as err:
                    yield self._reject(line, None, "E_CSV", f"games CSV: {err}", "", file=gname)
                    continue
                if not row or not any(cell.strip() for cell in row):
                    continue
                if len(row) == 1 and row[0] == _TOO_LONG:
                    size, prefix = lines.too_long[lines.line]
                    yield self._reject(
                        lines.line,
                        None,
                        "E_LINE_TOO_LONG",
                        f"games CSV line of {size} bytes is longer than the {self.cap}-byte cap",
                        prefix,
                        file=gname,
                    )
                    continue
                bad = lines.not_utf8 > not_utf8
                # the row's own line as it came, when it is one line of UTF-8 (else as written)
                one = lines.line == line and not bad
                text = lines.last.rstrip("\r\n") if one else _raw_text([row], sep)
                game_row = _GameRow("", line, head, text)
                if bad:
                    yield self._reject(
                        line,
                        None,
                        "E_ENCODING",
                        "games CSV row is not UTF-8",
                        game_row.raw(),
                        file=gname,
                    )
                    continue
                if len(row) != len(header):
                    yield self._reject(
                        line,
                        row[0] or None,
                        "E_CSV",
                        f"games CSV row has {len(row)} cells, the header {len(header)}",
                        game_row.raw(),
                        file=gname,
                    )
                    continue
                if not told and (filled := filled_unnamed(row, head.unnamed)):
                    told = True  # the core leaves such a row to csv.reader: here either way
                    message = unnamed_values("games", filled, line)
                    yield self._reject(
                        line, None, E_CSV_COLUMN, message, game_row.raw(), file=gname
                    )
                game_row.game_id = row[id_at].strip()
                yield self._first_row(game_row, ids, gname) or game_row

    def _first_row(self, game_row: _GameRow, ids: IdNumbers, gname: str) -> Reject | None:
        """A games-CSV row's reject when its game has a row already (the first kept), else
        None (its line noted in ``ids``)."""
        game_id, line = game_row.game_id, game_row.line
        if (first := ids.setdefault(game_id, line * self.base) // self.base) == line:
            return None
        return self._reject(
            line,
            game_id,
            "E_CSV_DUPLICATE_GAME",
            f"game {game_id!r} has two rows in the games CSV (first at line {first})",
            game_row.raw(),
            file=gname,
        )

    # ----- actions CSV -------------------------------------------------------------------
    def _finish(self, group: _Group) -> Iterator[GameRecord | CsvGame | Reject]:
        """A game's record, line or reject, after the games CSV's rejects met finding its row."""
        got = self._game(group)
        yield from self.games.handed()
        yield got

    def _game(self, group: _Group) -> GameRecord | CsvGame | Reject:
        gid = _cell_text(group.game_id)  # as stored: bytes that were not UTF-8 escaped
        split = self._seen(group.game_id)  # its row was taken by its first rows
        game_row = None if split else self._take(group.game_id)
        raw = _raw_text([self.header, *group.rows], self.delimiter)
        if game_row is not None:
            raw = game_row.raw() + "\n" + raw
        source = Source(self.name, group.line)

        def rejected(index: int | None, code: str, message: str) -> Reject:
            return Reject(source, gid, index, code, message, raw)

        if split:
            return rejected(
                None,
                "E_CSV_SPLIT",
                f"game {gid!r} has rows before line {group.line} that are not next to these",
            )
        self._see(group.game_id)
        if group.problem is not None:
            code, message, index = group.problem
            if code == E_GAME_TOO_LONG:
                message = (
                    f"game {gid!r} has {group.n_rows} action rows (lines "
                    f"{group.line}-{group.last_line}); no legal game has more than {MAX_ACTIONS} "
                    f"actions (raw keeps the first {MAX_ACTIONS} rows)"
                )
            return rejected(index, code, message)
        if game_row is None:
            return rejected(
                None,
                "E_CSV_NO_GAME",
                f"game {gid!r} has actions but no row in {self.games_path.name}",
            )
        try:
            obj = _game_obj(game_row)
            kind = obj["game_kind"]
            obj["actions"] = _action_objs(group.rows, self.at, kind)
        except LogFormatError as err:
            return rejected(err.context.get("action_index"), err.code, err.message)
        # the game_kind picks the game's parser, as for JSON Lines (pipeline.games)
        if self.as_lines and (text := json_line(obj)) is not None:
            return CsvGame(source, gid, text, raw)
        return _parsed(obj, source, gid, raw)

    def read(self, fh: IO[bytes]) -> Iterator[GameRecord | CsvGame | Reject]:
        shared = self.shared
        fresh = shared is None or shared.rows is None  # the games CSV read from its start
        if shared is not None and shared.rows is not None:
            self.games, rows = shared.rows
        else:
            rows = self._game_rows()
            self.games = _GamesCsv(rows)
            if shared is not None:
                shared.rows = (self.games, rows)
        last = shared is None or self.path == shared.users[-1]
        try:
            if fresh:
                self.games.read_row()  # the games CSV's own rejects and its header's first
            yield from self.games.handed()
            try:
                read_all = yield from self._actions(fh)
            except READ_ERRORS as err:  # the games before it are read; the others' rows stay
                line = max(self.lines.line, self.plain_line - 1) + self.src.held_lines()
                yield read_failure(err, self.name, line)
                read_all = False
            if shared is not None and not read_all:
                shared.whole = True
            if not last:
                yield from self.games.handed()
                return
            left = self.games.rest()
            yield from self.games.handed()
        finally:
            if self.again is not None:
                self.again[1].close()
            if last:
                rows.close()
        if not read_all or (shared is not None and shared.whole):
            return
        where = self.path.name if shared is None else shared.users_text()
        gname = file_label(self.games_path)
        for game_row in left:
            gid = game_row.game_id
            yield self._reject(
                game_row.line,
                gid,
                "E_CSV_NO_ACTIONS",
                f"game {gid!r} has no rows in {where}",
                game_row.raw(),
                file=gname,
            )

    def _actions(self, fh: IO[bytes]) -> Generator[GameRecord | CsvGame | Reject, None, bool]:
        """The actions CSV's games and rejects; whether it was read (a header to read by)."""
        with fh:
            lines = self.lines = _Lines(fh, self.cap)
            sep, first_lines = _delimited(lines)  # a tab: Excel's "Unicode text" as UTF-8
            self.delimiter = sep
            reader = csv.reader(first_lines, delimiter=sep)
            try:
                self.header = [h.strip() for h in next(reader, [])]
            except csv.Error as err:
                yield self._reject(
                    1, None, "E_CSV_HEADER", f"actions CSV header unreadable: {err}", ""
                )
                return False
            if not self.header:  # an empty file: no games, no error
                return False
            missing = [c for c in ACTION_COLUMNS if c not in self.header]
            unknown = [
                c
                for c in self.header
                if c and c not in ACTION_COLUMNS and c not in optional_action_columns()
            ]
            self.unnamed = unnamed_columns(self.header)
            told = False  # of a value in a column the header names not (once a file)
            if missing:
                yield self._reject(
                    1,
                    None,
                    "E_CSV_HEADER",
                    f"actions CSV header: missing {', '.join(missing)} column(s)",
                    _raw_text([self.header], sep),
                )
                return False
            if unknown:
                yield self._reject(
                    1,
                    None,
                    E_CSV_COLUMN,
                    unknown_columns("actions", unknown, ACTION_COLUMNS + optional_action_columns()),
                    _raw_text([self.header], sep),
                )
            self.at = {name: i for i, name in enumerate(self.header)}
            self.seq_at = self.header.index("seq")
            plain: tuple[_Source, _PlainCore] | None = None
            if self.plain_rows is not None and sep == ",":  # the core reads the plain rows
                # (from the first; it reads commas: a tab-separated file is csv.reader's alone)
                self.src = _Source(fh)
                plain = (self.src, self._plain_core(self.plain_rows))
                lines = yield from self._plain(*plain, lines.line + 1)
                reader = csv.reader(lines)
            group: _Group | None = None
            while True:
                line, not_utf8 = lines.line + 1, lines.not_utf8
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except csv.Error as err:
                    if group is not None and group.problem is None:
                        group.problem = ("E_CSV", f"line {line}: {err}", len(group.rows))
                    continue
                gid = row[0].strip() if row else ""
                if not gid and not any(cell.strip() for cell in row):
                    continue
                if len(row) == 1 and row[0] == _TOO_LONG:
                    size, prefix = lines.too_long[lines.line]
                    yield self._reject(
                        lines.line,
                        None,
                        "E_LINE_TOO_LONG",
                        f"line of {size} bytes is longer than the {self.cap}-byte cap (skipped)",
                        prefix,
                    )
                    continue
                if group is None or gid != group.game_id:
                    if group is not None:
                        yield from self._finish(group)
                        if plain is not None and lines.line == line:
                            plain[0].back()  # the next game's first row, one line: the core's
                            lines = yield from self._plain(*plain, line)
                            reader = csv.reader(lines)
                            group = None
                            continue
                    group = _Group(gid, line)
                if not told and (filled := filled_unnamed(row, self.unnamed)):
                    told = True  # the core leaves such a game to this reader: here either way
                    message = unnamed_values("actions", filled, line)
                    yield self._reject(
                        line, None, E_CSV_COLUMN, message, _raw_text([self.header, row], sep)
                    )
                index = group.n_rows
                group.n_rows += 1
                group.last_line = lines.line
                if index >= MAX_ACTIONS:  # no legal game is this long: count, do not keep
                    group.problem = (E_GAME_TOO_LONG, "", None)
                    continue
                if group.problem is None:
                    group.problem = self._check_row(row, index, group, lines.not_utf8 > not_utf8)
                group.rows.append(row)
            if group is not None:
                yield from self._finish(group)
        return True

    def _plain(
        self, src: _Source, plain: _PlainCore, line: int
    ) -> Generator[CsvGame | Reject, None, _Lines]:
        """The games of the plain rows the core reads (:class:`PlainRows`) from ``src``'s
        position (line ``line``, a game's first row or before it), as :meth:`_finish` would
        hand them over; then the lines for the Python reader from the first game the core
        leaves (none at the file's end)."""
        core, head, header_raw, met = plain
        while True:
            data, at_eof = src.lines()
            met.clear()
            read, line, stop, games = core.games(data, at_eof, line, head)
            self.plain_line = line
            src.pos += read
            src.last = src.pos
            handed = 0
            held = self.games.held
            for (game_id, first, text, rows, quoted), (upto, game_row) in zip(
                games, met, strict=False
            ):
                del held[game_id]  # taken: head() found it
                self._see(game_id)
                if upto > handed:  # the rejects met finding its row, as _finish hands them
                    yield from self.games.handed(upto - handed)
                    handed = upto
                source = Source(self.name, first)
                yield CsvGame(source, game_id, text, header_raw, rows, game_row, quoted)
            if stop != "more" or len(src.buf) - src.pos > _PLAIN_BLOCK + self.cap:
                break  # the end, a game the core leaves, or a game or line too long to wait for
            src.more()
        lines = _Lines(src, self.cap)
        lines.line = line - 1
        self.lines = lines
        return lines

    def _plain_core(self, plain_rows: PlainRowsOf) -> _PlainCore:
        """The core's reader of this header's plain rows, the games-CSV part of a game it
        asks for (its JSON object without the closing brace, the optional columns it may
        fill: None when the Python reader is to read the game), and the header's raw."""
        cells = ("cards", *optional_action_columns())
        optional = [(n, self.at[n], n == "value") for n in cells if n in self.at]
        at = self.at
        core = plain_rows(
            len(self.header), self.seq_at, at["seat"], at["action"], at["ts"], optional,
            MAX_ACTIONS, self.cap, self.unnamed,
        )  # fmt: skip
        names = [n for n, _, _ in optional]

        def allowed(kind: str) -> int:  # the optional columns a game of this kind may fill
            game = find_game(kind)
            return sum(
                1 << k
                for k, n in enumerate(names)
                if n == "cards" or game is None or n in game.csv.action_columns
            )

        big2_allowed, ddz_allowed = (allowed(kind) for kind in CORE_HEAD_KINDS)
        heads: list[tuple[_GamesHeader, GameHeads]] = []  # the core's, for the games header
        # for each game the core asks for in one call, in turn: how many of the games CSV's
        # rejects were met by then (the core asks for a block's games ahead of handing them),
        # and its games-CSV row, found (held until the game is handed over)
        met: list[tuple[int, _GameRow]] = []

        def head(game_id: str) -> tuple[str, int] | None:
            if self.ids.get(game_id, 0) % self.base:  # its actions read already: here (split),
                return None  # or in an earlier file (its row from a second reading)
            game_row = self.games.find(game_id)
            if game_row is None:
                return None
            fast = game_row.core_head  # made with the row on the core
            if fast == _NOT_MADE:
                if not heads or heads[0][0] is not game_row.header:
                    heads[:] = [(game_row.header, plain_rows.game_heads(*game_row.header.layout()))]
                fast = heads[0][1].head(game_row.text)  # most Big Two and Dou Dizhu rows
            if fast is not None:
                met.append((len(self.games.rejects), game_row))
                return fast, ddz_allowed if fast.startswith(_DDZ_HEAD) else big2_allowed
            try:
                obj = _game_obj(game_row)
            except LogFormatError:
                return None
            text = json_line(obj)
            if text is None:
                return None
            met.append((len(self.games.rejects), game_row))
            # the object open: actions appended
            return text[:-1].decode(), allowed(obj["game_kind"])

        return core, head, _raw_text([self.header]), met

    def _check_row(
        self, row: list[str], index: int, group: _Group, not_utf8: bool
    ) -> tuple[str, str, int | None] | None:
        """The first problem of a game's action row (``not_utf8``: a line of it had bytes
        that are not UTF-8), else None."""
        if not_utf8:
            return ("E_ENCODING", f"actions[{index}]: row is not UTF-8", index)
        if len(row) != len(self.header):
            return (
                "E_CSV",
                f"actions[{index}]: row has {len(row)} cells, the header {len(self.header)}",
                index,
            )
        seq_text = row[self.seq_at].strip()
        try:
            seq = int(seq_text)
        except ValueError:
            return (
                "E_CSV_SEQ",
                f"actions[{index}].seq: expected a whole number, got {seq_text!r}",
                index,
            )
        last, group.last_seq = group.last_seq, seq
        if last is None and seq not in (0, 1):
            return (
                "E_CSV_SEQ",
                f"actions[{index}].seq: the game starts at seq {seq}, not 0 or 1",
                index,
            )
        if last is not None and seq != last + 1:
            return ("E_CSV_SEQ", f"actions[{index}].seq: seq {seq} follows seq {last}", index)
        return None


def read_csv(
    path: str | Path,
    *,
    games_path: str | Path | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    fh: IO[bytes] | None = None,
    shared: SharedGames | None = None,
) -> Iterator[GameRecord | Reject]:
    """Stream an actions CSV (with its games CSV): one record or reject per game. ``fh``:
    the actions file opened already (as :func:`pipeline.logs.jsonl.open_log` opens it: the
    import's counts the bytes read). ``shared``: the games CSV it shares with other actions
    CSVs read in turn (:class:`SharedGames`)."""
    for item in _read(path, games_path, max_line_bytes, as_lines=False, fh=fh, shared=shared):
        assert not isinstance(item, CsvGame)
        yield item


def read_csv_lines(
    path: str | Path,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    plain_rows: PlainRowsOf | None = None,
    fh: IO[bytes] | None = None,
    shared: SharedGames | None = None,
    id_numbers: Callable[[], IdNumbers] = dict,
) -> Iterator[GameRecord | CsvGame | Reject]:
    """:func:`read_csv`, a game in good shape handed over as its JSON line (:class:`CsvGame`,
    for the native core) before its game's parser reads it. ``plain_rows``: the core's reader
    of plain rows (``pipeline.native.csv_games``), which reads the actions file's rows but
    those of the games it leaves to this reader; ``id_numbers`` makes the table of the game
    ids met (:class:`IdNumbers`; ``pipeline.native.game_ids`` on the core)."""
    yield from _read(
        path,
        None,
        max_line_bytes,
        as_lines=True,
        plain_rows=plain_rows,
        fh=fh,
        shared=shared,
        id_numbers=id_numbers,
    )


def _read(
    path: str | Path,
    games_path: str | Path | None,
    max_line_bytes: int,
    *,
    as_lines: bool,
    plain_rows: PlainRowsOf | None = None,
    fh: IO[bytes] | None = None,
    shared: SharedGames | None = None,
    id_numbers: Callable[[], IdNumbers] = dict,
) -> Iterator[GameRecord | CsvGame | Reject]:
    path = Path(path)
    if shared is not None:
        gpath = shared.path
    else:
        gpath = Path(games_path) if games_path is not None else games_csv_for(path)
    if fh is None:
        fh = open_log(path)  # a missing actions file is unusable input: raises E_FILE
    reader = _CsvReader(
        path,
        gpath,
        max_line_bytes,
        as_lines=as_lines,
        plain_rows=plain_rows,
        shared=shared,
        id_numbers=id_numbers,
    )
    return reader.read(fh)
