"""Helpers for the engine tests: card masks, hand-crafted and random deals, scripted and random games.

>>> m("3d 4d") == 1 | 1 << 4
True
>>> from pipeline.big2.rules import load_ruleset
>>> hands, stock = deal(load_ruleset("hk", {"players": 3, "three_player_mode": "stock_13"}), random.Random(1))
>>> [h.bit_count() for h in hands], len(stock)
([13, 13, 13], 13)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.big2.playout import deal, random_action
from pipeline.big2.rules import Ruleset, ThreePlayerMode
from pipeline.big2.state import Action, ActionRecord, ActionType, Game
from pipeline.cards import FULL_DECK, cards_of, mask_of, parse_cards


def m(text: str) -> int:
    """The mask of some cards written as text (``""`` is the empty mask).

    >>> m("") == 0, m("2s") == 1 << 51
    (True, True)
    """
    return mask_of(parse_cards(text)) if text.strip() else 0


def fixed_deal(
    rs: Ruleset, given: Mapping[int, str], *, stock: str = ""
) -> tuple[list[int], list[int]]:
    """A deal with the given cards in the given seats (and stock, in draw order).

    The rest of the deck fills the seats (seat 0 first) and then the stock, lowest card
    first, up to ``rs.hand_size`` and ``rs.stock_size``. Tests place every card that
    matters to them (the lowest card, the high singles) explicitly.

    >>> from pipeline.big2.rules import load_ruleset
    >>> hands, stock = fixed_deal(load_ruleset("hk"), {2: "3d"})
    >>> hands[2] & 1, hands[0] & 1, [h.bit_count() for h in hands], stock
    (1, 0, [13, 13, 13, 13], [])
    """
    hands = [m(given.get(seat, "")) for seat in range(rs.players)]
    stock_cards = parse_cards(stock) if stock.strip() else []
    used = 0
    for part in [*hands, mask_of(stock_cards)]:
        assert not used & part, "fixed_deal: a card is given twice"
        used |= part
    rest = iter(cards_of(FULL_DECK & ~used))
    for seat in range(rs.players):
        while hands[seat].bit_count() < rs.hand_size:
            hands[seat] |= 1 << next(rest)
        assert hands[seat].bit_count() == rs.hand_size, f"fixed_deal: seat {seat} has too many"
    stock_cards += list(rest)
    assert len(stock_cards) == rs.stock_size, "fixed_deal: the stock has the wrong size"
    return hands, stock_cards


def action_of(record: ActionRecord) -> Action:
    """The action a record was made from (what a log would state)."""
    if record.type == ActionType.PLAY:
        return Action.play(record.seat, record.cards)
    if record.type == ActionType.PASS:
        return Action.pass_(record.seat, drawn=record.drawn)
    if record.type == ActionType.SWAP:
        return Action.swap(record.seat)
    assert record.claim is not None
    return Action.claim_(record.seat, record.claim)


def act(game: Game, seat: int, text: str) -> ActionRecord:
    """Apply one action written as text: ``"pass"``, ``"swap"`` or the cards played."""
    if text == "pass":
        return game.do(Action.pass_(seat))
    if text == "swap":
        return game.do(Action.swap(seat))
    return game.do(Action.play(seat, m(text)))


def run(game: Game, script: str) -> list[ActionRecord]:
    """Apply a script of actions ``"seat: action | seat: action ..."`` and return the records.

    >>> from pipeline.big2.rules import load_ruleset
    >>> hands, _ = fixed_deal(load_ruleset("hk"), {0: "3d"})
    >>> records = run(Game(load_ruleset("hk"), hands=hands), "0: 3d | 1: pass | 2: pass | 3: pass")
    >>> records[-1].ends_trick
    True
    """
    records = []
    for step in script.split("|"):
        seat, _, text = step.partition(":")
        records.append(act(game, int(seat), text.strip()))
    return records


@dataclass
class RandomGame:
    """A finished random legal game with how it was made."""

    game: Game
    actions: list[Action]
    hands: list[int]
    stock: list[int]
    start_counts: list[int]


def play_random_game(
    rs: Ruleset,
    rng: random.Random,
    *,
    game_number: int = 1,
    previous_winner: int | None = None,
    on_step: Callable[[Game, Action], None] | None = None,
    max_actions: int = 2_000,
) -> RandomGame:
    """Deal at random and play random legal actions until the game ends.

    Under ``swap_leftover`` the lowest-card holder swaps half the time. ``on_step`` sees the
    game and the chosen action just before the action is applied.
    """
    hands, stock = deal(rs, rng)
    game = Game(
        rs,
        hands=hands,
        stock=stock,
        game_number=game_number,
        previous_winner=previous_winner,
    )
    start_counts = list(game.counts)
    actions: list[Action] = []
    if (
        rs.players == 3
        and rs.three_player_mode == ThreePlayerMode.SWAP_LEFTOVER
        and rng.random() < 0.5
    ):
        holder = next(s for s in range(rs.players) if hands[s] >> (game.lowest or 0) & 1)
        swap = Action.swap(holder)
        if on_step is not None:
            on_step(game, swap)
        game.do(swap)
        actions.append(swap)
    while not game.finished:
        assert len(actions) < max_actions, "the random game does not end"
        action = random_action(game, rng)
        if on_step is not None:
            on_step(game, action)
        game.do(action)
        actions.append(action)
    return RandomGame(game, actions, hands, stock, start_counts)


def replay(rs: Ruleset, actions: Sequence[Action], **game_kwargs: object) -> Game:
    """A fresh game with the given construction arguments, every action applied."""
    game = Game(rs, **game_kwargs)  # type: ignore[arg-type]
    for action in actions:
        game.do(action)
    return game
