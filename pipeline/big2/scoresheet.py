"""Big Two's score sheets: games recorded only by their result (information level ``result``).

Two shapes are read (docs/log-format.md "Score sheets"):

- the **big-two-scorer text format** (``scorer``): a date line ``YYYY-MM-DD``, ``F=<threshold>``
  (×2 from that many cards, ×3 at 13), a line of player names, then one line per game of
  one loss per player, a ``t`` suffix marking the player who takes on all losses; ``#``
  comments anywhere. A names line starts a session; each (date, session) is a match.
- the **CSV score sheet** (``sheet``): header ``date,match,players,cards_left,bao_seat,notes``
  (optional ``redeal``, ``ruleset``, ``overrides``), one row per game, names and counts
  separated by spaces, ``bao_seat`` a player's name or 0-based seat.

Neither shape has to name its rules: they come from
:class:`~pipeline.logs.scoresheet.SheetRules` (``big2 ingest --ruleset PRESET --set
key=value``; without a preset, Big Two's default), and the scorer's ``F=`` lines set the 炒 tiers.
Each shape is registered in :data:`pipeline.games.SHEETS` (:data:`CSV_SHEET`, :data:`SCORER`),
through which the log reader tells and reads it. A player
is their name, so a name seen on many days is one player. Every line that cannot be read is
a :class:`Reject` with file and line; :func:`pipeline.big2.game.sheet_result` checks a read game
against its ruleset at replay.

>>> rules = SheetRules()
>>> items = list(parse_scorer_text("a b c d\\n0 11 12 13\\n3t 0 1 2 # x\\n", "s.txt", rules))
>>> [(r.game_id, r.sheet.cards_left, r.sheet.bao_seat) for r in items]
[('s:undated:1#1', (0, 11, 12, 13), None), ('s:undated:1#2', (3, 0, 1, 2), 0)]
>>> dict(items[0].overrides)["multiplier_tiers"]
[[0, 1], [10, 2], [13, 3]]
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date as Date
from pathlib import Path
from typing import Any

from pipeline.big2.rules import DEFAULT_PRESET
from pipeline.errors import E_CSV_COLUMN, E_NUMBER_RANGE, LogFormatError, ReplayError
from pipeline.logs.csv_logs import (
    filled_unnamed,
    header_delimiter,
    is_games_csv,
    unknown_columns,
    unnamed_columns,
    unnamed_values,
)
from pipeline.logs.jsonl import READ_ERRORS, not_utf8, open_log, read_failure
from pipeline.logs.model import GameRecord, Reject, SeatInfo, Source, file_label
from pipeline.logs.records import INT32_MAX, content_hash, read_ruleset, whole_number
from pipeline.logs.scoresheet import SheetRules

SHEET_COLUMNS = ("date", "match", "players", "cards_left")
OPTIONAL_SHEET_COLUMNS = (
    "bao_seat", "notes", "redeal", "ruleset", "overrides", "game_id",
    "tournament_id", "tournament_kind", "tournament_round",
)  # fmt: skip
#: The scorer's default fry threshold (no ``F=`` line) and its triple-fry count.
DEFAULT_FRY = 10
TRIPLE_FRY = 13
SCORER_SUFFIXES = (".txt",)
SHEET_SUFFIXES = (".csv", ".csv.gz")
#: The names a tab-separated sheet may have besides a CSV's (Excel's "Unicode text" saves a
#: ``.txt``): read as a sheet when its header is a sheet's, tab-separated.
TAB_SHEET_SUFFIXES = (".tsv", ".tsv.gz", ".txt", ".txt.gz")

_DATE = re.compile(r"\s*(\d{4}-\d{2}-\d{2})\s*")
#: A scorer line meant as a date: three numbers joined by ``-``, ``/`` or ``.``, the first or
#: the last of four digits, or all three of two (``2026-13-45``, ``2026/10/30``, ``30.10.2026``,
#: ``26-10-30``; not ``0-8-1``, a losses line mistyped); one that is not a :data:`_DATE` of the
#: calendar is a bad date line (:func:`_bad_date`), never a line of no known form whose games
#: stay on the day before.
_DATE_LIKE = re.compile(
    r"\s*(\d{4}[-/.]\d+[-/.]\d+|\d+[-/.]\d+[-/.]\d{4}|\d{2}[-/.]\d{2}[-/.]\d{2})\s*"
)
_SLASH_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})")
_FRY = re.compile(r"\s*F\s*=\s*(\d+)\s*")
_NAME = re.compile(r"[^\s#*\d][^\s#*]*")  # no leading digit of any script: ０ is a loss
_LOSS = re.compile(r"(\d+)(t?)")
_TRUE = {"1", "true", "yes", "y", "redeal"}


@dataclass(frozen=True, slots=True)
class SheetResult:
    """A result-only game (information level ``result``): what a score sheet writes down.

    ``cards_left`` one count per seat, the winner at 0 (ignored for a redeal);
    ``bao_seat`` the seat that takes on all losses (包牌, or a winner who did not call the
    last card), when marked; ``redeal`` a reshuffle, no result (scored as nothing).
    """

    cards_left: tuple[int, ...]
    bao_seat: int | None = None
    redeal: bool = False
    notes: str | None = None


def fry_tiers(threshold: int) -> list[list[int]]:
    """The scorer's 炒 rule as ``multiplier_tiers``: ×2 from ``threshold`` cards, ×3 at 13
    (a threshold above 13 turns frying off, as in the scorer).

    >>> fry_tiers(10), fry_tiers(8), fry_tiers(13), fry_tiers(1000)
    ([[0, 1], [10, 2], [13, 3]], [[0, 1], [8, 2], [13, 3]], [[0, 1], [13, 3]], [[0, 1]])
    """
    if threshold > TRIPLE_FRY:
        return [[0, 1]]
    if threshold == TRIPLE_FRY:
        return [[0, 1], [TRIPLE_FRY, 3]]
    return [[0, 1], [threshold, 2], [TRIPLE_FRY, 3]]


#: The most digits a sheet's number is read with: a count of cards, a seat or a round of more
#: is refused (``E_NUMBER_RANGE``) and an ``F=`` threshold of more turns frying off, never
#: read whole (Python refuses to read a number of over 4,300 digits: a ValueError).
MAX_DIGITS = 18


def _number(text: str, what: str) -> int:
    """A sheet's number: decimal digits (``isdecimal``: a superscript ``²`` is none, which
    ``isdigit`` let through to a ValueError), at most :data:`MAX_DIGITS` of them.

    >>> _number("007", "cards_left"), _number("٣", "cards_left")
    (7, 3)
    >>> _number("9" * 5000, "cards_left")
    Traceback (most recent call last):
    pipeline.errors.ReplayError: E_NUMBER_RANGE: cards_left: 99999999999999999999… (5000 digits) is larger than any cards_left (a sheet's numbers have at most 18 digits)
    >>> _number("²", "bao_seat")
    Traceback (most recent call last):
    pipeline.errors.ReplayError: E_SHEET_LINE: bao_seat: '²' is not a whole number
    """
    if not text.isdecimal():
        raise ReplayError("E_SHEET_LINE", f"{what}: {text[:40]!r} is not a whole number")
    if len(text.lstrip("0")) > MAX_DIGITS:
        raise ReplayError(
            E_NUMBER_RANGE,
            f"{what}: {text[:20]}… ({len(text)} digits) is larger than any {what}"
            f" (a sheet's numbers have at most {MAX_DIGITS} digits)",
        )
    return int(text)


def _round(text: str) -> int:
    """A ``tournament_round`` cell: 1 … 2³¹−1, as in a hand log (the warehouse stores 32 bits).

    >>> _round("3")
    3
    >>> _round("0")
    Traceback (most recent call last):
    pipeline.errors.ReplayError: E_SHEET_LINE: tournament_round: expected a number ≥ 1, got 0
    >>> _round("99999999999")
    Traceback (most recent call last):
    pipeline.errors.ReplayError: E_NUMBER_RANGE: tournament_round: 99999999999 is larger than 2,147,483,647, the most this field can hold
    """
    try:
        return whole_number(
            _number(text, "tournament_round"), "tournament_round", minimum=1, maximum=INT32_MAX
        )
    except LogFormatError as err:
        code = err.code if err.code == E_NUMBER_RANGE else "E_SHEET_LINE"
        raise ReplayError(code, err.message) from None


def _check_overrides(preset: str, overrides: dict[str, Any]) -> None:
    """Raise :class:`ReplayError` for an override number a hand log's ruleset refuses
    (``E_NUMBER_RANGE``: not finite, or beyond ±2**53, which SQL cannot score exactly).

    >>> _check_overrides("hk", {"stake": 10})
    >>> _check_overrides("hk", {"stake": 10**23})
    Traceback (most recent call last):
    pipeline.errors.ReplayError: E_NUMBER_RANGE: overrides.stake: 100000000000000000000000 is not a number between -2**53 and 2**53
    """
    try:
        read_ruleset({"preset": preset, "overrides": overrides})
    except LogFormatError as err:
        raise ReplayError(err.code, err.message.removeprefix("ruleset.")) from None


def ascii_digits(text: str) -> str:
    """Decimal digits of any script as ASCII ones: a date typed in full-width digits (a
    Chinese keyboard's) is the same day, stored and named (``started_at``, the match id) as
    the ASCII one.

    >>> ascii_digits("２０２６-１０-３０"), ascii_digits("2026-10-30")
    ('2026-10-30', '2026-10-30')
    """
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def sheet_date(text: str) -> str:
    """A CSV sheet's date cell as ``YYYY-MM-DD`` (:func:`ascii_digits`): Excel's ``2026/10/30``
    or ``2026/1/5`` too, as it writes a date cell on a Chinese (or Japanese) Windows, the
    locale's short date; other texts as they are (a day-first ``30/10/2026`` is not read).

    >>> sheet_date("2026/1/5"), sheet_date("２０２６/１０/３０"), sheet_date("30/10/2026")
    ('2026-01-05', '2026-10-30', '30/10/2026')
    """
    text = ascii_digits(text)
    if m := _SLASH_DATE.fullmatch(text):
        return f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}"
    return text


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def _not_utf8(text: str) -> str | None:
    r"""What is wrong with text read with ``surrogateescape``, when it holds bytes that are not
    UTF-8 (the message of the hand-log readers' ``E_ENCODING``); None when it is UTF-8.

    >>> _not_utf8(b"Jos\xe9 bob".decode("utf-8", "surrogateescape"))
    'byte 0xe9 at offset 3 is not UTF-8 (invalid continuation byte)'
    >>> _not_utf8("José bob") is None
    True
    """
    if text.isascii():
        return None
    data = text.encode("utf-8", "surrogateescape")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return not_utf8(data, err)
    return None


def _escaped(text: str) -> str:
    r"""Text read with ``surrogateescape`` as a reject keeps it: a byte that is not UTF-8 as
    ``\xe9``.

    >>> _escaped(b"Jos\xe9".decode("utf-8", "surrogateescape"))
    'Jos\\xe9'
    """
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def looks_like_scorer(path: Path) -> bool:
    """Whether a ``.txt`` file reads as the big-two-scorer format: its first line that is
    not blank or a comment is one of the format's forms, and a names line and a losses line
    come within its first 200 lines (the other lines may be wrong: each is a reject)."""
    if not path.name.lower().endswith(SCORER_SUFFIXES):
        return False
    forms: set[str] = set()
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _, line in zip(range(200), fh, strict=False):
                text = _strip_comment(line)
                if not text:
                    continue
                tokens = text.split()
                if _DATE_LIKE.fullmatch(text) or _FRY.fullmatch(text):
                    forms.add("header")
                elif all(_NAME.fullmatch(t) for t in tokens):
                    forms.add("names")
                elif all(_LOSS.fullmatch(t) for t in tokens):
                    forms.add("losses")
                elif not forms:
                    return False
                if {"names", "losses"} <= forms:
                    return True
    except OSError:
        return False
    return False


def looks_like_sheet_csv(path: Path) -> bool:
    """Whether a file is a CSV score sheet: a ``.csv`` (not a games CSV) whose header has the
    sheet's columns, separated by commas or by tabs (:func:`header_delimiter`); or a ``.tsv``
    or ``.txt`` whose header is so, tab-separated (Excel's "Unicode text" converted to UTF-8)."""
    name = path.name.lower()
    tabs_only = name.endswith(TAB_SHEET_SUFFIXES)
    if not (name.endswith(SHEET_SUFFIXES) or tabs_only) or is_games_csv(path):
        return False
    try:
        with open_log(path) as fh:
            head = fh.readline(1 << 16).decode("utf-8", "replace").removeprefix("\ufeff")
    except (OSError, EOFError, LogFormatError):  # not readable: no sheet (read_log says why)
        return False
    delimiter = header_delimiter(head)
    if tabs_only and delimiter != "\t":
        return False
    columns = {c.strip() for c in head.strip().split(delimiter)}
    return set(SHEET_COLUMNS) <= columns and "seq" not in columns


def _record(
    *,
    game_id: str,
    match_id: str,
    game_number: int,
    date: str | None,
    names: tuple[str, ...],
    sheet: SheetResult,
    preset: str,
    overrides: tuple[tuple[str, Any], ...],
    source: Source,
    raw: str,
    tournament: tuple[str | None, str | None, int | None] = (None, None, None),
) -> GameRecord:
    canonical: dict[str, Any] = {
        "game_id": game_id,
        "match_id": match_id,
        "date": date,
        "names": list(names),
        "cards_left": list(sheet.cards_left),
        "bao": sheet.bao_seat,
        "redeal": sheet.redeal,
        "ruleset": preset,
        "overrides": {k: v for k, v in overrides},
    }
    if tournament != (None, None, None):
        canonical["tournament"] = list(tournament)
    return GameRecord(
        game_id=game_id,
        content_hash=content_hash(canonical),
        game_kind="big2",
        ruleset=preset,
        overrides=overrides,
        seats=tuple(SeatInfo(i, name, name) for i, name in enumerate(names)),
        actions=(),
        match_id=match_id,
        game_number=game_number,
        started_at=date,
        tournament_id=tournament[0],
        tournament_kind=tournament[1],
        tournament_round=tournament[2],
        sheet=sheet,
        source=source,
        raw=raw,
    )


def _reject(file: str, line: int, code: str, message: str, raw: str) -> Reject:
    return Reject(Source(file, line), None, None, code, message, raw)


def _bad_date(text: str) -> str | None:
    """Why a scorer date line names no day (None: it does), for its ``E_SHEET_LINE``.

    >>> _bad_date("2026-10-30") is None, _bad_date("2026-13-45"), _bad_date("2026/10/30")
    (True, "date '2026-13-45' is no day of the calendar", "date '2026/10/30' is not YYYY-MM-DD")
    """
    if not _DATE.fullmatch(text):
        return f"date {text!r} is not YYYY-MM-DD"
    if not _is_calendar_day(text):
        return f"date {text!r} is no day of the calendar"
    return None


def parse_scorer_text(text: str, file: str, rules: SheetRules) -> Iterator[GameRecord | Reject]:
    """The games of a big-two-scorer file's text, a reject for each line that cannot be read.

    A date line that names no day is ``E_SHEET_LINE``, and each game under it, up to the next
    good date line, ``E_SHEET_DATE`` naming that line: no game is stored under a wrong or
    missing date, and once the date is fixed, importing the file again stores them (their ids
    are those the fixed date gives; the other games' are unchanged).

    >>> text = "2026-10-30\\na b\\n0 3\\n2026-13-45\\na b\\n3 0\\n2026-11-06\\na b\\n0 1\\n"
    >>> for r in parse_scorer_text(text, "club.txt", SheetRules()):
    ...     print(r.game_id if isinstance(r, GameRecord) else f"{r.source.line} {r.code}: {r.message}")
    club:2026-10-30:1#1
    4 E_SHEET_LINE: date '2026-13-45' is no day of the calendar (the games under it, to the next date line, are rejected E_SHEET_DATE: fix the date and import the file again)
    6 E_SHEET_DATE: a game under line 4's date '2026-13-45', which is no day of the calendar: not stored without its day (fix line 4 and import the file again)
    club:2026-11-06:1#1
    """
    stem = Path(file).name.removesuffix(".gz").rsplit(".", 1)[0]
    user = dict(rules.overrides)
    preset = rules.preset or DEFAULT_PRESET
    date: str | None = None
    #: the line, text and fault of the last date line when it names no day (its games rejected)
    bad_date: tuple[int, str, str] | None = None
    fry: int | None = None
    names: tuple[str, ...] | None = None
    match_id = ""
    number = 0
    sessions: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = _strip_comment(line)
        if (why := _not_utf8(body)) is not None:
            # only a names line holds other than ASCII: the losses after it name no players
            yield _reject(file, lineno, "E_ENCODING", why, _escaped(line))
            names = None
            continue
        line = _escaped(line)  # a comment's bytes that are not UTF-8, kept as escapes
        if not body:
            continue
        if m := _DATE_LIKE.fullmatch(body):
            day, names = ascii_digits(m.group(1)), None
            if (why := _bad_date(day)) is None:
                date, bad_date = day, None
                continue
            bad_date = (lineno, day, why.removeprefix(f"date {day!r} "))
            yield _reject(
                file,
                lineno,
                "E_SHEET_LINE",
                f"{why} (the games under it, to the next date line, are rejected E_SHEET_DATE:"
                " fix the date and import the file again)",
                line,
            )
            continue
        if m := _FRY.fullmatch(body):
            digits = m.group(1).lstrip("0") or "0"
            value = int(digits) if len(digits) <= MAX_DIGITS else TRIPLE_FRY + 1
            if value < 1:
                yield _reject(
                    file, lineno, "E_SHEET_FRY", f"fry threshold {value} is below 1", line
                )
            else:
                fry = value
            continue
        tokens = body.split()
        if all(_NAME.fullmatch(t) for t in tokens):
            if len(tokens) < 2 or len(set(tokens)) != len(tokens):
                dupes = sorted({t for t in tokens if tokens.count(t) > 1})
                why = f"duplicate player names {dupes}" if dupes else "one name is no table"
                yield _reject(file, lineno, "E_SHEET_NAMES", why, line)
                names = None
                continue
            names = tuple(tokens)
            if bad_date is not None:  # no session of any day: its games are rejected
                continue
            day = date or "undated"
            sessions[day] = sessions.get(day, 0) + 1
            match_id = f"{stem}:{day}:{sessions[day]}"
            number = 0
            continue
        losses = [_LOSS.fullmatch(t) for t in tokens]
        if not all(losses):
            yield _reject(
                file,
                lineno,
                "E_SHEET_LINE",
                "not a date, F=<threshold>, names or losses line (a loss is a count of cards, "
                f"optionally suffixed t): {body!r}",
                line,
            )
            continue
        if names is None:
            yield _reject(
                file, lineno, "E_SHEET_NO_NAMES", "losses before any line of player names", line
            )
            continue
        if len(tokens) != len(names):
            yield _reject(
                file,
                lineno,
                "E_SHEET_LINE",
                f"{len(tokens)} losses for {len(names)} players ({' '.join(names)})",
                line,
            )
            continue
        takes = [i for i, m in enumerate(losses) if m is not None and m.group(2)]
        if len(takes) > 1:
            yield _reject(
                file, lineno, "E_SHEET_BAO", "more than one player takes on all losses (t)", line
            )
            continue
        try:
            cards_left = tuple(_number(m.group(1), "cards_left") for m in losses if m is not None)
        except ReplayError as err:
            yield _reject(file, lineno, err.code, err.message, line)
            continue
        overrides = dict(user)
        if fry is not None or "multiplier_tiers" not in overrides:
            overrides["multiplier_tiers"] = fry_tiers(DEFAULT_FRY if fry is None else fry)
        try:
            _check_overrides(preset, overrides)
        except ReplayError as err:
            yield _reject(file, lineno, err.code, err.message, line)
            continue
        if bad_date is not None:
            at, day, fault = bad_date
            message = (
                f"a game under line {at}'s date {day!r}, which {fault}: not stored without its"
                f" day (fix line {at} and import the file again)"
            )
            yield _reject(file, lineno, "E_SHEET_DATE", message, line)
            continue
        number += 1
        sheet = SheetResult(
            cards_left=cards_left,
            bao_seat=takes[0] if takes else None,
        )
        yield _record(
            game_id=f"{match_id}#{number}",
            match_id=match_id,
            game_number=number,
            date=date,
            names=names,
            sheet=sheet,
            preset=preset,
            overrides=tuple(sorted(overrides.items())),
            source=Source(file, lineno),
            raw=line,
        )


def _sheet_text(path: str | Path) -> tuple[str, Reject | None]:
    """A sheet's text, read whole (score sheets are small; bytes that are not UTF-8 kept as
    surrogates for :func:`_not_utf8`), and the reject of a read that fails part way (a
    ``.gz`` cut short: the whole lines before it are the text, as a hand log keeps them)."""
    parts: list[bytes] = []
    failure: BaseException | None = None
    with open_log(path) as fh:
        while True:
            try:
                part = fh.read1(1 << 16)  # type: ignore[attr-defined]
            except READ_ERRORS as err:
                failure = err
                break
            if not part:
                break
            parts.append(part)
    data = b"".join(parts)
    reject = None
    if failure is not None:
        data = data[: data.rfind(b"\n") + 1]
        reject = read_failure(failure, file_label(path), data.count(b"\n"))
    return data.decode("utf-8", "surrogateescape").removeprefix("\ufeff"), reject


def read_scorer(path: str | Path, rules: SheetRules) -> Iterator[GameRecord | Reject]:
    """Stream a big-two-scorer file (read whole: score sheets are small)."""
    text, failed = _sheet_text(path)
    yield from parse_scorer_text(text, file_label(path), rules)
    if failed is not None:
        yield failed


def _is_calendar_day(text: str) -> bool:
    """Whether a ``YYYY-MM-DD`` text names a real day.

    >>> _is_calendar_day("2024-02-29"), _is_calendar_day("2023-02-29"), _is_calendar_day("2026-13-45")
    (True, False, False)
    """
    try:
        Date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _csv_row(
    row: dict[str, str],
    lineno: int,
    file: str,
    rules: SheetRules,
    numbers: dict[str, int],
    delimiter: str = ",",
) -> GameRecord:
    """One CSV score-sheet row as a record (raises :class:`ReplayError` on a bad cell)."""
    extra = row.get(None)  # type: ignore[call-overload]  # csv.DictReader's cells past the header
    if extra:
        cells = len(row) - 1 + len(extra)
        sep = "tab" if delimiter == "\t" else "comma"
        raise ReplayError(
            "E_SHEET_LINE",
            f"row has {cells} cells, the header {len(row) - 1}"
            f" (a {sep} inside a cell needs the cell in double quotes)",
        )
    names = tuple(row.get("players", "").split())
    if len(names) < 2 or len(set(names)) != len(names):
        raise ReplayError(
            "E_SHEET_NAMES", f"players {row.get('players', '')!r}: need 2+ distinct names"
        )
    date = sheet_date((row.get("date") or "").strip()) or None
    if date is not None and not _DATE.fullmatch(date):
        raise ReplayError(
            "E_SHEET_LINE",
            f"date {date!r} is not YYYY-MM-DD or YYYY/M/D (in Excel: format the date cells "
            "as yyyy-mm-dd)",
        )
    if date is not None and not _is_calendar_day(date):
        raise ReplayError("E_SHEET_LINE", f"date {date!r} is no day of the calendar")
    match_id = (
        row.get("match") or ""
    ).strip() or f"{Path(file).name.split('.')[0]}:{date or 'undated'}"
    redeal = (row.get("redeal") or "").strip().lower() in _TRUE
    counts_text = (row.get("cards_left") or "").split()
    if not redeal and not all(t.isdecimal() for t in counts_text):
        raise ReplayError("E_SHEET_LINE", f"cards_left {row.get('cards_left')!r} is not counts")
    counts = tuple(_number(t, "cards_left") for t in counts_text) if counts_text else ()
    if not redeal and len(counts) != len(names):
        raise ReplayError("E_SHEET_LINE", f"{len(counts)} counts for {len(names)} players")
    bao_text = (row.get("bao_seat") or "").strip()
    bao: int | None = None
    if bao_text:
        if bao_text in names:
            bao = names.index(bao_text)
        elif bao_text.isdecimal():
            bao = _number(bao_text, "bao_seat")
        else:
            raise ReplayError(
                "E_SHEET_BAO", f"bao_seat {bao_text!r} is no player of {' '.join(names)}"
            )
    preset = (row.get("ruleset") or "").strip() or rules.preset or DEFAULT_PRESET
    overrides = dict(rules.overrides)
    if (row.get("overrides") or "").strip():
        try:
            extra = json.loads(row["overrides"])
        except ValueError as err:
            raise ReplayError("E_SHEET_LINE", f"overrides {row['overrides']!r}: {err}") from None
        if not isinstance(extra, dict):
            raise ReplayError("E_SHEET_LINE", f"overrides {row['overrides']!r} is no JSON object")
        overrides.update(extra)
    _check_overrides(preset, overrides)
    round_text = (row.get("tournament_round") or "").strip()
    if round_text and not round_text.isdecimal():
        raise ReplayError("E_SHEET_LINE", f"tournament_round {round_text!r} is not a number")
    tournament = (
        (row.get("tournament_id") or "").strip() or None,
        (row.get("tournament_kind") or "").strip() or None,
        _round(round_text) if round_text else None,
    )
    numbers[match_id] = numbers.get(match_id, 0) + 1
    number = numbers[match_id]
    notes = (row.get("notes") or "").strip() or None
    return _record(
        game_id=(row.get("game_id") or "").strip() or f"{match_id}#{number}",
        match_id=match_id,
        game_number=number,
        date=date,
        names=names,
        sheet=SheetResult(counts, bao, redeal, notes),
        preset=preset,
        overrides=tuple(sorted(overrides.items())),
        source=Source(file, lineno),
        raw=delimiter.join(row.get(k) or "" for k in row),
        tournament=tournament,
    )


def read_sheet_csv(path: str | Path, rules: SheetRules) -> Iterator[GameRecord | Reject]:
    """Stream a CSV score sheet: a record per row, a reject per row that cannot be read."""
    file = file_label(path)
    text, failed = _sheet_text(path)
    yield from _sheet_csv_rows(text, file, rules)
    if failed is not None:
        yield failed


def _sheet_csv_rows(text: str, file: str, rules: SheetRules) -> Iterator[GameRecord | Reject]:
    delimiter = header_delimiter(text.split("\n", 1)[0])  # tabs: Excel's "Unicode text"
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [c.strip() for c in reader.fieldnames or []]
    except csv.Error as err:  # e.g. a cell past csv's field size limit (128 KiB)
        yield _reject(
            file, 1, "E_SHEET_HEADER", f"score sheet header unreadable: {err}", _escaped(text[:200])
        )
        return
    # each unnamed column a key of its own (a NUL and its place: no header names one so), so
    # that a row's cells keep their places
    reader.fieldnames = [c or f"\0{k}" for k, c in enumerate(header)]
    missing = [c for c in SHEET_COLUMNS if c not in header]
    if missing:
        yield _reject(
            file,
            1,
            "E_SHEET_HEADER",
            f"score sheet header lacks {', '.join(missing)}",
            _escaped(text[:200]),
        )
        return
    known = SHEET_COLUMNS + OPTIONAL_SHEET_COLUMNS
    if unknown := [c for c in header if c and c not in known]:  # a typo's values not lost unsaid
        message = unknown_columns("score sheet", unknown, known)
        yield _reject(file, 1, E_CSV_COLUMN, message, _escaped(text.split("\n", 1)[0][:4096]))
    unnamed = unnamed_columns(header)  # Excel's empty columns: said only when one holds a value
    numbers: dict[str, int] = {}
    while True:
        start = reader.line_num + 1  # the row's first line (a quoted cell may hold more)
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as err:  # e.g. a cell past csv's field size limit (128 KiB)
            line = text.splitlines()[start - 1 : start] or [""]
            message = f"row unreadable as CSV: {err}"
            yield _reject(file, start, "E_SHEET_LINE", message, _escaped(line[0][:4096]))
            continue
        lineno = reader.line_num
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        cells = [c for v in row.values() for c in ([v] if isinstance(v, str) else v or [])]
        if unnamed and (filled := filled_unnamed(cells, unnamed)):
            message = unnamed_values("score sheet", filled, lineno)
            yield _reject(file, lineno, E_CSV_COLUMN, message, _escaped(delimiter.join(cells)))
            unnamed = []  # once a file, as a CSV pair's
        if (why := _not_utf8(delimiter.join(cells))) is not None:
            yield _reject(file, lineno, "E_ENCODING", why, _escaped(delimiter.join(cells)))
            continue
        try:
            yield _csv_row(row, lineno, file, rules, numbers, delimiter)
        except ReplayError as err:
            raw = delimiter.join(v if isinstance(v, str) else "" for v in row.values())
            yield _reject(file, lineno, err.code, err.message, raw)


@dataclass(frozen=True, slots=True)
class Shape:
    """One score-sheet shape behind the seam (:class:`pipeline.games.SheetShape`)."""

    looks_like: Callable[[Path], bool]
    read: Callable[[Path, SheetRules], Iterator[GameRecord | Reject]]


#: The CSV score sheet (``--format sheet``) and the big-two-scorer text (``--format scorer``).
CSV_SHEET = Shape(looks_like_sheet_csv, read_sheet_csv)
SCORER = Shape(looks_like_scorer, read_scorer)
