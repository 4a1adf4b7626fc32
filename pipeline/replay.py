"""Replay one parsed game through its game's rules engine: a pure function, no storage.

:func:`replay` finds the record's game by its ``game_kind`` (:func:`pipeline.games.game_for`;
Big Two: :mod:`pipeline.big2.game`) and lets it replay the record: the ruleset, every action
through the engine, the declared result cross-checked. It returns a :class:`ReplayedGame`
or, for a log that cannot be replayed, a :class:`Reject` carrying the engine's code, message
and action index. :func:`replay_strict` raises instead. Nothing here knows a game's rules.

>>> from pipeline.sim.sample import sample_game
>>> from pipeline.big2.logformat import record_from_obj
>>> from pipeline.logs.records import content_hash
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
from typing import Any

from pipeline.errors import Big2Error, ReplayError
from pipeline.games import game_for
from pipeline.logs.model import GameRecord, Reject, Source

_NO_SOURCE = Source("", 0)


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """A game that replayed cleanly: the record, and its game's ruleset, engine rows and
    result (:class:`pipeline.games.Replayed`; Big Two: ``Ruleset``, ``ActionRecord``,
    ``GameResult``)."""

    record: GameRecord
    ruleset: Any
    actions: tuple[Any, ...]
    result: Any


def _reject(record: GameRecord, code: str, message: str, action_index: int | None) -> Reject:
    return Reject(
        source=record.source or _NO_SOURCE,
        game_id=record.game_id,
        action_index=action_index,
        code=code,
        message=message,
        raw=record.raw,
    )


def replay(record: GameRecord) -> ReplayedGame | Reject:
    """Replay a record; a reject (never an exception) for a log the rules do not accept."""
    try:
        done = game_for(record.game_kind).replay(record)
    except Big2Error as err:
        return _reject(record, err.code, err.message, err.context.get("action_index"))
    return ReplayedGame(
        record=record, ruleset=done.ruleset, actions=done.actions, result=done.result
    )


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
