"""The warehouse tables: the one column definition, the Arrow schemas, and the row buffer.

Five tables, documented column by column in ``docs/warehouse.md``:

* ``games``   one row per stored game
* ``seats``   one row per seat per game
* ``actions`` one row per action per game
* ``tricks``  one row per trick per game
* ``rejects`` one row per rejected record (or game-id conflict)

Every game kind shares them (``games.game_kind``): a column one game does not fill is NULL
on its rows. This module knows no game. Each stored game has a row-filling module,
registered in :data:`ROWS` by ``game_kind`` like :data:`pipeline.games.GAMES` (Big Two:
:mod:`pipeline.warehouse.rows_big2`, Dou Dizhu: :mod:`pipeline.warehouse.rows_doudizhu`),
whose :class:`GameRows` buffers its games' inputs; :class:`RowBuffer` hands each replayed
game to its game's buffer and turns them all into Arrow tables.

Card sets are stored twice: a ``*_mask`` ``int64`` (bit ``card`` set; the games' decks fit
in 63 bits) for fast SQL, and a ``*_text`` printed by the game's own printer
(:class:`CardPrinter`) for people.

The buffer accepts anything shaped like :class:`pipeline.replay.ReplayedGame` (``record``,
``ruleset``, ``actions``, ``result``, of the game's own types) and like the parsers'
``Reject`` (``source``, ``game_id``, ``action_index``, ``code``, ``message``, ``raw``); see
:class:`ReplayedGameLike` and :class:`RejectLike`.

>>> [t.value for t in Table]
['games', 'seats', 'actions', 'tricks', 'rejects']
>>> SCHEMAS[Table.SEATS].field("deal_mask").type
DataType(int64)
>>> sorted(ROWS)
['big2', 'doudizhu']
>>> rows = RowBuffer("b1")
>>> rows.n_games, rows.n_rejects
(0, 0)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from functools import cached_property
from importlib import import_module
from typing import Any, ClassVar, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.errors import E_GAME_NOT_STORED, E_ROW_BUILD, Big2Error
from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.records import BALANCE_MAX, INT32_MAX, MAX_ACTIONS, TS_MAX, TS_MIN, escaped

#: Longest ``raw`` text kept in the rejects table (characters); longer text is cut and marked.
RAW_LIMIT = 100_000
RAW_CUT_MARK = "…[cut]"
#: What building Arrow columns raises on a value the column cannot hold.
_ROW_ERRORS = (pa.ArrowException, ValueError, TypeError, OverflowError)
#: The most cards a seat holds in any stored game (a Dou Dizhu deck: 54).
MAX_CARDS = 54

#: ``game_kind`` → ``"module:attribute"`` of the game's :class:`GameRows` (its row filling),
#: imported on first use; a replayed game of a kind not listed is rejected ``E_GAME_NOT_STORED``.
ROWS: dict[str, str] = {
    "big2": "pipeline.warehouse.rows_big2:ROWS",
    "doudizhu": "pipeline.warehouse.rows_doudizhu:ROWS",
}
_LOADED: dict[str, type[GameRows]] = {}


def rows_for(kind: str) -> type[GameRows] | None:
    """The row filling of a ``game_kind``, or None when the warehouse does not store it.

    >>> rows_for("doudizhu").kind, rows_for("chess")
    ('doudizhu', None)
    """
    rows = _LOADED.get(kind)
    if rows is None:
        where = ROWS.get(kind)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        rows = _LOADED[kind] = getattr(import_module(module), attribute)
    return rows


def not_stored(record: GameRecord) -> Reject | None:
    """The ``E_GAME_NOT_STORED`` reject of a replayed game whose kind has no row filling in
    :data:`ROWS` (a game registered in :data:`pipeline.games.GAMES` before its storage is),
    else None.

    >>> not_stored(GameRecord("d", "", "doudizhu", "ddz", (), (), ())) is None
    True
    >>> not_stored(GameRecord("c", "", "chess", "fide", (), (), ())).message
    "the warehouse does not store 'chess' games (no row filling in pipeline.warehouse.tables.ROWS)"
    """
    if rows_for(record.game_kind) is not None:
        return None
    return Reject(
        source=record.source or Source("", 0),
        game_id=record.game_id,
        action_index=None,
        code=E_GAME_NOT_STORED,
        message=f"the warehouse does not store {record.game_kind!r} games "
        "(no row filling in pipeline.warehouse.tables.ROWS)",
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
    """What the builders read from a replayed game (:class:`pipeline.replay.ReplayedGame`);
    the ruleset, the action records and the result are the game's own types."""

    @property
    def record(self) -> GameRecord: ...
    @property
    def ruleset(self) -> Any: ...
    @property
    def actions(self) -> Sequence[Any]: ...
    @property
    def result(self) -> Any: ...


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
#: The input that is the game's :class:`CardPrinter` (every game's buffer supplies it).
PRINTER = "printer"


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


def build_columns(
    columns: Sequence[Column],
    inputs: Mapping[str, Any],
    rows: int | None = None,
    *,
    built: Mapping[str, pa.Array] | None = None,
) -> dict[str, pa.Array]:
    """Each column's array, in order; an input named like a column built before is that
    column (``cards_text`` reads the ``cards_mask`` array), else the buffered input. With
    ``rows``, a column whose inputs a game does not buffer is ``rows`` NULLs (a column of
    another game). ``built``: columns already made elsewhere (the native core's), kept as
    they are.

    >>> double = lambda type_, n: pc.cast(pc.multiply(n, 2), type_)
    >>> cols = (Column("n", pa.int8()), Column("twice", pa.int16(), double, ("n",)))
    >>> build_columns(cols, {"n": [1, 2]})["twice"].to_pylist()
    [2, 4]
    >>> build_columns(cols, {}, built={"n": pa.array([3], pa.int8())})["twice"].to_pylist()
    [6]
    >>> build_columns((Column("other", pa.int8()),), {}, rows=2)["other"].to_pylist()
    [None, None]
    """
    made = dict(built or {})
    out: dict[str, pa.Array] = {}
    for col in columns:
        if col.name in made:
            out[col.name] = made[col.name]
            continue
        sources = col.sources
        if rows is not None and not all(n in out or n in inputs for n in sources):
            out[col.name] = nulls(rows, col.type)
            continue
        out[col.name] = col.build(col.type, *(out[n] if n in out else inputs[n] for n in sources))
    return out


#: Per type, the longest run of NULLs made so far (see :func:`nulls`).
_NULLS: dict[pa.DataType, pa.Array] = {}


def nulls(rows: int, type_: pa.DataType) -> pa.Array:
    """``rows`` NULLs of ``type_``: a slice of one array kept per type, so that a chunk's
    columns of the other game (a Big Two chunk's Dou Dizhu columns) allocate and zero no new
    buffer each time (``pa.nulls`` fills its values too: megabytes per chunk, all new pages).

    >>> nulls(3, pa.int64()).to_pylist(), nulls(2, pa.int64()).null_count
    ([None, None, None], 2)
    """
    have = _NULLS.get(type_)
    made = 0 if have is None else len(have)
    if have is None or made < rows:
        have = _NULLS[type_] = pa.nulls(max(rows, 2 * made), type_)
    return have.slice(0, rows)


def buffered_inputs(columns: Sequence[Column]) -> tuple[str, ...]:
    """The inputs a row buffer may fill for these columns (those no earlier column makes,
    the card printer aside), in the order of first use.

    >>> buffered_inputs(COLUMNS[Table.SEATS])[-5:]
    ('final_hand_mask', 'cards_left', 'is_winner', 'role', 'max_bid')
    """
    made: set[str] = {PRINTER}
    out: dict[str, None] = {}
    for col in columns:
        out.update((n, None) for n in col.sources if n not in made)
        made.add(col.name)
    return tuple(out)


def _int(type_: pa.DataType, values: Sequence[int | None]) -> pa.Array:
    return _ints(values, type_)


def _enum_text(_type: pa.DataType, values: Sequence[StrEnum | str | None]) -> pa.Array:
    return enum_texts(values)


def _text_of_mask(_type: pa.DataType, masks: pa.Array, printer: CardPrinter) -> pa.Array:
    return printer.mask_text(masks)


def _text_of_card(_type: pa.DataType, cards: pa.Array, printer: CardPrinter) -> pa.Array:
    return printer.card_text(cards)


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
        Column(f"{name}_text", pa.string(), _text_of_mask, (mask, PRINTER)),
    )


def _card(name: str) -> tuple[Column, Column]:
    """One card stored as its card id (``<name>``) and its text."""
    return (
        Column(name, pa.int8(), _int),
        Column(f"{name}_text", pa.string(), _text_of_card, (name, PRINTER)),
    )


def _plain_columns(*spec: tuple[str, pa.DataType]) -> tuple[Column, ...]:
    return tuple(Column(name, type_) for name, type_ in spec)


#: Every table's columns, in the order they are stored: the one definition that the schemas
#: (:data:`SCHEMAS`), the row buffers (:class:`RowBuffer`, each game's :class:`GameRows`) and
#: the column docs' check read. A column joins at the end of its table (older batches lack it:
#: the views read it as NULL there).
COLUMNS: dict[Table, tuple[Column, ...]] = {
    Table.GAMES: (
        *_plain_columns(
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
            # Dou Dizhu
            ("landlord", pa.int8()),
            ("bid", pa.int8()),
            ("bombs", pa.int8()),
            ("rockets", pa.int8()),
            ("spring", pa.string()),
            ("landlord_won", pa.bool_()),
            ("first_bidder", pa.int8()),
        ),
        *_cards("kitty"),
        *_cards("set_aside"),
        *_card("face_up_card"),
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
        *_plain_columns(
            ("cards_left", pa.int8()),
            ("is_winner", pa.bool_()),
            # Dou Dizhu
            ("role", pa.string()),
            ("max_bid", pa.int8()),
        ),
    ),
    # inputs: the engine's action record fields (each game's module maps its own names),
    # plus ``game_id`` and ``ts_ms`` (the logged time, epoch milliseconds) that it adds
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
        *_card("highest_single"),
        Column("next_seat", pa.int8(), _int),
        Column("next_on_one", pa.bool_()),
        Column("obligation", pa.string(), _enum_text),
        Column("block", pa.string(), _enum_text),
        Column("block_reason", pa.string(), _empty_as_null),
        Column("ends_trick", pa.bool_()),
        Column("wins_game", pa.bool_()),
        *_card("drawn"),
        Column("claim", pa.string(), _enum_text),
        Column("unchecked", pa.list_(pa.string())),
        Column("ts", _TS, _timestamp, ("ts_ms",)),
        Column("think_seconds", pa.float64(), _think_seconds, ("ts_ms", "action_index")),
        Column("last_call", pa.string(), _enum_text),
        # Dou Dizhu
        Column("phase", pa.string(), _enum_text),
        Column("bid", pa.int8(), _int),
        Column("units", pa.int8(), _int),
        Column("top_kind", pa.string(), _enum_text),
        Column("top_seat", pa.int8(), _int),
        Column("landlord", pa.int8(), _int),
        Column("multiplier", pa.int32(), _int),
        Column("ends_auction", pa.bool_()),
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


def empty(table: Table) -> pa.Table:
    """The table with no rows, built from typed empty arrays (``schema.empty_table()`` and
    ``pa.Table.from_pylist([])`` make pyarrow import pandas, ~0.25 s, in a process that
    needs none: an import's commit, its workers).

    >>> empty(Table.TRICKS).num_rows, empty(Table.TRICKS).schema == SCHEMAS[Table.TRICKS]
    (0, True)
    """
    schema = SCHEMAS[table]
    return pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)


#: What a game's actions buffer adds to its engine records' fields.
ACTION_EXTRAS = ("game_id", "ts_ms")
#: The inputs the actions columns read from the engines' records (each game fills its own).
ACTION_INPUTS = tuple(n for n in buffered_inputs(COLUMNS[Table.ACTIONS]) if n not in ACTION_EXTRAS)
GAME_INPUTS = buffered_inputs(COLUMNS[Table.GAMES])
SEAT_INPUTS = buffered_inputs(COLUMNS[Table.SEATS])


def check_columns() -> list[str]:
    """Where a stored game's row filling and the column definition disagree (nowhere: checked
    by a test): each game's :meth:`GameRows.check` (its record's fields are all stored, its
    inputs all columns').

    >>> check_columns()
    []
    """
    problems: list[str] = []
    for kind in ROWS:
        rows = rows_for(kind)
        assert rows is not None
        problems += [f"{kind}: {p}" for p in rows.check()]
    return problems


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
    (Table.ACTIONS, "cards_left"): MAX_CARDS,
    (Table.SEATS, "cards_left"): MAX_CARDS,
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
    # the float's numpy type from its width (to_pandas_dtype would import pandas: ~1.4 s)
    balance = np.finfo(np.dtype(f"float{_column_type(Table.SEATS, 'balance').bit_width}"))
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


class CardPrinter:
    """A game's card texts, vectorised in Arrow: ``format_cards(mask)`` prints a mask (its
    cards lowest id first, each card's text followed by ``sep`` but the last), over
    ``n_cards`` card ids. A mask is read in 13-bit chunks; each chunk's text is looked up in
    an 8192-entry table (built on first use) and the pieces are joined.

    >>> p = CardPrinter(lambda m: " ".join(f"c{c}" for c in range(60) if m >> c & 1), 54, " ")
    >>> p.mask_text(pa.array([0b101, 0, None, 1 << 53 | 1], pa.int64())).to_pylist()
    ['c0 c2', '', None, 'c0 c53']
    >>> p.card_text(pa.array([53, None], pa.int8())).to_pylist()
    ['c53', None]
    """

    CHUNK_BITS = 13

    def __init__(self, format_cards: Callable[[int], str], n_cards: int, sep: str = "") -> None:
        self.format_cards = format_cards
        self.n_cards = n_cards
        self.sep = sep

    @cached_property
    def _cards(self) -> pa.Array:
        return pa.array([self.format_cards(1 << c) for c in range(self.n_cards)], pa.string())

    @cached_property
    def _chunks(self) -> list[pa.Array]:
        bits = self.CHUNK_BITS
        out = []
        for k in range(-(-self.n_cards // bits)):
            base = [
                self.format_cards(1 << (c + bits * k)) + self.sep
                if c + bits * k < self.n_cards
                else ""
                for c in range(bits)
            ]
            texts = [""] * (1 << bits)
            for v in range(1, 1 << bits):
                low = v & -v
                texts[v] = base[low.bit_length() - 1] + texts[v ^ low]
            out.append(pa.array(texts, pa.string()))
        return out

    def mask_text(self, masks: pa.Array) -> pa.Array:
        """The text of each card mask in an Arrow array (null stays null)."""
        chunk = (1 << self.CHUNK_BITS) - 1
        parts = [
            pc.take(table, pc.bit_wise_and(pc.shift_right(masks, self.CHUNK_BITS * k), chunk))
            for k, table in enumerate(self._chunks)
        ]
        joined = pc.binary_join_element_wise(*parts, "")
        return _strip_suffix(joined, self.sep) if self.sep else joined

    def card_text(self, cards: pa.Array) -> pa.Array:
        """The text of each card id in an Arrow array (null stays null)."""
        return pc.take(self._cards, cards)


def _strip_suffix(texts: pa.Array, sep: str) -> pa.Array:
    """Each text without its one trailing ``sep`` (a text without one stays as it is)."""
    return pc.replace_substring_regex(texts, pattern=f"{_regex_escape(sep)}$", replacement="")


def _regex_escape(text: str) -> str:
    return "".join(f"\\{c}" if not c.isalnum() else c for c in text)


def overrides_json(ruleset: Any) -> str:
    """A ruleset's overrides (pairs of a key and its value) as canonical JSON (keys sorted;
    enums as their values).

    >>> from types import SimpleNamespace
    >>> overrides_json(SimpleNamespace(overrides=(("players", 3),)))
    '{"players": 3}'
    >>> overrides_json(SimpleNamespace(overrides=()))
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


#: The enum values met so far, by code (0: None), and the code of each value and member: a
#: table that learns every game's string enums as they come (a member hashed like its value
#: is found under the value; any other is added under itself).
_ENUM_VALUES: list[str | None] = [None]
_ENUM_CODE: dict[object, int] = {None: 0}
_ENUM_TEXT: list[pa.Array] = [pa.nulls(1, pa.string())]  # not pa.array: that imports pandas


#: Held while the table learns (an import's worker threads may build rows at once).
_ENUM_LOCK = threading.Lock()


def _learn(values: Sequence[StrEnum | str | None]) -> None:
    """Give each new value a code: the texts are published before the codes, so a thread
    that finds a code finds its text."""
    with _ENUM_LOCK:
        codes: dict[object, int] = {}
        for v in set(values):
            if v in _ENUM_CODE:
                continue
            text = v.value if isinstance(v, Enum) else str(v)
            code = _ENUM_CODE.get(text, codes.get(text))
            if code is None:
                code = codes[text] = len(_ENUM_VALUES)
                _ENUM_VALUES.append(text)
            codes[v] = code
        _ENUM_TEXT[0] = pa.array(_ENUM_VALUES, pa.string())
        _ENUM_CODE.update(codes)


def enum_texts(values: Sequence[StrEnum | str | None]) -> pa.Array:
    """An Arrow string array of the engines' enum values (or their strings), by a code
    lookup (fast).

    >>> class Kind(StrEnum):
    ...     PAIR = "pair"
    >>> enum_texts((Kind.PAIR, None, "play")).to_pylist()
    ['pair', None, 'play']
    """
    try:
        codes = np.fromiter(map(_ENUM_CODE.__getitem__, values), np.int16, len(values))
    except KeyError:
        _learn(values)
        codes = np.fromiter(map(_ENUM_CODE.__getitem__, values), np.int16, len(values))
    return pc.take(_ENUM_TEXT[0], pa.array(codes))


def _null_if_empty(arr: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr)


def _table(table: Table, columns: Mapping[str, pa.Array]) -> pa.Table:
    schema = SCHEMAS[table]
    return pa.Table.from_pydict({name: columns[name] for name in schema.names}, schema=schema)


class GameRows:
    """The rows of one game kind's games, filled game by game: the columns every game shares
    (the log's envelope: ids, ruleset, match, seats' players, the deal) here, the game's own
    in its module's subclass (:meth:`fill`, :meth:`action_inputs`), registered in
    :data:`ROWS`. A column the game fills no input of is NULL on its rows.

    A subclass sets :attr:`kind`, :attr:`printer`, :attr:`game_inputs` and :attr:`seat_inputs`
    (the inputs it appends to, per game and per seat, in :meth:`fill`).
    """

    kind: ClassVar[str] = ""
    printer: ClassVar[CardPrinter]
    game_inputs: ClassVar[tuple[str, ...]] = ()
    seat_inputs: ClassVar[tuple[str, ...]] = ()
    #: the games / seats inputs of the shared envelope (filled by :meth:`add`)
    ENVELOPE_GAMES: ClassVar[tuple[str, ...]] = (
        "batch_id", "game_id", "content_hash", "game_kind", "ruleset", "overrides",
        "match_id", "game_number", "table_id", "tournament_id", "started_at", "players",
        "full_info", "source_file", "source_line", "tournament_kind", "tournament_round",
        "info_level",
    )  # fmt: skip
    ENVELOPE_SEATS: ClassVar[tuple[str, ...]] = (
        "game_id", "seat", "player_id", "name", "balance", "deal_mask",
    )  # fmt: skip

    def __init__(self, batch_id: str) -> None:
        self.batch_id = batch_id
        self.n_games = 0
        self.games: dict[str, list[Any]] = {
            n: [] for n in (*self.ENVELOPE_GAMES, *self.game_inputs)
        }
        self.seats: dict[str, list[Any]] = {
            n: [] for n in (*self.ENVELOPE_SEATS, *self.seat_inputs)
        }
        self.added: list[ReplayedGameLike] = []
        #: per buffered action: its game id and its logged time (epoch seconds, or None)
        self.action_game: list[str] = []
        self.action_ts: list[float | None] = []

    @classmethod
    def check(cls) -> list[str]:
        """Where this filling and :data:`COLUMNS` disagree: an input no column reads."""
        problems = [
            f"games: the input {n!r} is no column's"
            for n in cls.game_inputs
            if n not in GAME_INPUTS
        ]
        problems += [
            f"seats: the input {n!r} is no column's"
            for n in cls.seat_inputs
            if n not in SEAT_INPUTS
        ]
        return problems

    def add(self, game: ReplayedGameLike) -> None:
        """Append the rows of one replayed game (its actions are the subclass's)."""
        record, rs = game.record, game.ruleset
        gid = record.game_id
        self.added.append(game)
        players: int = rs.players
        s = self.seats
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
        g = self.games
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
        g["full_info"].append(hands is not None)
        src = record.source
        g["source_file"].append(None if src is None else src.file)
        g["source_line"].append(None if src is None else src.line)
        g["tournament_kind"].append(record.tournament_kind)
        g["tournament_round"].append(record.tournament_round)
        g["info_level"].append(record.info_level)
        self.fill(game, players)
        self.n_games += 1

    def fill(self, game: ReplayedGameLike, players: int) -> None:
        """Append the game's own games and seats inputs (one value per seat), and buffer its
        actions."""
        raise NotImplementedError

    def record_inputs(self) -> dict[str, Any]:
        """The buffered actions' inputs from the engine's records (sequences, named as the
        columns read them), one value per action of :attr:`action_game`."""
        raise NotImplementedError

    def action_inputs(self) -> tuple[int, dict[str, Any]]:
        """The buffered actions: their number, and every actions input (the records', the
        game ids, ``ts_ms``)."""
        n = len(self.action_game)
        if not n:
            return 0, {}
        inputs = self.record_inputs()
        inputs["ts_ms"] = ts_ms(self.action_ts)
        inputs["game_id"] = self.action_game
        return n, inputs

    def tables(self) -> dict[Table, pa.Table]:
        """The games, seats, actions and tricks rows of the buffered games (raises the
        Arrow error of a value a column cannot hold)."""
        out: dict[Table, pa.Table] = {}
        if not self.n_games:
            return out
        printer = self.printer
        out[Table.GAMES] = _table(
            Table.GAMES,
            build_columns(COLUMNS[Table.GAMES], {**self.games, PRINTER: printer}, self.n_games),
        )
        n_seats = len(self.seats["seat"])
        out[Table.SEATS] = _table(
            Table.SEATS,
            build_columns(COLUMNS[Table.SEATS], {**self.seats, PRINTER: printer}, n_seats),
        )
        n_actions, inputs = self.action_inputs()
        if n_actions:
            inputs[PRINTER] = printer
            actions = _table(
                Table.ACTIONS, build_columns(COLUMNS[Table.ACTIONS], inputs, n_actions)
            )
            out[Table.ACTIONS] = actions
            tricks = tricks_table(actions, out[Table.GAMES]["n_actions"])
            if tricks.num_rows:
                out[Table.TRICKS] = tricks
        return out

    def culprit(self) -> str:
        """The first games or seats column of a one-game buffer that Arrow refuses, or ''."""
        for table, columns in ((Table.GAMES, self.games), (Table.SEATS, self.seats)):
            for name, values in columns.items():
                type_ = SCHEMAS[table].field(name).type
                try:
                    pa.array(values, type_)
                except _ROW_ERRORS:
                    return f"{table.value}.{name}: "
        try:
            ts_ms(self.action_ts)
        except _ROW_ERRORS:
            return "actions.ts: "
        return ""


def ts_ms(seconds: Sequence[float | None]) -> pa.Array:
    """Logged times (epoch seconds, None when not logged) as epoch milliseconds.

    >>> ts_ms([1.5, None]).to_pylist()
    [1500, None]
    """
    ts = pa.array(seconds, pa.float64())
    return pc.cast(pc.round(pc.multiply(ts, 1000.0)), pa.int64())


class RowBuffer:
    """Rows of the five tables, filled game by game; :meth:`take` hands them over as Arrow.

    Each game goes to the :class:`GameRows` of its ``game_kind``; adding a game only copies
    references (the engines' records are tuples of plain values); the columns, the card
    texts and the tricks are computed in Arrow by :meth:`take`, game kind by game kind (a
    mixed buffer's rows are grouped by kind, each kind's games in the order added). A caller
    takes every few thousand games so that memory stays flat.
    """

    def __init__(self, batch_id: str) -> None:
        self.batch_id = batch_id
        self.n_games = 0
        self.n_rejects = 0
        self._parts: dict[str, GameRows] = {}
        self._rejects: dict[str, list[Any]] = {}
        self._reject_tables: list[pa.Table] = []
        self._hashes: dict[str, str] = {}
        #: The games the last :meth:`take` could not build, each now a rejects row.
        self.failed: list[Reject] = []
        self._reset()

    def _reset(self) -> None:
        self._parts = {}
        self._rejects = {name: [] for name in SCHEMAS[Table.REJECTS].names}
        self._reject_tables = []
        self._hashes = {}
        self.n_games = 0
        self.n_rejects = 0

    def buffered_hash(self, game_id: str) -> str | None:
        """The content hash of a game id already in this buffer, else None."""
        return self._hashes.get(game_id)

    def _part(self, kind: str) -> GameRows:
        part = self._parts.get(kind)
        if part is None:
            rows = rows_for(kind)
            if rows is None:
                raise Big2Error(E_GAME_NOT_STORED, f"the warehouse does not store {kind!r} games")
            part = self._parts[kind] = rows(self.batch_id)
        return part

    def add_game(self, game: ReplayedGameLike) -> bool:
        """Append the rows of one replayed game (games, seats, actions; tricks follow).

        False (nothing added) when the game id is in the buffer already: a buffer never
        holds a game twice; see :meth:`buffered_hash` to tell a duplicate from a conflict.
        A game of a kind with no row filling raises ``E_GAME_NOT_STORED`` (see
        :func:`not_stored`).
        """
        record = game.record
        gid = record.game_id
        if gid in self._hashes:
            return False
        self._part(record.game_kind).add(game)
        self._hashes[gid] = record.content_hash
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

    def _build_apart(
        self, kind: str, games: list[ReplayedGameLike]
    ) -> tuple[list[dict[Table, pa.Table]], list[Reject]]:
        """Rows of these games, halving the list until each game that cannot be built is alone:
        those become ``E_ROW_BUILD`` rejects (a few builds per bad game, not one per game)."""
        rows = rows_for(kind)
        assert rows is not None
        part = rows(self.batch_id)
        for game in games:
            part.add(game)
        try:
            return [part.tables()], []
        except _ROW_ERRORS as err:
            if len(games) == 1:
                record = games[0].record
                why = f"{part.culprit()}{type(err).__name__}: {err}"
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
        first, bad_first = self._build_apart(kind, games[:mid])
        second, bad_second = self._build_apart(kind, games[mid:])
        return first + second, bad_first + bad_second

    def take(self) -> dict[Table, pa.Table]:
        """The buffered rows as Arrow tables (tables with no rows left out); the buffer empties.

        A game whose rows cannot be built (a value its column cannot hold, which the readers
        should have refused) becomes an ``E_ROW_BUILD`` rejects row, listed in :attr:`failed`;
        the other games' rows are built as usual.
        """
        self.failed = []
        parts: list[dict[Table, pa.Table]] = []
        for kind, part in self._parts.items():
            try:
                parts.append(part.tables())
            except _ROW_ERRORS:
                built, failed = self._build_apart(kind, part.added)
                parts.extend(built)
                self.failed.extend(failed)
        for reject in self.failed:
            self.add_reject(reject)
        out: dict[Table, pa.Table] = {}
        for table in Table:
            pieces = [p[table] for p in parts if table in p]
            if pieces:
                out[table] = pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)
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


#: The action types of the play that tricks are made of (every stored game spells them so;
#: other actions, a claim, a swap, a bid, are in no trick).
_PLAY = "play"
_PASS = "pass"


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
        return empty(Table.TRICKS)
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
