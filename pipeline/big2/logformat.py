"""Big Two's log format: one Big Two game object (docs/log-format.md) → a :class:`GameRecord`
whose actions are :class:`LogAction` and whose declared result is a :class:`DeclaredResult`.

Behind the game seam: :class:`pipeline.big2.game.Big2` parses with :func:`record_from_obj`,
which reads the shared envelope with :func:`pipeline.logs.records.read_envelope` and Big Two's
deal (hands and stock in the 52-card notations of :mod:`pipeline.cards`), partial-information
fields, actions and result itself. Every problem raises :class:`LogFormatError` with a stable
code (``E_SCHEMA``, ``E_BAD_CARD`` …), a message naming the field path (``actions[3].cards``)
and, when one action is at fault, ``context["action_index"]``.

>>> from pipeline.logs.records import content_hash
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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

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
from pipeline.errors import E_GAME_TOO_LONG, E_TS_ORDER, CardParseError, LogFormatError
from pipeline.games import CsvColumns
from pipeline.logs.csv_logs import int_cell, ints_cell
from pipeline.logs.model import GameRecord, Source
from pipeline.logs.records import (
    ENVELOPE_KEYS,
    TS_MAX,
    TS_MIN,
    action_ts,
    as_list,
    as_object,
    no_unknown,
    opt_whole_number,
    read_envelope,
    schema_error,
    type_name,
    whole_number,
)


class LogAction(NamedTuple):
    """One action as logged.

    Immutable; a named tuple rather than a dataclass because one is built per action on the
    parse hot path (several times cheaper to create).
    """

    seat: int
    type: ActionType
    cards: int = 0  # mask; 0 for a pass
    claim: Claim | None = None
    drawn: int | None = None  # stock_13: the card drawn after a pass, when logged
    ts: float | None = None  # seconds since the Unix epoch, when logged


@dataclass(frozen=True, slots=True)
class Big2Record(GameRecord):
    """One Big Two game from a log: the envelope's fields are :class:`GameRecord`'s
    (``hands`` the deal, one mask per seat, None for partial information; ``actions`` its
    :class:`LogAction` records), plus what only Big Two's deal and opening need."""

    stock: tuple[int, ...] = ()  # undealt cards in draw order (3-player stock / leftover)
    start_counts: tuple[int, ...] | None = None  # partial info: cards each seat started with
    previous_winner: int | None = None
    first_leader: int | None = None


@dataclass(frozen=True, slots=True)
class DeclaredResult:
    """The result the log claims; the replay cross-checks it."""

    winner: int | None = None
    cards_left: tuple[int, ...] | None = None


def max_actions(seats: int) -> int:
    """The most actions a legal game at a table of ``seats`` has: at most one play per card
    (52), each followed by at most one pass per other seat (a trick ends when all the others
    passed), plus one claim and one swap.

    >>> from pipeline.logs.records import MAX_ACTIONS
    >>> max_actions(4), max_actions(52) == MAX_ACTIONS
    (210, True)
    """
    return N_CARDS * seats + 2


#: A Big Two line: the envelope plus the deal and the partial-information fields.
TOP_KEYS = ENVELOPE_KEYS | {"deal", "start_counts", "previous_winner", "first_leader"}
_ACTION_KEYS = frozenset({"seat", "action", "cards", "claim", "drawn", "ts"})
_ACTION_TYPES = {t.value: t for t in ActionType}
_CLAIMS = {c.value: c for c in Claim}


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
            raise schema_error(
                f"{path}[{i}]",
                f"expected a card string, got {type_name(tok)} {tok!r}",
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
    raise schema_error(
        path,
        f"expected cards as a string or a list of strings, got {type_name(value)}",
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
    raise schema_error(
        path, f"expected cards as a string or a list of strings, got {type_name(value)}"
    )


def _one_card(value: Any, path: str, action_index: int) -> int:
    if not isinstance(value, str):
        raise schema_error(
            path, f"expected one card as a string, got {type_name(value)} {value!r}", action_index
        )
    try:
        return parse_card(value)
    except CardParseError as err:
        raise _card_error(err, path, action_index) from None


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


def _seat_ref(value: Any, path: str, n_seats: int) -> int | None:
    seat = opt_whole_number(value, path)
    if seat is not None and seat >= n_seats:
        raise schema_error(path, f"seat {seat} is not at a {n_seats}-seat table")
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
    obj = as_object(raw, path, i)
    no_unknown(obj, _ACTION_KEYS, path, i)
    seat = whole_number(obj.get("seat"), f"{path}.seat", i)
    kind_text = obj.get("action")
    kind = _ACTION_TYPES.get(kind_text) if isinstance(kind_text, str) else None
    if kind is None:
        raise schema_error(
            f"{path}.action", f"expected one of {', '.join(_ACTION_TYPES)}, got {kind_text!r}", i
        )
    cards = obj.get("cards")
    mask = 0
    if kind == ActionType.PLAY:
        if cards is None:
            raise schema_error(f"{path}.cards", "a play needs its cards", i)
        mask = cards_mask(cards, f"{path}.cards", i)
        if mask == 0:
            raise schema_error(f"{path}.cards", "a play needs at least one card", i)
    elif cards not in (None, "", []):
        raise schema_error(f"{path}.cards", f"a {kind.value} has no cards, got {cards!r}", i)
    claim: Claim | None = None
    claim_text = obj.get("claim")
    if kind == ActionType.CLAIM:
        claim = _CLAIMS.get(claim_text) if isinstance(claim_text, str) else None
        if claim is None:
            raise schema_error(
                f"{path}.claim", f"expected one of {', '.join(_CLAIMS)}, got {claim_text!r}", i
            )
    elif claim_text is not None:
        raise schema_error(
            f"{path}.claim", f"only a claim action names a claim, this is a {kind.value}", i
        )
    drawn_value = obj.get("drawn")
    drawn: int | None = None
    if drawn_value is not None:
        if kind != ActionType.PASS:
            raise schema_error(
                f"{path}.drawn", f"only a pass draws a card, this is a {kind.value}", i
            )
        drawn = _one_card(drawn_value, f"{path}.drawn", i)
    return LogAction(
        seat=seat,
        type=kind,
        cards=mask,
        claim=claim,
        drawn=drawn,
        ts=action_ts(obj.get("ts"), f"{path}.ts", i),
    )


def _deal(value: Any) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    if value is None:
        return None, ()
    obj = as_object(value, "deal")
    no_unknown(obj, frozenset({"hands", "stock"}), "deal", None)
    hands = as_list(obj.get("hands"), "deal.hands")
    masks = tuple(cards_mask(h, f"deal.hands[{s}]") for s, h in enumerate(hands))
    stock = tuple(card_list(obj.get("stock", []), "deal.stock"))
    return masks, stock


def _result(value: Any, n_seats: int) -> DeclaredResult | None:
    if value is None:
        return None
    obj = as_object(value, "result")
    no_unknown(obj, frozenset({"winner", "cards_left"}), "result", None)
    winner = _seat_ref(obj.get("winner"), "result.winner", n_seats)
    left_value = obj.get("cards_left")
    left: tuple[int, ...] | None = None
    if left_value is not None:
        items = as_list(left_value, "result.cards_left")
        left = tuple(
            whole_number(x, f"result.cards_left[{k}]", maximum=N_CARDS) for k, x in enumerate(items)
        )
    return DeclaredResult(winner=winner, cards_left=left)


def record_from_obj(obj: Any, *, source: Source, raw: str, content_hash: str) -> Big2Record:
    """Check one game object against the log format and build its record (raises on a problem)."""
    envelope = read_envelope(obj, TOP_KEYS)
    top: Mapping[str, Any] = obj
    seats = envelope["seats"]
    n = len(seats)
    hands, stock = _deal(top.get("deal"))
    counts_value = top.get("start_counts")
    start_counts: tuple[int, ...] | None = None
    if counts_value is not None:
        items = as_list(counts_value, "start_counts")
        start_counts = tuple(
            whole_number(x, f"start_counts[{k}]", maximum=N_CARDS) for k, x in enumerate(items)
        )
    logged = as_list(top["actions"], "actions")
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
    return Big2Record(
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


def _csv_fill(cell: Callable[[str], str], obj: dict[str, Any]) -> None:
    """Big Two's columns of a games-CSV row (docs/log-format.md) into its game object."""
    for name in ("previous_winner", "first_leader"):
        if cell(name):
            obj[name] = int_cell(cell(name), f"games.{name}")
    if cell("hands"):
        obj["deal"] = {"hands": cell("hands").split("|"), "stock": cell("stock")}
    if cell("start_counts"):
        obj["start_counts"] = ints_cell(cell("start_counts"), "games.start_counts")
    result: dict[str, Any] = {}
    if cell("winner"):
        result["winner"] = int_cell(cell("winner"), "games.winner")
    if cell("cards_left"):
        result["cards_left"] = ints_cell(cell("cards_left"), "games.cards_left")
    if result:
        obj["result"] = result


#: Big Two's own CSV log columns (:class:`pipeline.games.CsvColumns`).
CSV = CsvColumns(
    title="Big Two",
    game_columns=("stock", "start_counts", "previous_winner", "first_leader", "cards_left"),
    action_columns=("claim", "drawn"),
    fill=_csv_fill,
)
