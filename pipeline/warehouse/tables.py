"""The warehouse tables: Arrow schemas, and row builders from replayed games and rejects.

Five tables, documented column by column in ``docs/warehouse.md``:

* ``games``   one row per stored game
* ``seats``   one row per seat per game
* ``actions`` one row per action (play, pass, claim, swap, announce) per game
* ``tricks``  one row per trick per game
* ``rejects`` one row per rejected record (or game-id conflict)

Card sets are stored twice: a ``*_mask`` ``int64`` (bit ``card`` set, see
:mod:`pipeline.cards`; 52 bits fit) for fast SQL, and a ``*_text`` printed by
:func:`pipeline.cards.format_cards` for people.

The builders accept anything shaped like :class:`pipeline.replay.ReplayedGame`
(``record``, ``ruleset``, ``actions``, ``result``) and like the parsers' ``Reject``
(``source``, ``game_id``, ``action_index``, ``code``, ``message``, ``raw``); see
:class:`ReplayedGameLike` and :class:`RejectLike`.

>>> [t.value for t in Table]
['games', 'seats', 'actions', 'tricks', 'rejects']
>>> SCHEMAS[Table.SEATS].field("deal_mask").type
DataType(int64)
>>> rows = RowBuffer("b1")
>>> rows.n_games, rows.n_rejects
(0, 0)
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from operator import attrgetter
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.big2.combos import Kind
from pipeline.big2.rules import Ruleset
from pipeline.big2.state import (
    ActionRecord,
    ActionType,
    Block,
    Claim,
    GameResult,
    LastCall,
    Obligation,
)
from pipeline.cards import N_CARDS, format_cards
from pipeline.errors import E_GAME_NOT_STORED, E_ROW_BUILD
from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.records import BALANCE_MAX, INT32_MAX, MAX_ACTIONS, TS_MAX, TS_MIN, escaped

#: Longest ``raw`` text kept in the rejects table (characters); longer text is cut and marked.
RAW_LIMIT = 100_000
RAW_CUT_MARK = "…[cut]"
#: What building Arrow columns raises on a value the column cannot hold.
_ROW_ERRORS = (pa.ArrowException, ValueError, TypeError, OverflowError)


#: The game kinds whose games the tables hold; a replayed game of another kind is rejected
#: ``E_GAME_NOT_STORED`` (:func:`not_stored`) with the reason here.
STORED_KINDS = frozenset({"big2"})
_NOT_STORED_WHY = {"doudizhu": "Dou Dizhu games replay but the warehouse does not store them yet"}


def not_stored(record: GameRecord) -> Reject | None:
    """The ``E_GAME_NOT_STORED`` reject of a replayed game whose kind the tables do not hold
    (the row builder is Big Two's), else None.

    >>> not_stored(GameRecord("g", "", "big2", "hk", (), (), ())) is None
    True
    >>> not_stored(GameRecord("d", "", "doudizhu", "ddz", (), (), ())).message
    'Dou Dizhu games replay but the warehouse does not store them yet'
    """
    kind = record.game_kind
    if kind in STORED_KINDS:
        return None
    return Reject(
        source=record.source or Source("", 0),
        game_id=record.game_id,
        action_index=None,
        code=E_GAME_NOT_STORED,
        message=_NOT_STORED_WHY.get(kind, f"the warehouse does not store {kind!r} games yet"),
        raw=record.raw,
    )


class Table(StrEnum):
    """The warehouse's tables, in the order they are written and documented."""

    GAMES = "games"
    SEATS = "seats"
    ACTIONS = "actions"
    TRICKS = "tricks"
    REJECTS = "rejects"


class ReplayedGameLike(Protocol):
    """What the builders read from a replayed game (:class:`pipeline.replay.ReplayedGame`)."""

    @property
    def record(self) -> GameRecord: ...
    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def actions(self) -> Sequence[ActionRecord]: ...
    @property
    def result(self) -> GameResult: ...


class RejectLike(Protocol):
    """What the builders read from a rejected record (the parsers' / replay's ``Reject``)."""

    @property
    def source(self) -> Source | None: ...
    @property
    def game_id(self) -> str | None: ...
    @property
    def action_index(self) -> int | None: ...
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def raw(self) -> str | bytes | None: ...


_TS = pa.timestamp("ms", tz="UTC")

#: How the row builder makes a column's Arrow array from its inputs: ``build(type, *inputs)``.
Builder = Callable[..., pa.Array]


def _plain(type_: pa.DataType, values: Sequence[Any]) -> pa.Array:
    return pa.array(values, type_)


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a warehouse table: its name, its Arrow type, and how the row builder
    makes it (``build(type, *inputs)``, each input a buffered list named in ``inputs`` or a
    column built before this one; by default the list of the column's own name, as is).

    >>> c = Column("seat", pa.int8())
    >>> c.build(c.type, [0, 1]).to_pylist(), c.sources
    ([0, 1], ('seat',))
    """

    name: str
    type: pa.DataType
    build: Builder = _plain
    inputs: tuple[str, ...] = ()

    @property
    def sources(self) -> tuple[str, ...]:
        """What :attr:`build` reads: the ``inputs``, else the column's own name."""
        return self.inputs or (self.name,)


def build_columns(columns: Sequence[Column], inputs: Mapping[str, Any]) -> dict[str, pa.Array]:
    """Each column's array, in order; an input named like a column built before is that
    column (``cards_text`` reads the ``cards_mask`` array), else the buffered input.

    >>> double = lambda type_, n: pc.cast(pc.multiply(n, 2), type_)
    >>> cols = (Column("n", pa.int8()), Column("twice", pa.int16(), double, ("n",)))
    >>> build_columns(cols, {"n": [1, 2]})["twice"].to_pylist()
    [2, 4]
    """
    built: dict[str, pa.Array] = {}
    for col in columns:
        built[col.name] = col.build(
            col.type, *(built[n] if n in built else inputs[n] for n in col.sources)
        )
    return built


def buffered_inputs(columns: Sequence[Column]) -> tuple[str, ...]:
    """The inputs a row buffer fills for these columns (those no earlier column makes), in
    the order of first use.

    >>> buffered_inputs(COLUMNS[Table.SEATS])[-3:]
    ('final_hand_mask', 'cards_left', 'is_winner')
    """
    made: set[str] = set()
    out: dict[str, None] = {}
    for col in columns:
        out.update((n, None) for n in col.sources if n not in made)
        made.add(col.name)
    return tuple(out)


def _int(type_: pa.DataType, values: Sequence[int | None]) -> pa.Array:
    return _ints(values, type_)


def _enum_text(_type: pa.DataType, values: Sequence[StrEnum | None]) -> pa.Array:
    return _enums(values)


def _text_of_mask(_type: pa.DataType, masks: pa.Array) -> pa.Array:
    return mask_text(masks)


def _text_of_card(_type: pa.DataType, cards: pa.Array) -> pa.Array:
    return card_text(cards)


def _empty_as_null(type_: pa.DataType, values: Sequence[str]) -> pa.Array:
    return _null_if_empty(pa.array(values, type_))


def _timestamp(type_: pa.DataType, ms: pa.Array) -> pa.Array:
    return ms.cast(type_)


def _think_seconds(_type: pa.DataType, ms: pa.Array, action_index: pa.Array) -> pa.Array:
    return think_seconds(ms, action_index)


def _cards(name: str, source: str | None = None) -> tuple[Column, Column]:
    """A card set stored twice: ``<name>_mask`` (from the input ``source``) and its text."""
    mask = f"{name}_mask"
    return (
        Column(mask, pa.int64(), _int, (source or mask,)),
        Column(f"{name}_text", pa.string(), _text_of_mask, (mask,)),
    )


def _plain_columns(*spec: tuple[str, pa.DataType]) -> tuple[Column, ...]:
    return tuple(Column(name, type_) for name, type_ in spec)


#: Every table's columns, in the order they are stored: the one definition that the schemas
#: (:data:`SCHEMAS`), the row builder (:class:`RowBuffer`) and the column docs' check read.
COLUMNS: dict[Table, tuple[Column, ...]] = {
    Table.GAMES: _plain_columns(
        ("batch_id", pa.string()),
        ("game_id", pa.string()),
        ("content_hash", pa.string()),
        ("game_kind", pa.string()),
        ("ruleset", pa.string()),
        ("overrides", pa.string()),
        ("match_id", pa.string()),
        ("game_number", pa.int32()),
        ("table_id", pa.string()),
        ("tournament_id", pa.string()),
        ("started_at", pa.string()),
        ("players", pa.int8()),
        ("outcome", pa.string()),
        ("winner", pa.int8()),
        ("claim", pa.string()),
        ("first_leader", pa.int8()),
        ("n_tricks", pa.int16()),
        ("n_actions", pa.int32()),
        ("bao_seat", pa.int8()),
        ("bao_unknown_seat", pa.int8()),
        ("full_info", pa.bool_()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
        ("tournament_kind", pa.string()),
        ("tournament_round", pa.int32()),
        ("info_level", pa.string()),
    ),
    Table.SEATS: (
        *_plain_columns(
            ("game_id", pa.string()),
            ("seat", pa.int8()),
            ("player_id", pa.string()),
            ("name", pa.string()),
            ("balance", pa.float64()),
        ),
        *_cards("deal"),
        *_cards("final_hand"),
        *_plain_columns(("cards_left", pa.int8()), ("is_winner", pa.bool_())),
    ),
    # inputs: the engine's ActionRecord fields, plus ``game_id`` and ``ts_ms`` (the logged
    # time, epoch milliseconds) that the buffer adds per action
    Table.ACTIONS: (
        Column("game_id", pa.string()),
        Column("action_index", pa.int16(), _int),
        Column("seat", pa.int8(), _int),
        Column("action_type", pa.string(), _enum_text, ("type",)),
        *_cards("cards", "cards"),
        Column("kind", pa.string(), _enum_text),
        Column("rank_key", pa.int64(), _int),
        Column("trick", pa.int16(), _int),
        Column("is_lead", pa.bool_()),
        *_cards("top_before", "top_before"),
        Column("cards_left", pa.list_(pa.int8())),
        *_cards("hand_before", "hand_before"),
        Column("beating_play_existed", pa.bool_()),
        Column("highest_single", pa.int8(), _int),
        Column("highest_single_text", pa.string(), _text_of_card, ("highest_single",)),
        Column("next_seat", pa.int8(), _int),
        Column("next_on_one", pa.bool_()),
        Column("obligation", pa.string(), _enum_text),
        Column("block", pa.string(), _enum_text),
        Column("block_reason", pa.string(), _empty_as_null),
        Column("ends_trick", pa.bool_()),
        Column("wins_game", pa.bool_()),
        Column("drawn", pa.int8(), _int),
        Column("drawn_text", pa.string(), _text_of_card, ("drawn",)),
        Column("claim", pa.string(), _enum_text),
        Column("unchecked", pa.list_(pa.string())),
        Column("ts", _TS, _timestamp, ("ts_ms",)),
        Column("think_seconds", pa.float64(), _think_seconds, ("ts_ms", "action_index")),
        Column("last_call", pa.string(), _enum_text),
    ),
    # built in Arrow from the actions (tricks_table): the type is what the builder casts to
    Table.TRICKS: _plain_columns(
        ("game_id", pa.string()),
        ("trick", pa.int16()),
        ("leader", pa.int8()),
        ("winner", pa.int8()),
        ("n_actions", pa.int16()),
        ("n_plays", pa.int16()),
        ("lead_kind", pa.string()),
        ("ends_game", pa.bool_()),
    ),
    Table.REJECTS: _plain_columns(
        ("batch_id", pa.string()),
        ("file", pa.string()),
        ("line", pa.int64()),
        ("game_id", pa.string()),
        ("action_index", pa.int32()),
        ("code", pa.string()),
        ("message", pa.string()),
        ("raw", pa.string()),
    ),
}

SCHEMAS: dict[Table, pa.Schema] = {
    table: pa.schema([(c.name, c.type) for c in columns]) for table, columns in COLUMNS.items()
}
#: What the actions buffer adds to each engine record's fields.
_ACTION_EXTRAS = ("game_id", "ts_ms")
#: The ActionRecord fields the actions columns read, in order (the record's order: checked).
ACTION_FIELDS = tuple(n for n in buffered_inputs(COLUMNS[Table.ACTIONS]) if n not in _ACTION_EXTRAS)
#: The seats inputs buffered per row (the texts are computed from the masks).
_SEAT_INPUTS = buffered_inputs(COLUMNS[Table.SEATS])


def check_columns() -> list[str]:
    """Where the actions columns and the engine's record disagree (nowhere: checked at
    import, and by a test): every actions input is an ActionRecord field or one the buffer
    adds, and every ActionRecord field is stored.

    >>> check_columns()
    []
    """
    fields = ActionRecord._fields
    problems = [
        f"actions: the input {name!r} is not an ActionRecord field"
        for name in ACTION_FIELDS
        if name not in fields
    ]
    problems += [
        f"actions: the ActionRecord field {name!r} is not stored"
        for name in fields
        if name not in ACTION_FIELDS
    ]
    return problems


if check_columns():  # pragma: no cover - an engine record field without a column, or the reverse
    raise AssertionError(f"the actions columns do not match ActionRecord: {check_columns()}")


def int_range(type_: pa.DataType) -> tuple[int, int]:
    """The smallest and the largest value of an Arrow signed integer type.

    >>> int_range(pa.int32()), int_range(pa.int8())
    ((-2147483648, 2147483647), (-128, 127))
    """
    bits = type_.bit_width
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _column_type(table: Table, column: str) -> pa.DataType:
    type_ = SCHEMAS[table].field(column).type
    return type_.value_type if pa.types.is_list(type_) else type_


#: The largest value the log readers let through (pipeline.logs.records), per integer column
#: that stores it: each must fit the column's Arrow type (:func:`check_record_limits`).
RECORD_LIMITS: dict[tuple[Table, str], int] = {
    (Table.GAMES, "game_number"): INT32_MAX,
    (Table.GAMES, "tournament_round"): INT32_MAX,
    (Table.GAMES, "n_actions"): MAX_ACTIONS,
    (Table.GAMES, "n_tricks"): MAX_ACTIONS,
    (Table.ACTIONS, "action_index"): MAX_ACTIONS,
    (Table.ACTIONS, "trick"): MAX_ACTIONS,
    (Table.ACTIONS, "cards_left"): N_CARDS,
    (Table.SEATS, "cards_left"): N_CARDS,
    (Table.TRICKS, "n_actions"): MAX_ACTIONS,
}


def check_record_limits() -> list[str]:
    """The readers' limits that the schemas cannot hold (none: checked at import, and by a test).

    >>> check_record_limits()
    []
    """
    problems = [
        f"{table.value}.{column} ({_column_type(table, column)}) cannot hold {limit:,}"
        for (table, column), limit in RECORD_LIMITS.items()
        if int_range(_column_type(table, column))[1] < limit
    ]
    ts = _column_type(Table.ACTIONS, "ts")
    low, high = int_range(pa.int64())  # a timestamp column holds 64-bit counts of its unit
    per_second = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[ts.unit]
    if not low <= TS_MIN * per_second <= TS_MAX * per_second <= high:
        problems.append(f"actions.ts ({ts}) cannot hold {TS_MIN:.0f}-{TS_MAX:.0f} s")
    balance = np.finfo(_column_type(Table.SEATS, "balance").to_pandas_dtype())
    if 2 ** (balance.nmant + 1) < BALANCE_MAX:  # the whole numbers a float holds exactly
        problems.append(f"seats.balance ({balance.dtype}) cannot hold {BALANCE_MAX:,} exactly")
    return problems


if check_record_limits():  # pragma: no cover - a schema narrowed below the readers' limits
    raise AssertionError(f"the log readers' limits do not fit the schemas: {check_record_limits()}")

#: The grain of each table, as one phrase (also the header of its section in the docs).
GRAIN: dict[Table, str] = {
    Table.GAMES: "one row per stored game",
    Table.SEATS: "one row per seat per game",
    Table.ACTIONS: "one row per action per game",
    Table.TRICKS: "one row per trick per game",
    Table.REJECTS: "one row per rejected record",
}


# Card text, vectorised: a 52-bit mask is read as 4 chunks of 13 bits; each chunk's text is
# looked up in an 8192-entry table and the 4 pieces are joined (cards lowest id first, exactly
# as pipeline.cards.format_cards prints them). The tables are built on first use.
_CHUNK_BITS = 13
_N_CHUNKS = 4
_CARD_TEXT = pa.array([format_cards(1 << c) for c in range(N_CARDS)], pa.string())


@lru_cache(maxsize=1)
def _chunk_texts() -> list[pa.Array]:
    out = []
    for k in range(_N_CHUNKS):
        base = [format_cards(1 << (c + _CHUNK_BITS * k)) for c in range(_CHUNK_BITS)]
        texts = [""] * (1 << _CHUNK_BITS)
        for v in range(1, 1 << _CHUNK_BITS):
            low = v & -v
            texts[v] = base[low.bit_length() - 1] + texts[v ^ low]
        out.append(pa.array(texts, pa.string()))
    return out


def mask_text(masks: pa.Array) -> pa.Array:
    """The text of each card mask in an Arrow array (null stays null), computed in Arrow.

    >>> from pipeline.cards import parse_cards, mask_of
    >>> masks = pa.array([mask_of(parse_cards("10d 2s")), 0, None], pa.int64())
    >>> mask_text(masks).to_pylist()
    ['10♦2♠', '', None]
    """
    chunk = (1 << _CHUNK_BITS) - 1
    parts = [
        pc.take(table, pc.bit_wise_and(pc.shift_right(masks, _CHUNK_BITS * k), chunk))
        for k, table in enumerate(_chunk_texts())
    ]
    return pc.binary_join_element_wise(*parts, "")


def card_text(cards: pa.Array) -> pa.Array:
    """The text of each card id in an Arrow array (null stays null).

    >>> card_text(pa.array([28, None, 51], pa.int8())).to_pylist()
    ['10♦', None, '2♠']
    """
    return pc.take(_CARD_TEXT, cards)


def _enum_value(value: StrEnum | None) -> str | None:
    return None if value is None else value.value


def overrides_json(ruleset: Ruleset) -> str:
    """A ruleset's overrides as canonical JSON (keys sorted; enums as their values).

    >>> from pipeline.big2.rules import load_ruleset
    >>> overrides_json(load_ruleset("hk", {"players": 3}))
    '{"players": 3}'
    >>> overrides_json(load_ruleset("hk"))
    '{}'
    """
    return json.dumps(dict(ruleset.overrides), sort_keys=True, ensure_ascii=False)


def raw_text(raw: str | bytes | None) -> str | None:
    """The ``raw`` column's text: bytes decoded with escapes, cut at :data:`RAW_LIMIT`.

    >>> raw_text(b'{"game_id": "g\\xff"}')
    '{"game_id": "g\\\\xff"}'
    >>> len(raw_text("x" * (RAW_LIMIT + 5))) == RAW_LIMIT + len(RAW_CUT_MARK)
    True
    """
    if raw is None:
        return None
    text = raw.decode("utf-8", errors="backslashreplace") if isinstance(raw, bytes) else raw
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + RAW_CUT_MARK
    return text


#: The ActionRecord fields as one row, in one C-level getter (when a record is no such row).
_action_fields = attrgetter(*ACTION_FIELDS)
#: Whether ActionRecord is a named tuple with exactly these fields, in this order.
_RECORDS_ARE_ROWS = getattr(ActionRecord, "_fields", None) == ACTION_FIELDS
_ts_of = attrgetter("ts")
_PLAY = ActionType.PLAY.value
_PASS = ActionType.PASS.value


def _n_tricks(actions: Sequence[ActionRecord]) -> int:
    """Tricks with at least one play: the trick of the last play (tricks are numbered 1, 2 ...)."""
    for r in reversed(actions):
        if r.type == ActionType.PLAY:
            return r.trick
    return 0


def _ints(values: Sequence[int | None], type_: pa.DataType) -> pa.Array:
    """An Arrow integer array from Python ints, through numpy (pyarrow converts big ints slowly).

    >>> _ints((1, None, 1 << 51), pa.int64()).to_pylist()
    [1, None, 2251799813685248]
    """
    try:
        return pa.array(np.array(values, dtype=np.int64)).cast(type_)
    except TypeError:  # a None among the values
        obj = np.array(values, dtype=object)
        null = obj == None  # noqa: E711 (elementwise, on an object array)
        obj[null] = 0
        return pa.array(obj.astype(np.int64), mask=null).cast(type_)


_ENUM_VALUES: list[str | None] = [None]
_ENUM_CODE: dict[object, int] = {None: 0}
for _enum in (ActionType, Kind, Obligation, Block, Claim, LastCall):
    for _member in _enum:
        _ENUM_CODE[_member] = len(_ENUM_VALUES)
        _ENUM_VALUES.append(_member.value)
_ENUM_TEXT = pa.array(_ENUM_VALUES, pa.string())


def _enums(values: Sequence[StrEnum | None]) -> pa.Array:
    """An Arrow string array of the engine's enum values, by a code lookup (fast).

    >>> _enums((ActionType.PLAY, None, Kind.PAIR)).to_pylist()
    ['play', None, 'pair']
    """
    try:
        codes = np.fromiter(map(_ENUM_CODE.__getitem__, values), np.int16, len(values))
    except KeyError:  # pragma: no cover - an enum this table does not list
        return pa.array([None if v is None else v.value for v in values], pa.string())
    return pc.take(_ENUM_TEXT, pa.array(codes))


def _null_if_empty(arr: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr)


def _table(table: Table, columns: Mapping[str, pa.Array]) -> pa.Table:
    schema = SCHEMAS[table]
    return pa.Table.from_pydict({name: columns[name] for name in schema.names}, schema=schema)


class RowBuffer:
    """Rows of the five tables, filled game by game; :meth:`take` hands them over as Arrow.

    Adding a game only copies references (the engine's records are tuples of plain values);
    the columns, the card texts and the tricks are computed in Arrow by :meth:`take`. A
    caller takes every few thousand games so that memory stays flat.
    """

    def __init__(self, batch_id: str) -> None:
        self.batch_id = batch_id
        self.n_games = 0
        self.n_rejects = 0
        self._games: dict[str, list[Any]] = {}
        self._seats: dict[str, list[Any]] = {}
        self._rejects: dict[str, list[Any]] = {}
        self._reject_tables: list[pa.Table] = []
        self._action_rows: list[tuple[Any, ...]] = []
        self._action_game: list[str] = []
        self._action_ts: list[float | None] = []
        self._hashes: dict[str, str] = {}
        self._added: list[ReplayedGameLike] = []
        #: The games the last :meth:`take` could not build, each now a rejects row.
        self.failed: list[Reject] = []
        self._reset()

    def _reset(self) -> None:
        self._games = {name: [] for name in SCHEMAS[Table.GAMES].names}
        self._seats = {name: [] for name in _SEAT_INPUTS}
        self._rejects = {name: [] for name in SCHEMAS[Table.REJECTS].names}
        self._reject_tables = []
        self._action_rows = []
        self._action_game = []
        self._action_ts = []
        self._hashes = {}
        self._added = []
        self.n_games = 0
        self.n_rejects = 0

    def buffered_hash(self, game_id: str) -> str | None:
        """The content hash of a game id already in this buffer, else None."""
        return self._hashes.get(game_id)

    def add_game(self, game: ReplayedGameLike) -> bool:
        """Append the rows of one replayed game (games, seats, actions; tricks follow).

        False (nothing added) when the game id is in the buffer already: a buffer never
        holds a game twice; see :meth:`buffered_hash` to tell a duplicate from a conflict.
        """
        record, rs, actions, result = game.record, game.ruleset, game.actions, game.result
        gid = record.game_id
        if gid in self._hashes:
            return False
        self._hashes[gid] = record.content_hash
        self._added.append(game)
        n = len(actions)
        if _RECORDS_ARE_ROWS:
            self._action_rows.extend(actions)  # named tuples: no copy
        else:  # pragma: no cover - an ActionRecord that is not a named tuple
            self._action_rows.extend(map(_action_fields, actions))
        self._action_game.extend([gid] * n)
        logged = record.actions
        if len(logged) == n:
            self._action_ts.extend(map(_ts_of, logged))
        else:
            self._action_ts.extend([None] * n)
        players = rs.players
        s = self._seats
        info = {si.seat: si for si in record.seats}
        hands = record.hands
        for seat in range(players):
            si = info.get(seat)
            s["game_id"].append(gid)
            s["seat"].append(seat)
            s["player_id"].append(None if si is None else si.player_id)
            s["name"].append(None if si is None else si.name)
            s["balance"].append(None if si is None else si.balance)
            s["deal_mask"].append(hands[seat] if hands is not None and seat < len(hands) else None)
            s["final_hand_mask"].append(
                result.final_hands[seat] if seat < len(result.final_hands) else None
            )
            s["cards_left"].append(result.cards_left[seat])
            s["is_winner"].append(result.winner == seat)
        g = self._games
        g["batch_id"].append(self.batch_id)
        g["game_id"].append(gid)
        g["content_hash"].append(record.content_hash)
        g["game_kind"].append(record.game_kind)
        g["ruleset"].append(rs.name)
        g["overrides"].append(overrides_json(rs))
        g["match_id"].append(record.match_id)
        g["game_number"].append(record.game_number)
        g["table_id"].append(record.table_id)
        g["tournament_id"].append(record.tournament_id)
        g["started_at"].append(record.started_at)
        g["players"].append(players)
        g["outcome"].append(result.outcome.value)
        g["winner"].append(result.winner)
        g["claim"].append(_enum_value(result.claim))
        g["first_leader"].append(result.first_leader)
        g["n_tricks"].append(_n_tricks(actions))
        g["n_actions"].append(n)
        g["bao_seat"].append(result.bao_seat)
        g["bao_unknown_seat"].append(result.bao_unknown_seat)
        g["full_info"].append(hands is not None)
        src = record.source
        g["source_file"].append(None if src is None else src.file)
        g["source_line"].append(None if src is None else src.line)
        g["tournament_kind"].append(record.tournament_kind)
        g["tournament_round"].append(record.tournament_round)
        g["info_level"].append(record.info_level)
        self.n_games += 1
        return True

    def add_reject(self, reject: RejectLike) -> None:
        """Append one rejects row."""
        r = self._rejects
        src = reject.source
        r["batch_id"].append(self.batch_id)
        r["file"].append(None if src is None else escaped(src.file))
        r["line"].append(None if src is None else src.line)
        r["game_id"].append(None if reject.game_id is None else escaped(reject.game_id))
        r["action_index"].append(reject.action_index)
        r["code"].append(reject.code)
        r["message"].append(escaped(reject.message))
        raw = raw_text(reject.raw)
        r["raw"].append(None if raw is None else escaped(raw))
        self.n_rejects += 1

    def add_reject_rows(self, rows: pa.Table) -> None:
        """Append rejects rows as they are (built by another buffer: texts escaped and cut),
        under this buffer's ``batch_id``; they keep their place after the rows added before."""
        if not rows.num_rows:
            return
        self._reject_tables.append(self._python_rejects())
        batch = pa.array([self.batch_id] * rows.num_rows, pa.string())
        schema = SCHEMAS[Table.REJECTS]
        at = schema.get_field_index("batch_id")
        rows = rows.select(schema.names).cast(schema)
        self._reject_tables.append(rows.set_column(at, schema.field(at), batch))
        self.n_rejects += rows.num_rows

    def _python_rejects(self) -> pa.Table:
        """The rejects added one by one since the last call, as a table (the lists empty)."""
        out = _table(Table.REJECTS, build_columns(COLUMNS[Table.REJECTS], self._rejects))
        self._rejects = {name: [] for name in SCHEMAS[Table.REJECTS].names}
        return out

    def _seats_table(self) -> pa.Table:
        return _table(Table.SEATS, build_columns(COLUMNS[Table.SEATS], self._seats))

    def _actions_table(self) -> pa.Table:
        gc_was_on = gc.isenabled()
        gc.disable()  # the transpose allocates big tuples of plain values: no cycles to find
        try:
            inputs: dict[str, Any] = dict(
                zip(ACTION_FIELDS, zip(*self._action_rows, strict=True), strict=True)
            )
        finally:
            if gc_was_on:
                gc.enable()
        ts = pa.array(self._action_ts, pa.float64())
        inputs["ts_ms"] = pc.cast(pc.round(pc.multiply(ts, 1000.0)), pa.int64())
        inputs["game_id"] = self._action_game
        return _table(Table.ACTIONS, build_columns(COLUMNS[Table.ACTIONS], inputs))

    def _game_tables(self) -> dict[Table, pa.Table]:
        out: dict[Table, pa.Table] = {}
        if self.n_games:
            out[Table.GAMES] = _table(Table.GAMES, build_columns(COLUMNS[Table.GAMES], self._games))
            out[Table.SEATS] = self._seats_table()
            if self._action_rows:
                actions = self._actions_table()
                out[Table.ACTIONS] = actions
                tricks = tricks_table(actions, out[Table.GAMES]["n_actions"])
                if tricks.num_rows:
                    out[Table.TRICKS] = tricks
        return out

    def _culprit(self) -> str:
        """The first games or seats column of a one-game buffer that Arrow refuses, or ''."""
        for table, columns in ((Table.GAMES, self._games), (Table.SEATS, self._seats)):
            for name, values in columns.items():
                try:
                    pa.array(values, SCHEMAS[table].field(name).type)
                except _ROW_ERRORS:
                    return f"{table.value}.{name}: "
        try:
            ms = pc.multiply(pa.array(self._action_ts, pa.float64()), 1000.0)
            pc.cast(pc.round(ms), pa.int64())
        except _ROW_ERRORS:
            return "actions.ts: "
        return ""

    def _build_apart(
        self, games: list[ReplayedGameLike]
    ) -> tuple[list[dict[Table, pa.Table]], list[Reject]]:
        """Rows of these games, halving the list until each game that cannot be built is alone:
        those become ``E_ROW_BUILD`` rejects (a few builds per bad game, not one per game)."""
        part = RowBuffer(self.batch_id)
        for game in games:
            part.add_game(game)
        try:
            return [part._game_tables()], []
        except _ROW_ERRORS as err:
            if len(games) == 1:
                record = games[0].record
                why = f"{part._culprit()}{type(err).__name__}: {err}"
                return [], [
                    Reject(
                        source=record.source or Source("", 0),
                        game_id=record.game_id,
                        action_index=None,
                        code=E_ROW_BUILD,
                        message=f"a value the warehouse cannot store ({why})",
                        raw=record.raw,
                    )
                ]
        mid = len(games) // 2
        first, bad_first = self._build_apart(games[:mid])
        second, bad_second = self._build_apart(games[mid:])
        return first + second, bad_first + bad_second

    def take(self) -> dict[Table, pa.Table]:
        """The buffered rows as Arrow tables (tables with no rows left out); the buffer empties.

        A game whose rows cannot be built (a value its column cannot hold, which the readers
        should have refused) becomes an ``E_ROW_BUILD`` rejects row, listed in :attr:`failed`;
        the other games' rows are built as usual.
        """
        self.failed = []
        try:
            out = self._game_tables()
        except _ROW_ERRORS:
            parts, self.failed = self._build_apart(self._added)
            out = {}
            for table in Table:
                pieces = [p[table] for p in parts if table in p]
                if pieces:
                    out[table] = pa.concat_tables(pieces)
            for reject in self.failed:
                self.add_reject(reject)
        if self.n_rejects:
            pieces = [*self._reject_tables, self._python_rejects()]
            out[Table.REJECTS] = pa.concat_tables([p for p in pieces if p.num_rows])
        self._reset()
        return out


def think_seconds(ms: pa.Array, action_index: pa.Array) -> pa.Array:
    """Seconds since the previous action of the same game, per action of an actions table
    holding whole games in order: ``ms`` the actions' times (epoch milliseconds, NULL when not
    logged). NULL for a game's first action and when either time is missing.

    Computed as SQL's ``epoch(ts) - epoch(previous ts)`` (each time in seconds, then the
    difference), so the stats marts read the very same doubles they computed before.

    >>> ms = pa.array([1000, 2500, None, 4000, 9000], pa.int64())
    >>> think_seconds(ms, pa.array([0, 1, 2, 3, 0], pa.int16())).to_pylist()
    [None, 1.5, None, None, None]
    """
    n = len(ms)
    out = np.full(n, np.nan)
    valid = np.zeros(n, dtype=bool)
    if n > 1:
        seconds = pc.divide(pc.cast(ms, pa.float64()), 1000.0)
        sec = seconds.to_numpy(zero_copy_only=False)
        known = ~np.asarray(pc.is_null(ms).to_numpy(zero_copy_only=False), dtype=bool)
        idx = np.asarray(action_index.to_numpy(zero_copy_only=False), dtype=np.int64)
        # the previous row is the previous action of the same game
        valid[1:] = (idx[1:] == idx[:-1] + 1) & known[1:] & known[:-1]
        out[1:] = np.where(valid[1:], sec[1:] - sec[:-1], np.nan)
    return pa.array(out, pa.float64(), mask=~valid)


def tricks_table(actions: pa.Table, n_actions: Sequence[int] | pa.Array) -> pa.Table:
    """The tricks table of an actions table holding whole games, ``n_actions`` rows each.

    A trick is a run of plays and passes with one game and trick number; its leader and lead
    kind are those of its first action (always a play, which is checked), its winner the
    seat of its last play.
    """
    counts = np.asarray(n_actions, dtype=np.int64)
    game = np.repeat(np.arange(len(counts)), counts)
    kind_of = actions["action_type"].to_numpy(zero_copy_only=False)
    is_play = kind_of == _PLAY
    moves = np.flatnonzero(is_play | (kind_of == _PASS))
    schema = SCHEMAS[Table.TRICKS]
    if not len(moves):
        return schema.empty_table()
    trick = actions["trick"].to_numpy()
    g, t = game[moves], trick[moves]
    starts = np.flatnonzero(np.r_[True, (g[1:] != g[:-1]) | (t[1:] != t[:-1])])
    first = moves[starts]
    if not is_play[first].all():
        raise ValueError("a trick that does not open with a play: not whole replayed games")
    last_play = np.maximum.reduceat(np.where(is_play[moves], moves, -1), starts)
    seat = actions["seat"]
    cols = {
        "game_id": pc.take(actions["game_id"], pa.array(first)),
        "trick": pa.array(t[starts]),
        "leader": pc.take(seat, pa.array(first)),
        "winner": pc.take(seat, pa.array(last_play)),
        "n_actions": pa.array(np.diff(np.r_[starts, len(moves)])),
        "n_plays": pa.array(np.add.reduceat(is_play[moves].astype(np.int64), starts)),
        "lead_kind": pc.take(actions["kind"], pa.array(first)),
        "ends_game": pa.array(
            np.logical_or.reduceat(
                actions["wins_game"].to_numpy(zero_copy_only=False)[moves], starts
            )
        ),
    }
    return pa.Table.from_arrays(
        [pc.cast(cols[name], schema.field(name).type) for name in schema.names], schema=schema
    )


def game_tables(games: Sequence[ReplayedGameLike], *, batch_id: str = "") -> dict[Table, pa.Table]:
    """The rows of some replayed games as Arrow tables (a convenience over :class:`RowBuffer`)."""
    buf = RowBuffer(batch_id)
    for game in games:
        buf.add_game(game)
    return buf.take()
