"""Seeded deals and uniformly random legal play-outs: test data, samples and benchmarks.

>>> import random
>>> from pipeline.big2.rules import load_ruleset
>>> game, actions = random_playout(load_ruleset("hk"), random.Random(7))
>>> game.result.winner is not None, len(actions) == len(game.history)
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pipeline.big2.rules import Ruleset
from pipeline.big2.state import Action, Game
from pipeline.cards import N_CARDS, mask_of


def deal(rs: Ruleset, rng: random.Random) -> tuple[list[int], list[int]]:
    """A shuffled deal: one hand mask per seat, and the undealt cards in draw order.

    >>> import random
    >>> from pipeline.big2.rules import load_ruleset
    >>> hands, stock = deal(load_ruleset("hk", {"players": 3, "three_player_mode": "stock_13"}), random.Random(1))
    >>> [h.bit_count() for h in hands], len(stock)
    ([13, 13, 13], 13)
    """
    deck = list(range(N_CARDS))
    rng.shuffle(deck)
    size = rs.hand_size
    hands = [mask_of(deck[i * size : (i + 1) * size]) for i in range(rs.players)]
    return hands, deck[size * rs.players :]


def random_action(game: Game, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat to act (plays and, when allowed, a pass)."""
    seat = game.turn
    assert seat is not None
    options = [Action.play(seat, p.mask) for p in game.legal_plays()]
    if game.can_pass():
        options.append(Action.pass_(seat))
    return rng.choice(options)


def random_playout(
    rs: Ruleset,
    rng: random.Random,
    *,
    hands: Sequence[int] | None = None,
    stock: Sequence[int] = (),
    game_number: int = 1,
    previous_winner: int | None = None,
) -> tuple[Game, list[Action]]:
    """Deal (unless ``hands`` are given) and play a game out with random legal actions."""
    if hands is None:
        hands, stock = deal(rs, rng)
    game = Game(
        rs, hands=hands, stock=stock, game_number=game_number, previous_winner=previous_winner
    )
    actions: list[Action] = []
    while not game.finished:
        action = random_action(game, rng)
        game.do(action)
        actions.append(action)
    return game, actions
