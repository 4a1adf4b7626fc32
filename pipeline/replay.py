"""Replay one parsed game through the rules engine: a pure function, no storage.

:func:`replay` builds the ruleset (preset + overrides) and the :class:`Game` (full deal or
partial information), applies every action with :meth:`Game.do` and cross-checks the
declared result. It returns a :class:`ReplayedGame` or, for a log that cannot be
replayed, a :class:`Reject` carrying the engine's code, message and action index.
:func:`replay_strict` raises instead.

>>> from pipeline.sim.sample import sample_game
>>> from pipeline.logs.records import content_hash, record_from_obj
>>> from pipeline.logs.model import Source
>>> obj = sample_game(seed=1, game_id="doc-1")
>>> record = record_from_obj(obj, source=Source("doc", 1), raw="", content_hash=content_hash(obj))
>>> done = replay(record)
>>> done.result.winner == obj["result"]["winner"], len(done.actions) == len(obj["actions"])
(True, True)
>>> bad = record_from_obj({**obj, "result": {"winner": (obj["result"]["winner"] + 1) % 4}},
...                       source=Source("doc", 1), raw="", content_hash="")
>>> replay(bad).code
'E_RESULT_MISMATCH'
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.big2.state import Action, ActionRecord, Game, GameResult, new_tuple
from pipeline.compiled import Reduced, by_constructor
from pipeline.errors import Big2Error, ReplayError
from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.scoresheet import sheet_result

_NO_SOURCE = Source("", 0)


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """A game that replayed cleanly: the record, its ruleset, the engine's rows and result."""

    record: GameRecord
    ruleset: Ruleset
    actions: tuple[ActionRecord, ...]
    result: GameResult

    def __reduce__(self) -> Reduced:
        return by_constructor(self)  # compiled by mypyc (pipeline.compiled)


def _reject(record: GameRecord, code: str, message: str, action_index: int | None) -> Reject:
    return Reject(
        source=record.source or _NO_SOURCE,
        game_id=record.game_id,
        action_index=action_index,
        code=code,
        message=message,
        raw=record.raw,
    )


def _seats_text(values: tuple[int, ...] | None) -> str:
    return "none" if values is None else "[" + ", ".join(map(str, values)) + "]"


def _check_result(record: GameRecord, result: GameResult) -> Reject | None:
    declared = record.declared
    if declared is None:
        return None
    problems = []
    if declared.winner is not None and declared.winner != result.winner:
        replayed = "no winner" if result.winner is None else f"seat {result.winner}"
        problems.append(f"declared winner seat {declared.winner}, replay: {replayed}")
    if declared.cards_left is not None and declared.cards_left != result.cards_left:
        problems.append(
            f"declared cards_left {_seats_text(declared.cards_left)}, "
            f"replay: {_seats_text(result.cards_left)}"
        )
    if not problems:
        return None
    return _reject(record, "E_RESULT_MISMATCH", "; ".join(problems), None)


def _overrides_text(record: GameRecord) -> str:
    text = ", ".join(f"{key}={value!r}" for key, value in record.overrides)
    return text if len(text) <= 200 else text[:200] + "…"


def _build_game(record: GameRecord, rs: Ruleset) -> Game:
    if record.game_kind != "big2":
        raise ReplayError("E_GAME_KIND", f"game_kind {record.game_kind!r} cannot be replayed yet")
    if len(record.seats) != rs.players:
        raise ReplayError(
            "E_SEAT_COUNT",
            f"{len(record.seats)} seats listed; ruleset {rs.name!r} plays {rs.players} players",
        )
    game = Game(
        rs,
        hands=record.hands,
        stock=record.stock,
        start_counts=record.start_counts,
        game_number=record.game_number,
        previous_winner=record.previous_winner,
        first_leader=record.first_leader,
    )
    if (
        record.first_leader is not None
        and game.turn is not None
        and game.turn != record.first_leader
    ):
        raise ReplayError(
            "E_FIRST_LEADER_MISMATCH",
            f"the log says seat {record.first_leader} leads first; under the rules seat {game.turn} does",
        )
    return game


def replay(record: GameRecord) -> ReplayedGame | Reject:
    """Replay a record; a reject (never an exception) for a log the rules do not accept."""
    try:
        rs = load_ruleset(record.ruleset, dict(record.overrides))
        if record.sheet is not None:  # information level "result": no actions to replay
            return ReplayedGame(
                record=record, ruleset=rs, actions=(), result=sheet_result(record, rs)
            )
        game = _build_game(record, rs)
    except Big2Error as err:
        return _reject(record, err.code, err.message, None)
    except (TypeError, ValueError, OverflowError) as err:  # an override value of no known shape
        return _reject(
            record,
            "E_RULESET_VALUE",
            f"ruleset overrides {_overrides_text(record)} cannot be read "
            f"({type(err).__name__}: {err})",
            None,
        )
    for i, logged in enumerate(record.actions):
        if game.finished:
            return _reject(
                record,
                "E_ACTIONS_AFTER_END",
                f"{len(record.actions) - i} action(s) follow the end of the game "
                f"(first: seat {logged.seat} {logged.type.value})",
                i,
            )
        # the logged action's first five fields are the engine's Action (seat, type, cards,
        # claim, drawn), built without the named tuple's Python-level __new__ (new_tuple)
        action: Action = new_tuple(Action, logged[:5])
        try:
            game.do(action)
        except Big2Error as err:
            return _reject(record, err.code, f"actions[{i}]: {err.message}", i)
    result = game.result
    if result is None:
        left = _seats_text(tuple(game.counts))
        return _reject(
            record,
            "E_UNFINISHED",
            f"the log ends after {len(record.actions)} action(s) with no winner (cards left {left})",
            None,
        )
    mismatch = _check_result(record, result)
    if mismatch is not None:
        return mismatch
    return ReplayedGame(record=record, ruleset=rs, actions=tuple(game.history), result=result)


def replay_strict(record: GameRecord) -> ReplayedGame:
    """Like :func:`replay`, but raise :class:`ReplayError` (with the reject's code) instead."""
    done = replay(record)
    if isinstance(done, Reject):
        raise ReplayError(
            done.code,
            f"{done.source.file}:{done.source.line} game {done.game_id}: {done.message}",
            action_index=done.action_index,
        )
    return done
