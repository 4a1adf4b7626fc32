"""One game as a JSON object (docs/log-format.md) → a typed :class:`GameRecord`.

Shared by every log shape: the JSON Lines reader passes each line's object, the CSV reader
an equivalent object built from its rows. Every problem raises :class:`LogFormatError`
with a stable code (``E_SCHEMA``, ``E_BAD_CARD`` …), a message naming the field path
(``actions[3].cards``) and, when one action is at fault, ``context["action_index"]``.
The readers turn those errors into :class:`~pipeline.logs.model.Reject` rows.

>>> obj = {"format_version": 1, "game_kind": "big2", "game_id": "g1",
...        "ruleset": {"preset": "hk"}, "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(4)],
...        "actions": [{"seat": 0, "action": "play", "cards": "3d"}, {"seat": 1, "action": "pass"}]}
>>> record = record_from_obj(obj, source=Source("x.jsonl", 1), raw="", content_hash=content_hash(obj))
>>> record.actions[0].cards, record.actions[1].type.value, record.hands is None
(1, 'pass', True)
>>> try:
...     record_from_obj({**obj, "actions": [{"seat": 0, "action": "play", "cards": "3x"}]},
...                     source=Source("x.jsonl", 1), raw="", content_hash="")
... except LogFormatError as err:
...     print(err.code, err.context["action_index"])
E_BAD_CARD 0
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson

from pipeline.big2.rules import MAX_PLAYERS
from pipeline.big2.state import ActionType, Claim, new_tuple
from pipeline.cards import (
    N_CARDS,
    RANK_COMPACT,
    RANK_TEXT,
    SUIT_LETTER,
    SUIT_SYMBOL,
    mask_of,
    parse_card,
    parse_cards,
)
from pipeline.errors import (
    E_GAME_TOO_LONG,
    E_NUMBER_RANGE,
    E_SURROGATE,
    E_TS_ORDER,
    E_TS_RANGE,
    CardParseError,
    LogFormatError,
)
from pipeline.logs.model import DeclaredResult, GameRecord, LogAction, SeatInfo, Source

FORMAT_VERSION = 1
GAME_KINDS = ("big2", "doudizhu")
MAX_SEATS = MAX_PLAYERS

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
#: The most actions a legal game has: at most one play per card (52), each followed by at most
#: one pass per other seat (a trick ends when all the others passed), plus one claim and one
#: swap: 52 × seats + 2 (:func:`max_actions`), at most 52 × 52 + 2 at the largest table. A
#: longer game is refused before it is replayed (or, in a CSV, before its rows are held in
#: memory).
MAX_ACTIONS = N_CARDS * MAX_SEATS + 2


def max_actions(seats: int) -> int:
    """The most actions a legal game at a table of ``seats`` has.

    >>> max_actions(4), max_actions(52) == MAX_ACTIONS
    (210, True)
    """
    return N_CARDS * seats + 2


#: A lone UTF-16 surrogate: what a JSON escape such as ``"\\ud800"`` gives (no character).
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

_TOP_KEYS = frozenset(
    {
        "format_version", "game_kind", "game_id", "ruleset", "match_id", "game_number",
        "table_id", "tournament_id", "tournament_kind", "tournament_round", "started_at",
        "seats", "deal", "start_counts", "previous_winner", "first_leader", "actions",
        "result", "truth",
    }
)  # fmt: skip
_REQUIRED_KEYS = ("format_version", "game_kind", "game_id", "ruleset", "seats", "actions")
_SEAT_KEYS = frozenset({"seat", "player_id", "name", "balance"})
_ACTION_KEYS = frozenset({"seat", "action", "cards", "claim", "drawn", "ts"})
_ACTION_TYPES = {t.value: t for t in ActionType}
_CLAIMS = {c.value: c for c in Claim}


def canonical_json(obj: Any) -> str:
    """The canonical JSON text of a game: sorted keys, no spaces, UTF-8 kept.

    >>> canonical_json({"b": 1, "a": [1, 2], "c": "♦3"})
    '{"a":[1,2],"b":1,"c":"♦3"}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(obj: Any) -> str:
    """sha256 (hex) of the canonical JSON of a game: whitespace and key order do not matter.

    orjson writes the same bytes as :func:`canonical_json` about 15 times faster; values it
    cannot write (integers beyond 64 bits, lone surrogates) take the standard library's path.

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


def _fail(path: str, why: str, action_index: int | None = None) -> LogFormatError:
    return LogFormatError("E_SCHEMA", f"{path}: {why}", path=path, action_index=action_index)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "a list" if isinstance(value, list) else "an object"
    )


def _int(
    value: Any,
    path: str,
    action_index: int | None = None,
    *,
    minimum: int = 0,
    maximum: int | None = None,
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if (
            maximum is not None
            and isinstance(value, float)
            and value > maximum
            and (value.is_integer() or math.isinf(value))
        ):  # a whole number too big for 64 bits, which orjson reads as a float
            raise _too_big(path, _short(value), maximum, action_index)
        raise _fail(
            path, f"expected a whole number, got {_type_name(value)} {_short(value)}", action_index
        )
    if value < minimum:
        raise _fail(path, f"expected a number ≥ {minimum}, got {_short(value)}", action_index)
    if maximum is not None and value > maximum:
        raise _too_big(path, _short(value), maximum, action_index)
    return value


def _too_big(path: str, shown: str, maximum: int, action_index: int | None) -> LogFormatError:
    return LogFormatError(
        E_NUMBER_RANGE,
        f"{path}: {shown} is larger than {maximum:,}, the most this field can hold",
        path=path,
        action_index=action_index,
    )


def _short(value: Any) -> str:
    """``repr`` of a value, shortened: a 400-digit number is not quoted whole."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}…({len(text)} characters)"


def _opt_int(value: Any, path: str, *, minimum: int = 0, maximum: int | None = None) -> int | None:
    return None if value is None else _int(value, path, minimum=minimum, maximum=maximum)


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
        raise _fail(
            path, f"expected a non-empty string, got {_type_name(value)} {value!r}", action_index
        )
    return value


def _opt_str(value: Any, path: str) -> str | None:
    return None if value is None else _str(value, path)


def _list(value: Any, path: str, action_index: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(path, f"expected a list, got {_type_name(value)}", action_index)
    return value


def _object(value: Any, path: str, action_index: int | None = None) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"expected an object, got {_type_name(value)}", action_index)
    return value


def _no_unknown(
    obj: Mapping[str, Any], known: frozenset[str], path: str, index: int | None
) -> None:
    if obj.keys() <= known:
        return
    extra = [k for k in obj if k not in known]
    if extra:
        where = f"{path}." if path else ""
        raise _fail(
            f"{where}{extra[0]}",
            f"unknown field (known: {', '.join(sorted(known))})",
            index,
        )


def _token_table() -> dict[str, int]:
    """Every common one-card spelling → card id (rank-suit and suit-rank, any case)."""
    table: dict[str, int] = {}
    for c in range(52):
        ranks = {RANK_TEXT[c >> 2], RANK_COMPACT[c >> 2]}
        for rank in ranks:
            for suit in (SUIT_LETTER[c & 3], SUIT_SYMBOL[c & 3]):
                for text in (rank + suit, suit + rank):
                    table[text] = table[text.lower()] = table[text.upper()] = c
    return table


_FAST_TOKENS = _token_table()


def _fast_ids(tokens: list[str]) -> list[int] | None:
    """Card ids of space-separated common tokens, or None (then the full parser decides)."""
    ids = []
    seen = 0
    for tok in tokens:
        c = _FAST_TOKENS.get(tok)
        if c is None or seen >> c & 1:
            return None
        seen |= 1 << c
        ids.append(c)
    return ids


@lru_cache(maxsize=1 << 16)
def _mask_of_text(text: str) -> int:
    ids = _fast_ids(text.split())
    return mask_of(parse_cards(text) if ids is None else ids)


@lru_cache(maxsize=1 << 16)
def _mask_of_tokens(tokens: tuple[str, ...]) -> int:
    ids = _fast_ids(list(tokens))
    return mask_of(parse_cards(tokens) if ids is None else ids)


def _card_error(err: CardParseError, path: str, action_index: int | None) -> LogFormatError:
    return LogFormatError(
        err.code,
        f"{path}: {err.message}",
        path=path,
        action_index=action_index,
        token=err.context.get("token"),
    )


def _check_tokens(value: list[Any], path: str, action_index: int | None) -> tuple[str, ...]:
    for i, tok in enumerate(value):
        if not isinstance(tok, str):
            raise _fail(
                f"{path}[{i}]",
                f"expected a card string, got {_type_name(tok)} {tok!r}",
                action_index,
            )
    return tuple(value)


def cards_mask(value: Any, path: str, action_index: int | None = None) -> int:
    """A card list (one string, or a list of card strings) as a mask; raise naming ``path``.

    >>> cards_mask("5♦5♣", "cards"), cards_mask(["5d", "5c"], "cards")
    (768, 768)
    """
    try:
        if isinstance(value, str):
            return _mask_of_text(value)
        if isinstance(value, list):
            return _mask_of_tokens(_check_tokens(value, path, action_index))
    except CardParseError as err:
        raise _card_error(err, path, action_index) from None
    raise _fail(
        path,
        f"expected cards as a string or a list of strings, got {_type_name(value)}",
        action_index,
    )


def card_list(value: Any, path: str) -> list[int]:
    """A card list in its given order (the stock is drawn in order)."""
    try:
        if isinstance(value, str):
            return _fast_ids(value.split()) or parse_cards(value)
        if isinstance(value, list):
            tokens = _check_tokens(value, path, None)
            return _fast_ids(list(tokens)) or parse_cards(tokens)
    except CardParseError as err:
        raise _card_error(err, path, None) from None
    raise _fail(path, f"expected cards as a string or a list of strings, got {_type_name(value)}")


def _one_card(value: Any, path: str, action_index: int) -> int:
    if not isinstance(value, str):
        raise _fail(
            path, f"expected one card as a string, got {_type_name(value)} {value!r}", action_index
        )
    try:
        return parse_card(value)
    except CardParseError as err:
        raise _card_error(err, path, action_index) from None


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


def _timestamp(value: Any, path: str, action_index: int) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not TS_MIN <= value <= TS_MAX:  # also NaN, ±infinity and numbers beyond a float
            seconds = float(value) if isinstance(value, float) or abs(value) < 1 << 64 else 0.0
            raise _ts_range_error(path, _short(value), action_index, seconds)
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
    raise _fail(
        path,
        f"expected seconds since the epoch or an ISO 8601 time, got {_short(value)}",
        action_index,
    )


def _check_ts_order(actions: tuple[LogAction, ...]) -> None:
    """Raise ``E_TS_ORDER`` at the first action logged earlier than the action before it."""
    last = TS_MIN
    last_index = -1
    for i, action in enumerate(actions):
        ts = action.ts
        if ts is None:
            continue
        if ts < last:
            raise LogFormatError(
                E_TS_ORDER,
                f"actions[{i}].ts: {ts:.3f} is {last - ts:.3f} s before actions[{last_index}].ts "
                f"({last:.3f}); the actions of a game are logged in time order",
                path=f"actions[{i}].ts",
                action_index=i,
            )
        last, last_index = ts, i


def _started_at(value: Any) -> str | None:
    """``started_at`` as stored: as logged, or, without a zone, with ``+00:00`` made explicit."""
    text = _opt_str(value, "started_at")
    if text is None:
        return None
    try:
        dt = datetime.fromisoformat(text)
        stamp = iso_time(text).timestamp()
    except (ValueError, OverflowError):
        raise _fail("started_at", f"expected an ISO 8601 time, got {_short(text)}") from None
    if not TS_MIN <= stamp <= TS_MAX:
        raise _ts_range_error("started_at", repr(text), None, 0.0)
    return text if dt.tzinfo is not None else dt.replace(tzinfo=UTC).isoformat()


def _balance(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(path, f"expected a number, got {_type_name(value)} {_short(value)}")
    if not -BALANCE_MAX <= value <= BALANCE_MAX:  # also NaN and ±infinity
        raise LogFormatError(
            E_NUMBER_RANGE,
            f"{path}: {_short(value)} is not a balance between -2**53 and 2**53",
            path=path,
        )
    return float(value)


_RULESET_WANTED = 'a preset name (e.g. "hk") or an object {"preset": name, "overrides": {…}}'


def _ruleset(value: Any) -> tuple[str, tuple[tuple[str, Any], ...]]:
    if isinstance(value, str) and value:
        return value, ()
    if not isinstance(value, dict):
        given = "an empty string" if value == "" else f"{_type_name(value)} {_short(value)}"
        raise _fail("ruleset", f"expected {_RULESET_WANTED}, got {given}")
    obj: Mapping[str, Any] = value
    _no_unknown(obj, frozenset({"preset", "overrides"}), "ruleset", None)
    preset = obj.get("preset")
    if not isinstance(preset, str) or not preset:
        given = "an empty string" if preset == "" else f"{_type_name(preset)} {_short(preset)}"
        raise _fail("ruleset.preset", f'expected a preset name (e.g. "hk"), got {given}')
    overrides = _object(obj.get("overrides", {}), "ruleset.overrides")
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
            f"{path}: {_short(value)} is not a number between -2**53 and 2**53",
            path=path,
        )
    return value


def _seats(value: Any) -> tuple[SeatInfo, ...]:
    seats = _list(value, "seats")
    if not 2 <= len(seats) <= MAX_PLAYERS:
        raise _fail("seats", f"expected 2 to {MAX_PLAYERS} seats, got {len(seats)}")
    out = []
    for i, raw in enumerate(seats):
        path = f"seats[{i}]"
        obj = _object(raw, path)
        _no_unknown(obj, _SEAT_KEYS, path, None)
        seat = _int(obj.get("seat"), f"{path}.seat")
        if seat != i:
            raise _fail(
                f"{path}.seat",
                f"seats must be listed in seat order 0, 1, …; got seat {seat} at position {i}",
            )
        balance = _balance(obj.get("balance"), f"{path}.balance")
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise _fail(f"{path}.name", f"expected a string, got {_type_name(name)} {name!r}")
        out.append(
            SeatInfo(
                seat=seat,
                player_id=_str(obj.get("player_id"), f"{path}.player_id"),
                name=name,
                balance=balance,
            )
        )
    return tuple(out)


def _seat_ref(value: Any, path: str, n_seats: int) -> int | None:
    seat = _opt_int(value, path)
    if seat is not None and seat >= n_seats:
        raise _fail(path, f"seat {seat} is not at a {n_seats}-seat table")
    return seat


_PLAIN_KEYS = frozenset({"seat", "action", "cards", "ts"})


def _action(raw: Any, i: int) -> LogAction:
    """One action; a fast path for the common plain play / pass, else every check."""
    if type(raw) is dict and raw.keys() <= _PLAIN_KEYS:
        seat = raw.get("seat")
        ts = raw.get("ts")
        if (
            type(seat) is int
            and seat >= 0
            and (ts is None or (type(ts) in (float, int) and TS_MIN <= ts <= TS_MAX))
        ):
            kind = raw.get("action")
            stamp = None if ts is None else float(ts)
            if kind == "pass" and "cards" not in raw:
                return new_tuple(LogAction, (seat, ActionType.PASS, 0, None, None, stamp))
            cards = raw.get("cards")
            if kind == "play" and type(cards) is str:
                try:
                    mask = _mask_of_text(cards)
                except CardParseError:
                    mask = 0
                if mask:
                    return new_tuple(LogAction, (seat, ActionType.PLAY, mask, None, None, stamp))
    return _action_checked(raw, i)


def _action_checked(raw: Any, i: int) -> LogAction:
    path = f"actions[{i}]"
    obj = _object(raw, path, i)
    _no_unknown(obj, _ACTION_KEYS, path, i)
    seat = _int(obj.get("seat"), f"{path}.seat", i)
    kind_text = obj.get("action")
    kind = _ACTION_TYPES.get(kind_text) if isinstance(kind_text, str) else None
    if kind is None:
        raise _fail(
            f"{path}.action", f"expected one of {', '.join(_ACTION_TYPES)}, got {kind_text!r}", i
        )
    cards = obj.get("cards")
    mask = 0
    if kind == ActionType.PLAY:
        if cards is None:
            raise _fail(f"{path}.cards", "a play needs its cards", i)
        mask = cards_mask(cards, f"{path}.cards", i)
        if mask == 0:
            raise _fail(f"{path}.cards", "a play needs at least one card", i)
    elif cards not in (None, "", []):
        raise _fail(f"{path}.cards", f"a {kind.value} has no cards, got {cards!r}", i)
    claim: Claim | None = None
    claim_text = obj.get("claim")
    if kind == ActionType.CLAIM:
        claim = _CLAIMS.get(claim_text) if isinstance(claim_text, str) else None
        if claim is None:
            raise _fail(
                f"{path}.claim", f"expected one of {', '.join(_CLAIMS)}, got {claim_text!r}", i
            )
    elif claim_text is not None:
        raise _fail(
            f"{path}.claim", f"only a claim action names a claim, this is a {kind.value}", i
        )
    drawn_value = obj.get("drawn")
    drawn: int | None = None
    if drawn_value is not None:
        if kind != ActionType.PASS:
            raise _fail(f"{path}.drawn", f"only a pass draws a card, this is a {kind.value}", i)
        drawn = _one_card(drawn_value, f"{path}.drawn", i)
    return LogAction(
        seat=seat,
        type=kind,
        cards=mask,
        claim=claim,
        drawn=drawn,
        ts=_timestamp(obj.get("ts"), f"{path}.ts", i),
    )


def _deal(value: Any) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    if value is None:
        return None, ()
    obj = _object(value, "deal")
    _no_unknown(obj, frozenset({"hands", "stock"}), "deal", None)
    hands = _list(obj.get("hands"), "deal.hands")
    masks = tuple(cards_mask(h, f"deal.hands[{s}]") for s, h in enumerate(hands))
    stock = tuple(card_list(obj.get("stock", []), "deal.stock"))
    return masks, stock


def _result(value: Any, n_seats: int) -> DeclaredResult | None:
    if value is None:
        return None
    obj = _object(value, "result")
    _no_unknown(obj, frozenset({"winner", "cards_left"}), "result", None)
    winner = _seat_ref(obj.get("winner"), "result.winner", n_seats)
    left_value = obj.get("cards_left")
    left: tuple[int, ...] | None = None
    if left_value is not None:
        items = _list(left_value, "result.cards_left")
        left = tuple(
            _int(x, f"result.cards_left[{k}]", maximum=N_CARDS) for k, x in enumerate(items)
        )
    return DeclaredResult(winner=winner, cards_left=left)


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
    top = _object(obj, "(game)")
    for key in _REQUIRED_KEYS:
        if key not in top:
            raise _fail(key, "required field missing")
    _no_unknown(top, keys, "", None)
    version = _int(top["format_version"], "format_version")
    if version != FORMAT_VERSION:
        raise _fail(
            "format_version",
            f"version {version} is not supported (this reader knows {FORMAT_VERSION})",
        )
    kind = top["game_kind"]
    if kind not in GAME_KINDS:
        raise _fail("game_kind", f"expected one of {', '.join(GAME_KINDS)}, got {kind!r}")
    preset, overrides = _ruleset(top["ruleset"])
    truth = top.get("truth")
    return {
        "game_id": _str(top["game_id"], "game_id"),
        "game_kind": kind,
        "ruleset": preset,
        "overrides": overrides,
        "seats": _seats(top["seats"]),
        "match_id": _opt_str(top.get("match_id"), "match_id"),
        "game_number": _int(top.get("game_number", 1), "game_number", minimum=1, maximum=INT32_MAX),
        "table_id": _opt_str(top.get("table_id"), "table_id"),
        "tournament_id": _opt_str(top.get("tournament_id"), "tournament_id"),
        "started_at": _started_at(top.get("started_at")),
        "truth": None if truth is None else dict(_object(truth, "truth")),
        "format_version": version,
        "tournament_kind": _opt_str(top.get("tournament_kind"), "tournament_kind"),
        "tournament_round": _opt_int(
            top.get("tournament_round"), "tournament_round", minimum=1, maximum=INT32_MAX
        ),
    }


def action_ts(value: Any, path: str, action_index: int) -> float | None:
    """An action's ``ts`` (seconds since the epoch, within the limits) or None."""
    return _timestamp(value, path, action_index)


def record_from_obj(obj: Any, *, source: Source, raw: str, content_hash: str) -> GameRecord:
    """Check one game object against the log format and build its record (raises on a problem)."""
    envelope = read_envelope(obj, _TOP_KEYS)
    top: Mapping[str, Any] = obj
    seats = envelope["seats"]
    n = len(seats)
    hands, stock = _deal(top.get("deal"))
    counts_value = top.get("start_counts")
    start_counts: tuple[int, ...] | None = None
    if counts_value is not None:
        items = _list(counts_value, "start_counts")
        start_counts = tuple(
            _int(x, f"start_counts[{k}]", maximum=N_CARDS) for k, x in enumerate(items)
        )
    logged = _list(top["actions"], "actions")
    bound = max_actions(len(seats))
    if len(logged) > bound:
        raise LogFormatError(
            E_GAME_TOO_LONG,
            f"actions: {len(logged)} actions; no legal game at {len(seats)} seats has more "
            f"than {bound} (52 cards × {len(seats)} seats + a claim and a swap)",
            path="actions",
        )
    actions = tuple(_action(a, i) for i, a in enumerate(logged))
    _check_ts_order(actions)
    return GameRecord(
        **envelope,
        content_hash=content_hash,
        actions=actions,
        hands=hands,
        stock=stock,
        start_counts=start_counts,
        previous_winner=_seat_ref(top.get("previous_winner"), "previous_winner", n),
        first_leader=_seat_ref(top.get("first_leader"), "first_leader", n),
        declared=_result(top.get("result"), n),
        source=source,
        raw=raw,
    )
