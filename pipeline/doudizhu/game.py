"""Dou Dizhu behind the game seam (:class:`pipeline.games.Game`): the log line's parser
(docs/log-format.md, "Dou Dizhu"), the record replay, legal moves and the classifier.

The one module of the engine package that sees log records: it reads the envelope with
:func:`pipeline.logs.records.read_envelope` and the Dou Dizhu fields itself (the deal with the
kitty, the set-aside cards and the face-up card; the auction and the plays; the declared
result) into a :class:`DdzRecord`. :func:`replay_record` builds the
:class:`~pipeline.doudizhu.state.Game` (the full deal, or partial information without it),
applies every action with :meth:`~pipeline.doudizhu.state.Game.do` (an illegal one raises its
``E_DDZ_*`` code, the action index in the context) and cross-checks the declared result.

>>> from pipeline.logs.model import Source
>>> obj = {"format_version": 1, "game_kind": "doudizhu", "game_id": "d1", "ruleset": "ddz",
...        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(3)],
...        "actions": [{"seat": 0, "action": "bid", "value": 3},
...                    {"seat": 0, "action": "play", "cards": "BJ RJ"}]}
>>> record = GAME.parse_record(obj, source=Source("doc", 1), raw="", content_hash="")
>>> record.info_level, record.moves[0].value
('partial', 3)
>>> try:
...     GAME.replay(record)
... except Big2Error as err:
...     print(err.code, err.message)
E_UNFINISHED the log ends after 2 action(s) with no winner (cards left [18, 17, 17])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.doudizhu.cards import N_CARDS, format_cards, mask_of, parse_cards
from pipeline.doudizhu.combos import Kind, Play, classify
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset, preset_names
from pipeline.doudizhu.state import (
    Action,
    ActionType,
    Game,
    GameResult,
    LegalPlays,
)
from pipeline.errors import (
    E_GAME_TOO_LONG,
    Big2Error,
    CardParseError,
    LogFormatError,
    ReplayError,
)
from pipeline.games import CsvColumns, Replayed, check_seat_count
from pipeline.logs.csv_logs import bool_cell, int_cell, number_cell
from pipeline.logs.model import GameRecord
from pipeline.logs.records import ENVELOPE_KEYS, action_ts, read_envelope

_TOP_KEYS = ENVELOPE_KEYS | {"deal", "first_bidder"}
_DEAL_KEYS = frozenset({"hands", "kitty", "set_aside", "face_up_card"})
_ACTION_KEYS = frozenset({"seat", "action", "cards", "value", "kind", "ts"})
_RESULT_KEYS = frozenset(
    {
        "outcome", "landlord", "base", "winner", "landlord_won", "bombs", "rockets",
        "spring", "multiplier", "amount", "scores",
    }
)  # fmt: skip
_TYPES = {t.value: t for t in ActionType}
_KINDS = {k.value: k for k in Kind}


def max_actions(seats: int) -> int:
    """The most actions a legal Dou Dizhu game at ``seats`` seats has: at most one play per
    card, each followed by at most ``seats - 1`` passes, plus an auction of at most 4 rounds.

    >>> max_actions(3)
    174
    """
    return N_CARDS * seats + 4 * seats


@dataclass(frozen=True, slots=True)
class DdzDeclared:
    """The result a Dou Dizhu log claims (every field optional); the replay cross-checks it."""

    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class DdzRecord(GameRecord):
    """One Dou Dizhu game from a log. The envelope's fields are :class:`GameRecord`'s
    (``hands`` the deal's hands, None for partial information; ``actions`` stays empty);
    ``moves`` the engine's actions as logged, with their times in ``ts``."""

    moves: tuple[Action, ...] = ()
    ts: tuple[float | None, ...] = ()
    kitty: int | None = None
    set_aside: int | None = None
    face_up_card: int | None = None
    first_bidder: int | None = None
    declared_result: DdzDeclared | None = None


def _fail(path: str, why: str, action_index: int | None = None) -> LogFormatError:
    context: dict[str, Any] = {"path": path}
    if action_index is not None:
        context["action_index"] = action_index
    return LogFormatError("E_SCHEMA", f"{path}: {why}", **context)


def _object(value: Any, path: str, action_index: int | None = None) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, f"expected an object, got {type(value).__name__}", action_index)
    return value


def _keys(obj: Mapping[str, Any], allowed: frozenset[str], path: str, i: int | None) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise _fail(f"{path}.{unknown[0]}" if path else unknown[0], "unknown field", i)


def _seat(value: Any, path: str, n: int, i: int | None = None) -> int:
    if type(value) is not int or not 0 <= value < n:
        raise _fail(path, f"expected a seat 0-{n - 1}, got {value!r}", i)
    return value


def _cards(value: Any, path: str, i: int | None = None) -> int:
    if not isinstance(value, str | list) or not all(isinstance(t, str) for t in value):
        raise _fail(path, f"expected cards as a string or a list of strings, got {value!r}", i)
    try:
        return mask_of(parse_cards(value))
    except CardParseError as err:
        context: dict[str, Any] = {"path": path}
        if i is not None:
            context["action_index"] = i
        raise LogFormatError(err.code, f"{path}: {err.message}", **context) from None


def _deal(value: Any, n: int) -> tuple[tuple[int, ...] | None, int | None, int | None, int | None]:
    if value is None:
        return None, None, None, None
    obj = _object(value, "deal")
    _keys(obj, _DEAL_KEYS, "deal", None)
    hands = obj.get("hands")
    if not isinstance(hands, list):
        raise _fail("deal.hands", "expected a list of hands, one per seat")
    masks = tuple(_cards(h, f"deal.hands[{s}]") for s, h in enumerate(hands))
    if obj.get("kitty") is None:  # the landlord would take no cards (the core leaves it here)
        raise _fail("deal.kitty", "missing: a deal with the hands needs the 3-card kitty (底牌)")
    kitty = _cards(obj["kitty"], "deal.kitty")
    aside = None if obj.get("set_aside") is None else _cards(obj["set_aside"], "deal.set_aside")
    face_up = None
    if obj.get("face_up_card") is not None:
        one = _cards(obj["face_up_card"], "deal.face_up_card")
        if one.bit_count() != 1:
            raise _fail("deal.face_up_card", f"expected one card, got {format_cards(one)}")
        face_up = one.bit_length() - 1
    return masks, kitty, aside, face_up


def _action(raw: Any, i: int, n: int) -> tuple[Action, float | None]:
    path = f"actions[{i}]"
    obj = _object(raw, path, i)
    _keys(obj, _ACTION_KEYS, path, i)
    seat = _seat(obj.get("seat"), f"{path}.seat", n, i)
    text = obj.get("action")
    kind_of = _TYPES.get(text) if isinstance(text, str) else None
    if kind_of is None:
        raise _fail(f"{path}.action", f"expected one of {', '.join(_TYPES)}, got {text!r}", i)
    value = obj.get("value")
    if kind_of == ActionType.BID:
        if type(value) is not int:
            raise _fail(f"{path}.value", f"a bid needs its value 0-3, got {value!r}", i)
    elif value is not None:
        raise _fail(f"{path}.value", f"only a bid has a value, this is a {text}", i)
    cards = 0
    named: Kind | None = None
    if kind_of == ActionType.PLAY:
        if obj.get("cards") is None:
            raise _fail(f"{path}.cards", "a play needs its cards", i)
        cards = _cards(obj["cards"], f"{path}.cards", i)
        if obj.get("kind") is not None:
            named = _KINDS.get(obj["kind"]) if isinstance(obj["kind"], str) else None
            if named is None:
                raise _fail(
                    f"{path}.kind", f"expected one of {', '.join(_KINDS)}, got {obj['kind']!r}", i
                )
    else:
        for key in ("cards", "kind"):
            if obj.get(key) not in (None, "", []):
                raise _fail(f"{path}.{key}", f"a {text} has no {key}, got {obj[key]!r}", i)
    action = Action(seat, kind_of, cards, value or 0, named)
    return action, action_ts(obj.get("ts"), f"{path}.ts", i)


def _result(value: Any, n: int) -> DdzDeclared | None:
    if value is None:
        return None
    obj = _object(value, "result")
    _keys(obj, _RESULT_KEYS, "result", None)
    for key in ("landlord", "winner"):
        if obj.get(key) is not None:
            _seat(obj[key], f"result.{key}", n)
    return DdzDeclared(tuple((k, obj[k]) for k in sorted(obj) if obj[k] is not None))


#: What the native core read of a line (:class:`pipeline.native.DdzReplayer`): the deal's
#: hands, kitty, set-aside and face-up cards, the actions and their times.
CoreRead = tuple[
    tuple[int, ...] | None,
    int | None,
    int | None,
    int | None,
    tuple[Action, ...],
    tuple[float | None, ...],
]


def record_from_obj(
    obj: Any, *, source: Any, raw: str, content_hash: str, core: CoreRead | None = None
) -> DdzRecord:
    """Check one Dou Dizhu game object against the log format and build its record.

    ``core``: the deal and actions as the native core read them from the same line (it read
    and checked them as this reader does), so that only the envelope, the first bidder and
    the declared result are read here.
    """
    envelope = read_envelope(obj, _TOP_KEYS)
    n = len(envelope["seats"])
    first = obj.get("first_bidder")
    if core is not None:
        hands, kitty, aside, face_up, moves, ts = core
    else:
        hands, kitty, aside, face_up = _deal(obj.get("deal"), n)
        logged = obj["actions"]
        if not isinstance(logged, list):
            raise _fail("actions", f"expected a list, got {type(logged).__name__}")
        if len(logged) > max_actions(n):
            raise LogFormatError(
                E_GAME_TOO_LONG,
                f"actions: {len(logged)} actions; no legal Dou Dizhu game at {n} seats has "
                f"more than {max_actions(n)}",
                path="actions",
            )
        parsed = [_action(a, i, n) for i, a in enumerate(logged)]
        moves = tuple(a for a, _ in parsed)
        ts = tuple(t for _, t in parsed)
    return DdzRecord(
        **envelope,
        content_hash=content_hash,
        actions=(),
        hands=hands,
        moves=moves,
        ts=ts,
        kitty=kitty,
        set_aside=aside,
        face_up_card=face_up,
        first_bidder=None if first is None else _seat(first, "first_bidder", n),
        declared_result=_result(obj.get("result"), n),
        source=source,
        raw=raw,
    )


def _replayed_fields(result: GameResult) -> dict[str, Any]:
    return {
        "outcome": result.outcome.value,
        "landlord": result.landlord,
        "base": result.base,
        "winner": result.winner,
        "landlord_won": result.landlord_won,
        "bombs": result.bombs,
        "rockets": result.rockets,
        "spring": None if result.spring is None else result.spring.value,
        "multiplier": result.multiplier,
        "amount": result.amount,
        "scores": list(result.scores),
    }


def _same(declared: Any, replayed: Any) -> bool:
    if isinstance(declared, list) and isinstance(replayed, list):
        return len(declared) == len(replayed) and all(map(_same, declared, replayed))
    if isinstance(declared, bool) or isinstance(replayed, bool) or replayed is None:
        return declared is replayed
    if isinstance(declared, int | float) and isinstance(replayed, int | float):
        return math.isclose(declared, replayed, rel_tol=0, abs_tol=1e-9)
    return bool(declared == replayed)


def _check_result(record: DdzRecord, result: GameResult) -> None:
    declared = record.declared_result
    if declared is None:
        return
    replayed = _replayed_fields(result)
    problems = [
        f"declared {key} {value!r}, replay: {replayed[key]!r}"
        for key, value in declared.fields
        if not _same(value, replayed[key])
    ]
    if problems:
        raise ReplayError("E_RESULT_MISMATCH", "; ".join(problems))


def ruleset_for(preset: str, overrides: tuple[tuple[str, Any], ...]) -> DdzRuleset:
    """The ruleset a record names (its preset and overrides), or the named error the replay
    gives (the native core resolves its rulesets with it too).

    >>> ruleset_for("ddz-2p", (("hand_size", 17),)).set_aside_size
    17
    >>> try:
    ...     ruleset_for("ddz", (("players", [3]),))
    ... except Big2Error as err:
    ...     print(err.code, err.message)
    E_RULESET_VALUE override: players = [3]: Dou Dizhu is played by 2 or 3 players
    """
    try:
        return load_ruleset(preset, dict(overrides))
    except Big2Error:
        raise
    except (TypeError, ValueError, OverflowError) as err:  # an override value of no known shape
        raise ReplayError(
            "E_RULESET_VALUE",
            f"ruleset overrides {dict(overrides)!r} cannot be read ({type(err).__name__}: {err})",
        ) from None


def _ruleset(record: DdzRecord) -> DdzRuleset:
    return ruleset_for(record.ruleset, record.overrides)


def replay_record(record: DdzRecord) -> Replayed:
    """Replay a Dou Dizhu record; raise a named error (``E_DDZ_*`` from the engine, the
    action index in its context when one action is at fault) for a log the rules refuse."""
    rs = _ruleset(record)
    check_seat_count(len(record.seats), rs.name, rs.players)
    game = Game(
        rs,
        hands=record.hands,
        kitty=record.kitty,
        set_aside=record.set_aside,
        first_bidder=record.first_bidder,
        face_up_card=record.face_up_card,
    )
    for i, action in enumerate(record.moves):
        try:
            game.do(action)
        except Big2Error as err:
            raise ReplayError(err.code, f"actions[{i}]: {err.message}", action_index=i) from None
    result = game.result
    if result is None:
        left = "[" + ", ".join(map(str, game.counts)) + "]"
        raise ReplayError(
            "E_UNFINISHED",
            f"the log ends after {len(record.moves)} action(s) with no winner (cards left {left})",
        )
    _check_result(record, result)
    return Replayed(rs, tuple(game.history), result)


class DouDizhu:
    """Dou Dizhu as a :class:`pipeline.games.Game`."""

    @property
    def kind(self) -> str:
        return "doudizhu"

    def load_ruleset(self, preset: str, overrides: Mapping[str, Any]) -> DdzRuleset:
        return load_ruleset(preset, overrides)

    def parse_record(self, obj: Any, *, source: Any, raw: str, content_hash: str) -> DdzRecord:
        return record_from_obj(obj, source=source, raw=raw, content_hash=content_hash)

    def replay(self, record: Any) -> Replayed:
        if not isinstance(record, DdzRecord):
            raise ReplayError(
                "E_GAME_KIND",
                f"game {record.game_id}: Dou Dizhu games are read from JSON Lines or CSV "
                "(docs/log-format.md, 'Dou Dizhu'); this one was read by another reader",
            )
        return replay_record(record)

    def legal_moves(self, state: Any) -> LegalPlays:
        game: Game = state
        return game.legal_plays()

    def classify(self, cards: int, ruleset: Any) -> Play | None:
        return classify(cards, ruleset)

    @property
    def sql_prefix(self) -> str:
        return "ddz_"

    def preset_names(self) -> tuple[str, ...]:
        return tuple(preset_names())

    def sql_params(self, ruleset: Any) -> dict[str, Any]:
        """``to_dict()`` plus the derived ``kitty_size`` and ``set_aside_size``.

        >>> p = GAME.sql_params(load_ruleset("ddz-2p"))
        >>> p["players"], p["bidding"], p["multiplier_cap"], p["set_aside_size"]
        (2, 'call', 'none', 11)
        """
        rs: DdzRuleset = ruleset
        params = rs.to_dict()
        params["kitty_size"] = rs.kitty_size
        params["set_aside_size"] = rs.set_aside_size
        return params

    def sql_seeds(self) -> dict[str, tuple[str, list[tuple[Any, ...]]]]:
        return {}

    @property
    def scoring_keys(self) -> frozenset[str]:
        """The keys ``ddz_score_seats`` reads (spec 2.5): the money of a game, the bid, bombs,
        rockets, spring and players being facts of the play.

        >>> sorted(GAME.scoring_keys)
        ['multiplier_cap', 'spring_doubles', 'stake']
        """
        return frozenset({"stake", "spring_doubles", "multiplier_cap"})

    @property
    def csv(self) -> CsvColumns:
        return CSV


def _csv_fill(cell: Callable[[str], str], obj: dict[str, Any]) -> None:
    """Dou Dizhu's columns of a games-CSV row (docs/log-format.md) into its game object: the
    deal, the first bidder and the declared result, as the JSON Lines line has them."""
    if cell("hands"):
        deal: dict[str, Any] = {"hands": cell("hands").split("|"), "kitty": cell("kitty")}
        for name in ("set_aside", "face_up_card"):
            if cell(name):
                deal[name] = cell(name)
        obj["deal"] = deal
    else:
        for name in ("kitty", "set_aside", "face_up_card"):
            if cell(name):
                raise LogFormatError(
                    "E_SCHEMA",
                    f"games.{name}: {cell(name)!r} without the hands (a deal is whole or absent)",
                    path=f"games.{name}",
                )
    if cell("first_bidder"):
        obj["first_bidder"] = int_cell(cell("first_bidder"), "games.first_bidder")
    result: dict[str, Any] = {}
    for name in ("outcome", "spring"):
        if cell(name):
            result[name] = cell(name)
    for name in ("landlord", "base", "winner", "bombs", "rockets", "multiplier"):
        if cell(name):
            result[name] = int_cell(cell(name), f"games.{name}")
    if cell("landlord_won"):
        result["landlord_won"] = bool_cell(cell("landlord_won"), "games.landlord_won")
    if cell("amount"):
        result["amount"] = number_cell(cell("amount"), "games.amount")
    if cell("scores"):
        texts = cell("scores").split("|")
        result["scores"] = [number_cell(t, f"games.scores[{k}]") for k, t in enumerate(texts)]
    if result:
        obj["result"] = result


DDZ_GAME_COLUMNS = (
    "kitty", "set_aside", "face_up_card", "first_bidder", "outcome", "landlord", "base",
    "landlord_won", "bombs", "rockets", "spring", "multiplier", "amount", "scores",
)  # fmt: skip
#: Dou Dizhu's own CSV log columns (:class:`pipeline.games.CsvColumns`): the deal's kitty,
#: set-aside and face-up cards, the first bidder, and the declared result beside ``winner``
#: (``scores`` one number per seat separated by ``|``).
CSV = CsvColumns(
    title="Dou Dizhu",
    game_columns=DDZ_GAME_COLUMNS,
    action_columns=("value", "kind"),
    fill=_csv_fill,
)


#: The registered game (:data:`pipeline.games.GAMES`).
GAME = DouDizhu()
