"""The Big Two game state machine: verify / can / do, one frozen record per action.

A :class:`Game` is built from a deal (full information) or from nothing but the ruleset
(partial information: only what was played is known). Actions are applied with
:meth:`Game.do`, which verifies them (raising a named error with a stable code), changes
the state and returns an :class:`ActionRecord` carrying the facts later layers need.

>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.cards import parse_cards, mask_of
>>> deal = ["3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 2d", "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2c",
...         "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 2h", "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s"]
>>> game = Game(load_ruleset("hk"), hands=[mask_of(parse_cards(h)) for h in deal])
>>> game.turn
0
>>> record = game.do(Action.play(0, mask_of(parse_cards("3d"))))
>>> record.is_lead, record.trick, record.cards_left
(True, 1, (12, 13, 13, 13))
>>> game.do(Action.play(1, mask_of(parse_cards("3c 4c 5c 6c 7c"))))
Traceback (most recent call last):
...
pipeline.errors.IllegalPlayError: E_WRONG_SIZE: seat 1 played 3♣4♣5♣6♣7♣ on 3♦ (trick 1)
>>> game.can(Action.play(1, mask_of(parse_cards("4c"))))
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pipeline.big2.combos import (
    Kind,
    Play,
    classify,
    highest_single,
    require_play,
    single_key,
    table_for,
)
from pipeline.big2.moves import beating_plays, can_beat, first_play_ok, meets_block, plays_from
from pipeline.big2.rules import (
    Direction,
    FirstLead,
    FirstPlay,
    LastCardCall,
    MustBlock,
    RedealReason,
    RuleEnum,
    Ruleset,
    SuitOrder,
    ThreePlayerMode,
)
from pipeline.cards import FULL_DECK, Rank, cards_of, format_cards
from pipeline.errors import DealError, IllegalPlayError, ReplayError


class ActionType(RuleEnum):
    """What a seat did."""

    PLAY = "play"
    PASS = "pass"
    CLAIM = "claim"  # an instant win or a redeal, before the first play
    SWAP = "swap"  # 3-player swap_leftover: the lowest card for the face-down leftover
    ANNOUNCE = "announce"  # the last-card call: the seat says it holds one card (spec 1.6)


class Claim(RuleEnum):
    """Claims made before the first play (spec 1.5)."""

    DRAGON = "dragon"  # 一條龍: all 13 ranks
    FOUR_TWOS = "four_twos"  # 四字D
    POINTS_BELOW_3 = RedealReason.POINTS_BELOW_3.value
    NO_CARD_ABOVE_10 = RedealReason.NO_CARD_ABOVE_10.value
    NO_JQK = RedealReason.NO_JQK.value

    @property
    def is_instant_win(self) -> bool:
        return self in (Claim.DRAGON, Claim.FOUR_TWOS)


class Obligation(RuleEnum):
    """頂大 obligation of a seat whose next seat holds one card (spec 1.6)."""

    LEAD = "lead_non_single_or_highest_single"
    FOLLOW = "follow_with_highest_single"


class Block(RuleEnum):
    """Whether a 頂大 obligation was met."""

    MET = "met"
    VIOLATED = "violated"
    UNKNOWN = "unknown"


class LastCall(RuleEnum):
    """Whether the last-card call due after a play that left a seat one card was made
    (spec 1.6; docs/engine.md, "The last-card call")."""

    MADE = "made"
    MISSING = "missing"  # only under last_card_call = required


class Outcome(RuleEnum):
    """How a game ended."""

    PLAYED_OUT = "played_out"
    INSTANT_WIN = "instant_win"
    REDEAL = "redeal"


class Action(NamedTuple):
    """An action as a log states it.

    Immutable; a named tuple rather than a frozen dataclass because the replay builds one
    per logged action (about twice as cheap to create).
    """

    seat: int
    type: ActionType
    cards: int = 0
    claim: Claim | None = None
    drawn: int | None = None  # the card a pass drew from the stock, when the log says

    @staticmethod
    def play(seat: int, cards: int) -> Action:
        return Action(seat, ActionType.PLAY, cards)

    @staticmethod
    def pass_(seat: int, drawn: int | None = None) -> Action:
        return Action(seat, ActionType.PASS, drawn=drawn)

    @staticmethod
    def claim_(seat: int, claim: Claim) -> Action:
        return Action(seat, ActionType.CLAIM, claim=claim)

    @staticmethod
    def swap(seat: int, shown: int = 0) -> Action:
        """The lowest-card holder swaps it for the leftover; ``shown``: the card's mask, when
        the log gives it (needed to track it with partial information)."""
        return Action(seat, ActionType.SWAP, shown)

    @staticmethod
    def announce(seat: int) -> Action:
        """The last-card call: ``seat`` says it holds one card (docs/engine.md).

        >>> from pipeline.big2.rules import load_ruleset
        >>> game = Game(load_ruleset("hk", {"players": 52}))  # one card each
        >>> game.do(Action.announce(7)).type.value
        'announce'
        >>> game.can(Action.announce(7))  # once per seat per game
        False
        """
        return Action(seat, ActionType.ANNOUNCE)


#: Builds a named tuple without its Python-level ``__new__`` (a third of the cost): for the
#: tuples made once per action here, in the replay and in the log parser.
new_tuple = tuple.__new__


class ActionRecord(NamedTuple):
    """One applied action and the engine's facts about it (one warehouse row).

    Immutable; a named tuple rather than a dataclass because one is built per action
    on the replay hot path (three times cheaper to create).
    """

    action_index: int
    seat: int
    type: ActionType
    cards: int  # played cards (mask); 0 for a pass
    kind: Kind | None
    rank_key: int | None
    trick: int
    is_lead: bool
    top_before: int  # the play on the table before this action (mask; 0 when leading)
    cards_left: tuple[int, ...]  # every seat, after the action
    hand_before: int | None  # the seat's hand before the action, when known
    beating_play_existed: bool | None  # following only, when the hand is known
    highest_single: int | None  # the seat's highest single before the action, when known
    next_seat: int  # 下家
    next_on_one: bool
    obligation: Obligation | None
    block: Block | None
    block_reason: str
    ends_trick: bool
    wins_game: bool
    drawn: int | None
    claim: Claim | None
    unchecked: tuple[str, ...]  # checks partial information did not allow
    #: on a play that left the seat one card: whether its last-card call followed (``made``),
    #: or, under ``last_card_call = required``, did not (``missing``); else None
    last_call: LastCall | None = None


@dataclass(frozen=True, slots=True)
class GameResult:
    """How the game ended."""

    outcome: Outcome
    winner: int | None
    claim: Claim | None
    cards_left: tuple[int, ...]
    final_hands: tuple[int | None, ...]
    first_leader: int | None
    n_tricks: int
    bao_seat: int | None  # 包牌: the violator liable for the others' losses
    bao_unknown_seat: int | None = None  # partial info: 包牌 possible, the hand would tell


def claim_holds(claim: Claim, hand: int) -> bool:
    """Whether a dealt hand supports a claim (spec 1.5).

    >>> from pipeline.cards import parse_cards, mask_of
    >>> claim_holds(Claim.DRAGON, mask_of(parse_cards("3d 4c 5h 6s 7d 8d 9d Td Jd Qd Kd Ad 2d")))
    True
    >>> claim_holds(Claim.NO_JQK, mask_of(parse_cards("3d 4c 5h 6s 7d 8d 9d Td Ad 2d 3c 4d 5c")))
    True
    """
    ranks = [c >> 2 for c in cards_of(hand)]
    if claim == Claim.DRAGON:
        return len(set(ranks)) == 13
    if claim == Claim.FOUR_TWOS:
        return ranks.count(Rank.TWO) == 4
    if claim == Claim.POINTS_BELOW_3:
        points = {Rank.JACK: 1, Rank.QUEEN: 2, Rank.KING: 3, Rank.ACE: 4, Rank.TWO: 5}
        return sum(points.get(Rank(r), 0) for r in ranks) < 3
    if claim == Claim.NO_CARD_ABOVE_10:
        return all(r <= Rank.TEN for r in ranks)
    if claim == Claim.NO_JQK:
        return not any(r in (Rank.JACK, Rank.QUEEN, Rank.KING) for r in ranks)
    raise AssertionError(claim)  # pragma: no cover


def _weakest_first(order: SuitOrder) -> tuple[int, ...]:
    return tuple(sorted(range(52), key=lambda c: single_key(c, order)))


#: The deck as singles, weakest first, per suit order (computed once, not per game).
_WEAKEST_FIRST = {order: _weakest_first(order) for order in SuitOrder}
_UNCHECKED_HAND = ("hand",)
_UNCHECKED_HAND_AND_LOWEST = ("hand", "first_play_lowest")
#: actions that are not a turn of play (the 包牌 scan looks past them)
_NOT_A_TURN = (ActionType.CLAIM, ActionType.ANNOUNCE)


class Game:
    """One game of Big Two under one ruleset.

    ``hands`` (one mask per seat, as dealt) and ``stock`` (the undealt cards in draw order:
    the 3-player stock, or the one leftover card) give full information. Without
    ``hands`` the game is replayed on partial information: every action is still checked
    for what can be checked, and each record lists what could not.

    ``game_number`` (1-based, within the match) drives ``direction = alternate``;
    ``previous_winner`` drives ``first_lead = lowest_card_then_winner``. With partial
    information a ``first_leader`` may be given; else the first seat to act leads.
    """

    def __init__(
        self,
        rs: Ruleset,
        *,
        hands: Sequence[int] | None = None,
        stock: Sequence[int] = (),
        start_counts: Sequence[int] | None = None,
        game_number: int = 1,
        previous_winner: int | None = None,
        first_leader: int | None = None,
    ) -> None:
        self.rs = rs
        self.n = rs.players
        self.table = table_for(rs)
        # read on every action: kept here rather than looked up on the ruleset each time
        self.locks_out = rs.pass_locks_out
        self.enforced = rs.must_block == MustBlock.ENFORCED
        #: the fact a play that leaves a seat one card starts with: missing until the call comes
        self.call_pending = LastCall.MISSING if rs.last_card_call == LastCardCall.REQUIRED else None
        self.suit_order = rs.suit_order
        self.known = hands is not None
        self.history: list[ActionRecord] = []
        self.result: GameResult | None = None
        clockwise = rs.direction == Direction.CLOCKWISE or (
            rs.direction == Direction.ALTERNATE and game_number % 2 == 1
        )
        self.step = -1 if clockwise else 1
        self.stock: list[int] = list(stock)
        self.stock_left = rs.stock_size if rs.three_player_mode == ThreePlayerMode.STOCK_13 else 0
        if rs.players != 3 or rs.three_player_mode != ThreePlayerMode.STOCK_13:
            self.stock_left = 0
        self.played = 0  # every card played or shown so far
        self.swapped = False
        self.hands: list[int] | None
        if hands is not None:
            self.hands = self._check_deal(list(hands), self.stock)
            self.counts = [h.bit_count() for h in self.hands]
        else:
            self.hands = None
            self.counts = list(start_counts) if start_counts is not None else self._default_counts()
        if len(self.counts) != self.n:
            raise DealError("E_DEAL_COUNT", f"{len(self.counts)} seats for {self.n} players")
        self.lowest = self._lowest_card()  # the lowest card in any hand, when known
        uses_lowest = previous_winner is None or rs.first_lead == FirstLead.LOWEST_CARD_EVERY_GAME
        self.lowest_rule = uses_lowest and rs.first_play_must_contain_lowest != FirstPlay.NONE
        self.turn: int | None
        if not uses_lowest:
            self.turn = previous_winner
        elif self.hands is not None and self.lowest is not None:
            self.turn = next(s for s in range(self.n) if self.hands[s] >> self.lowest & 1)
        else:
            self.turn = first_leader
        self.first_leader = self.turn
        self.started = False  # a card has been played
        self.trick = 1
        self.top: Play | None = None
        self.top_seat: int | None = None
        self.locked = [False] * self.n
        self.passes = 0
        self.called = [False] * self.n  # the seats that made their last-card call
        #: the history index of the play whose last-card call may still come (the next action)
        self.call_due: int | None = None

    # ----- deal -------------------------------------------------------------------------
    def _default_counts(self) -> list[int]:
        rs = self.rs
        if rs.leftover_to_lowest and rs.stock_size:
            raise ReplayError(
                "E_PARTIAL_COUNTS",
                f"{rs.players} players dealt {rs.hand_size} each and {rs.stock_size} left over, "
                "without the deal: give start_counts (who got the leftover)",
            )
        return [rs.hand_size] * self.n

    def _check_deal(self, hands: list[int], stock: list[int]) -> list[int]:
        rs = self.rs
        if len(hands) != self.n:
            raise DealError("E_DEAL_COUNT", f"{len(hands)} hands dealt for {self.n} players")
        seen = 0
        for seat, hand in enumerate(hands):
            if seen & hand:
                raise DealError(
                    "E_DEAL_DUPLICATE",
                    f"seat {seat} was dealt {format_cards(seen & hand)}, already dealt to another seat",
                    seat=seat,
                )
            seen |= hand
            if hand.bit_count() != rs.hand_size:
                raise DealError(
                    "E_DEAL_COUNT",
                    f"seat {seat} was dealt {hand.bit_count()} cards, expected {rs.hand_size}",
                    seat=seat,
                )
        stock_mask = 0
        for c in stock:
            if (seen | stock_mask) >> c & 1:
                raise DealError(
                    "E_DEAL_DUPLICATE", f"stock card {format_cards(1 << c)} dealt twice"
                )
            stock_mask |= 1 << c
        if len(stock) != rs.stock_size:
            raise DealError(
                "E_DEAL_STOCK", f"stock holds {len(stock)} cards, expected {rs.stock_size}"
            )
        if (seen | stock_mask) != FULL_DECK:
            missing = FULL_DECK & ~(seen | stock_mask)
            raise DealError("E_DEAL_COUNT", f"cards missing from the deal: {format_cards(missing)}")
        if rs.leftover_to_lowest:
            # the leftover goes to the holder of the lowest card (♦3, else ♣3 ... spec 1.3)
            low = next(c for c in _WEAKEST_FIRST[rs.suit_order] if seen >> c & 1)
            holder = next(s for s in range(self.n) if hands[s] >> low & 1)
            hands[holder] |= stock_mask
            self.stock = []
        return hands

    def _lowest_card(self) -> int | None:
        rs = self.rs
        order = _WEAKEST_FIRST[rs.suit_order]
        if self.hands is not None:
            dealt = 0
            for h in self.hands:
                dealt |= h
            return next(c for c in order if dealt >> c & 1)
        everything_dealt = rs.players != 3 or rs.three_player_mode == ThreePlayerMode.DEAL_17
        return order[0] if everything_dealt else None

    # ----- turn order -------------------------------------------------------------------
    def next_seat(self, seat: int) -> int:
        """The seat after ``seat`` in play order (下家)."""
        return (seat + self.step) % self.n

    def _next_active(self, seat: int) -> int:
        s = self.next_seat(seat)
        while self.locks_out and self.locked[s] and s != self.top_seat:
            s = self.next_seat(s)
        return s

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def leading(self) -> bool:
        """Whether the seat to act leads a new trick."""
        return self.top is None

    @property
    def first_play_due(self) -> bool:
        """Whether the next play is the game's opening play, bound by
        ``first_play_must_contain_lowest`` (:func:`pipeline.big2.moves.first_play_ok` with
        :attr:`lowest`): nothing played yet, the rule applies to this game (not a game led by
        the previous winner), no 3-player swap, and the lowest card known.

        >>> from pipeline.big2.rules import load_ruleset
        >>> game = Game(load_ruleset("hk"), hands=[0x1111111111111 << s for s in range(4)])
        >>> game.first_play_due, game.lowest
        (True, 0)
        >>> _ = game.do(Action.play(0, 1))
        >>> game.first_play_due
        False
        """
        return (
            not self.started and self.lowest_rule and not self.swapped and self.lowest is not None
        )

    @property
    def plays_restricted(self) -> bool:
        """Whether a rule beyond holding the cards and beating the table may exclude one of
        the hand's plays now: the opening-play rule (:attr:`first_play_due`), or
        ``must_block = enforced`` (whoever holds one card). When False every play the hand
        makes (that beats the table) is legal, and a bot may choose without listing them."""
        return self.enforced or self.first_play_due

    def hand(self, seat: int) -> int | None:
        """A seat's current hand, when the deal is known."""
        return None if self.hands is None else self.hands[seat]

    # ----- verify / can / do ------------------------------------------------------------
    def _err(self, code: str, message: str, action: Action) -> IllegalPlayError:
        return IllegalPlayError(
            code,
            f"{message} (trick {self.trick})",
            seat=action.seat,
            trick=self.trick,
            action_index=len(self.history),
        )

    def verify(self, action: Action) -> Play | None:
        """Raise a named error if the action is illegal now; return the play it makes."""
        if self.result is not None:
            raise self._err("E_GAME_OVER", f"seat {action.seat} acted after the game ended", action)
        if not 0 <= action.seat < self.n:
            raise self._err(
                "E_BAD_SEAT", f"seat {action.seat} is not at a {self.n}-seat table", action
            )
        if action.type is ActionType.CLAIM:
            self._verify_claim(action)
            return None
        if action.type is ActionType.SWAP:
            self._verify_swap(action)
            return None
        if action.type is ActionType.ANNOUNCE:
            self._verify_announce(action)
            return None
        if self.turn is not None and action.seat != self.turn:
            if self.locks_out and self.locked[action.seat]:
                raise self._err(
                    "E_LOCKED_OUT",
                    f"seat {action.seat} acted after passing in this trick (pass_locks_out); "
                    f"seat {self.turn} is to act",
                    action,
                )
            raise self._err(
                "E_OUT_OF_TURN", f"seat {action.seat} acted; seat {self.turn} is to act", action
            )
        if action.type is ActionType.PASS:
            if self.top is None:
                raise self._err("E_LEAD_PASS", f"seat {action.seat} passed while leading", action)
            self._verify_draw(action)
            if self.enforced:
                self._enforce_block(action, None)
            return None
        return self._verify_play(action)

    def _verify_play(self, action: Action) -> Play:
        seat, mask = action.seat, action.cards
        play = self.table.get(mask)
        if play is None:
            play = require_play(mask, self.rs, seat=seat, trick=self.trick)
        if self.hands is not None:
            if mask & ~self.hands[seat]:
                missing = format_cards(mask & ~self.hands[seat])
                raise self._err(
                    "E_NOT_IN_HAND",
                    f"seat {seat} played {format_cards(mask)} but does not hold {missing}",
                    action,
                )
        else:
            if mask & self.played:
                raise self._err(
                    "E_CARD_PLAYED_TWICE",
                    f"seat {seat} played {format_cards(mask)}; {format_cards(mask & self.played)} was already played",
                    action,
                )
            if play.size > self.counts[seat]:
                raise self._err(
                    "E_TOO_MANY_CARDS",
                    f"seat {seat} played {play.size} cards holding {self.counts[seat]}",
                    action,
                )
        top = self.top
        if top is None:
            if self.first_play_due:
                self._verify_first_play(action, play)
        elif not play.beats(top):
            code = "E_WRONG_SIZE" if play.size != top.size and not play.is_bomb else "E_NOT_HIGHER"
            raise self._err(
                code, f"seat {seat} played {format_cards(mask)} on {format_cards(top.mask)}", action
            )
        if self.enforced:
            self._enforce_block(action, play)
        return play

    def _verify_first_play(self, action: Action, play: Play) -> None:
        low = self.lowest
        assert low is not None
        rule = self.rs.first_play_must_contain_lowest
        if first_play_ok(play.mask, low, rule):
            return
        text = format_cards(play.mask)
        if rule == FirstPlay.CONTAIN:
            raise self._err(
                "E_FIRST_PLAY_LOWEST",
                f"seat {action.seat} opened with {text} without {format_cards(1 << low)}",
                action,
            )
        if rule == FirstPlay.SINGLE:
            raise self._err(
                "E_FIRST_PLAY_SINGLE",
                f"seat {action.seat} opened with {text}; the opening play must be {format_cards(1 << low)} alone",
                action,
            )

    def _verify_draw(self, action: Action) -> None:
        if action.drawn is None:
            return
        if self.stock_left == 0:
            raise self._err(
                "E_DRAW",
                f"seat {action.seat} drew {format_cards(1 << action.drawn)} from an empty stock",
                action,
            )
        if self.stock and self.stock[0] != action.drawn:
            raise self._err(
                "E_DRAW",
                f"seat {action.seat} drew {format_cards(1 << action.drawn)}; "
                f"the stock's next card is {format_cards(1 << self.stock[0])}",
                action,
            )
        if self.played >> action.drawn & 1:
            raise self._err(
                "E_CARD_PLAYED_TWICE",
                f"seat {action.seat} drew {format_cards(1 << action.drawn)}, already played",
                action,
            )

    def _verify_claim(self, action: Action) -> None:
        claim = action.claim
        if claim is None:
            raise self._err(
                "E_CLAIM", f"seat {action.seat} made a claim without saying which", action
            )
        if self.started:
            raise self._err(
                "E_CLAIM_LATE", f"seat {action.seat} claimed {claim} after play began", action
            )
        enabled = {
            Claim.DRAGON: self.rs.dragon_instant_win,
            Claim.FOUR_TWOS: self.rs.four_twos_instant_win,
        }.get(claim, claim.value in self.rs.redeal_if)
        if not enabled:
            raise self._err(
                "E_CLAIM_DISABLED",
                f"seat {action.seat} claimed {claim}, which this ruleset does not allow",
                action,
            )
        if self.hands is not None and not claim_holds(claim, self.hands[action.seat]):
            raise self._err(
                "E_CLAIM_FALSE",
                f"seat {action.seat} claimed {claim} holding {format_cards(self.hands[action.seat])}",
                action,
            )

    def _verify_swap(self, action: Action) -> None:
        rs = self.rs
        if rs.players != 3 or rs.three_player_mode != ThreePlayerMode.SWAP_LEFTOVER:
            raise self._err(
                "E_SWAP", "a swap needs 3 players and three_player_mode = swap_leftover", action
            )
        if self.started or self.swapped:
            raise self._err(
                "E_SWAP", f"seat {action.seat} swapped after play began or twice", action
            )
        if self.hands is not None:
            low = self.lowest
            if low is None or not self.hands[action.seat] >> low & 1:
                raise self._err(
                    "E_SWAP", f"seat {action.seat} swapped without holding the lowest card", action
                )

    def _verify_announce(self, action: Action) -> None:
        seat = action.seat
        held = self.counts[seat]
        if held != 1:
            raise self._err(
                "E_CALL_NOT_LAST",
                f"seat {seat} called its last card holding {held} cards",
                action,
            )
        if self.called[seat]:
            raise self._err(
                "E_CALL_REPEATED", f"seat {seat} called its last card a second time", action
            )

    def can(self, action: Action) -> bool:
        """Whether the action is legal now."""
        try:
            self.verify(action)
        except IllegalPlayError:
            return False
        return True

    # ----- 頂大 --------------------------------------------------------------------------
    def block_card(self, seat: int) -> int | None:
        """頂大 (spec 1.6): when ``seat``, to act now, is bound (its next seat holds one card,
        and it leads or follows a single it can beat), the card that meets the obligation,
        else None. With the deal: the seat's highest single; without it: the highest card not
        yet played (what the hand may hold). :func:`pipeline.big2.moves.meets_block` tells
        whether a play meets it.

        >>> from pipeline.big2.rules import load_ruleset
        >>> game = Game(load_ruleset("hk", {"players": 52}), hands=[1 << c for c in range(52)])
        >>> game.block_card(0)  # leading, the next seat on one card: the seat's only card
        0
        """
        if self.counts[(seat + self.step) % self.n] != 1:
            return None
        top = self.top
        if top is not None and top.kind != Kind.SINGLE:
            return None
        suit_order = self.suit_order
        hands = self.hands
        held = FULL_DECK & ~self.played if hands is None else hands[seat]
        best = highest_single(held, suit_order)
        if top is not None and single_key(best, suit_order) < top.key:
            return None
        return best

    def _obligation(
        self, seat: int, play: Play | None
    ) -> tuple[Obligation | None, Block | None, str]:
        best = self.block_card(seat)
        if best is None:
            return None, None, ""
        leading = self.top is None
        obligation = Obligation.LEAD if leading else Obligation.FOLLOW
        if meets_block(play, best, leading=leading):
            return obligation, Block.MET, ""
        if self.hands is None:
            return obligation, Block.UNKNOWN, "hand not in the log"
        if leading:
            return obligation, Block.VIOLATED, f"led a single lower than {format_cards(1 << best)}"
        did = "passed" if play is None else f"played {format_cards(play.mask)}"
        return obligation, Block.VIOLATED, f"{did} holding {format_cards(1 << best)}"

    def _enforce_block(self, action: Action, play: Play | None) -> None:
        _, block, reason = self._obligation(action.seat, play)
        if block == Block.VIOLATED:
            raise self._err(
                "E_MUST_BLOCK",
                f"seat {action.seat} {reason} while seat {self.next_seat(action.seat)} holds one card "
                "(must_block = enforced)",
                action,
            )

    # ----- apply ------------------------------------------------------------------------
    def do(self, action: Action) -> ActionRecord:
        """Verify the action, apply it and return its record (appended to ``history``)."""
        play = self.verify(action)
        seat = action.seat
        hands = self.hands
        hand_before = None if hands is None else hands[seat]
        kind = action.type
        if kind is ActionType.CLAIM:
            return self._do_claim(action, hand_before)
        if kind is ActionType.SWAP:
            return self._do_swap(action, hand_before)
        if kind is ActionType.ANNOUNCE:
            return self._do_announce(action, hand_before)
        self.call_due = None  # a call not made before this action stays as recorded
        if self.turn is None:  # partial information: the first actor leads
            self.turn = self.first_leader = seat
        rs = self.rs
        counts = self.counts
        top = self.top
        nxt_seat = (seat + self.step) % self.n
        highest = None
        beating: bool | None = None
        if hand_before is not None:
            highest = highest_single(hand_before, self.suit_order)
            if top is not None:
                beating = can_beat(hand_before, top, rs)
            unchecked: tuple[str, ...] = ()
        elif not self.started and self.lowest_rule and self.lowest is None:
            unchecked = _UNCHECKED_HAND_AND_LOWEST
        else:
            unchecked = _UNCHECKED_HAND
        if counts[nxt_seat] == 1:
            obligation, block, reason = self._obligation(seat, play)
        else:
            obligation, block, reason = None, None, ""
        ends_trick = wins = False
        drawn: int | None = None
        if play is not None:
            counts[seat] -= play.size
            self.played |= play.mask
            if hands is not None:
                hands[seat] &= ~play.mask
            self.started = True
            self.top, self.top_seat = play, seat
            self.passes = 0
            wins = counts[seat] == 0
            self.turn = self._next_active(seat)
        else:
            if self.stock_left > 0:
                drawn = self._draw(seat, action.drawn)
            self.passes += 1
            self.locked[seat] = True
            if self.locks_out:
                self.turn = self._next_active(seat)
                ends_trick = self.turn == self.top_seat
            else:
                self.turn = nxt_seat
                ends_trick = self.passes == self.n - 1
        # positional, in ActionRecord's field order (tests check every field by name)
        record: ActionRecord = new_tuple(
            ActionRecord,
            (
                len(self.history),
                seat,
                kind,
                0 if play is None else play.mask,
                None if play is None else play.kind,
                None if play is None else play.order,
                self.trick,
                top is None,
                0 if top is None else top.mask,
                tuple(counts),
                hand_before,
                beating,
                highest,
                nxt_seat,
                counts[nxt_seat] == 1,
                obligation,
                block,
                reason,
                ends_trick,
                wins,
                drawn,
                None,
                unchecked,
                None,
            ),
        )
        if play is not None and counts[seat] == 1 and not self.called[seat]:
            # the last-card call is due: the seat's next action, before any other seat's
            self.call_due = len(self.history)
            if self.call_pending is not None:
                record = record._replace(last_call=self.call_pending)
        self.history.append(record)
        if ends_trick:
            self.turn = self.top_seat
            self.top = None
            self.top_seat = None
            self.locked = [False] * self.n
            self.passes = 0
            self.trick += 1
        if wins:
            self._finish(Outcome.PLAYED_OUT, seat, None)
        return record

    def _draw(self, seat: int, reported: int | None) -> int | None:
        self.stock_left -= 1
        self.counts[seat] += 1
        if self.stock:
            c = self.stock.pop(0)
            if self.hands is not None:
                self.hands[seat] |= 1 << c
            return c
        return reported

    def _do_claim(self, action: Action, hand_before: int | None) -> ActionRecord:
        claim = action.claim
        assert claim is not None
        record = self._meta_record(action, hand_before)
        self.history.append(record)
        if claim.is_instant_win:
            self._finish(Outcome.INSTANT_WIN, action.seat, claim)
        else:
            self._finish(Outcome.REDEAL, None, claim)
        return record

    def _do_swap(self, action: Action, hand_before: int | None) -> ActionRecord:
        self.swapped = True
        record = self._meta_record(action, hand_before)
        if self.hands is not None and self.lowest is not None:
            low = self.lowest
            self.hands[action.seat] = self.hands[action.seat] & ~(1 << low) | sum(
                1 << c for c in self.stock
            )
            self.played |= 1 << low
            record = record._replace(cards=1 << low)
            self.stock = []
        elif action.cards:
            self.played |= action.cards
            record = record._replace(cards=action.cards)
        if self.turn is None or self.lowest_rule:
            self.turn = self.first_leader = action.seat
        self.history.append(record)
        return record

    def _do_announce(self, action: Action, hand_before: int | None) -> ActionRecord:
        seat = action.seat
        self.called[seat] = True
        due = self.call_due
        if due is not None and self.history[due].seat == seat:
            self.history[due] = self.history[due]._replace(last_call=LastCall.MADE)
            self.call_due = None  # another seat's (late) call leaves this one due
        record = self._meta_record(action, hand_before)
        self.history.append(record)
        return record

    def _meta_record(self, action: Action, hand_before: int | None) -> ActionRecord:
        return ActionRecord(
            action_index=len(self.history),
            seat=action.seat,
            type=action.type,
            cards=0,
            kind=None,
            rank_key=None,
            trick=self.trick,
            is_lead=False,
            top_before=0,
            cards_left=tuple(self.counts),
            hand_before=hand_before,
            beating_play_existed=None,
            highest_single=None,
            next_seat=self.next_seat(action.seat),
            next_on_one=False,
            obligation=None,
            block=None,
            block_reason="",
            ends_trick=False,
            wins_game=False,
            drawn=None,
            claim=action.claim,
            unchecked=() if hand_before is not None else ("hand",),
        )

    def _finish(self, outcome: Outcome, winner: int | None, claim: Claim | None) -> None:
        self.turn = None
        bao, bao_status = self._bao(winner) if outcome == Outcome.PLAYED_OUT else (None, None)
        self.result = GameResult(
            outcome=outcome,
            winner=winner,
            claim=claim,
            cards_left=tuple(self.counts),
            final_hands=tuple(self.hands) if self.hands is not None else (None,) * self.n,
            first_leader=self.first_leader,
            n_tricks=self.trick,
            bao_seat=bao if bao_status == Block.VIOLATED else None,
            bao_unknown_seat=bao if bao_status == Block.UNKNOWN else None,
        )

    def _bao(self, winner: int | None) -> tuple[int | None, Block | None]:
        """包牌 (spec 1.6): the last 頂大 obligation toward the winner before the winning play,
        if the winner did not act in between: (violator, VIOLATED), (seat, UNKNOWN) or none."""
        if winner is None or self.rs.must_block == MustBlock.OFF:
            return None, None  # must_block = off: the audit still runs, but nobody pays 包牌
        for record in reversed(self.history[:-1]):
            if record.seat == winner and record.type not in _NOT_A_TURN:
                return None, None  # the winner had a turn after any later obligation
            if record.obligation is not None and record.next_seat == winner:
                if record.block in (Block.VIOLATED, Block.UNKNOWN):
                    return record.seat, record.block
                return None, None
        return None, None

    # ----- legal moves ------------------------------------------------------------------
    def legal_plays(self) -> LegalPlays:
        """The legal plays of the seat to act (needs the deal), as a view."""
        return LegalPlays(self)

    def legal_moves(self) -> LegalMoves:
        """The legal plays of the seat to act, listed, and whether it may pass: the same set
        and order as :meth:`legal_plays` and :meth:`can_pass`, in one call (what the
        simulator's bots choose among). Needs the deal.

        >>> from pipeline.big2.rules import load_ruleset
        >>> game = Game(load_ruleset("hk"), hands=[0x1111111111111 << s for s in range(4)])
        >>> moves = game.legal_moves()  # the opening play: ♦3 alone, or a flush holding it
        >>> len(moves.plays), moves.can_pass, moves.plays == list(game.legal_plays())
        (496, False, True)
        """
        seat = self.turn
        hands = self.hands
        if seat is None or hands is None:
            raise ReplayError("E_PARTIAL_MOVES", "legal plays need the deal and a seat to act")
        top = self.top
        hand = hands[seat]
        rs = self.rs
        made = plays_from(hand, rs) if top is None else beating_plays(hand, top, rs)
        plays = list(self._allowed(seat, made) if self.plays_restricted else made)
        can_pass = top is not None and not (
            self.enforced and self._obligation(seat, None)[1] == Block.VIOLATED
        )
        return LegalMoves(plays, can_pass)

    def _allowed(self, seat: int, plays: Iterator[Play]) -> Iterator[Play]:
        """The plays (in the hand, beating the table) that the opening-play rule and an
        enforced 頂大 let ``seat`` make now: the checks :meth:`verify` adds."""
        first = self.top is None and self.first_play_due
        low = self.lowest if first and self.lowest is not None else 0
        rule = self.rs.first_play_must_contain_lowest
        enforce = self.enforced and self.counts[self.next_seat(seat)] == 1
        for play in plays:
            if first and not first_play_ok(play.mask, low, rule):
                continue
            if enforce and self._obligation(seat, play)[1] == Block.VIOLATED:
                continue
            yield play

    def can_pass(self) -> bool:
        """Whether the seat to act may pass."""
        return self.turn is not None and self.can(Action.pass_(self.turn))


class LegalMoves(NamedTuple):
    """What the seat to act may do: its legal plays, in generation order, and whether it may
    pass (:meth:`Game.legal_moves`)."""

    plays: list[Play]
    can_pass: bool


class LegalPlays:
    """Every legal play of the seat to act, as a view: iterate, count, test with ``in``.

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.cards import parse_cards, mask_of
    >>> hands = [mask_of(parse_cards(h)) for h in (
    ...     "3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 2d", "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2c",
    ...     "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 2h", "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s")]
    >>> game = Game(load_ruleset("hk"), hands=hands)
    >>> plays = game.legal_plays()
    >>> mask_of(parse_cards("3d")) in plays, mask_of(parse_cards("4d")) in plays
    (True, False)
    >>> len(plays)  # ♦3 alone, or a flush / straight flush with it
    496
    """

    def __init__(self, game: Game) -> None:
        if game.hands is None or game.turn is None:
            raise ReplayError("E_PARTIAL_MOVES", "legal plays need the deal and a seat to act")
        self.game = game
        self.seat = game.turn

    def __iter__(self) -> Iterator[Play]:
        # The candidates are in hand and beat the table by construction; what is left to
        # check is the opening-play rule and an enforced 頂大 (the same checks as verify).
        game, seat = self.game, self.seat
        if game.result is not None or seat != game.turn:
            return iter(())
        assert game.hands is not None
        hand, top = game.hands[seat], game.top
        made = plays_from(hand, game.rs) if top is None else beating_plays(hand, top, game.rs)
        return game._allowed(seat, made)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, item: object) -> bool:
        mask = item.mask if isinstance(item, Play) else item
        if not isinstance(mask, int) or classify(mask, self.game.rs) is None:
            return False
        return self.game.can(Action.play(self.seat, mask))
