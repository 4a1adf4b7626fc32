"""The one door to the native core (the Rust crate in ``native/``, module ``big2_native``).

The core parses a JSON Lines game line, validates and replays it under its ruleset and gives
the replayed facts or the reject, with the same codes and messages as the Python reader and
engine (``tests/native/`` holds the two equal). It also plays seeded simulation matches with
the random, greedy and heuristic bots into log lines byte-identical to the Python simulator's
(:func:`simulator`; :func:`pipeline.sim.simulate.match_lines` asks it first). The Python engine stays the reference and the
fallback: without the built extension, or with ``BIG2_PURE_PYTHON`` set, everything runs in
Python, and :func:`status` says which path runs.

A line the core does not read itself (a schema problem, an unusual card spelling, an ISO time
as ``ts`` …) goes to the Python reader, so every reader message is written once, in Python.
Rulesets are resolved by Python too (:func:`pipeline.big2.rules.load_ruleset`, from the same
TOML presets), once per distinct preset and overrides, and handed to the core as a dict.

>>> hands = ["3d 4d 5d 6d 7d 8d 9d Td Ad 2d 3c 4c 5c", "Jd Qd Kd 6c 7c 8c 9c Tc Jc Qc Kc Ac 2c",
...          "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 2h", "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s"]
>>> game = {"format_version": 1, "game_kind": "big2", "game_id": "doc-1",
...         "ruleset": {"preset": "hk", "overrides": {"redeal_if": ["no_jqk"]}},
...         "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(4)],
...         "deal": {"hands": hands, "stock": []},
...         "actions": [{"seat": 0, "action": "claim", "claim": "no_jqk"}]}
>>> done = replay_line(json.dumps(game), Source("doc.jsonl", 1))
>>> done.outcome, done.winner, done.actions[0][2]
('redeal', None, 'claim')
>>> bad = {**game, "actions": [{"seat": 1, "action": "claim", "claim": "no_jqk"}]}
>>> replay_line(json.dumps(bad), Source("doc.jsonl", 2)).message
'actions[0]: seat 1 claimed no_jqk holding 6♣7♣8♣9♣10♣J♦J♣Q♦Q♣K♦K♣A♣2♣ (trick 1)'
>>> replay_line(json.dumps({**game, "game_id": ""}), Source("doc.jsonl", 3)).code
'E_SCHEMA'
"""

from __future__ import annotations

import importlib
import json
import os
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from types import ModuleType
from typing import Any

import orjson

from pipeline.big2.logformat import LogAction, record_from_obj
from pipeline.big2.rules import load_ruleset
from pipeline.big2.state import ActionRecord, ActionType, Claim, GameResult, Outcome, new_tuple
from pipeline.doudizhu import state as ddz_state
from pipeline.doudizhu.combos import Kind as DdzKind
from pipeline.doudizhu.game import record_from_obj as ddz_record_from_obj
from pipeline.doudizhu.game import ruleset_for as ddz_ruleset_for
from pipeline.doudizhu.rules import load_ruleset as load_ddz_ruleset
from pipeline.errors import Big2Error, LogFormatError
from pipeline.logs.csv_logs import GameHeads, IdNumbers, PlainRows
from pipeline.logs.jsonl import parse_line
from pipeline.logs.model import Reject, Source
from pipeline.logs.records import content_hash, iso_time, read_ruleset
from pipeline.replay import ReplayedGame, replay

MODULE = "big2_native"

#: Set (to anything but empty) to run the pure Python path even when the core is built.
PURE_ENV = "BIG2_PURE_PYTHON"


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What a replay found, as plain values (enums as their strings), the same from both paths.

    ``actions`` holds one tuple per action, in the field order of
    :class:`pipeline.big2.state.ActionRecord`.
    """

    game_id: str
    outcome: str
    winner: int | None
    claim: str | None
    cards_left: tuple[int, ...]
    final_hands: tuple[int | None, ...]
    first_leader: int | None
    n_tricks: int
    bao_seat: int | None
    bao_unknown_seat: int | None
    actions: tuple[tuple[Any, ...], ...]


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def facts_of(done: ReplayedGame) -> GameFacts:
    """The facts of a game the Python engine replayed."""
    r = done.result
    return GameFacts(
        game_id=done.record.game_id,
        outcome=r.outcome.value,
        winner=r.winner,
        claim=_plain(r.claim),
        cards_left=r.cards_left,
        final_hands=r.final_hands,
        first_leader=r.first_leader,
        n_tricks=r.n_tricks,
        bao_seat=r.bao_seat,
        bao_unknown_seat=r.bao_unknown_seat,
        actions=tuple(tuple(_plain(v) for v in record) for record in done.actions),
    )


def replay_line_python(text: str, source: Source) -> GameFacts | Reject:
    """One decoded game line through the Python reader and engine (the reference)."""
    record = parse_line(text, source)
    if isinstance(record, Reject):
        return record
    done = replay(record)
    return done if isinstance(done, Reject) else facts_of(done)


def resolve_ruleset(preset: str, overrides_json: str) -> tuple[bool, str, str, str, str]:
    """For the core: ``(True, the ruleset's to_dict() as JSON, "", its name, its overrides as
    the games row stores them)``, or ``(False, code, message, "", "")``: the reject
    :func:`pipeline.replay.replay` gives for this preset and overrides.

    >>> resolve_ruleset("hk", '{"bomb": true}')[1:3]
    ('E_RULESET_KEY', "override: unknown ruleset key 'bomb' (did you mean 'bombs'?)")
    >>> ok, text, _, name, overrides = resolve_ruleset("taiwan", '{"players": 3}')
    >>> ok, json.loads(text)["suit_order"], name, overrides
    (True, 'taiwan', 'taiwan', '{"players": 3}')
    """
    try:
        name, overrides = read_ruleset(
            {"preset": preset, "overrides": orjson.loads(overrides_json)}
        )
    except LogFormatError as err:  # pragma: no cover - the core sends only what the reader takes
        return False, err.code, err.message, "", ""
    try:
        rs = load_ruleset(name, dict(overrides))
    except Big2Error as err:
        return False, err.code, err.message, "", ""
    except (TypeError, ValueError, OverflowError) as err:  # as pipeline.replay.replay words it
        text = ", ".join(f"{key}={value!r}" for key, value in overrides)
        text = text if len(text) <= 200 else text[:200] + "…"
        return (
            False,
            "E_RULESET_VALUE",
            f"ruleset overrides {text} cannot be read ({type(err).__name__}: {err})",
            "",
            "",
        )
    # the games row's ``overrides``: pipeline.warehouse.tables.overrides_json (this module
    # reaches no storage module), the same text
    stored = json.dumps(dict(rs.overrides), sort_keys=True, ensure_ascii=False)
    return True, json.dumps(rs.to_dict()), "", rs.name, stored


def _logged_ts(value: Any) -> float | None:
    """An action's ``ts`` of a line the core read, as the reader takes it (``action_ts``):
    a number as a float, an ISO time as its seconds.

    >>> _logged_ts(None), _logged_ts(17), _logged_ts("2026-11-01T20:00:00Z")
    (None, 17.0, 1793563200.0)
    """
    if value is None:
        return None
    return iso_time(value).timestamp() if isinstance(value, str) else float(value)


def replay_game_python(text: str, source: Source) -> ReplayedGame | Reject:
    """One decoded game line through the Python reader and engine: the replayed game (record,
    ruleset, engine rows, result) or the reject."""
    record = parse_line(text, source)
    return record if isinstance(record, Reject) else replay(record)


_ACTION_TYPES = {t.value: t for t in ActionType}
_CLAIMS = {c.value: c for c in Claim}
_OUTCOMES = {o.value: o for o in Outcome}


def load_module() -> ModuleType | None:
    """The built extension, whatever ``BIG2_PURE_PYTHON`` says; None when it is not built."""
    try:
        return importlib.import_module(MODULE)
    except ImportError:
        return None


def _status() -> tuple[ModuleType | None, str]:
    if os.environ.get(PURE_ENV):
        return None, f"pure Python ({PURE_ENV} is set)"
    module = load_module()
    if module is None:
        return None, "pure Python (the native core is not built: make native)"
    build = getattr(module, "__build__", "release")  # native/build.sh's kind of build
    kind = "" if build == "release" else f", {build}"
    return module, f"native ({MODULE} {module.__version__}, Rust{kind})"


_MODULE, _STATUS = _status()


def available() -> bool:
    """Whether this process replays on the native core."""
    return _MODULE is not None


def status() -> str:
    """``native (big2_native 0.1.0, Rust)`` (``…, Rust, profile-guided)`` for that build) or
    ``pure Python (why)``: the replay path here."""
    return _STATUS


class NativeReplayer:
    """The native core with its ruleset cache; lines it leaves go to the Python reader."""

    def __init__(self, module: ModuleType) -> None:
        self.core = module.Core(resolve_ruleset)
        self.module = module
        self._ddz: DdzReplayer | None = None

    def ddz(self) -> DdzReplayer:
        """The Dou Dizhu core beside this one (made on first use)."""
        if self._ddz is None:
            self._ddz = DdzReplayer(self.module)
        return self._ddz

    def replay_line(self, text: str, source: Source) -> GameFacts | Reject:
        """One decoded game line → its facts or its reject (as :func:`replay_line_python`)."""
        got = self.core.replay_line(text)
        if got is None:
            return replay_line_python(text, source)
        if got[0] == "reject":
            _, game_id, action_index, code, message = got
            return Reject(source, game_id, action_index, code, message, text)
        _, game_id, result, actions = got
        outcome, winner, claim, cards_left, hands, first_leader, n_tricks, bao, bao_unknown = result
        return GameFacts(
            game_id=game_id,
            outcome=outcome,
            winner=winner,
            claim=claim,
            cards_left=cards_left,
            final_hands=hands if hands is not None else (None,) * len(cards_left),
            first_leader=first_leader,
            n_tricks=n_tricks,
            bao_seat=bao,
            bao_unknown_seat=bao_unknown,
            actions=tuple(actions),
        )

    def replay_game(self, text: str, source: Source) -> ReplayedGame | Reject:
        """One decoded game line → what :func:`replay_game_python` gives (the rows built from
        it are the same): the engine's facts come from the core; the record's metadata (seats,
        deal, times, ids, the content hash) from the Python reader, which reads the line
        without its actions (the core read and checked them) and takes each action's ``ts``
        as logged. The records' enum fields hold their string values (``"play"``), which
        equal the enums (they are ``StrEnum``)."""
        ddz = DDZ_MARK in text  # most likely a Dou Dizhu line: its core first
        if ddz and (on_ddz := self.ddz().replay_game(text, source)) is not None:
            return on_ddz
        got = self.core.replay_line(text)
        if got is None:  # a Dou Dizhu line is its core's; any other line the Python reader's
            return (None if ddz else self.ddz().replay_game(text, source)) or replay_game_python(
                text, source
            )
        if got[0] == "reject":
            _, game_id, action_index, code, message = got
            return Reject(source, game_id, action_index, code, message, text)
        _, _game_id, result, facts = got
        obj = orjson.loads(text)
        logged = obj["actions"]
        if len(logged) != len(facts):  # pragma: no cover - every logged action is applied
            return replay_game_python(text, source)
        try:
            meta = record_from_obj(
                {**obj, "actions": []}, source=source, raw=text, content_hash=content_hash(obj)
            )
            ruleset = load_ruleset(meta.ruleset, dict(meta.overrides))
        except Big2Error:  # pragma: no cover - the core read the line: so does the reader
            return replay_game_python(text, source)
        actions = tuple(new_tuple(ActionRecord, a) for a in facts)
        record = replace(
            meta,
            actions=tuple(
                new_tuple(
                    LogAction,
                    (
                        a[1],
                        _ACTION_TYPES[a[2]],
                        a[3],
                        None if a[21] is None else _CLAIMS[a[21]],
                        a[20],
                        _logged_ts(raw.get("ts")),
                    ),
                )
                for a, raw in zip(facts, logged, strict=True)
            ),
        )
        outcome, winner, claim, cards_left, hands, first_leader, n_tricks, bao, bao_unknown = result
        done = GameResult(
            outcome=_OUTCOMES[outcome],
            winner=winner,
            claim=None if claim is None else _CLAIMS[claim],
            cards_left=cards_left,
            final_hands=hands if hands is not None else (None,) * len(cards_left),
            first_leader=first_leader,
            n_tricks=n_tricks,
            bao_seat=bao,
            bao_unknown_seat=bao_unknown,
        )
        return ReplayedGame(record=record, ruleset=ruleset, actions=actions, result=done)

    def validate_line(self, text: str, source: Source) -> int | Reject | None:
        """Validate only: the winner (None for a redeal) or the reject."""
        got = self.core.validate_line(text)
        if got is None:
            done = replay_line_python(text, source)
            return done if isinstance(done, Reject) else done.winner
        if got[0] == "reject":
            _, game_id, action_index, code, message = got
            return Reject(source, game_id, action_index, code, message, text)
        winner: int | None = got[2]
        return winner


def resolve_ddz_ruleset(preset: str, overrides_json: str) -> tuple[bool, str, str, str, str]:
    """For the Dou Dizhu core: ``(True, the ruleset's to_dict() and its name's repr as
    JSON, "", its name, its overrides as the games row stores them)``, or ``(False, code,
    message, "", "")``: the reject the Python replay gives for this preset and overrides
    (:func:`pipeline.doudizhu.game.ruleset_for`, from the same TOML presets).

    >>> resolve_ddz_ruleset("ddz", '{"four_with_two": 1}')[1:3]
    ('E_RULESET_VALUE', 'override: four_with_two = 1: expected true or false')
    >>> ok, text, _, name, overrides = resolve_ddz_ruleset("ddz-2p", '{"hand_size": 17}')
    >>> ok, json.loads(text)["bidding"], json.loads(text)["name_repr"], name, overrides
    (True, 'call', "'ddz-2p'", 'ddz-2p', '{"hand_size": 17}')
    """
    try:
        name, overrides = read_ruleset(
            {"preset": preset, "overrides": orjson.loads(overrides_json)}
        )
    except LogFormatError as err:  # pragma: no cover - the core sends only what the reader takes
        return False, err.code, err.message, "", ""
    try:
        rs = ddz_ruleset_for(name, overrides)
    except Big2Error as err:
        return False, err.code, err.message, "", ""
    # the games row's ``overrides`` as pipeline.warehouse.tables.overrides_json writes it
    stored = json.dumps(dict(rs.overrides), sort_keys=True, ensure_ascii=False)
    return True, json.dumps({**rs.to_dict(), "name_repr": repr(rs.name)}), "", rs.name, stored


#: What a Dou Dizhu line holds (its ``game_kind``) and a Big Two line hardly ever: such a line
#: goes to the Dou Dizhu core first (a Big Two line holding it still replays, after one
#: refused parse).
DDZ_MARK = '"doudizhu"'
_DDZ_TYPES = {t.value: t for t in ddz_state.ActionType}
_DDZ_PHASES = {p.value: p for p in ddz_state.Phase}
_DDZ_KINDS: dict[str | None, DdzKind | None] = {k.value: k for k in DdzKind} | {None: None}
_DDZ_OUTCOMES = {o.value: o for o in ddz_state.Outcome}
_DDZ_SPRINGS: dict[str | None, ddz_state.Spring | None] = {s.value: s for s in ddz_state.Spring} | {
    None: None
}


#: A record or an action from the core's tuple (its enum fields hold the engine's enums).
_new_ddz_record = partial(new_tuple, ddz_state.ActionRecord)
_new_ddz_action = partial(new_tuple, ddz_state.Action)


class DdzReplayer:
    """The Dou Dizhu core (``DdzCore``) with its ruleset cache: a Dou Dizhu line replayed
    and validated natively, or None for the Python reader (any other line, or one the core
    does not read itself)."""

    def __init__(self, module: ModuleType) -> None:
        enums = {"types": _DDZ_TYPES, "phases": _DDZ_PHASES, "kinds": _DDZ_KINDS}
        self.core = module.DdzCore(resolve_ddz_ruleset, enums)

    def replay_game(self, text: str, source: Source) -> ReplayedGame | Reject | None:
        """One decoded line → what :func:`replay_game_python` gives, or None (the Python
        reader's line). The engine's records, result and the logged actions come from the
        core; the record's metadata (envelope, deal, ids, the content hash) from the Python
        reader, which reads the envelope, the first bidder and the declared result (the deal
        and the actions the core read and checked), each action's ``ts`` as logged. Enum
        fields hold the engine's enums."""
        got = self.core.replay_line(text)
        if got is None:
            return None
        if got[0] == "reject":
            _, game_id, action_index, code, message = got
            return Reject(source, game_id, action_index, code, message, text)
        _, _game_id, result, facts, moves, (hands, kitty, aside, face_up) = got
        obj = orjson.loads(text)
        read = (
            hands,
            kitty,
            aside,
            face_up,
            tuple(map(_new_ddz_action, moves)),
            # each ts as the reader takes it (the core may read a long number a unit off)
            tuple(_logged_ts(a.get("ts")) for a in obj["actions"]),
        )
        try:
            record = ddz_record_from_obj(
                obj, source=source, raw=text, content_hash=content_hash(obj), core=read
            )
            ruleset = ddz_ruleset_for(record.ruleset, record.overrides)
        except Big2Error:  # pragma: no cover - the core read the line: so does the reader
            return None
        actions = tuple(map(_new_ddz_record, facts))
        outcome, landlord, base, winner, won, bombs, rockets, spring, mult, amount, scores = result
        done = ddz_state.GameResult(
            outcome=_DDZ_OUTCOMES[outcome],
            landlord=landlord,
            base=base,
            winner=winner,
            landlord_won=won,
            bombs=bombs,
            rockets=rockets,
            spring=_DDZ_SPRINGS[spring],
            multiplier=mult,
            amount=amount,
            scores=scores,
        )
        return ReplayedGame(record=record, ruleset=ruleset, actions=actions, result=done)

    def validate_line(self, text: str, source: Source) -> int | Reject | None:
        """Validate only: the winner (None for a redeal) or the reject (the Python path's for
        a line the core leaves)."""
        got = self.core.validate_line(text)
        if got is None:
            done = replay_game_python(text, source)
            return done if isinstance(done, Reject) else done.result.winner
        if got[0] == "reject":
            _, game_id, action_index, code, message = got
            return Reject(source, game_id, action_index, code, message, text)
        winner: int | None = got[2]
        return winner


class _PerThread(threading.local):
    """This thread's core: a core's buffers and caches are one thread's (an import's worker
    threads each replay their own chunks, the GIL let go)."""

    replayer: NativeReplayer | None = None


_THIS_THREAD = _PerThread()


def _replayer(module: ModuleType) -> NativeReplayer:
    """This thread's :class:`NativeReplayer` (made on first use)."""
    replayer = _THIS_THREAD.replayer
    if replayer is None:
        replayer = _THIS_THREAD.replayer = NativeReplayer(module)
    return replayer


#: One buffer of a column as the core hands it over: ``(address, size)`` in the core's memory
#: (wrapped with ``pa.foreign_buffer``, the take's memory object as its base).
CoreBuffer = tuple[int, int]

#: One column as the core hands it over: (length, null count, validity bitmap or None,
#: the buffers after the validity, the children's columns).
CoreColumn = tuple[int, int, CoreBuffer | None, list[CoreBuffer], list[Any]]

#: The tables of a take: ``[(table, [(column, buffers)])]``.
CoreTables = list[tuple[str, list[tuple[str, CoreColumn]]]]

#: One take of the core's rows: the memory object that owns the buffers (alive while an
#: Arrow array wraps them; then the core reuses it), and its tables.
CoreTaken = tuple[object, CoreTables]


def _core_reject(source: Source, text: str, got: tuple[Any, ...]) -> Reject | CoreRepeat:
    """What the core's rows builder answered for a line it did not take: ``("reject",
    game_id, action_index, code, message)``, the line's :class:`Reject`; ``("repeat", game_id,
    content_hash)``, a :class:`CoreRepeat`."""
    if got[0] == "repeat":
        return CoreRepeat(got[1], got[2])
    _, game_id, action_index, code, message = got
    return Reject(source, game_id, action_index, code, message, text)


@dataclass(frozen=True, slots=True)
class CoreRepeat:
    """A line whose game id its chunk holds already, read and replayed by the core (not a
    reject): its game id and content hash, by which the batch judges it."""

    game_id: str
    content_hash: str


class CoreRows:
    """A chunk's rows built by the core (:meth:`add`), for the lines it reads and replays
    itself: each table's stored columns as Arrow buffers (:meth:`take`), no Python object per
    game or action. ``pipeline.warehouse.core_rows`` wraps them as Arrow tables."""

    def __init__(self, replayer: NativeReplayer, *, ddz: bool = True) -> None:
        self._replayer = replayer
        self._ddz_rows = ddz
        self.core = replayer.core
        self.core.rows_take()  # nothing left over from a chunk that stopped half-way
        if replayer._ddz is not None:
            replayer._ddz.core.rows_take()

    def add(self, text: str, source: Source) -> bool | Reject | CoreRepeat:
        """One decoded game line: True when the core built its rows; its :class:`Reject`; a
        :class:`CoreRepeat` (a game id the chunk holds already); False when the line is for
        Python (the reader's line, rows the core leaves to the Python builder). A Dou Dizhu
        line goes to the Dou Dizhu core's rows (the two cores share the chunk's game ids: the
        Big Two core's)."""
        got = None
        if DDZ_MARK in text:  # most likely a Dou Dizhu line: its core first
            if not self._ddz_rows:  # the warehouse stores no Dou Dizhu rows: Python says so
                return False
            got = self._replayer.ddz().core.rows_add(
                text, source.file, source.line, self.core.rows_claim
            )
            if got is None:  # not a Dou Dizhu line the core reads, or rows Python builds
                return False
        else:
            got = self.core.rows_add(text, source.file, source.line)
        if got is True:
            return True
        if not got:
            return False
        return _core_reject(source, text, got)

    def read(
        self, path: str, offset: int, length: int, ends_line: bool, device: int, inode: int
    ) -> tuple[str, int] | None:
        """Read ``length`` bytes from ``offset`` of a plain JSON Lines file into the core, for
        :meth:`add_lines`, with the checks of :func:`pipeline.ingest.range_items`: None, or
        why not, ``(why, number)``: ``("open", errno)``, ``("replaced", 0)`` (``device`` and
        ``inode`` differ), ``("before", 0)`` (the byte before it is no longer a newline),
        ``("shorter", bytes)``, ``("after", 0)`` (it ended with a newline, and no longer
        does), ``("io", errno)`` (a read failed)."""
        why: tuple[str, int] | None = self.core.rows_read(
            os.fsencode(path), offset, length, ends_line, device, inode
        )
        return why

    def read_run(
        self, path: str, offset: int, device: int, inode: int, rule: tuple[int, int, int, int]
    ) -> tuple[str, int] | tuple[str, int, int, bool, bool]:
        """Read the run of whole lines of a plain JSON Lines file from ``offset`` into the
        core, for :meth:`add_lines`, cut where :func:`pipeline.ingest._cut` cuts it (``rule``:
        its ``CHUNK_GAMES``, ``CHUNK_BYTES``, ``SCAN_BYTES`` and the longest run the core
        holds), reading each byte once: ``("run", length, newlines, ends_line, at_end)``,
        ``("end", 0)`` (no byte from there), ``("long", 0)`` (a longer run: not read), or
        why not, as :meth:`read` says it (``open``, ``replaced``, ``before``, ``io``)."""
        got: tuple[str, int] | tuple[str, int, int, bool, bool] = self.core.rows_read_run(
            os.fsencode(path), offset, device, inode, *rule
        )
        return got

    def fill(self, data: bytes) -> None:
        """Hand the core whole lines of a stream as :meth:`read` hands it a file's range (a
        block of a gzip file the import's main process decompressed and cut), for
        :meth:`add_lines`: one call, no Python object per line."""
        self.core.rows_fill(data)

    def fill_lines(self, first: int, games: list[tuple[int, bytes]]) -> None:
        """Hand the core JSON lines at the given line numbers from line ``first`` on (a run of
        an actions CSV's games: each one's first row's line and its JSON line, the lines
        rising), blank lines between them, as :meth:`fill` hands it the block they make."""
        self.core.rows_fill_lines(first, games)

    def add_lines(
        self, pos: int, line: int, file: str, max_line_bytes: int
    ) -> tuple[int, int, int, tuple[Source, str | bytes, bool | Reject | CoreRepeat] | None]:
        """The lines of the range :meth:`read` read (or :meth:`fill` gave), from byte ``pos``
        (line ``line`` of ``file``) on, each as :meth:`add` takes a line, up to the first
        the core leaves to Python: ``(pos, line, rows, left)``, ``pos`` and ``line`` those of
        the line after it, ``rows`` the number of lines whose rows the core built, ``left``
        None (the range is done) or ``(source, text, got)``: the line's text and what
        :meth:`add` answers for it (False, its :class:`Reject` or :class:`CoreRepeat`), or
        its bytes (to its newline, ``got`` False) when the Python reader reads it (a line over
        the cap, not UTF-8, a BOM on line 1, only non-ASCII characters:
        ``native/src/lines.rs``). Blank lines are skipped, as
        :func:`pipeline.logs.jsonl.iter_jsonl_lines` skips them."""
        ddz = self._replayer.ddz().core if self._ddz_rows else None
        pos, line, rows, left = self.core.rows_range(pos, line, file, max_line_bytes, ddz)
        if left is None:
            return pos, line, rows, None
        at, text, got = left
        source = Source(file, at)
        answer = False if got is None else _core_reject(source, text, got)
        return pos, line, rows, (source, text, answer)

    def claim(self, game_id: str) -> bool:
        """For a game whose rows Python builds: False when the chunk holds its id already (a
        repeat), else True (the chunk holds it now)."""
        claimed: bool = self.core.rows_claim(game_id)
        return claimed

    def take(self) -> CoreTaken:
        """The rows added since the last take: ``(memory, [(table, [(column, buffers)])])``."""
        taken: CoreTaken = self.core.rows_take()
        return taken

    def take_ddz(self) -> CoreTaken:
        """The Dou Dizhu rows added since the last take, as :meth:`take` hands them over (on
        the Dou Dizhu core's memory; ``(None, [])`` when no Dou Dizhu line came)."""
        ddz = self._replayer._ddz
        if ddz is None:
            return None, []
        taken: CoreTaken = ddz.core.rows_take()
        return taken


class _CsvGamesOf:
    """The core's readers of a CSV pair's plain rows (``big2_native.CsvGames``, see
    :class:`pipeline.logs.csv_logs.PlainRowsOf`); only where :func:`available`."""

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
        assert _MODULE is not None
        args = (width, seq, seat, action, ts, optional, max_rows, cap)
        # the columns the header names not only when it has some: a core built before they
        # were known reads every other header as it did
        rows: PlainRows = _MODULE.CsvGames(*args, *([unnamed] if unnamed else []))
        return rows

    def game_heads(
        self,
        width: int,
        columns: list[tuple[str, int]],
        foreign: list[int],
        foreign_ddz: list[int],
        unnamed: list[int],
    ) -> GameHeads:
        assert _MODULE is not None
        args = (width, columns, foreign, foreign_ddz, *([unnamed] if unnamed else []))
        heads: GameHeads = _MODULE.CsvGames.game_heads(*args)
        return heads


#: The core's readers of a CSV pair's plain rows (:class:`_CsvGamesOf`).
csv_games = _CsvGamesOf()


def game_ids() -> IdNumbers:
    """A table of the game ids a CSV reader meets, on the core (``big2_native.GameIds``: ~26
    bytes an id, against a dict's ~150); only where :func:`available`."""
    assert _MODULE is not None
    table: IdNumbers = _MODULE.GameIds()
    return table


def core_rows(*, ddz: bool = True) -> CoreRows | None:
    """A rows builder on the core for one chunk, or None on the pure Python path. ``ddz``:
    whether it builds Dou Dizhu's rows too (False when the warehouse has no Dou Dizhu row
    filling: then those lines are Python's, which rejects them ``E_GAME_NOT_STORED``)."""
    if _MODULE is None:
        return None
    return CoreRows(_replayer(_MODULE), ddz=ddz)


def _json(value: Any) -> str:
    """As :func:`pipeline.logs.writer.dumps` writes a value inside a log line."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


class NativeSimulator:
    """One simulation run on the core, of either game (``big2_native.Simulator`` or
    ``DdzSimulator``): :meth:`match_lines` plays a whole match."""

    def __init__(self, core: Any) -> None:
        self.core = core

    def match_lines(
        self, match: int, bots: list[str], seats: list[dict[str, Any]]
    ) -> list[str] | None:
        """Match ``match``'s log lines (``bots``: the bot per seat, ``seats``: the log's
        ``seats`` list), or None when the core does not play one of the bots (or, in Dou
        Dizhu, leaves the match to Python)."""
        lines: list[str] | None = self.core.match_lines(match, bots, _json(seats), _json(bots))
        return lines


#: Simulators built in this process, by run (a worker builds one per run, not per match).
_SIMULATORS: dict[str, NativeSimulator | None] = {}


def _per_run(
    cache: dict[str, NativeSimulator | None], key: str, make: Callable[[], NativeSimulator]
) -> NativeSimulator | None:
    """A run's simulator from ``cache`` (``key``: the run's settings and the extension), else
    ``make``'s, kept (at most 64); None when the core does not take the run's ruleset (a
    ``ValueError``: a value it does not read exactly), so the Python simulator plays it.

    >>> _per_run({}, "k", lambda: 1), _per_run({}, "k", lambda: int("x"))
    (1, None)
    """
    if key in cache:
        return cache[key]
    try:
        made: NativeSimulator | None = make()
    except ValueError:
        made = None
    if len(cache) > 64:
        cache.clear()
    cache[key] = made
    return made


_I64 = 2**63


def simulator(
    *,
    preset: str,
    overrides: dict[str, Any],
    seed: int,
    games: int,
    match_games: int,
    discipline: float,
    colluders: tuple[int, int] | None,
    notation: str,
    id_prefix: str,
    module: ModuleType | None = None,
) -> NativeSimulator | None:
    """The core's simulator for a run, or None: this process runs pure Python (:func:`status`),
    or the core does not take the run (a seed beyond 64 bits, a ruleset it cannot read); the
    Python simulator then plays it, with the same bytes. ``module``: the extension to use
    (tests pass :func:`load_module`'s; by default this process's path).

    >>> sim = simulator(preset="hk", overrides={}, seed=7, games=1, match_games=8, discipline=1.0,
    ...                 colluders=None, notation="compact", id_prefix="sim")
    >>> sim is None or sim.match_lines(0, ["random"] * 4, [])[0].startswith('{"format_version": 1')
    True
    """
    core = _MODULE if module is None else module
    if core is None or not -_I64 <= seed < _I64:
        return None
    key = _json([preset, overrides, seed, games, match_games, discipline, colluders, notation])
    key += f"\0{id_prefix}\0{id(core)}"

    def make() -> NativeSimulator:
        ruleset = json.dumps(load_ruleset(preset, dict(overrides)).to_dict())
        return NativeSimulator(
            core.Simulator(
                ruleset,
                seed=seed,
                games=games,
                match_games=match_games,
                discipline=discipline,
                colluders=colluders,
                notation=notation,
                prefix=_json(f"{id_prefix}-{seed}")[1:-1],
                ruleset_obj=_json({"preset": preset, "overrides": dict(overrides)}),
                discipline_json=_json(discipline),
                colluders_json=_json([] if colluders is None else [list(colluders)]),
            )
        )

    return _per_run(_SIMULATORS, key, make)


_DDZ_SIMULATORS: dict[str, NativeSimulator | None] = {}


def ddz_simulator(
    *,
    preset: str,
    overrides: dict[str, Any],
    seed: int,
    games: int,
    match_games: int,
    feeder: int | None,
    feed_rate: float,
    id_prefix: str,
    generator: str,
    module: ModuleType | None = None,
) -> NativeSimulator | None:
    """The core's Dou Dizhu simulator for a run (``big2 simulate --ruleset ddz``), or None:
    this process runs pure Python (:func:`status`), or the core does not take the run (a seed
    beyond 64 bits, a ruleset value it does not read exactly); the Python simulator then plays
    it, with the same bytes. ``generator``: the lines' ``truth.generator``.

    >>> sim = ddz_simulator(preset="ddz", overrides={}, seed=7, games=1, match_games=8,
    ...                     feeder=None, feed_rate=0.0, id_prefix="sim", generator="g")
    >>> sim is None or sim.match_lines(0, ["random"] * 3, [])[0].startswith('{"format_version": 1')
    True
    """
    core = _MODULE if module is None else module
    if core is None or not -_I64 <= seed < _I64:
        return None
    key = _json([preset, overrides, seed, games, match_games, feeder, feed_rate, generator])
    key += f"\0{id_prefix}\0{id(core)}"

    def make() -> NativeSimulator:
        rs = load_ddz_ruleset(preset, overrides)
        # the line's ``ruleset`` object as pipeline.sim.ddz_play.log_line writes it
        ruleset_obj: dict[str, Any] = {"preset": rs.name}
        if rs.overrides:
            ruleset_obj["overrides"] = dict(rs.overrides)
        return NativeSimulator(
            core.DdzSimulator(
                json.dumps({**rs.to_dict(), "name_repr": repr(rs.name)}),
                seed=seed,
                games=games,
                match_games=match_games,
                feeder=feeder,
                feed_rate=feed_rate,
                prefix=_json(f"{id_prefix}-{seed}")[1:-1],
                ruleset_obj=_json(ruleset_obj),
                generator_json=_json(generator),
                seed_json=_json(seed),
                feeder_json=_json(feeder),
                feed_rate_json=_json(feed_rate),
            )
        )

    return _per_run(_DDZ_SIMULATORS, key, make)


def write_parquet(
    path: str,
    batches: list[tuple[object, object]],
    *,
    dictionary: Collection[str],
    statistics: Collection[str],
    delta: Collection[str],
    follows: Mapping[str, str],
    metadata: list[tuple[str, str]],
) -> tuple[str, int] | None:
    """Write record batches (each as ``__arrow_c_array__`` exports it, one schema) to
    ``path`` as one Parquet file on the core (``native/src/parquet/``; not fsynced): zstd, one
    row group, a dictionary, statistics or a delta encoding (DELTA_BINARY_PACKED numbers,
    DELTA_LENGTH_BYTE_ARRAY texts) for the columns named so,
    ``metadata`` in the footer; ``follows``: column → an earlier column whose every value gives
    its value (a card text → its mask: the text's dictionary is taken from the mask's, the same
    bytes). Its sha256 (hex) and size; None on the pure Python path (the caller writes it with
    pyarrow). A ``ValueError`` for a type the core does not write."""
    if _MODULE is None:
        return None
    written: tuple[str, int] = _MODULE.write_parquet(
        path,
        batches,
        dictionary=set(dictionary),
        statistics=set(statistics),
        delta=set(delta),
        follows=dict(follows),
        metadata=metadata,
    )
    return written


def replay_line(text: str, source: Source) -> GameFacts | Reject:
    """One decoded game line on this process's path (:func:`status`): facts or a reject."""
    if _MODULE is None:
        return replay_line_python(text, source)
    return _replayer(_MODULE).replay_line(text, source)


def replay_game(text: str, source: Source) -> ReplayedGame | Reject:
    """One decoded game line on this process's path (:func:`status`): the replayed game, from
    which the warehouse rows are built (``big2 ingest``), or the reject; the same either way."""
    if _MODULE is None:
        return replay_game_python(text, source)
    return _replayer(_MODULE).replay_game(text, source)


def sim_results(data: bytes, players: int, dou_dizhu: bool) -> bytes | None:
    """:func:`pipeline.sim.tally.read_results` on the core, with the GIL let go: the numbers
    of each simulated line's result as little-endian 64-bit words; None on the pure Python
    path, or when a line has no result of that shape (the caller reads it in Python, which
    names the line)."""
    if _MODULE is None:
        return None
    words: bytes | None = _MODULE.sim_results(data, players, dou_dizhu)
    return words


def game_keys(batch: tuple[object, object]) -> bytes | None:
    """:func:`pipeline.warehouse.known.game_keys` on the core, of a record batch (as
    ``__arrow_c_array__`` exports it) of the games' ids and content hashes: 24 bytes a game
    (three little-endian words), byte for byte the Python keys; None on the pure Python path,
    or for a batch that is not two string columns without NULL (the caller computes them)."""
    if _MODULE is None:
        return None
    keys: bytes | None = _MODULE.game_keys(*batch)
    return keys
