"""Big Two's log writer: a game played by the engine as a log object (docs/log-format.md).

:func:`game_log` is the one way a Big Two game played by the engine becomes a log object: the
simulator (:mod:`pipeline.sim`) and the samples (:mod:`pipeline.sim.sample`) both use it;
:class:`pipeline.logs.writer.LogWriter` writes the objects to a file.

>>> import random
>>> from pipeline.big2.playout import deal, random_playout
>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.logs.writer import seats_of
>>> rs = load_ruleset("hk")
>>> hands, stock = deal(rs, random.Random(3))
>>> game, _ = random_playout(rs, random.Random(3), hands=hands, stock=stock)
>>> meta = GameMeta(game_id="g1", preset="hk", seats=seats_of(["a", "b", "c", "d"]))
>>> obj = game_log(game, meta=meta, hands=hands, stock=stock)
>>> obj["game_id"], len(obj["actions"]) == len(game.history), obj["result"]["winner"] == game.result.winner
('g1', True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from pipeline.big2.state import ActionRecord, ActionType, Game
from pipeline.cards import cards_of, format_card, format_cards
from pipeline.logs.records import FORMAT_VERSION


class Notation(StrEnum):
    """How cards are written in a log: ``3d 4c`` (compact), ``3♦4♣`` (pretty), ``["3d", "4c"]`` (list)."""

    COMPACT = "compact"
    PRETTY = "pretty"
    LIST = "list"


def cards_text(mask: int, notation: Notation = Notation.COMPACT) -> str | list[str]:
    """A card mask in one of the log notations.

    >>> from pipeline.cards import mask_of, parse_cards
    >>> m = mask_of(parse_cards("3d 4c"))
    >>> cards_text(m), cards_text(m, Notation.PRETTY), cards_text(m, Notation.LIST)
    ('3d 4c', '3♦4♣', ['3d', '4c'])
    """
    if notation == Notation.PRETTY:
        return format_cards(mask)
    if notation == Notation.LIST:
        return [format_card(c, compact=True) for c in cards_of(mask)]
    return format_cards(mask, compact=True)


@dataclass(frozen=True, kw_only=True)
class GameMeta:
    """What a log says about a game besides its deal and actions."""

    game_id: str
    preset: str
    seats: Sequence[Mapping[str, Any]]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    match_id: str | None = None
    game_number: int = 1
    table_id: str | None = None
    started_at: datetime | None = None
    previous_winner: int | None = None


def action_entry(
    record: ActionRecord, notation: Notation = Notation.COMPACT, ts: float | None = None
) -> dict[str, Any]:
    """One engine record as a log action (a swap's shown card is implied by the deal)."""
    entry: dict[str, Any] = {"seat": record.seat, "action": record.type.value}
    if record.type == ActionType.PLAY:
        entry["cards"] = cards_text(record.cards, notation)
    elif record.type == ActionType.CLAIM:
        assert record.claim is not None
        entry["claim"] = record.claim.value
    elif record.type == ActionType.PASS and record.drawn is not None:
        entry["drawn"] = format_card(record.drawn, compact=True)
    if ts is not None:
        entry["ts"] = ts
    return entry


def game_log(
    game: Game,
    *,
    meta: GameMeta,
    hands: Sequence[int],
    stock: Sequence[int] = (),
    times: Sequence[float] | None = None,
    notation: Notation = Notation.COMPACT,
    truth: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A finished game as a full-information log object.

    ``hands`` and ``stock`` are the deal as dealt (before any leftover joins a hand);
    ``times`` one Unix timestamp per action of ``game.history``.
    """
    result = game.result
    if result is None:
        raise ValueError(f"game {meta.game_id} is not finished")
    if times is not None and len(times) != len(game.history):
        raise ValueError(f"{len(times)} timestamps for {len(game.history)} actions")
    actions = [
        action_entry(r, notation, None if times is None else times[i])
        for i, r in enumerate(game.history)
    ]
    obj: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "game_kind": "big2",
        "game_id": meta.game_id,
        "ruleset": {"preset": meta.preset, "overrides": dict(meta.overrides)},
        "match_id": meta.match_id,
        "game_number": meta.game_number,
        "table_id": meta.table_id,
        "started_at": None if meta.started_at is None else meta.started_at.isoformat(),
        "seats": [dict(s) for s in meta.seats],
        "deal": {
            "hands": [cards_text(h, notation) for h in hands],
            "stock": [format_card(c, compact=True) for c in stock],
        },
        "previous_winner": meta.previous_winner,
        "actions": actions,
        "result": {"winner": result.winner, "cards_left": list(result.cards_left)},
    }
    if truth is not None:
        obj["truth"] = dict(truth)
    return obj
