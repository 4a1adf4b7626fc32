"""Bots: small classes behind one interface, each choosing among the engine's legal moves.

The simulator hands a bot a :class:`Turn`: the game, the seat, the legal plays on offer and
whether passing is allowed (the engine's :meth:`~pipeline.big2.state.Game.legal_moves`; the
bots hold no rule of their own). When 頂大 applies (the next seat holds one card) the simulator
has already decided, from the planted ``must_block_discipline`` and colluders, whether this
turn blocks: the offer then holds only the blocking actions (``block = True``) or only the
non-blocking ones (``block = False``). A bot never sees an illegal action, so whatever it
returns is legal.

- ``random``: uniform over the actions on offer (every play, and the pass when allowed).
- ``greedy``: the lowest play that beats; leads the play holding its lowest card, smallest first.
- ``heuristic``: plans its hand into combinations, leads weak combinations first, keeps 2s
  and unbeatable plays (counting the cards played) for the end, fights harder when an
  opponent is close to going out, blocks when the next player is on one card.

>>> import random
>>> from pipeline.big2.playout import deal
>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.big2.state import Game
>>> rs = load_ruleset("hk")
>>> hands, _ = deal(rs, random.Random(5))
>>> game = Game(rs, hands=hands)
>>> plays, can_pass = game.legal_moves()
>>> len(plays) == len(game.legal_plays()), can_pass
(True, False)
>>> action = make_bot("greedy").choose(Turn(game, game.turn, plays, can_pass), random.Random(1))
>>> action.cards == 1  # ♦3 alone: the lowest card
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from enum import StrEnum
from typing import ClassVar, NamedTuple

from pipeline.big2.combos import Kind, Play, single_key, table_for
from pipeline.big2.moves import can_beat, plays_from
from pipeline.big2.rules import FourOfAKind, Ruleset, SuitOrder
from pipeline.big2.sampling import random_lead
from pipeline.big2.state import Action, Claim, Game
from pipeline.cards import FULL_DECK
from pipeline.errors import Big2Error

#: Every 2 (the highest rank): the control cards a heuristic keeps for the end.
TWOS = 0xF << (12 * 4)


class SimError(Big2Error):
    """A simulation that cannot be set up (unknown bot, bad option)."""

    default_code = "E_SIM"


class BotName(StrEnum):
    """The bots :func:`make_bot` builds."""

    RANDOM = "random"
    GREEDY = "greedy"
    HEURISTIC = "heuristic"


class Turn(NamedTuple):
    """What a bot sees when it is to act: the legal actions on offer and the planted context.

    A named tuple: one is built per decision (cheaper than a frozen dataclass)."""

    game: Game
    seat: int
    plays: Sequence[Play]  # the legal plays on offer
    can_pass: bool
    block: bool | None = (
        None  # 頂大: None no decision; True only blocking / False only non-blocking offered
    )
    partner: int | None = None  # colluder: the seat this one feeds and never blocks

    @property
    def leading(self) -> bool:
        return self.game.top is None


def low_key(mask: int, suit_order: SuitOrder) -> int:
    """The single-card strength of the lowest card of a non-empty mask.

    >>> from pipeline.cards import mask_of, parse_cards
    >>> low_key(mask_of(parse_cards("3c 3d 9s")), SuitOrder.HK), low_key(mask_of(parse_cards("3c 3d")), SuitOrder.TAIWAN)
    (0, 0)
    """
    rank = ((mask & -mask).bit_length() - 1) >> 2
    suits = mask >> (rank * 4) & 15
    return min(single_key(rank * 4 + s, suit_order) for s in range(4) if suits >> s & 1)


def _singles(plays: Sequence[Play]) -> list[Play]:
    return [p for p in plays if p.size == 1]


class Bot(ABC):
    """One bot: :meth:`choose` an action among the offer; also claims and the 3-player swap."""

    name: ClassVar[BotName]
    #: Median think time in seconds (timestamps model it).
    think: ClassVar[float] = 2.0

    @abstractmethod
    def choose(self, turn: Turn, rng: random.Random) -> Action:
        """One of the actions on offer: a play of ``turn.plays`` or, if allowed, a pass."""

    def claim(self, claims: Sequence[Claim], rng: random.Random) -> Claim | None:
        """Which claim to make before play (the hand qualifies for each): instant wins first."""
        wins = [c for c in claims if c.is_instant_win]
        ordered = wins or list(claims)
        return ordered[0] if ordered else None

    def swap(self, game: Game, seat: int, rng: random.Random) -> bool:
        """3-player ``swap_leftover``: swap the lowest card for the face-down leftover?"""
        return True

    def quick(self, game: Game, rng: random.Random) -> tuple[Action, int] | None:
        """A shortcut for a turn with no planted decision to make: the action and the number
        of legal actions, or None to be offered the full list (:meth:`choose`)."""
        return None

    @staticmethod
    def play(turn: Turn, play: Play) -> Action:
        return Action.play(turn.seat, play.mask)

    @staticmethod
    def pass_(turn: Turn) -> Action:
        return Action.pass_(turn.seat)


class RandomBot(Bot):
    """Uniform over the legal actions on offer, the pass included when allowed."""

    name = BotName.RANDOM
    think = 1.0

    def choose(self, turn: Turn, rng: random.Random) -> Action:
        n = len(turn.plays) + (1 if turn.can_pass else 0)
        i = rng.randrange(n)
        return self.pass_(turn) if i == len(turn.plays) else self.play(turn, turn.plays[i])

    def swap(self, game: Game, seat: int, rng: random.Random) -> bool:
        return rng.random() < 0.5

    def quick(self, game: Game, rng: random.Random) -> tuple[Action, int] | None:
        """A lead drawn uniformly without listing the plays (:mod:`pipeline.big2.sampling`),
        when no rule narrows the lead (the first play's, an enforced 頂大)."""
        hands, seat = game.hands, game.turn
        if game.top is not None or hands is None or seat is None or game.plays_restricted:
            return None
        play, n = random_lead(hands[seat], game.rs, rng)
        return Action.play(seat, play.mask), n


class GreedyBot(Bot):
    """The lowest play that beats; leads the play holding its lowest card, the smallest first."""

    name = BotName.GREEDY
    think = 1.5

    def choose(self, turn: Turn, rng: random.Random) -> Action:
        plays = turn.plays
        if turn.block is False and turn.can_pass:
            return self.pass_(turn)
        if not plays:
            return self.pass_(turn)
        if turn.leading:
            so = turn.game.rs.suit_order
            return self.play(turn, min(plays, key=lambda p: (low_key(p.mask, so), p.size)))
        return self.play(turn, min(plays, key=lambda p: (p.is_bomb, p.order)))


def _rank_groups(hand: int, quad_units: int = 2) -> int:
    """Units a hand falls into without five-card plays: one per rank, ``quad_units`` for a
    quad (two pairs, or one play when the four alone is a four of a kind)."""
    n = 0
    while hand:
        low = hand & -hand
        rank = (low.bit_length() - 1) >> 2
        k = (hand >> (rank * 4) & 15).bit_count()
        n += quad_units if k == 4 else 1
        hand &= ~(0xF << (rank * 4))
    return n


def plan_hand(hand: int, rs: Ruleset) -> tuple[Play, ...]:
    """Split a hand into combinations: five-card plays that save the most units (low cards
    first, 2s reluctantly), then triples, pairs and singles by rank.

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.cards import mask_of, parse_cards
    >>> [str(p) for p in plan_hand(mask_of(parse_cards("3d 4c 5h 6s 7d 9c 9h Ks Kd Kh 2s")), load_ruleset("hk"))]
    ['3♦4♣5♥6♠7♦', '9♣9♥K♦K♥K♠', '2♠']
    """
    table = table_for(rs)
    quad_units = 1 if rs.four_of_a_kind == FourOfAKind.ALONE else 2
    units: list[Play] = []
    rest = hand
    while rest.bit_count() >= 5:
        base = _rank_groups(rest, quad_units)
        best: Play | None = None
        best_score = 0
        for p in plays_from(rest, rs, size=5):
            gain = base - _rank_groups(rest & ~p.mask, quad_units) - 1
            if p.mask & TWOS:
                gain -= 1
            if gain < 1:
                continue
            score = gain * 64 - ((p.mask.bit_length() - 1) >> 2)
            if best is None or score > best_score:
                best, best_score = p, score
        if best is None:
            break
        units.append(best)
        rest &= ~best.mask
    for rank in range(13):
        group = rest >> (rank * 4) & 15
        if not group:
            continue
        cards = [rank * 4 + s for s in range(4) if group >> s & 1]
        masks: list[int]
        four = table.get(group << (rank * 4)) if len(cards) == 4 else None
        if four is not None and four.kind == Kind.FOUR_OF_A_KIND:  # four_of_a_kind = alone
            masks = [four.mask]
        elif len(cards) == 4:
            masks = [1 << cards[0] | 1 << cards[1], 1 << cards[2] | 1 << cards[3]]
        elif len(cards) == 3 and not rs.allow_triples:
            masks = [1 << cards[0] | 1 << cards[1], 1 << cards[2]]
        else:
            masks = [sum(1 << c for c in cards)]
        units.extend(table[m] for m in masks)
    return tuple(units)


class HeuristicBot(Bot):
    """Plans its hand, leads weak combinations first, keeps control, counts cards, blocks."""

    name = BotName.HEURISTIC
    think = 3.0

    def __init__(self) -> None:
        self._plans: dict[tuple[int, int], tuple[Play, ...]] = {}

    def plan(self, hand: int, rs: Ruleset) -> tuple[Play, ...]:
        key = (hand, id(rs))
        got = self._plans.get(key)
        if got is None:
            if len(self._plans) > 4096:
                self._plans.clear()
            got = self._plans[key] = plan_hand(hand, rs)
        return got

    @staticmethod
    def _outstanding(game: Game, hand: int) -> int:
        return FULL_DECK & ~game.played & ~hand

    def _is_boss(self, game: Game, hand: int, play: Play) -> bool:
        """No card still out (in another hand or the stock) can beat the play."""
        out = self._outstanding(game, hand)
        if play.size == 5 and out.bit_count() > 4:
            return False
        return not can_beat(out, play, game.rs)

    def quick(self, game: Game, rng: random.Random) -> tuple[Action, int] | None:
        """No list of plays needed: on a free lead every unit of the plan is legal, and a
        follow with a whole unit (or a pass) needs only the units that beat the table."""
        hands, seat = game.hands, game.turn
        if hands is None or seat is None or game.plays_restricted:
            return None
        if game.top is not None:
            return self._quick_follow(game, seat, hands[seat])
        units = self.plan(hands[seat], game.rs)
        action = self.choose(Turn(game, seat, units, False), rng)
        return action, len(units)  # the options weighed (think time)

    def choose(self, turn: Turn, rng: random.Random) -> Action:
        action = self._lead(turn) if turn.leading else self._follow(turn)
        self._remember(turn.game, action)
        return action

    def _remember(self, game: Game, action: Action) -> None:
        """Playing a whole unit of the plan leaves the rest of the plan for the rest of the hand."""
        if not action.cards or game.hands is None:
            return
        hand = game.hands[action.seat]
        plan = self._plans.get((hand, id(game.rs)))
        if plan is not None and any(u.mask == action.cards for u in plan):
            rest = tuple(u for u in plan if u.mask != action.cards)
            self._plans[(hand & ~action.cards, id(game.rs))] = rest

    def _lead(self, turn: Turn) -> Action:
        game, plays = turn.game, turn.plays
        assert game.hands is not None
        hand = game.hands[turn.seat]
        so = game.rs.suit_order
        singles = _singles(plays)
        if turn.block is False or (turn.partner is not None and singles):
            # deliberately not blocking, or feeding a colluding partner: the lowest single
            return self.play(turn, min(singles or plays, key=lambda p: low_key(p.mask, so)))
        offered = {p.mask for p in plays}
        units = [u for u in self.plan(hand, game.rs) if u.mask in offered]
        if turn.block is True:
            multi = [u for u in units if u.size > 1] or [p for p in plays if p.size > 1]
            if multi:
                return self.play(turn, min(multi, key=lambda p: low_key(p.mask, so)))
            return self.play(turn, max(plays, key=lambda p: p.order))
        if not units:  # the first play's rule narrows the offer: the smallest play, lowest first
            return self.play(turn, min(plays, key=lambda p: (p.size, low_key(p.mask, so))))
        others = [game.counts[s] for s in range(game.n) if s != turn.seat and game.counts[s]]
        danger = min(others, default=13) <= 1
        bosses = [u for u in units if self._is_boss(game, hand, u)]
        weak = [u for u in units if u not in bosses]
        if bosses and len(weak) <= 1:  # take control, then go out with the last one
            return self.play(turn, max(bosses, key=lambda p: p.size))
        pool = weak or units
        if danger:
            multi = [u for u in pool if u.size > 1]
            if multi:
                return self.play(turn, min(multi, key=lambda p: low_key(p.mask, so)))
            return self.play(turn, max(pool, key=lambda p: p.order))
        cheap = [u for u in pool if not u.mask & TWOS] or pool
        return self.play(turn, min(cheap, key=lambda p: (low_key(p.mask, so), -p.size)))

    def _follow(self, turn: Turn) -> Action:
        game, plays = turn.game, turn.plays
        assert game.hands is not None
        if turn.block is True:
            singles = _singles(plays)
            return self.play(turn, max(singles, key=lambda p: p.order) if singles else plays[0])
        if not plays or (turn.block is False and turn.can_pass):
            return self.pass_(turn)
        if turn.partner is not None and game.top_seat == turn.partner and turn.can_pass:
            return self.pass_(turn)
        units = self.plan(game.hands[turn.seat], game.rs)
        unit_masks = {u.mask for u in units}
        whole = [p for p in plays if p.mask in unit_masks]
        choice = self._follow_units(game, turn.seat, units, whole)
        if choice is _ANY:  # break a combination: the lowest play that beats
            return self.play(turn, min(plays, key=_follow_key))
        if isinstance(choice, Play):
            return self.play(turn, choice)
        if turn.can_pass:
            return self.pass_(turn)
        return self.play(turn, min(plays, key=_follow_key))

    def _follow_units(
        self, game: Game, seat: int, units: Sequence[Play], whole: Sequence[Play]
    ) -> Play | object | None:
        """Which whole unit to follow with (``whole``: the units that beat the table), None to
        pass, or ``_ANY`` when only breaking a combination would do."""
        others = [game.counts[s] for s in range(game.n) if s != seat and game.counts[s]]
        low = min(others, default=13)
        mine = game.counts[seat]
        urgent = low <= 4 or (low <= 7 and mine >= 8)
        cheap = [p for p in whole if not p.mask & TWOS and not p.is_bomb]
        if cheap:
            return min(cheap, key=_follow_key)
        if urgent or mine <= 4:
            return min(whole, key=_follow_key) if whole else _ANY
        if whole and len(units) <= 3:  # a control play now leaves little to shed
            return min(whole, key=_follow_key)
        return None

    def _quick_follow(self, game: Game, seat: int, hand: int) -> tuple[Action, int] | None:
        top = game.top
        assert top is not None
        units = self.plan(hand, game.rs)
        whole = [u for u in units if u.beats(top)]  # a unit is in the hand: legal if it beats
        choice = self._follow_units(game, seat, units, whole)
        if choice is _ANY:
            return None
        n = len(whole) + 1  # the options weighed (think time)
        if isinstance(choice, Play):
            action = Action.play(seat, choice.mask)
            self._remember(game, action)
            return action, n
        return Action.pass_(seat), n


#: ``_follow_units``' answer when no whole unit will do but a play must be made.
_ANY = object()


def _follow_key(p: Play) -> tuple[bool, int]:
    return (p.is_bomb, p.order)


_BOTS: dict[BotName, type[Bot]] = {
    BotName.RANDOM: RandomBot,
    BotName.GREEDY: GreedyBot,
    BotName.HEURISTIC: HeuristicBot,
}


def make_bot(name: str) -> Bot:
    """A fresh bot by name (``random``, ``greedy``, ``heuristic``).

    >>> make_bot("heuristic").name.value
    'heuristic'
    """
    try:
        kind = BotName(name)
    except ValueError:
        known = ", ".join(b.value for b in BotName)
        raise SimError("E_SIM_BOT", f"unknown bot {name!r}; bots: {known}", bot=name) from None
    return _BOTS[kind]()
