"""The log envelope: what every game's line holds, whatever its game (docs/log-format.md).

Shared by every log shape and every game: the JSON Lines and CSV readers hand a game object
to its game's parser (:func:`parse_game`, through :mod:`pipeline.games`), and each game's
parser reads the envelope here (:func:`read_envelope`: ids, ruleset, seats, match and
tournament fields) and its own deal, actions and result itself (Big Two:
:mod:`pipeline.big2.logformat`, Dou Dizhu: :mod:`pipeline.doudizhu.game`). Here too: the value
limits every reader keeps (the warehouse's columns hold them), the content hash, the lone
surrogate checks and the field readers a game's parser builds on. Every problem raises
:class:`LogFormatError` with a stable code (``E_SCHEMA``, ``E_NUMBER_RANGE`` …) and a message
naming the field path; the readers turn those errors into
:class:`~pipeline.logs.model.Reject` rows.

>>> whole_number(3, "game_number"), opt_whole_number(None, "tournament_round")
(3, None)
>>> try:
...     as_list({"a": 1}, "actions")
... except LogFormatError as err:
...     print(err.code, err.message)
E_SCHEMA actions: expected a list, got an object
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

from pipeline.cards import N_CARDS
from pipeline.errors import E_NUMBER_RANGE, E_SURROGATE, E_TS_RANGE, LogFormatError
from pipeline.games import DEFAULT_KIND, find_game, game_for, kinds
from pipeline.logs.model import GameRecord, SeatInfo, Source

FORMAT_VERSION = 1
#: The most seats a line lists (a table of one card each; no game seats more).
MAX_SEATS = 52

# ----- value limits (docs/log-format.md, "Limits") ----------------------------------------------
# What a value of the log may be so that the warehouse's columns hold it: the row builder
# (pipeline.warehouse.tables) checks at import that its Arrow schema holds each of these.

#: ``game_number``, ``tournament_round``: the warehouse stores them as 32-bit integers.
INT32_MAX = (1 << 31) - 1
#: ``balance`` and numbers in ruleset overrides: a 64-bit float holds every whole amount up to
#: 2**53 exactly; larger is refused.
BALANCE_MAX = 1 << 53
#: ``ts`` and ``started_at``: from 1990-01-01 (before it, a clock that was never set or a
#: relative time) to 2100-01-01 (after it, usually milliseconds written as seconds), UTC.
TS_MIN = datetime(1990, 1, 1, tzinfo=UTC).timestamp()
TS_MAX = datetime(2100, 1, 1, tzinfo=UTC).timestamp()
#: The most actions a game line may hold, whatever its game: the longest legal game of any
#: registered game, Big Two's at the largest table (at most one play per card, each followed by
#: at most one pass per other seat, plus a claim and a swap: 52 × 52 + 2; each game refuses
#: a longer game at its table, e.g. :func:`pipeline.big2.logformat.max_actions`). A CSV game
#: longer than this is refused before its rows are held in memory.
MAX_ACTIONS = N_CARDS * MAX_SEATS + 2


#: A lone UTF-16 surrogate: what a JSON escape such as ``"\\ud800"`` gives (no character).
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

_REQUIRED_KEYS = ("format_version", "game_kind", "game_id", "ruleset", "seats", "actions")
_SEAT_KEYS = frozenset({"seat", "player_id", "name", "balance"})


def json_float(value: float) -> str:
    """A float as orjson writes it (the content hash's spelling): Python's shortest repr, but
    fixed notation down to 1e-5, exponents without leading zeros, and null for NaN and
    ±infinity.

    >>> [json_float(v) for v in (0.1, 1e-05, 2.5e-05, 1e-06, 1e16, -0.0, float("nan"))]
    ['0.1', '0.00001', '0.000025', '1e-6', '1e+16', '-0.0', 'null']
    """
    if not math.isfinite(value):
        return "null"
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    if not e:
        return text
    power = int(exponent)
    if power == -5:  # 1e-05 <= |value| < 1e-04: orjson's fixed notation starts at 1e-5
        sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"


def canonical_json(obj: Any) -> str:
    """The canonical JSON text of a game: sorted keys, no spaces, UTF-8 kept, floats as orjson
    spells them (:func:`json_float`), so it is the text :func:`content_hash` hashes.

    >>> canonical_json({"b": 1, "a": [1, 2.5e-05], "c": "♦3"})
    '{"a":[1,0.000025],"b":1,"c":"♦3"}'
    """
    if isinstance(obj, bool) or obj is None or isinstance(obj, int | str):
        return json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, float):
        return json_float(obj)
    if isinstance(obj, Mapping):
        items = sorted(obj.items())
        return "{" + ",".join(f"{canonical_json(k)}:{canonical_json(v)}" for k, v in items) + "}"
    return "[" + ",".join(canonical_json(v) for v in obj) + "]"


def content_hash(obj: Any) -> str:
    """sha256 (hex) of the canonical JSON of a game: whitespace and key order do not matter.

    orjson writes the same bytes as :func:`canonical_json` about 15 times faster; values it
    cannot write (integers beyond 64 bits, lone surrogates) take that slower path, so a game
    hashes the same whichever wrote it.

    >>> content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})
    True
    >>> content_hash({"n": 2**70}) == content_hash({"n": 2**70})
    True
    """
    try:
        data = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        data = canonical_json(obj).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def schema_error(path: str, why: str, action_index: int | None = None) -> LogFormatError:
    """An ``E_SCHEMA`` error at a field path (``action_index`` when one action is at fault)."""
    return LogFormatError("E_SCHEMA", f"{path}: {why}", path=path, action_index=action_index)


def type_name(value: Any) -> str:
    """How a message names a JSON value's type.

    >>> type_name(None), type_name(3), type_name([1]), type_name({})
    ('null', 'a number', 'a list', 'an object')
    """
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "a list" if isinstance(value, list) else "an object"
    )


def whole_number(
    value: Any,
    path: str,
    action_index: int | None = None,
    *,
    minimum: int = 0,
    maximum: int | None = None,
) -> int:
    """A whole number within ``minimum`` … ``maximum``, else ``E_SCHEMA`` (not a whole number,
    below the minimum) or ``E_NUMBER_RANGE`` (above the maximum) at ``path``."""
    if isinstance(value, bool) or not isinstance(value, int):
        if (
            maximum is not None
            and isinstance(value, float)
            and value > maximum
            and (value.is_integer() or math.isinf(value))
        ):  # a whole number too big for 64 bits, which orjson reads as a float
            raise _too_big(path, shortened(value), maximum, action_index)
        raise schema_error(
            path,
            f"expected a whole number, got {type_name(value)} {shortened(value)}",
            action_index,
        )
    if value < minimum:
        raise schema_error(
            path, f"expected a number ≥ {minimum}, got {shortened(value)}", action_index
        )
    if maximum is not None and value > maximum:
        raise _too_big(path, shortened(value), maximum, action_index)
    return value


def _too_big(path: str, shown: str, maximum: int, action_index: int | None) -> LogFormatError:
    return LogFormatError(
        E_NUMBER_RANGE,
        f"{path}: {shown} is larger than {maximum:,}, the most this field can hold",
        path=path,
        action_index=action_index,
    )


def shortened(value: Any) -> str:
    """``repr`` of a value, shortened: a 400-digit number is not quoted whole."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}…({len(text)} characters)"


def opt_whole_number(
    value: Any, path: str, *, minimum: int = 0, maximum: int | None = None
) -> int | None:
    """:func:`whole_number`, or None for a missing value."""
    return None if value is None else whole_number(value, path, minimum=minimum, maximum=maximum)


def surrogate_path(value: Any, path: str = "") -> str | None:
    r"""The path of the first string (or field name) holding a lone surrogate, else None.

    JSON may escape a lone UTF-16 surrogate (``"\ud800"``), which names no character and
    cannot be stored as UTF-8. Only the standard library's JSON parser lets one through, so
    the readers call this on what that parser returns.

    >>> surrogate_path({"seats": [{"name": "ok"}, {"name": "x\ud800"}]})
    'seats[1].name'
    >>> surrogate_path({"a": {"\udc00": 1}}), surrogate_path({"a": ["😀"]})
    ('a.\\udc00', None)
    """
    if isinstance(value, str):
        return path or "(value)" if _LONE_SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{escaped(key)}" if path else escaped(key)
            if isinstance(key, str) and _LONE_SURROGATE.search(key):
                return where
            found = surrogate_path(item, where)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = surrogate_path(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def escaped(text: Any) -> str:
    r"""A text with any lone surrogate written as its escape (``\ud800``): storable as UTF-8.

    >>> escaped("g-\ud800"), escaped("阿明")
    ('g-\\ud800', '阿明')
    """
    out = str(text)
    if out.isascii() or not _LONE_SURROGATE.search(out):
        return out
    return out.encode("utf-8", "backslashreplace").decode("utf-8")


def check_surrogates(obj: Any) -> None:
    """Raise ``E_SURROGATE`` naming the first string or field name with a lone surrogate."""
    where = surrogate_path(obj)
    if where is not None:
        raise LogFormatError(
            E_SURROGATE,
            f"{where}: holds a lone surrogate escape (\\ud800-\\udfff), which is not a "
            "character (write the character itself, or a surrogate pair)",
            path=where,
        )


def _str(value: Any, path: str, action_index: int | None = None) -> str:
    if not isinstance(value, str) or not value:
        raise schema_error(
            path, f"expected a non-empty string, got {type_name(value)} {value!r}", action_index
        )
    return value


def _opt_str(value: Any, path: str) -> str | None:
    return None if value is None else _str(value, path)


def as_list(value: Any, path: str, action_index: int | None = None) -> list[Any]:
    """A JSON list, else ``E_SCHEMA`` at ``path``."""
    if not isinstance(value, list):
        raise schema_error(path, f"expected a list, got {type_name(value)}", action_index)
    return value


def as_object(value: Any, path: str, action_index: int | None = None) -> Mapping[str, Any]:
    """A JSON object, else ``E_SCHEMA`` at ``path``."""
    if not isinstance(value, dict):
        raise schema_error(path, f"expected an object, got {type_name(value)}", action_index)
    return value


def no_unknown(obj: Mapping[str, Any], known: frozenset[str], path: str, index: int | None) -> None:
    """``E_SCHEMA`` naming the first key of ``obj`` not in ``known`` (and the known keys)."""
    if obj.keys() <= known:
        return
    extra = [k for k in obj if k not in known]
    if extra:
        where = f"{path}." if path else ""
        raise schema_error(
            f"{where}{extra[0]}",
            f"unknown field (known: {', '.join(sorted(known))})",
            index,
        )


def iso_time(text: str) -> datetime:
    """An ISO 8601 time; one without a zone is UTC (a Decision, docs/log-format.md), so the
    result never depends on the importing machine's zone. Raises ``ValueError``.

    >>> iso_time("2026-11-01T20:00:00").isoformat(), iso_time("2026-11-01T20:00+08:00").hour
    ('2026-11-01T20:00:00+00:00', 20)
    """
    dt = datetime.fromisoformat(text)
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def _ts_range_error(
    path: str, shown: str, action_index: int | None, seconds: float
) -> LogFormatError:
    hint = ""
    if math.isfinite(seconds) and TS_MIN <= seconds / 1000 <= TS_MAX:
        hint = " (milliseconds? the format counts seconds)"
    return LogFormatError(
        E_TS_RANGE,
        f"{path}: {shown} is not a time between 1990-01-01 and 2100-01-01 (UTC){hint}",
        path=path,
        action_index=action_index,
    )


def action_ts(value: Any, path: str, action_index: int) -> float | None:
    """An action's ``ts`` (seconds since the epoch or an ISO 8601 time, within the limits) as
    seconds, or None.

    >>> action_ts("2026-11-01T20:00:00Z", "actions[0].ts", 0), action_ts(None, "ts", 0)
    (1793563200.0, None)
    """
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not TS_MIN <= value <= TS_MAX:  # also NaN, ±infinity and numbers beyond a float
            seconds = float(value) if isinstance(value, float) or abs(value) < 1 << 64 else 0.0
            raise _ts_range_error(path, shortened(value), action_index, seconds)
        return float(value)
    if isinstance(value, str):
        try:
            stamp = iso_time(value).timestamp()
        except (ValueError, OverflowError):
            pass
        else:
            if not TS_MIN <= stamp <= TS_MAX:
                raise _ts_range_error(path, repr(value), action_index, 0.0)
            return stamp
    raise schema_error(
        path,
        f"expected seconds since the epoch or an ISO 8601 time, got {shortened(value)}",
        action_index,
    )


def _started_at(value: Any) -> str | None:
    """``started_at`` as stored: as logged, or, without a zone, with ``+00:00`` made explicit."""
    text = _opt_str(value, "started_at")
    if text is None:
        return None
    try:
        dt = datetime.fromisoformat(text)
        stamp = iso_time(text).timestamp()
    except (ValueError, OverflowError):
        raise schema_error(
            "started_at", f"expected an ISO 8601 time, got {shortened(text)}"
        ) from None
    if not TS_MIN <= stamp <= TS_MAX:
        raise _ts_range_error("started_at", repr(text), None, 0.0)
    return text if dt.tzinfo is not None else dt.replace(tzinfo=UTC).isoformat()


def _balance(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise schema_error(path, f"expected a number, got {type_name(value)} {shortened(value)}")
    if not -BALANCE_MAX <= value <= BALANCE_MAX:  # also NaN and ±infinity
        raise LogFormatError(
            E_NUMBER_RANGE,
            f"{path}: {shortened(value)} is not a balance between -2**53 and 2**53",
            path=path,
        )
    return float(value)


_RULESET_WANTED = 'a preset name (e.g. "hk") or an object {"preset": name, "overrides": {…}}'


def read_ruleset(value: Any) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """The envelope's ``ruleset`` (a preset name, or ``{"preset": …, "overrides": {…}}``) as
    the preset and its sorted overrides (lists as tuples); raises ``E_SCHEMA`` /
    ``E_NUMBER_RANGE``. Every game's envelope reads it; the native core resolves its
    rulesets with it too.

    >>> read_ruleset({"preset": "hk", "overrides": {"tiers": [1, 2]}})
    ('hk', (('tiers', (1, 2)),))
    """
    if isinstance(value, str) and value:
        return value, ()
    if not isinstance(value, dict):
        given = "an empty string" if value == "" else f"{type_name(value)} {shortened(value)}"
        raise schema_error("ruleset", f"expected {_RULESET_WANTED}, got {given}")
    obj: Mapping[str, Any] = value
    no_unknown(obj, frozenset({"preset", "overrides"}), "ruleset", None)
    preset = obj.get("preset")
    if not isinstance(preset, str) or not preset:
        given = "an empty string" if preset == "" else f"{type_name(preset)} {shortened(preset)}"
        raise schema_error("ruleset.preset", f'expected a preset name (e.g. "hk"), got {given}')
    overrides = as_object(obj.get("overrides", {}), "ruleset.overrides")
    return preset, tuple(
        sorted((k, _freeze(v, f"ruleset.overrides.{k}")) for k, v in overrides.items())
    )


def _freeze(value: Any, path: str) -> Any:
    """An override value with lists as tuples; a number must be finite and within ±2**53
    (overrides are stored as JSON text, which SQL reads as numbers)."""
    if isinstance(value, list):
        return tuple(_freeze(v, f"{path}[{i}]") for i, v in enumerate(value))
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not -BALANCE_MAX <= value <= BALANCE_MAX  # also NaN and ±infinity
    ):
        raise LogFormatError(
            E_NUMBER_RANGE,
            f"{path}: {shortened(value)} is not a number between -2**53 and 2**53",
            path=path,
        )
    return value


def _seats(value: Any) -> tuple[SeatInfo, ...]:
    seats = as_list(value, "seats")
    if not 2 <= len(seats) <= MAX_SEATS:
        raise schema_error("seats", f"expected 2 to {MAX_SEATS} seats, got {len(seats)}")
    out = []
    for i, raw in enumerate(seats):
        path = f"seats[{i}]"
        obj = as_object(raw, path)
        no_unknown(obj, _SEAT_KEYS, path, None)
        seat = whole_number(obj.get("seat"), f"{path}.seat")
        if seat != i:
            raise schema_error(
                f"{path}.seat",
                f"seats must be listed in seat order 0, 1, …; got seat {seat} at position {i}",
            )
        balance = _balance(obj.get("balance"), f"{path}.balance")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise schema_error(f"{path}.name", f"expected a string, got {type_name(name)} {name!r}")
        out.append(
            SeatInfo(
                seat=seat,
                player_id=_str(obj.get("player_id"), f"{path}.player_id"),
                name=name,
                balance=balance,
            )
        )
    return tuple(out)


#: The envelope: what every game's line holds, whatever its game (docs/log-format.md).
ENVELOPE_KEYS = frozenset(
    {
        "format_version", "game_kind", "game_id", "ruleset", "match_id", "game_number",
        "table_id", "tournament_id", "tournament_kind", "tournament_round", "started_at",
        "seats", "actions", "result", "truth",
    }
)  # fmt: skip


def read_envelope(obj: Any, keys: frozenset[str]) -> dict[str, Any]:
    """Check a game object's envelope (the required fields, no key outside ``keys``, the
    version, the kind, the ids, ruleset, seats, match and tournament fields) and return the
    :class:`GameRecord` fields it gives, by name. Raises :class:`LogFormatError`.

    >>> env = read_envelope({"format_version": 1, "game_kind": "doudizhu", "game_id": "d1",
    ...     "ruleset": "ddz", "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(3)],
    ...     "actions": []}, ENVELOPE_KEYS)
    >>> env["game_kind"], env["ruleset"], len(env["seats"])
    ('doudizhu', 'ddz', 3)
    """
    top = as_object(obj, "(game)")
    for key in _REQUIRED_KEYS:
        if key not in top:
            raise schema_error(key, "required field missing")
    no_unknown(top, keys, "", None)
    version = whole_number(top["format_version"], "format_version")
    if version != FORMAT_VERSION:
        raise schema_error(
            "format_version",
            f"version {version} is not supported (this reader knows {FORMAT_VERSION})",
        )
    kind = top["game_kind"]
    if kind not in kinds():
        raise schema_error("game_kind", f"expected one of {', '.join(kinds())}, got {kind!r}")
    preset, overrides = read_ruleset(top["ruleset"])
    truth = top.get("truth")
    return {
        "game_id": _str(top["game_id"], "game_id"),
        "game_kind": kind,
        "ruleset": preset,
        "overrides": overrides,
        "seats": _seats(top["seats"]),
        "match_id": _opt_str(top.get("match_id"), "match_id"),
        "game_number": whole_number(
            top.get("game_number", 1), "game_number", minimum=1, maximum=INT32_MAX
        ),
        "table_id": _opt_str(top.get("table_id"), "table_id"),
        "tournament_id": _opt_str(top.get("tournament_id"), "tournament_id"),
        "started_at": _started_at(top.get("started_at")),
        "truth": None if truth is None else dict(as_object(truth, "truth")),
        "format_version": version,
        "tournament_kind": _opt_str(top.get("tournament_kind"), "tournament_kind"),
        "tournament_round": opt_whole_number(
            top.get("tournament_round"), "tournament_round", minimum=1, maximum=INT32_MAX
        ),
    }


def parse_game(obj: Mapping[str, Any], *, source: Source, raw: str) -> GameRecord:
    """One game object (a JSON object, or the object a CSV game's rows make) → its game's
    record, read by the parser of the game its ``game_kind`` names (:mod:`pipeline.games`);
    the content hash is the object's. A kind no game has is read by the parser of
    :data:`pipeline.games.DEFAULT_KIND`'s game, which refuses it ``E_SCHEMA`` (after the
    fields that parser checks first). Raises :class:`LogFormatError`.

    >>> obj = {"format_version": 1, "game_kind": "chess", "game_id": "c1", "ruleset": "hk",
    ...        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(2)], "actions": []}
    >>> try:
    ...     parse_game(obj, source=Source("x.jsonl", 1), raw="")
    ... except LogFormatError as err:
    ...     print(err.code, err.message)
    E_SCHEMA game_kind: expected one of big2, doudizhu, got 'chess'
    """
    game = find_game(obj.get("game_kind")) or game_for(DEFAULT_KIND)
    record: GameRecord = game.parse_record(
        obj, source=source, raw=raw, content_hash=content_hash(obj)
    )
    return record
