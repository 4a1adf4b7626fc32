"""The Dou Dizhu state machine: deal, auction, kitty, play, scoring; verify / can / do.

A :class:`Game` is built from a deal (full information) or from nothing but the ruleset
(partial information: only what was played is checked). :meth:`Game.do` verifies an action
(raising :class:`~pipeline.errors.IllegalPlayError` with a stable ``E_DDZ_*`` code quoting
the evidence), applies it and returns one frozen :class:`ActionRecord`.

>>> from pipeline.doudizhu.rules import load_ruleset
>>> game = Game(load_ruleset("ddz"), hands=demo_deal()[0], kitty=demo_deal()[1], first_bidder=0)
>>> [game.do(a).ends_auction for a in (Action.bid(0, 1), Action.bid(1, 0), Action.bid(2, 2))]
[False, False, False]
>>> game.do(Action.bid(0, 2))
Traceback (most recent call last):
...
pipeline.errors.IllegalPlayError: E_DDZ_BID_NOT_HIGHER: seat 0 bid 2 after seat 2 bid 2 (auction)
>>> record = game.do(Action.bid(0, 3))
>>> record.ends_auction, record.landlord, game.turn, game.counts
(True, 0, 0, [20, 17, 17])
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from pipeline.doudizhu.cards import FULL_DECK, N_CARDS, counts_of, format_cards, mask_of
from pipeline.doudizhu.combos import Kind, Play, explain, readings
from pipeline.doudizhu.moves import can_beat_counts, plays_from
from pipeline.doudizhu.rules import MAX_BID, Bidding, DdzRuleset
from pipeline.errors import (
    E_DDZ_AUCTION,
    E_DDZ_BID_NOT_HIGHER,
    E_DDZ_BID_VALUE,
    E_DDZ_DEAL_COUNT,
    E_DDZ_DEAL_DUPLICATE,
    E_DDZ_FACE_UP,
    E_DDZ_GAME_OVER,
    E_DDZ_KIND_NAMED,
    E_DDZ_NOT_A_COMBO,
    E_DDZ_NOT_HIGHER,
    E_DDZ_NOT_IN_HAND,
    E_DDZ_OUT_OF_TURN,
    E_DDZ_PASS_ON_LEAD,
    E_DDZ_PHASE,
    E_DDZ_WRONG_KIND,
    DealError,
    IllegalPlayError,
)


class ActionType(StrEnum):
    """What a seat did (spec 2.2, 2.3)."""

    BID = "bid"  # 叫分: value 0 (不叫) or 1-3
    CALL = "call"  # 叫地主
    NO_CALL = "no_call"  # 不叫 in a 叫地主 auction
    PLAY = "play"
    PASS = "pass"

    __hash__ = str.__hash__


class Phase(StrEnum):
    """Where a game is."""

    AUCTION = "auction"
    PLAY = "play"
    OVER = "over"

    __hash__ = str.__hash__


class Outcome(StrEnum):
    """How a game ended."""

    PLAYED_OUT = "played_out"
    REDEAL = "redeal"  # 荒牌: nobody bid or called; scored 0

    __hash__ = str.__hash__


class Spring(StrEnum):
    """春天 and 反春 (spec 2.5)."""

    SPRING = "spring"  # the landlord won and no farmer played a card
    ANTI_SPRING = "anti_spring"  # a farmer won and the landlord played only the opening lead

    __hash__ = str.__hash__


class Action(NamedTuple):
    """An action as a log states it. ``kind`` may name the reading of a lead (spec 2.4)."""

    seat: int
    type: ActionType
    cards: int = 0
    value: int = 0  # the bid of a ``bid`` action: 0 (不叫) or 1-3
    kind: Kind | None = None

    @staticmethod
    def bid(seat: int, value: int) -> Action:
        return Action(seat, ActionType.BID, value=value)

    @staticmethod
    def call(seat: int) -> Action:
        return Action(seat, ActionType.CALL)

    @staticmethod
    def no_call(seat: int) -> Action:
        return Action(seat, ActionType.NO_CALL)

    @staticmethod
    def play(seat: int, cards: int, kind: Kind | None = None) -> Action:
        return Action(seat, ActionType.PLAY, cards, kind=kind)

    @staticmethod
    def pass_(seat: int) -> Action:
        return Action(seat, ActionType.PASS)


class ActionRecord(NamedTuple):
    """One applied action and the engine's facts about it (one warehouse row)."""

    action_index: int
    seat: int
    type: ActionType
    phase: Phase  # the phase the action was taken in
    bid: int | None  # the bid (0 = pass) or call (1) / no call (0) of an auction action
    cards: int  # played cards (mask); 0 otherwise
    kind: Kind | None
    key: int | None  # the play's main rank
    units: int | None  # the play's chain length
    round: int  # 1-based round of play (0 in the auction)
    is_lead: bool
    top_before: int  # the play on the table before this action (mask; 0 when leading)
    top_kind: Kind | None
    top_seat: int | None
    cards_left: tuple[int, ...]  # every seat, after the action
    hand_before: int | None  # the seat's hand before the action, when known
    beating_play_existed: bool | None  # following only, when the hand is known
    ends_round: bool
    ends_auction: bool
    landlord: int | None  # known once the auction has ended
    multiplier: int  # 2^(bombs + rockets) so far (before spring and cap)
    wins_game: bool
    unchecked: tuple[str, ...]  # checks partial information did not allow


@dataclass(frozen=True, slots=True)
class GameResult:
    """How the game ended and what it scored (spec 2.5)."""

    outcome: Outcome
    landlord: int | None
    base: int  # the winning bid (1-3), 1 for a called game, 0 for a void deal
    winner: int | None  # the seat that went out first
    landlord_won: bool | None
    bombs: int
    rockets: int
    spring: Spring | None
    multiplier: int  # what the table pays: 2^(bombs + rockets), ×2 spring when on, capped
    amount: float  # per farmer: base × stake × multiplier
    scores: tuple[float, ...]  # per seat, zero-sum


def score(
    rs: DdzRuleset,
    *,
    landlord: int,
    base: int,
    landlord_won: bool,
    bombs: int,
    rockets: int,
    spring: Spring | None = None,
) -> tuple[int, float, tuple[float, ...]]:
    """(multiplier paid, amount per farmer, score per seat) of a played-out game (spec 2.5).

    004's example: bid 3, two bombs and a rocket → 24 per farmer, 48 in all.

    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> score(load_ruleset("ddz"), landlord=0, base=3, landlord_won=True, bombs=2, rockets=1)
    (8, 24, (48, -24, -24))
    >>> score(load_ruleset("ddz", {"multiplier_cap": 4}), landlord=1, base=3, landlord_won=False,
    ...       bombs=2, rockets=1)
    (4, 12, (12, -24, 12))
    """
    raw = 1 << (bombs + rockets)
    if spring is not None and rs.spring_doubles:
        raw *= 2
    mult = rs.capped(raw)
    amount = base * rs.stake * mult
    n = rs.players
    sign = 1 if landlord_won else -1
    scores = tuple(
        sign * amount * (n - 1) if seat == landlord else -sign * amount for seat in range(n)
    )
    return mult, amount, scores


_HAND = ("hand",)
_AUCTION_TYPES = frozenset({ActionType.BID, ActionType.CALL, ActionType.NO_CALL})
#: Builds a named tuple without its Python-level ``__new__`` (one record per action: the hot path).
_new = tuple.__new__


class Game:
    """One Dou Dizhu deal under one ruleset, from the auction to the last card.

    ``hands`` (one mask per seat as dealt), ``kitty`` (the 3 底牌) and ``set_aside`` (2 players:
    the unseen cards; may be omitted) give full information. ``face_up_card`` (翻开的牌): the
    first bidder must hold it. Without ``first_bidder`` or a face-up card, the first seat to act
    bids first. With partial information every action is checked for what can be checked.
    """

    def __init__(
        self,
        rs: DdzRuleset,
        *,
        hands: Sequence[int] | None = None,
        kitty: int | None = None,
        set_aside: int | None = None,
        first_bidder: int | None = None,
        face_up_card: int | None = None,
    ) -> None:
        self.rs = rs
        self.n = rs.players
        self.known = hands is not None
        self.hands: list[int] | None = None
        self.kitty = kitty
        if hands is not None:
            self.hands = self._check_deal(list(hands), kitty, set_aside)
        self.counts = [rs.hand_size] * self.n
        #: each seat's rank counts, kept as cards are played (full information)
        self.rank_counts: list[list[int]] | None = (
            None if self.hands is None else [list(counts_of(h)) for h in self.hands]
        )
        if face_up_card is not None and self.hands is not None:
            holder = next((s for s in range(self.n) if self.hands[s] >> face_up_card & 1), None)
            if holder is None:
                raise DealError(
                    E_DDZ_FACE_UP,
                    f"the face-up card {format_cards(1 << face_up_card)} is in no hand",
                )
            if first_bidder is not None and first_bidder != holder:
                raise DealError(
                    E_DDZ_FACE_UP,
                    f"seat {first_bidder} bids first but seat {holder} holds the face-up card "
                    f"{format_cards(1 << face_up_card)}",
                    seat=first_bidder,
                )
            first_bidder = holder
        self.first_bidder = first_bidder
        self.turn: int | None = first_bidder
        self.phase = Phase.AUCTION
        self.history: list[ActionRecord] = []
        self.result: GameResult | None = None
        # auction
        self.bid = 0
        self.bidder: int | None = None
        self.bids: list[int | None] = [None] * self.n  # each seat's last bid (0 = passed)
        self.passed = [False] * self.n
        self.passes_in_row = 0
        self.landlord: int | None = None
        # play
        self.round = 0
        self.top: Play | None = None
        self.top_seat: int | None = None
        self.passes = 0
        self.bombs = 0
        self.rockets = 0
        self.plays_by_seat = [0] * self.n

    # ----- deal -------------------------------------------------------------------------
    def _check_deal(self, hands: list[int], kitty: int | None, set_aside: int | None) -> list[int]:
        rs = self.rs
        if len(hands) != self.n:
            raise DealError(E_DDZ_DEAL_COUNT, f"{len(hands)} hands dealt for {self.n} players")
        seen = 0
        parts: list[tuple[str, int, int]] = [
            (f"seat {s}", h, rs.hand_size) for s, h in enumerate(hands)
        ]
        if kitty is not None:
            parts.append(("the kitty", kitty, rs.kitty_size))
        if set_aside is not None:
            parts.append(("the set-aside cards", set_aside, rs.set_aside_size))
        for name, cards, size in parts:
            if cards >> N_CARDS:
                raise DealError(E_DDZ_DEAL_COUNT, f"{name} holds a card id beyond the 54 cards")
            if seen & cards:
                raise DealError(
                    E_DDZ_DEAL_DUPLICATE,
                    f"{name} was dealt {format_cards(seen & cards)}, already dealt elsewhere",
                )
            seen |= cards
            if cards.bit_count() != size:
                raise DealError(
                    E_DDZ_DEAL_COUNT,
                    f"{name} was dealt {cards.bit_count()} cards, expected {size}",
                )
        if kitty is not None and set_aside is not None and seen != FULL_DECK:
            missing = FULL_DECK & ~seen
            raise DealError(
                E_DDZ_DEAL_COUNT, f"cards missing from the deal: {format_cards(missing)}"
            )
        return hands

    # ----- views ------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def leading(self) -> bool:
        """Whether the seat to act leads a new round."""
        return self.phase == Phase.PLAY and self.top is None

    @property
    def multiplier(self) -> int:
        """2^(bombs + rockets played so far)."""
        return 1 << (self.bombs + self.rockets)

    def hand(self, seat: int) -> int | None:
        """A seat's current hand, when the deal is known."""
        return None if self.hands is None else self.hands[seat]

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` (counter-clockwise; seats are numbered in play order)."""
        return (seat + 1) % self.n

    def legal_plays(self) -> LegalPlays:
        """The legal plays of the seat to act, as a view (full information, play phase)."""
        return LegalPlays(self)

    # ----- verify / can / do ------------------------------------------------------------
    def _err(self, code: str, message: str, action: Action) -> IllegalPlayError:
        where = "auction" if self.phase == Phase.AUCTION else f"round {self.round}"
        return IllegalPlayError(
            code,
            f"{message} ({where})",
            seat=action.seat,
            action_index=len(self.history),
            round=self.round,
        )

    def verify(self, action: Action) -> Play | None:
        """Raise the named error if ``action`` is not legal now; return the play's reading."""
        if self.result is not None:
            raise self._err(
                E_DDZ_GAME_OVER, f"seat {action.seat} acted after the game ended", action
            )
        if not 0 <= action.seat < self.n:
            raise self._err(E_DDZ_OUT_OF_TURN, f"seat {action.seat} is not at this table", action)
        if self.turn is not None and action.seat != self.turn:
            raise self._err(
                E_DDZ_OUT_OF_TURN,
                f"seat {action.seat} acted ({action.type.value}) but it is seat {self.turn}'s turn",
                action,
            )
        auction = action.type in _AUCTION_TYPES
        if auction != (self.phase == Phase.AUCTION):
            raise self._err(
                E_DDZ_PHASE,
                f"seat {action.seat}: a {action.type.value} during the {self.phase.value}",
                action,
            )
        if auction:
            self._verify_bid(action)
            return None
        if action.type == ActionType.PASS:
            if self.top is None:
                raise self._err(
                    E_DDZ_PASS_ON_LEAD, f"seat {action.seat} passed on the lead", action
                )
            return None
        return self._verify_play(action)

    def _verify_bid(self, action: Action) -> None:
        rs = self.rs
        if rs.bidding == Bidding.CALL:
            if action.type == ActionType.BID:
                raise self._err(
                    E_DDZ_AUCTION,
                    f"seat {action.seat} bid {action.value} in a 叫地主 auction (call or no_call)",
                    action,
                )
            return
        if action.type != ActionType.BID:
            raise self._err(
                E_DDZ_AUCTION,
                f"seat {action.seat}: {action.type.value} in a 叫分 auction (bid 0-3)",
                action,
            )
        if not 0 <= action.value <= MAX_BID:
            raise self._err(
                E_DDZ_BID_VALUE,
                f"seat {action.seat} bid {action.value}: bids are 0 (pass) to 3",
                action,
            )
        if action.value and action.value <= self.bid:
            raise self._err(
                E_DDZ_BID_NOT_HIGHER,
                f"seat {action.seat} bid {action.value} after seat {self.bidder} bid {self.bid}",
                action,
            )

    def _verify_play(self, action: Action) -> Play:
        seat, cards = action.seat, action.cards
        if not cards:
            raise self._err(E_DDZ_NOT_A_COMBO, f"seat {seat} played no cards", action)
        if self.hands is not None:
            missing = cards & ~self.hands[seat]
            if missing:
                raise self._err(
                    E_DDZ_NOT_IN_HAND,
                    f"seat {seat} played {format_cards(cards)}: {format_cards(missing)} not in hand "
                    f"{format_cards(self.hands[seat])}",
                    action,
                )
        elif cards.bit_count() > self.counts[seat]:
            raise self._err(
                E_DDZ_NOT_IN_HAND,
                f"seat {seat} played {cards.bit_count()} cards ({format_cards(cards)}) "
                f"holding {self.counts[seat]}",
                action,
            )
        rs = self.rs
        found = readings(counts_of(cards), rs)  # cached per rank multiset
        if not found:
            raise self._err(E_DDZ_NOT_A_COMBO, f"seat {seat}: {explain(cards, rs)}", action)
        if action.kind is not None and all(p.kind != action.kind for p in found):
            raise self._err(
                E_DDZ_KIND_NAMED,
                f"seat {seat} named {action.kind.value} for {explain(cards, rs)}",
                action,
            )
        top = self.top
        for p in found:
            if (action.kind is None or p.kind == action.kind) and (top is None or p.beats(top)):
                return p.with_cards(cards)
        assert top is not None  # a lead always has a reading
        same = [
            p
            for p in found
            if (p.kind == top.kind and p.units == top.units) or (p.is_bomb and top.is_bomb)
        ]
        if same:
            raise self._err(
                E_DDZ_NOT_HIGHER, f"seat {seat} played {same[0].text} on {top.text}", action
            )
        raise self._err(
            E_DDZ_WRONG_KIND,
            f"seat {seat} played {found[0].text} ({found[0].kind.value}) on {top.text} "
            f"({top.kind.value}, {top.size} cards): same kind and length, or a bomb",
            action,
        )

    def can(self, action: Action) -> bool:
        """Whether ``action`` is legal now."""
        try:
            self.verify(action)
        except IllegalPlayError:
            return False
        return True

    def do(self, action: Action) -> ActionRecord:
        """Verify and apply one action; return its record (appended to ``history``)."""
        play = self.verify(action)
        if self.phase == Phase.AUCTION:
            return self._do_bid(action)
        return self._do_play(action, play)

    # ----- auction ----------------------------------------------------------------------
    def _do_bid(self, action: Action) -> ActionRecord:
        rs, seat = self.rs, action.seat
        ends = False
        void = False
        if rs.bidding == Bidding.CALL:
            value = 1 if action.type == ActionType.CALL else 0
            self.bids[seat] = value
            if value:
                self.bid, self.bidder, ends = 1, seat, True
            else:
                self.passed[seat] = True
                void = all(self.passed)
        else:
            value = action.value
            self.bids[seat] = value
            if value:
                self.bid, self.bidder = value, seat
                self.passes_in_row = 0
                ends = value == MAX_BID
            else:
                self.passed[seat] = True
                self.passes_in_row += 1
                if self.bidder is None:
                    void = self.passes_in_row == self.n
                elif rs.bid_reentry:
                    ends = self.passes_in_row == self.n - 1
                else:
                    ends = all(self.passed[s] for s in range(self.n) if s != self.bidder)
        hand_before = self.hand(seat)
        if ends:
            landlord = self.bidder
            assert landlord is not None
            self.landlord = landlord
            if self.hands is not None and self.kitty is not None:
                self.hands[landlord] |= self.kitty
                self.rank_counts = [list(counts_of(h)) for h in self.hands]
            self.counts[landlord] += rs.kitty_size
            self.phase = Phase.PLAY
            self.round = 1
            self.turn = landlord
        elif void:
            self.phase = Phase.OVER
            self.turn = None
        else:
            nxt = self.next_seat(seat)
            if rs.bidding == Bidding.POINTS and not rs.bid_reentry:
                while self.passed[nxt]:
                    nxt = self.next_seat(nxt)
            self.turn = nxt
        record = _new(
            ActionRecord,
            (
                len(self.history),
                seat,
                action.type,
                Phase.AUCTION,
                value,
                0,
                None,
                None,
                None,
                0,
                False,
                0,
                None,
                None,
                tuple(self.counts),
                hand_before,
                None,
                False,
                ends or void,
                self.landlord,
                1,
                False,
                () if self.known else _HAND,
            ),
        )
        self.history.append(record)
        if void:
            self.result = GameResult(
                outcome=Outcome.REDEAL,
                landlord=None,
                base=0,
                winner=None,
                landlord_won=None,
                bombs=0,
                rockets=0,
                spring=None,
                multiplier=1,
                amount=0,
                scores=(0,) * self.n,
            )
        return record

    # ----- play -------------------------------------------------------------------------
    def _do_play(self, action: Action, play: Play | None) -> ActionRecord:
        seat = action.seat
        top, top_seat = self.top, self.top_seat
        hand_before = self.hand(seat)
        beat: bool | None = None
        if top is not None and self.rank_counts is not None:
            beat = can_beat_counts(self.rank_counts[seat], top)
        ends_round = wins = False
        if play is not None:
            if self.hands is not None and self.rank_counts is not None:
                self.hands[seat] &= ~play.mask
                have = self.rank_counts[seat]
                for r, c in enumerate(play.counts):
                    if c:
                        have[r] -= c
            self.counts[seat] -= play.size
            self.plays_by_seat[seat] += 1
            if play.kind == Kind.BOMB:
                self.bombs += 1
            elif play.kind == Kind.ROCKET:
                self.rockets += 1
            self.top, self.top_seat, self.passes = play, seat, 0
            wins = self.counts[seat] == 0
            self.turn = self.next_seat(seat)
        else:
            self.passes += 1
            if self.passes == self.n - 1:
                ends_round = True
                self.top, self.passes = None, 0
                self.turn = top_seat
            else:
                self.turn = self.next_seat(seat)
        record = _new(
            ActionRecord,
            (
                len(self.history),
                seat,
                action.type,
                Phase.PLAY,
                None,
                0 if play is None else play.mask,
                None if play is None else play.kind,
                None if play is None else play.key,
                None if play is None else play.units,
                self.round,
                top is None,
                0 if top is None else top.mask,
                None if top is None else top.kind,
                top_seat,
                tuple(self.counts),
                hand_before,
                beat,
                ends_round or wins,
                False,
                self.landlord,
                1 << (self.bombs + self.rockets),
                wins,
                () if self.known else _HAND,
            ),
        )
        self.history.append(record)
        if ends_round:
            self.round += 1
        if wins:
            self._finish(seat)
        return record

    def _finish(self, winner: int) -> None:
        landlord = self.landlord
        assert landlord is not None
        landlord_won = winner == landlord
        farmer_plays = sum(self.plays_by_seat) - self.plays_by_seat[landlord]
        spring: Spring | None = None
        if landlord_won and farmer_plays == 0:
            spring = Spring.SPRING
        elif not landlord_won and self.plays_by_seat[landlord] == 1:
            spring = Spring.ANTI_SPRING
        mult, amount, scores = score(
            self.rs,
            landlord=landlord,
            base=self.bid,
            landlord_won=landlord_won,
            bombs=self.bombs,
            rockets=self.rockets,
            spring=spring,
        )
        self.phase = Phase.OVER
        self.turn = None
        self.result = GameResult(
            outcome=Outcome.PLAYED_OUT,
            landlord=landlord,
            base=self.bid,
            winner=winner,
            landlord_won=landlord_won,
            bombs=self.bombs,
            rockets=self.rockets,
            spring=spring,
            multiplier=mult,
            amount=amount,
            scores=scores,
        )


class LegalPlays:
    """The legal plays of the seat to act: iterate, count, test with ``in`` (a Play or a mask).

    Moves are rank-level (suits never matter): one :class:`Play` per reading, holding the
    hand's lowest cards of its ranks; a mask is in the view when it is in the hand and one of
    its readings is. Empty outside the play phase or without the hands.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._plays: list[Play] | None = None

    def _all(self) -> list[Play]:
        if self._plays is None:
            g = self.game
            hand = None if g.turn is None else g.hand(g.turn)
            if g.phase != Phase.PLAY or hand is None:
                self._plays = []
            else:
                self._plays = list(plays_from(hand, g.rs, on=g.top))
        return self._plays

    def __iter__(self) -> Iterator[Play]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, item: object) -> bool:
        g = self.game
        if isinstance(item, Play):
            return item in set(self._all())
        if isinstance(item, int) and g.turn is not None and g.phase == Phase.PLAY:
            return g.can(Action.play(g.turn, item))
        return False


def deal(rs: DdzRuleset, rng: random.Random) -> tuple[list[int], int, int]:
    """A random deal: (hands, kitty, set-aside cards), each a mask.

    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> hands, kitty, aside = deal(load_ruleset("ddz-2p"), random.Random(1))
    >>> [h.bit_count() for h in hands], kitty.bit_count(), aside.bit_count()
    ([20, 20], 3, 11)
    """
    cards = list(range(N_CARDS))
    rng.shuffle(cards)
    size = rs.hand_size
    hands = [mask_of(cards[s * size : (s + 1) * size]) for s in range(rs.players)]
    start = rs.players * size
    kitty = mask_of(cards[start : start + rs.kitty_size])
    return hands, kitty, mask_of(cards[start + rs.kitty_size :])


def random_game(
    rs: DdzRuleset, rng: random.Random
) -> tuple[tuple[list[int], int, int], int, list[Action]]:
    """A random legal game: (deal, first bidder, actions), the auction included.

    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> rs = load_ruleset("ddz")
    >>> (hands, kitty, aside), first, actions = random_game(rs, random.Random(7))
    >>> game = Game(rs, hands=hands, kitty=kitty, first_bidder=first)
    >>> records = [game.do(a) for a in actions]
    >>> game.finished
    True
    """
    dealt = deal(rs, rng)
    first = rng.randrange(rs.players)
    game = Game(rs, hands=dealt[0], kitty=dealt[1], set_aside=dealt[2], first_bidder=first)
    actions: list[Action] = []
    while not game.finished:
        seat = game.turn
        assert seat is not None
        if game.phase == Phase.AUCTION:
            if rs.bidding == Bidding.CALL:
                action = Action.call(seat) if rng.random() < 0.5 else Action.no_call(seat)
            else:
                choices = [0, *range(game.bid + 1, MAX_BID + 1)]
                action = Action.bid(seat, rng.choice(choices))
        else:
            options: list[Action] = [Action.play(seat, p.mask) for p in game.legal_plays()]
            if game.top is not None:
                options.append(Action.pass_(seat))
            action = rng.choice(options)
        game.do(action)
        actions.append(action)
    return dealt, first, actions


def demo_deal() -> tuple[list[int], int]:
    """A fixed 3-player deal for examples: seats get the cards in id order, the kitty the last 3."""
    return [mask_of(range(s * 17, s * 17 + 17)) for s in range(3)], mask_of(range(51, 54))
