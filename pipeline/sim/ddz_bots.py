"""Dou Dizhu bots: random, greedy and heuristic, bidding included (issue 14).

A bot never builds a move of its own. In the auction it is offered the engine's legal bids
(:func:`legal_bids`: every auction action of the ruleset's form that :meth:`Game.can` accepts);
in play it is offered :meth:`Game.legal_plays` and whether it may pass (not on a lead). So
whatever it returns is legal, and the simulator applies it with :meth:`Game.do`, which
verifies it again.

- ``random``: uniform over the legal bids, and over the legal plays plus the pass when allowed.
- ``greedy``: bids one more than the table when it holds two big cards (2s and jokers), calls on
  the same test; follows with the lowest play that beats (bombs last), whoever is on the table;
  leads the play holding its lowest rank, the smallest first.
- ``heuristic``: bids by :func:`hand_strength`; plays to leave the fewest units in hand
  (:func:`hand_units`), keeps bombs and the rocket unless an opponent is close to going out or
  they finish the hand, and cooperates as a farmer: it does not beat its partner's play on the
  table (unless it goes out), and against a landlord on one or two cards it beats whatever the
  landlord plays and leads no play of that size.

>>> from pipeline.doudizhu.rules import load_ruleset
>>> from pipeline.doudizhu.state import Game, demo_deal
>>> hands, kitty = demo_deal()
>>> game = Game(load_ruleset("ddz"), hands=hands, kitty=kitty, first_bidder=0)
>>> [a.value for a in legal_bids(game)]
[0, 1, 2, 3]
>>> make_ddz_bot("greedy").bid(game, legal_bids(game), random.Random(1)).value
0
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from enum import StrEnum
from typing import ClassVar, NamedTuple

from pipeline.doudizhu.cards import ACE_RANK, BJ_RANK, N_RANKS, RJ_RANK, TWO_RANK, counts_of
from pipeline.doudizhu.combos import Kind, Play
from pipeline.doudizhu.rules import MAX_BID, Bidding
from pipeline.doudizhu.state import Action, Game, Phase
from pipeline.sim.bots import SimError


class DdzBotName(StrEnum):
    """The Dou Dizhu bots :func:`make_ddz_bot` builds."""

    RANDOM = "random"
    GREEDY = "greedy"
    HEURISTIC = "heuristic"


class DdzTurn(NamedTuple):
    """A play-phase decision: the game, the seat, the engine's legal plays, whether it may pass."""

    game: Game
    seat: int
    plays: Sequence[Play]
    can_pass: bool

    @property
    def leading(self) -> bool:
        return self.game.top is None


def legal_bids(game: Game) -> list[Action]:
    """The auction actions the engine accepts now (every action of the ruleset's form, kept
    when :meth:`Game.can` says so), the pass (0 / ``no_call``) first."""
    seat = game.turn
    if seat is None or game.phase != Phase.AUCTION:
        return []
    if game.rs.bidding == Bidding.CALL:
        candidates = [Action.no_call(seat), Action.call(seat)]
    else:
        candidates = [Action.bid(seat, v) for v in range(MAX_BID + 1)]
    return [a for a in candidates if game.can(a)]


def hand_strength(counts: Sequence[int]) -> float:
    """The heuristic's bidding score of a hand's rank counts (before the kitty).

    The rocket 8 (else the red joker 4, the black joker 3), each bomb 6, each 2 2, each ace
    0.5 (control cards: what wins a lead back), minus 0.5 per single below a jack that no
    straight (5 ranks in a row, 3 … A) can carry (a loose low card is a play lost).

    >>> from pipeline.doudizhu.cards import parse_ranks
    >>> def counts(text):
    ...     c = [0] * 15
    ...     for r in parse_ranks(text):
    ...         c[r] += 1
    ...     return c
    >>> hand_strength(counts("BJ RJ 2 2 2 2 A 3 3 5 5 7 7 9 9 J J"))
    14.5
    >>> hand_strength(counts("3 5 7 9 J J Q Q K K 6 6 10 10 A A 2"))  # 3, 5, 7 loose: 3 - 1.5
    1.5
    """
    s = 0.0
    if counts[BJ_RANK] and counts[RJ_RANK]:
        s += 8
    else:
        s += 3 * counts[BJ_RANK] + 4 * counts[RJ_RANK]
    bombs = sum(1 for r in range(TWO_RANK + 1) if counts[r] == 4)
    s += 6 * bombs
    s += 2 * counts[TWO_RANK] if counts[TWO_RANK] < 4 else 0
    s += 0.5 * counts[ACE_RANK] if counts[ACE_RANK] < 4 else 0
    for r in range(ACE_RANK - 3):  # 3 … 10
        if counts[r] == 1 and not _in_run(counts, r):
            s -= 0.5
    return s


def _in_run(counts: Sequence[int], r: int) -> bool:
    """Whether rank ``r`` lies in 5 consecutive present ranks of 3 … A."""
    lo = r
    while lo > 0 and counts[lo - 1]:
        lo -= 1
    hi = r
    while hi < ACE_RANK and counts[hi + 1]:
        hi += 1
    return hi - lo + 1 >= 5


def hand_units(counts: Sequence[int]) -> int:
    """A quick count of the plays a hand still needs: one per rank held, the rocket one play,
    each triple carrying one single or pair, a run of five or more single ranks one straight.

    >>> from pipeline.doudizhu.cards import parse_ranks
    >>> def units(text):
    ...     c = [0] * 15
    ...     for r in parse_ranks(text):
    ...         c[r] += 1
    ...     return hand_units(c)
    >>> units("3 4 5 6 7 9 9 9 K"), units("BJ RJ"), units("")
    (2, 1, 0)
    """
    c = list(counts)
    units = 0
    # straights over single ranks (a straight of singles saves the most)
    r = 0
    while r <= ACE_RANK:
        if c[r] == 1:
            hi = r
            while hi + 1 <= ACE_RANK and c[hi + 1] in (1, 2):
                hi += 1
            if hi - r + 1 >= 5:
                for x in range(r, hi + 1):
                    c[x] -= 1
                units += 1
            r = hi + 1
        else:
            r += 1
    singles = pairs = triples = 0
    for r in range(N_RANKS):
        n = c[r]
        if n == 1:
            singles += 1
        elif n == 2:
            pairs += 1
        elif n == 3:
            triples += 1
        elif n == 4:
            units += 1
    if c[BJ_RANK] and c[RJ_RANK]:
        singles -= 1  # the rocket: one play for two ranks
    carried = min(triples, singles + pairs)
    return units + singles + pairs + triples - carried


class DdzBot(ABC):
    """One Dou Dizhu bot: :meth:`bid` among the legal bids, :meth:`choose` among the plays."""

    name: ClassVar[DdzBotName]

    @abstractmethod
    def bid(self, game: Game, bids: Sequence[Action], rng: random.Random) -> Action:
        """One of ``bids`` (the engine's legal auction actions, the pass first)."""

    @abstractmethod
    def choose(self, turn: DdzTurn, rng: random.Random) -> Action:
        """A play of ``turn.plays`` or, when allowed, a pass."""

    @staticmethod
    def play(turn: DdzTurn, play: Play) -> Action:
        return Action.play(turn.seat, play.mask)

    @staticmethod
    def pass_(turn: DdzTurn) -> Action:
        return Action.pass_(turn.seat)

    @staticmethod
    def bid_up_to(bids: Sequence[Action], want: int) -> Action:
        """The highest legal bid (or call) worth at most ``want``; the pass when none is."""
        best = bids[0]
        for a in bids:
            worth = a.value if a.type.value == "bid" else (1 if a.type.value == "call" else 0)
            if worth <= want:
                best = a
        return best


class RandomDdzBot(DdzBot):
    """Uniform over the legal bids, and over the plays and the pass when allowed."""

    name = DdzBotName.RANDOM

    def bid(self, game: Game, bids: Sequence[Action], rng: random.Random) -> Action:
        return bids[rng.randrange(len(bids))]

    def choose(self, turn: DdzTurn, rng: random.Random) -> Action:
        n = len(turn.plays) + (1 if turn.can_pass else 0)
        i = rng.randrange(n)
        return self.pass_(turn) if i == len(turn.plays) else self.play(turn, turn.plays[i])


def _big_cards(counts: Sequence[int]) -> int:
    return counts[TWO_RANK] + counts[BJ_RANK] + counts[RJ_RANK]


class GreedyDdzBot(DdzBot):
    """One more than the table with two big cards; the lowest beating play; the lowest lead."""

    name = DdzBotName.GREEDY

    def bid(self, game: Game, bids: Sequence[Action], rng: random.Random) -> Action:
        hand = game.hand(bids[0].seat) or 0
        if _big_cards(counts_of(hand)) < 2:
            return bids[0]
        return bids[1] if len(bids) > 1 else bids[0]

    def choose(self, turn: DdzTurn, rng: random.Random) -> Action:
        plays = turn.plays
        if not plays:
            return self.pass_(turn)
        if turn.leading:
            return self.play(turn, min(plays, key=_lowest_rank_then_size))
        return self.play(turn, min(plays, key=lambda p: (p.is_bomb, p.key, p.size)))


def _lowest_rank_then_size(p: Play) -> tuple[int, int]:
    low = next(r for r, n in enumerate(p.counts) if n)
    return low, p.size


#: Bids by strength (heuristic): 3 from 7, 2 from 5, 1 from 3; calls (叫地主) from 5.
BID_THRESHOLDS = ((7.0, 3), (5.0, 2), (3.0, 1))
CALL_THRESHOLD = 5.0


class HeuristicDdzBot(DdzBot):
    """Bids by :func:`hand_strength`; plays to the fewest units left; farmers cooperate."""

    name = DdzBotName.HEURISTIC

    def bid(self, game: Game, bids: Sequence[Action], rng: random.Random) -> Action:
        hand = game.hand(bids[0].seat) or 0
        s = hand_strength(counts_of(hand))
        if game.rs.bidding == Bidding.CALL:
            return self.bid_up_to(bids, 1 if s >= CALL_THRESHOLD else 0)
        want = next((b for t, b in BID_THRESHOLDS if s >= t), 0)
        return self.bid_up_to(bids, want)

    def choose(self, turn: DdzTurn, rng: random.Random) -> Action:
        game, seat = turn.game, turn.seat
        plays = turn.plays
        if not plays:
            return self.pass_(turn)
        landlord = game.landlord
        counts = game.rank_counts[seat] if game.rank_counts is not None else [0] * N_RANKS
        size = sum(counts)
        opponents = [s for s in range(game.n) if (s == landlord) != (seat == landlord)]
        danger = min(game.counts[s] for s in opponents)
        for p in plays:  # going out wins at once
            if p.size == size:
                return self.play(turn, p)
        if not turn.leading:
            top_seat = game.top_seat
            partner_on_top = top_seat is not None and top_seat != landlord and seat != landlord
            if partner_on_top:
                return self.pass_(turn)
        now = hand_units(counts)

        def cost(p: Play) -> float:
            rest = [c - d for c, d in zip(counts, p.counts, strict=True)]
            c = float(hand_units(rest))
            if p.is_bomb and c > 1 and danger > 3:
                c += 4  # keep bombs for when they matter
            if turn.leading:
                if danger <= 2 and p.size == danger and p.kind in (Kind.SINGLE, Kind.PAIR):
                    c += 6 - p.key / 4  # the opponent could go out on it: only high ones
                c += p.key / 16 - p.size / 8  # low first, long first
            else:
                c += p.key / 16
            return c

        best = min(plays, key=cost)
        if turn.leading or danger <= 2:
            return self.play(turn, best)
        if cost(best) - best.key / 16 > now + 1 and danger > 4:
            return self.pass_(turn)  # it would break the hand and nobody is close: keep it
        if best.is_bomb and danger > 3 and cost(best) > 1:
            return self.pass_(turn)
        return self.play(turn, best)


_BOTS: dict[str, type[DdzBot]] = {
    DdzBotName.RANDOM: RandomDdzBot,
    DdzBotName.GREEDY: GreedyDdzBot,
    DdzBotName.HEURISTIC: HeuristicDdzBot,
}


def make_ddz_bot(name: str) -> DdzBot:
    """A Dou Dizhu bot by name; an unknown name is ``E_SIM_BOT`` with the known names.

    >>> make_ddz_bot("heuristic").name.value
    'heuristic'
    >>> make_ddz_bot("clever")
    Traceback (most recent call last):
    ...
    pipeline.sim.bots.SimError: E_SIM_BOT: unknown Dou Dizhu bot 'clever' (known: random, greedy, heuristic)
    """
    cls = _BOTS.get(name)
    if cls is None:
        raise SimError("E_SIM_BOT", f"unknown Dou Dizhu bot {name!r} (known: {', '.join(_BOTS)})")
    return cls()
