"""Big Two's rows in the warehouse tables (:data:`pipeline.warehouse.tables.ROWS` ``big2``).

A replayed Big Two game (:mod:`pipeline.big2.game`: ``Ruleset``, ``ActionRecord``,
``GameResult``) fills the games columns of its result (winner, claim, 包牌 seats …), each
seat's final hand, and one actions row per engine record. The records are named tuples whose
fields are named as the actions columns read them, so they are appended as rows as they are
(no copy) and transposed in one go when the buffer is taken; card texts are
:func:`pipeline.cards.format_cards`'s. The Dou Dizhu columns stay NULL.

>>> from pipeline.sim.sample import sample_game
>>> from pipeline.big2.logformat import record_from_obj
>>> from pipeline.logs.records import content_hash
>>> from pipeline.logs.model import Source
>>> from pipeline.replay import replay
>>> from pipeline.warehouse.tables import Table
>>> obj = sample_game(seed=1, game_id="doc-1")
>>> done = replay(record_from_obj(obj, source=Source("doc", 1), raw="", content_hash=""))
>>> rows = Big2Rows("b1")
>>> rows.add(done)
>>> out = rows.tables()
>>> out[Table.GAMES]["winner"].to_pylist() == [obj["result"]["winner"]]
True
>>> out[Table.GAMES]["landlord"].to_pylist(), out[Table.ACTIONS].num_rows == len(obj["actions"])
([None], True)
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, ClassVar

from pipeline.big2.state import ActionRecord, ActionType, GameResult
from pipeline.cards import N_CARDS, format_cards
from pipeline.warehouse.tables import ACTION_INPUTS, CardPrinter, GameRows, ReplayedGameLike

#: The ActionRecord fields, each an actions input of the same name.
ACTION_FIELDS: tuple[str, ...] = ActionRecord._fields
#: Whether ActionRecord is a named tuple (its records are rows as they are).
_RECORDS_ARE_ROWS = getattr(ActionRecord, "_fields", None) == ACTION_FIELDS
#: The fields as one row, in one C-level getter (when a record is no such row).
_action_fields = attrgetter(*ACTION_FIELDS)
_ts_of = attrgetter("ts")
_PLAY = ActionType.PLAY


def _n_tricks(actions: Sequence[ActionRecord]) -> int:
    """Tricks with at least one play: the trick of the last play (tricks are numbered 1, 2 ...)."""
    for r in reversed(actions):
        if r.type == _PLAY:
            return r.trick
    return 0


class Big2Rows(GameRows):
    """Big Two's games, seats and actions inputs."""

    kind: ClassVar[str] = "big2"
    printer: ClassVar[CardPrinter] = CardPrinter(format_cards, N_CARDS)
    game_inputs: ClassVar[tuple[str, ...]] = (
        "outcome", "winner", "claim", "first_leader", "n_tricks", "n_actions", "bao_seat",
        "bao_unknown_seat",
    )  # fmt: skip
    seat_inputs: ClassVar[tuple[str, ...]] = ("final_hand_mask", "cards_left", "is_winner")

    def __init__(self, batch_id: str) -> None:
        super().__init__(batch_id)
        self._action_rows: list[tuple[Any, ...]] = []

    @classmethod
    def check(cls) -> list[str]:
        """:meth:`GameRows.check`, and every ActionRecord field is an actions input.

        >>> Big2Rows.check()
        []
        """
        return super().check() + [
            f"actions: the ActionRecord field {name!r} is not stored"
            for name in ACTION_FIELDS
            if name not in ACTION_INPUTS
        ]

    def fill(self, game: ReplayedGameLike, players: int) -> None:
        record, actions = game.record, game.actions
        result: GameResult = game.result
        gid = record.game_id
        n = len(actions)
        if _RECORDS_ARE_ROWS:
            self._action_rows.extend(actions)  # named tuples: no copy
        else:  # pragma: no cover - an ActionRecord that is not a named tuple
            self._action_rows.extend(map(_action_fields, actions))
        self.action_game.extend([gid] * n)
        logged = record.actions
        if len(logged) == n:
            self.action_ts.extend(map(_ts_of, logged))
        else:
            self.action_ts.extend([None] * n)
        s = self.seats
        final_hands, cards_left, winner = result.final_hands, result.cards_left, result.winner
        for seat in range(players):
            s["final_hand_mask"].append(final_hands[seat] if seat < len(final_hands) else None)
            s["cards_left"].append(cards_left[seat])
            s["is_winner"].append(winner == seat)
        g = self.games
        g["outcome"].append(result.outcome.value)
        g["winner"].append(winner)
        g["claim"].append(None if result.claim is None else result.claim.value)
        g["first_leader"].append(result.first_leader)
        g["n_tricks"].append(_n_tricks(actions))
        g["n_actions"].append(n)
        g["bao_seat"].append(result.bao_seat)
        g["bao_unknown_seat"].append(result.bao_unknown_seat)

    def record_inputs(self) -> dict[str, Any]:
        gc_was_on = gc.isenabled()
        gc.disable()  # the transpose allocates big tuples of plain values: no cycles to find
        try:
            return dict(zip(ACTION_FIELDS, zip(*self._action_rows, strict=True), strict=True))
        finally:
            if gc_was_on:
                gc.enable()


#: The registered row filling (:data:`pipeline.warehouse.tables.ROWS`).
ROWS = Big2Rows
