"""Dou Dizhu's rows in the warehouse tables (:data:`pipeline.warehouse.tables.ROWS`
``doudizhu``).

A replayed Dou Dizhu game (:mod:`pipeline.doudizhu.game`: ``DdzRecord``, ``DdzRuleset``,
the engine's ``ActionRecord`` and ``GameResult``) fills the shared columns (outcome, winner,
rounds of play as ``n_tricks``, the landlord's opening lead as ``first_leader``) and the Dou
Dizhu columns: the landlord, the bid, bombs and rockets, spring, the kitty, the set-aside
cards and the face-up card per game; each seat's role and highest bid; per action the phase,
a bid's value, the chain length, the play on the table, the landlord and the multiplier so
far. Scores are not stored (the marts compute them). Card texts are
:func:`pipeline.doudizhu.cards.format_cards`'s; the Big Two-only columns stay NULL.

>>> from pipeline.doudizhu.game import GAME
>>> from pipeline.logs.model import Source
>>> from pipeline.replay import replay
>>> from pipeline.warehouse.tables import Table
>>> obj = {"format_version": 1, "game_kind": "doudizhu", "game_id": "d1", "ruleset": "ddz",
...        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(3)],
...        "actions": [{"seat": 0, "action": "bid", "value": 0},
...                    {"seat": 1, "action": "bid", "value": 0},
...                    {"seat": 2, "action": "bid", "value": 0}]}
>>> done = replay(GAME.parse_record(obj, source=Source("doc", 1), raw="", content_hash=""))
>>> rows = DdzRows("b1")
>>> rows.add(done)
>>> out = rows.tables()
>>> out[Table.GAMES].select(["outcome", "landlord", "bid", "claim"]).to_pylist()
[{'outcome': 'redeal', 'landlord': None, 'bid': 0, 'claim': None}]
>>> out[Table.SEATS]["max_bid"].to_pylist(), out[Table.ACTIONS]["phase"].to_pylist()
([0, 0, 0], ['auction', 'auction', 'auction'])
"""

from __future__ import annotations

import gc
from typing import Any, ClassVar

from pipeline.doudizhu.cards import N_CARDS, format_cards
from pipeline.doudizhu.game import DdzRecord
from pipeline.doudizhu.state import ActionRecord, ActionType, GameResult, Phase
from pipeline.warehouse.tables import ACTION_INPUTS, CardPrinter, GameRows, ReplayedGameLike

#: The engine's field names that the actions columns name otherwise.
RENAMED = {"key": "rank_key", "round": "trick", "ends_round": "ends_trick"}
#: Each ActionRecord field's actions input, in the record's order.
ACTION_FIELDS: tuple[str, ...] = tuple(RENAMED.get(f, f) for f in ActionRecord._fields)
_PLAY = ActionType.PLAY
_AUCTION = Phase.AUCTION


class DdzRows(GameRows):
    """Dou Dizhu's games, seats and actions inputs."""

    kind: ClassVar[str] = "doudizhu"
    printer: ClassVar[CardPrinter] = CardPrinter(format_cards, N_CARDS, " ")
    game_inputs: ClassVar[tuple[str, ...]] = (
        "outcome", "winner", "first_leader", "n_tricks", "n_actions", "landlord", "bid",
        "bombs", "rockets", "spring", "landlord_won", "first_bidder", "kitty_mask",
        "set_aside_mask", "face_up_card",
    )  # fmt: skip
    seat_inputs: ClassVar[tuple[str, ...]] = (
        "final_hand_mask", "cards_left", "is_winner", "role", "max_bid",
    )  # fmt: skip

    def __init__(self, batch_id: str) -> None:
        super().__init__(batch_id)
        self._action_rows: list[tuple[Any, ...]] = []
        self._next_seat: list[int] = []

    @classmethod
    def check(cls) -> list[str]:
        """:meth:`GameRows.check`, and every ActionRecord field is an actions input.

        >>> DdzRows.check()
        []
        """
        return super().check() + [
            f"actions: the ActionRecord field {name!r} is not stored"
            for name in ACTION_FIELDS
            if name not in ACTION_INPUTS
        ]

    def fill(self, game: ReplayedGameLike, players: int) -> None:
        record, actions = game.record, game.actions
        assert isinstance(record, DdzRecord)
        result: GameResult = game.result
        n = len(actions)
        self._action_rows.extend(actions)
        self._next_seat.extend([(r.seat + 1) % players for r in actions])
        self.action_game.extend([record.game_id] * n)
        logged_ts = record.ts
        self.action_ts.extend(logged_ts if len(logged_ts) == n else [None] * n)
        landlord, won = result.landlord, result.landlord_won
        kitty = record.kitty
        played = [0] * players
        max_bid: list[int | None] = [None] * players
        n_rounds = 0
        for r in actions:
            if r.phase == _AUCTION:
                bid = max_bid[r.seat]
                max_bid[r.seat] = r.bid if bid is None else max(bid, r.bid)
            elif r.type == _PLAY:
                played[r.seat] |= r.cards
                n_rounds = r.round
        left = actions[-1].cards_left if actions else ()
        hands = record.hands
        s = self.seats
        for seat in range(players):
            final: int | None = None
            if hands is not None and seat < len(hands):
                if seat != landlord:
                    final = hands[seat] & ~played[seat]
                elif kitty is not None:  # the landlord took the kitty
                    final = (hands[seat] | kitty) & ~played[seat]
            s["final_hand_mask"].append(final)
            s["cards_left"].append(left[seat] if seat < len(left) else None)
            s["is_winner"].append(won is not None and (seat == landlord) == won)
            s["role"].append(
                None if landlord is None else "landlord" if seat == landlord else "farmer"
            )
            s["max_bid"].append(max_bid[seat])
        g = self.games
        g["outcome"].append(result.outcome.value)
        g["winner"].append(result.winner)
        g["first_leader"].append(landlord)
        g["n_tricks"].append(n_rounds)
        g["n_actions"].append(n)
        g["landlord"].append(landlord)
        g["bid"].append(result.base)
        g["bombs"].append(result.bombs)
        g["rockets"].append(result.rockets)
        g["spring"].append(None if result.spring is None else result.spring.value)
        g["landlord_won"].append(won)
        g["first_bidder"].append(actions[0].seat if actions else None)
        g["kitty_mask"].append(kitty)
        g["set_aside_mask"].append(record.set_aside)
        g["face_up_card"].append(record.face_up_card)

    def record_inputs(self) -> dict[str, Any]:
        gc_was_on = gc.isenabled()
        gc.disable()  # the transpose allocates big tuples of plain values: no cycles to find
        try:
            out: dict[str, Any] = dict(
                zip(ACTION_FIELDS, zip(*self._action_rows, strict=True), strict=True)
            )
        finally:
            if gc_was_on:
                gc.enable()
        out["next_seat"] = self._next_seat
        return out


#: The registered row filling (:data:`pipeline.warehouse.tables.ROWS`).
ROWS = DdzRows
