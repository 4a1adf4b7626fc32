"""Hand-written Dou Dizhu games (golden replays): a deal written by rank, a script of actions,
and the exact result. Cards of a rank are taken lowest suit first; seats not written in full are
filled with the lowest cards left (they only pass), the kitty as written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.doudizhu.cards import FULL_DECK, cards_of, mask_of, parse_ranks, rank_of
from pipeline.doudizhu.combos import Kind
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset
from pipeline.doudizhu.state import Action, ActionType, Game, Spring


@dataclass(frozen=True)
class Golden:
    name: str
    seats: tuple[str, ...]  # ranks each seat is dealt (the rest filled)
    kitty: str
    script: (
        str  # one action a line: "<seat> bid <v>" | call | no_call | pass | play <ranks> [: kind]
    )
    expect: dict[str, Any]
    preset: str = "ddz"
    overrides: dict[str, Any] = field(default_factory=dict)
    first_bidder: int = 0

    @property
    def rs(self) -> DdzRuleset:
        return load_ruleset(self.preset, self.overrides)


def make_deal(rs: DdzRuleset, seats: tuple[str, ...], kitty: str) -> tuple[list[int], int, int]:
    """Hands, kitty and set-aside cards from rank texts, filled with the lowest cards left."""
    used = 0

    def take(text: str) -> int:
        nonlocal used
        out = 0
        for r in parse_ranks(text):
            c = next(c for c in cards_of(FULL_DECK & ~used & ~out) if rank_of(c) == r)
            out |= 1 << c
        used |= out
        return out

    hands = [take(t) for t in seats] + [0] * (rs.players - len(seats))
    kitty_mask = take(kitty)
    for s in range(rs.players):
        free = cards_of(FULL_DECK & ~used)[: rs.hand_size - hands[s].bit_count()]
        hands[s] |= mask_of(free)
        used |= mask_of(free)
    free = cards_of(FULL_DECK & ~used)[: rs.kitty_size - kitty_mask.bit_count()]
    kitty_mask |= mask_of(free)
    used |= mask_of(free)
    return hands, kitty_mask, FULL_DECK & ~used


def parse_action(game: Game, line: str) -> Action:
    """One script line as an action; played ranks are taken from the seat's hand."""
    head, _, kind = line.partition(":")
    words = head.split()
    seat, verb, rest = int(words[0]), words[1], " ".join(words[2:])
    if verb == "bid":
        return Action.bid(seat, int(rest))
    if verb in ("call", "no_call", "pass"):
        return Action(seat, ActionType(verb))
    hand = game.hand(seat)
    assert hand is not None
    cards = 0
    for r in parse_ranks(rest):
        c = next((c for c in cards_of(hand & ~cards) if rank_of(c) == r), None)
        cards |= 1 << (
            c
            if c is not None
            else next(  # not in hand: any free card of the rank
                c for c in cards_of(FULL_DECK & ~cards) if rank_of(c) == r and not hand >> c & 1
            )
        )
    return Action.play(seat, cards, Kind(kind.strip()) if kind.strip() else None)


def start(g: Golden) -> Game:
    hands, kitty, aside = make_deal(g.rs, g.seats, g.kitty)
    return Game(g.rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=g.first_bidder)


def lines(g: Golden) -> list[str]:
    return [ln.strip() for ln in g.script.strip().splitlines() if ln.strip()]


GAMES: list[Golden] = [
    Golden(
        "004 worked example: bid 3, two bombs and a rocket, 24 per farmer",
        seats=("3 3 3 3 4 4 4 4 BJ RJ 5 6 7 8 9 10 J", "2"),
        kitty="Q K A",
        script="""
            0 bid 3
            0 play 5 6 7 8 9 10 J Q K
            1 pass
            2 pass
            0 play 3 3 3 3
            1 pass
            2 pass
            0 play 4 4 4 4
            1 pass
            2 pass
            0 play A
            1 play 2
            2 pass
            0 play BJ RJ
        """,
        expect=dict(
            landlord=0,
            base=3,
            winner=0,
            bombs=2,
            rockets=1,
            multiplier=8,
            amount=24,
            scores=(48, -24, -24),
            spring=None,
        ),
    ),
    Golden(
        "spring, doubled: the landlord goes out in one airplane with five singles",
        seats=("3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9 10",),
        kitty="J Q K",
        overrides={"spring_doubles": True},
        script="""
            0 bid 1
            1 bid 0
            2 bid 0
            0 play 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9 10 J Q K
        """,
        expect=dict(
            landlord=0,
            base=1,
            winner=0,
            bombs=0,
            rockets=0,
            multiplier=2,
            amount=2,
            scores=(4, -2, -2),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "反春, doubled: a farmer beats the opening lead and goes out at once",
        seats=("3", "2 4 4 4 5 5 5 6 6 6 7 7 7 8 9 10 J"),
        kitty="",
        overrides={"spring_doubles": True},
        script="""
            0 bid 2
            1 bid 0
            2 bid 0
            0 play 3
            1 play 2
            2 pass
            0 pass
            1 play 4 4 4 5 5 5 6 6 6 7 7 7 8 9 10 J
        """,
        expect=dict(
            landlord=0,
            base=2,
            winner=1,
            bombs=0,
            rockets=0,
            multiplier=2,
            amount=4,
            scores=(-8, 4, 4),
            spring=Spring.ANTI_SPRING,
        ),
    ),
    Golden(
        "void deal: all three pass (荒牌)",
        seats=(),
        kitty="",
        script="""
            0 bid 0
            1 bid 0
            2 bid 0
        """,
        expect=dict(outcome="redeal", landlord=None, base=0, scores=(0, 0, 0)),
    ),
    Golden(
        "re-entry on: seat 0 passes, then outbids seat 1; airplane with pairs",
        seats=("3 3 3 4 4 4 5 5 5 6 6 6 7 7 8 8 9",),
        kitty="9 10 10",
        first_bidder=0,
        script="""
            0 bid 0
            1 bid 1
            2 bid 0
            0 bid 2
            1 bid 0
            2 bid 0
            0 play 3 3 3 4 4 4 5 5 5 6 6 6 7 7 8 8 9 9 10 10
        """,
        expect=dict(
            landlord=0,
            base=2,
            winner=0,
            multiplier=1,
            amount=2,
            scores=(4, -2, -2),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "re-entry off: seat 0's pass is final, seat 1 takes it at 1; ten consecutive pairs",
        seats=("", "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J"),
        kitty="J Q Q",
        overrides={"bid_reentry": False},
        script="""
            0 bid 0
            1 bid 1
            2 bid 0
            1 play 3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q
        """,
        expect=dict(
            landlord=1,
            base=1,
            winner=1,
            multiplier=1,
            amount=1,
            scores=(-1, 2, -1),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "2 players (ddz-2p): 叫地主, 23 cards for the landlord, one pass ends a round",
        preset="ddz-2p",
        seats=(
            "6 6 6 K K 7 7 7 8 8 8 9 9 9 J J Q Q 10 10",
            "3 4 5 6 7 8 9 10 J Q K A 5 5 5 4 4 2 2 A",
        ),
        kitty="3 3 A",
        script="""
            0 no_call
            1 call
            1 play 3 4 5 6 7 8 9 10 J Q K A
            0 pass
            1 play 5 5 5 4 4
            0 play 6 6 6 K K
            1 pass
            0 play 7 7 7 8 8 8 9 9 9 J J Q Q 10 10
        """,
        expect=dict(
            landlord=1, base=1, winner=0, multiplier=1, amount=1, scores=(1, -1), spring=None
        ),
    ),
    Golden(
        "2 players: nobody calls, a void deal",
        preset="ddz-2p",
        seats=(),
        kitty="",
        script="""
            0 no_call
            1 no_call
        """,
        expect=dict(outcome="redeal", landlord=None, base=0, scores=(0, 0)),
    ),
    Golden(
        "a bomb over four + two; four + two pairs; the farmers win",
        seats=("A A A A 5 6", "3 3 3 3 K K K K 9 9 J J 7 8 9 10 J"),
        kitty="",
        script="""
            0 bid 1
            1 bid 0
            2 bid 0
            0 play A A A A 5 6
            1 play 3 3 3 3
            2 pass
            0 pass
            1 play K K K K 9 9 J J
            2 pass
            0 pass
            1 play 7 8 9 10 J
        """,
        expect=dict(
            landlord=0,
            base=1,
            winner=1,
            bombs=1,
            multiplier=2,
            amount=2,
            scores=(-4, 2, 2),
            spring=Spring.ANTI_SPRING,
        ),
    ),
    Golden(
        "triple, airplane, consecutive pairs, triple + single; a farmer beats the other farmer",
        seats=("4 4 4 5 5 5 6 6 6 7 7 8 8 9 9 K J", "K K K", "A A A 2 2 2 3"),
        kitty="J J Q",
        first_bidder=1,
        script="""
            1 bid 0
            2 bid 0
            0 bid 3
            0 play 4 4 4
            1 play K K K
            2 play A A A
            0 pass
            1 pass
            2 play 2 2 2 : triple
            0 pass
            1 pass
            2 play 3
            0 play K
            1 pass
            2 pass
            0 play 5 5 5 6 6 6
            1 pass
            2 pass
            0 play 7 7 8 8 9 9
            1 pass
            2 pass
            0 play J J J Q
        """,
        expect=dict(
            landlord=0, base=3, winner=0, multiplier=1, amount=3, scores=(6, -3, -3), spring=None
        ),
    ),
    Golden(
        "triple + single, a bomb on a bomb, the rocket on a bomb, a pair, a straight",
        seats=("9 9 9 3 5 5 5 5 BJ RJ 4 4 6 7 8 9 10", "10 10 10 4 2 2 2 2"),
        kitty="J Q K",
        script="""
            0 bid 1
            1 bid 2
            2 bid 0
            0 bid 3
            0 play 9 9 9 3
            1 play 10 10 10 4
            2 pass
            0 play 5 5 5 5
            1 play 2 2 2 2
            2 pass
            0 play BJ RJ
            1 pass
            2 pass
            0 play 4 4
            1 pass
            2 pass
            0 play 6 7 8 9 10 J Q K
        """,
        expect=dict(
            landlord=0,
            base=3,
            winner=0,
            bombs=2,
            rockets=1,
            multiplier=8,
            amount=24,
            scores=(48, -24, -24),
            spring=None,
        ),
    ),
    Golden(
        "a lead that names its kind: 3-3-3-4-4-4-5-5-5-6-6-6 as an airplane with singles",
        seats=("3 3 3 4 4 4 5 5 5 6 6 6", "7 7 7 8 8 8 9 9 9 10 J Q K K K A A"),
        kitty="2 2 2",
        script="""
            0 bid 1
            1 bid 0
            2 bid 0
            0 play 3 3 3 4 4 4 5 5 5 6 6 6 : airplane_singles
            1 play 7 7 7 8 8 8 9 9 9 10 J Q
            2 pass
            0 pass
            1 play K K K A A
        """,
        expect=dict(
            landlord=0,
            base=1,
            winner=1,
            multiplier=1,
            amount=1,
            scores=(-2, 1, 1),
            spring=Spring.ANTI_SPRING,
        ),
    ),
    Golden(
        "2 players with hand_size = 17 (17 set aside): the landlord's spring",
        preset="ddz-2p",
        overrides={"hand_size": 17},
        seats=("3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9 10",),
        kitty="J Q K",
        script="""
            0 call
            0 play 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9 10 J Q K
        """,
        expect=dict(
            landlord=0,
            base=1,
            winner=0,
            multiplier=1,
            amount=1,
            scores=(1, -1),
            spring=Spring.SPRING,
        ),
    ),
]

#: The 004 game again under the money parameters.
_004 = GAMES[0]
GAMES += [
    Golden(
        "004 under multiplier_cap = 4 (封顶)",
        seats=_004.seats,
        kitty=_004.kitty,
        script=_004.script,
        overrides={"multiplier_cap": 4},
        expect=dict(multiplier=4, amount=12, scores=(24, -12, -12)),
    ),
    Golden(
        "004 at stake 10",
        seats=_004.seats,
        kitty=_004.kitty,
        script=_004.script,
        overrides={"stake": 10},
        expect=dict(multiplier=8, amount=240, scores=(480, -240, -240)),
    ),
]
GAMES += [
    Golden(
        "2 players: two bombs and the rocket in a 叫地主 game, 23 cards out",
        preset="ddz-2p",
        seats=("3 3 3 3 BJ RJ 5 6 7 8 9 10 J Q K A 4 4 4 4",),
        kitty="2 2 2",
        script="""
            0 call
            0 play 5 6 7 8 9 10 J Q K A
            1 pass
            0 play 3 3 3 3
            1 pass
            0 play 4 4 4 4
            1 pass
            0 play BJ RJ
            1 pass
            0 play 2 2 2
        """,
        expect=dict(
            landlord=0,
            base=1,
            winner=0,
            bombs=2,
            rockets=1,
            multiplier=8,
            amount=8,
            scores=(8, -8),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "four_with_two = false: the four 8s go as a bomb",
        overrides={"four_with_two": False},
        seats=("8 8 8 8 3 4 5 6 7 9 10 J Q K A A A",),
        kitty="2 2 2",
        script="""
            0 bid 2
            1 bid 0
            2 bid 0
            0 play 8 8 8 8
            1 pass
            2 pass
            0 play 3 4 5 6 7
            1 pass
            2 pass
            0 play 9 10 J Q K
            1 pass
            2 pass
            0 play A A A 2
            1 pass
            2 pass
            0 play 2 2
        """,
        expect=dict(
            landlord=0,
            base=2,
            winner=0,
            bombs=1,
            multiplier=2,
            amount=4,
            scores=(8, -4, -4),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "seat 2 takes it at 2; a farmer bombs the landlord's straight and goes out",
        first_bidder=1,
        seats=("9 9 9 9 10 10 J J Q Q K K A A A 2 2", "", "3 4 5 6 7 8"),
        kitty="",
        script="""
            1 bid 1
            2 bid 2
            0 bid 0
            1 bid 0
            2 play 3 4 5 6 7 8
            0 play 9 9 9 9
            1 pass
            2 pass
            0 play 10 10 J J Q Q K K
            1 pass
            2 pass
            0 play A A A 2 2
        """,
        expect=dict(
            landlord=2,
            base=2,
            winner=0,
            bombs=1,
            multiplier=2,
            amount=4,
            scores=(4, 4, -8),
            spring=Spring.ANTI_SPRING,
        ),
    ),
]
GAMES += [
    Golden(
        "re-entry on: seat 1 passes, then comes back with 3; airplane with four pairs",
        seats=("", "8 8 8 9 9 9 10 10 10 J J J 3 3 4 4 5"),
        kitty="5 6 6",
        script="""
            0 bid 1
            1 bid 0
            2 bid 2
            0 bid 0
            1 bid 3
            1 play 8 8 8 9 9 9 10 10 10 J J J 3 3 4 4 5 5 6 6
        """,
        expect=dict(
            landlord=1,
            base=3,
            winner=1,
            multiplier=1,
            amount=3,
            scores=(-3, 6, -3),
            spring=Spring.SPRING,
        ),
    ),
    Golden(
        "triple + pair war: a farmer over the other farmer, the landlord over both, farmers win",
        seats=("3 3 3 4 4 Q Q Q 8 8 K", "6 6 6 5 5 A", "9 9 9 7 7 2 5 6 7 8 9 10 J K K K Q"),
        kitty="",
        script="""
            0 bid 1
            1 bid 0
            2 bid 0
            0 play 3 3 3 4 4
            1 play 6 6 6 5 5
            2 play 9 9 9 7 7
            0 play Q Q Q 8 8
            1 pass
            2 pass
            0 play K
            1 play A
            2 play 2
            0 pass
            1 pass
            2 play 5 6 7 8 9 10 J
            0 pass
            1 pass
            2 play K K K Q
        """,
        expect=dict(
            landlord=0, base=1, winner=2, multiplier=1, amount=1, scores=(-2, 1, 1), spring=None
        ),
    ),
]
