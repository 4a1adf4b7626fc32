"""Combinations: classify a set of cards under a ruleset, and compare two plays.

Every legal play is a :class:`Play` with a ``kind``, a ``level`` (the kind's place among
plays of the same size, spec 1.2) and a ``key`` (order inside the kind). ``order`` packs
both into one integer, stored in the warehouse as the play's rank key: within one size,
a higher ``order`` beats a lower one. Bombs (ruleset ``bombs``) beat any non-bomb trick.
Four of a kind is four cards plus a kicker, or the four cards alone (``four_of_a_kind``):
played alone it keeps its level, so as a bomb it still ranks between full house and
straight flush.

Classification is a dictionary lookup in a per-ruleset table of every legal play, built
once from the slow, explaining classifier :func:`explain` (one source of truth).

>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.cards import parse_cards, mask_of
>>> hk = load_ruleset("hk")
>>> def play(text, rs=hk):
...     return classify(mask_of(parse_cards(text)), rs)
>>> play("♠6♦6").kind, play("♠6♦6").beats(play("♥6♣6"))
(<Kind.PAIR: 'pair'>, True)
>>> play("4s 4h 4c 4d 3s").beats(play("3s 3h 3c 3d Ks"))
True
>>> play("Jd Qc Kh As 2s") is None
True
>>> explain(mask_of(parse_cards("Jd Qc Kh As 2s")), hk)
'J-Q-K-A-2 is not a straight under straight_order = hk'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, product

from pipeline.big2.rules import (
    FlushCompare,
    FourOfAKind,
    RuleEnum,
    Ruleset,
    StraightOrder,
    SuitOrder,
)
from pipeline.cards import RANK_TEXT, card, cards_of, format_cards
from pipeline.errors import IllegalPlayError


class Kind(RuleEnum):
    """Combination kinds (spec 1.2)."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    QUAD = "quad"  # four cards of one rank, played as four cards
    TWO_PAIRS = "two_pairs"
    TWO_PAIRS_PLUS_ONE = "two_pairs_plus_one"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"  # four of a rank plus any one card (or alone, see rules)
    STRAIGHT_FLUSH = "straight_flush"


#: Suit strength (0 weakest) by suit index ♦ ♣ ♥ ♠, per suit order (spec 1.1).
SUIT_STRENGTH: dict[SuitOrder, tuple[int, int, int, int]] = {
    SuitOrder.HK: (0, 1, 2, 3),
    SuitOrder.TAIWAN: (1, 0, 2, 3),
}

# Sequences are written as poker-style values (A = 1 or 14, 2 = 2, 3 = 3 ... K = 13) and
# stored as 13-bit masks of Big Two rank indexes (3 = bit 0 ... A = bit 11, 2 = bit 12).
_POKER_TO_RANK = {1: 11, 2: 12, 14: 11} | {v: v - 3 for v in range(3, 14)}


def _seq(low: int) -> int:
    return sum(1 << _POKER_TO_RANK[v] for v in range(low, low + 5))


_A2345, _23456 = _seq(1), _seq(2)
_PLAIN = [_seq(v) for v in range(3, 11)]  # 34567 ... TJQKA
_JQKA2 = sum(1 << r for r in range(8, 13))

#: Straight sequences per order, weakest first (spec 1.2 ``straight_order``).
STRAIGHTS: dict[StraightOrder, tuple[int, ...]] = {
    StraightOrder.HK: (*_PLAIN, _23456, _A2345),
    StraightOrder.BIG2_NATURAL: (*_PLAIN, _JQKA2),
    StraightOrder.HIGHEST_CARD: (*_PLAIN, _23456, _A2345),
    StraightOrder.POKER: (_A2345, _23456, *_PLAIN),
    StraightOrder.A2345_TOP_POKER: (_23456, *_PLAIN, _A2345),
    StraightOrder.AKQJT_TOP_POKER: (_23456, *_PLAIN[:-1], _A2345, _PLAIN[-1]),
}
_ROYAL = _PLAIN[-1]  # 10-J-Q-K-A

# Levels inside the five-card family; NON_ROYAL_SF sits under four of a kind when
# ``royal_only_beats_quads`` is on.
_LEVEL5 = {
    Kind.TWO_PAIRS_PLUS_ONE: 0,
    Kind.STRAIGHT: 1,
    Kind.FLUSH: 2,
    Kind.FULL_HOUSE: 3,
    Kind.FOUR_OF_A_KIND: 5,
    Kind.STRAIGHT_FLUSH: 6,
}
_LEVEL_NON_ROYAL_SF = 4
_CYCLIC_RUNS = frozenset(sum(1 << ((r + i) % 13) for i in range(5)) for r in range(13))
_LEVEL4 = {Kind.TWO_PAIRS: 0, Kind.QUAD: 1}
_KEY_BITS = 40


@dataclass(frozen=True, slots=True)
class Play:
    """One legal combination under one ruleset."""

    mask: int
    kind: Kind
    size: int
    level: int
    key: int
    is_bomb: bool
    order: int = field(init=False, compare=False)  # one integer ordering plays of one size

    def __post_init__(self) -> None:
        object.__setattr__(self, "order", self.level << _KEY_BITS | self.key)

    def beats(self, top: Play) -> bool:
        """Whether this play may be played on ``top`` (same ruleset assumed).

        Same size and a higher order; a bomb beats any non-bomb trick and a lower bomb.
        """
        if self.is_bomb:
            return not top.is_bomb or self.order > top.order
        return self.size == top.size and not top.is_bomb and self.order > top.order

    def __str__(self) -> str:
        return format_cards(self.mask)


@dataclass(frozen=True)
class ComboRules:
    """The part of a ruleset that classification depends on (the table's cache key)."""

    suit_order: SuitOrder
    straight_order: StraightOrder
    flush_compare: FlushCompare
    four_of_a_kind: FourOfAKind
    allow_triples: bool
    allow_four_card_quads: bool
    allow_two_pairs: bool
    allow_two_pairs_plus_one: bool
    bombs: bool
    royal_only_beats_quads: bool

    @staticmethod
    def of(rs: Ruleset) -> ComboRules:
        return ComboRules(
            suit_order=rs.suit_order,
            straight_order=rs.straight_order,
            flush_compare=rs.flush_compare,
            four_of_a_kind=rs.four_of_a_kind,
            allow_triples=rs.allow_triples,
            allow_four_card_quads=rs.allow_four_card_quads,
            allow_two_pairs=rs.allow_two_pairs,
            allow_two_pairs_plus_one=rs.allow_two_pairs_plus_one,
            bombs=rs.bombs,
            royal_only_beats_quads=rs.royal_only_beats_quads,
        )


def single_key(c: int, suit_order: SuitOrder) -> int:
    """A card's strength as a single: rank, then suit under the suit order.

    >>> from pipeline.cards import parse_card
    >>> single_key(parse_card("3d"), SuitOrder.HK) < single_key(parse_card("3c"), SuitOrder.HK)
    True
    >>> single_key(parse_card("3d"), SuitOrder.TAIWAN) < single_key(parse_card("3c"), SuitOrder.TAIWAN)
    False
    """
    return (c >> 2) * 4 + SUIT_STRENGTH[suit_order][c & 3]


def _best_suits(strength: tuple[int, int, int, int]) -> tuple[int, ...]:
    # for each 4-bit pattern of suits present in one rank, the strongest suit's index
    return tuple(
        max((s for s in range(4) if bits >> s & 1), key=lambda s: strength[s], default=-1)
        for bits in range(16)
    )


_BEST_SUIT = {order: _best_suits(strength) for order, strength in SUIT_STRENGTH.items()}


def highest_single(hand: int, suit_order: SuitOrder) -> int:
    """The strongest card of a non-empty hand as a single (rank, then suit order).

    >>> from pipeline.cards import parse_cards, mask_of, format_card
    >>> format_card(highest_single(mask_of(parse_cards("3s 9d 9c")), SuitOrder.HK))
    '9♣'
    >>> format_card(highest_single(mask_of(parse_cards("3s 9d 9c")), SuitOrder.TAIWAN))
    '9♦'
    """
    rank = (hand.bit_length() - 1) >> 2
    return rank * 4 + _BEST_SUIT[suit_order][hand >> (rank * 4) & 15]


def _ranks_desc_key(ranks: list[int]) -> int:
    key = 0
    for r in sorted(ranks, reverse=True):
        key = key * 13 + r
    return key


def _seq_text(rank_mask: int) -> str:
    """Ranks as a run in cyclic Big Two order (``A-2-3-4-5``, ``J-Q-K-A-2``)."""
    for start in range(13):
        run = [(start + i) % 13 for i in range(5)]
        if all(rank_mask >> r & 1 for r in run):
            return "-".join(RANK_TEXT[r] for r in run)
    return "-".join(RANK_TEXT[r] for r in range(13) if rank_mask >> r & 1)


def explain(mask: int, rs: Ruleset | ComboRules) -> Play | str:
    """Classify a card set slowly and explain a refusal: a :class:`Play`, or why it is none.

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.cards import parse_cards, mask_of
    >>> explain(mask_of(parse_cards("3d 3c 3h")), load_ruleset("hk", {"allow_triples": False}))
    'triples are not allowed (allow_triples = false)'
    """
    cr = rs if isinstance(rs, ComboRules) else ComboRules.of(rs)
    cards = cards_of(mask)
    n = len(cards)
    if n == 0:
        return "no cards"
    if n > 5:
        return f"{n} cards: a play has 1 to 5 cards"
    strength = SUIT_STRENGTH[cr.suit_order]
    counts: dict[int, list[int]] = {}
    for c in cards:
        counts.setdefault(c >> 2, []).append(c)
    shape = sorted((len(v) for v in counts.values()), reverse=True)

    def top_single(cs: list[int]) -> int:
        return max(single_key(c, cr.suit_order) for c in cs)

    def made(kind: Kind, level: int, key: int, bomb: bool = False) -> Play:
        return Play(mask=mask, kind=kind, size=n, level=level, key=key, is_bomb=bomb)

    if n == 1:
        return made(Kind.SINGLE, 0, single_key(cards[0], cr.suit_order))
    if n == 2:
        if shape != [2]:
            return "two cards of different ranks are not a pair"
        return made(Kind.PAIR, 0, top_single(cards))
    if n == 3:
        if shape != [3]:
            return "three cards must be of one rank (a triple)"
        if not cr.allow_triples:
            return "triples are not allowed (allow_triples = false)"
        return made(Kind.TRIPLE, 0, cards[0] >> 2)
    if n == 4:
        if shape == [4]:
            if cr.four_of_a_kind == FourOfAKind.ALONE:  # the four of a kind, at its own level
                level = _LEVEL5[Kind.FOUR_OF_A_KIND]
                return made(Kind.FOUR_OF_A_KIND, level, cards[0] >> 2, cr.bombs)
            if not cr.allow_four_card_quads:
                why = (
                    "four_of_a_kind = off"
                    if cr.four_of_a_kind == FourOfAKind.OFF
                    else "four_of_a_kind = with_kicker needs a fifth card"
                )
                return f"four cards of a rank are not a play (allow_four_card_quads = false, {why})"
            return made(Kind.QUAD, _LEVEL4[Kind.QUAD], cards[0] >> 2)
        if shape == [2, 2]:
            if not cr.allow_two_pairs:
                return "two pairs are not allowed (allow_two_pairs = false)"
            high = max(counts)
            return made(Kind.TWO_PAIRS, _LEVEL4[Kind.TWO_PAIRS], top_single(counts[high]))
        return "four cards must be a quad or two pairs"
    # five cards
    if shape == [4, 1]:
        if cr.four_of_a_kind == FourOfAKind.ALONE:
            return "four of a kind is played without a kicker (four_of_a_kind = alone)"
        if cr.four_of_a_kind == FourOfAKind.OFF:
            return "four of a kind is no play (four_of_a_kind = off)"
        four = next(r for r, v in counts.items() if len(v) == 4)
        return made(Kind.FOUR_OF_A_KIND, _LEVEL5[Kind.FOUR_OF_A_KIND], four, cr.bombs)
    if shape == [3, 2]:
        three = next(r for r, v in counts.items() if len(v) == 3)
        return made(Kind.FULL_HOUSE, _LEVEL5[Kind.FULL_HOUSE], three)
    if shape == [2, 2, 1]:
        if not cr.allow_two_pairs_plus_one:
            return "two pairs plus one are not allowed (allow_two_pairs_plus_one = false)"
        high = max(r for r, v in counts.items() if len(v) == 2)
        return made(Kind.TWO_PAIRS_PLUS_ONE, 0, top_single(counts[high]))
    if shape != [1, 1, 1, 1, 1]:
        return "five cards with a triple and two odd cards are no combination"
    rank_mask = sum(1 << r for r in counts)
    flush = len({c & 3 for c in cards}) == 1
    sequences = STRAIGHTS[cr.straight_order]
    straight = rank_mask in sequences
    if straight:
        top = top_single(cards)
        if cr.straight_order == StraightOrder.HIGHEST_CARD:
            skey = top
        else:
            skey = sequences.index(rank_mask) * 4 + (top & 3)
        if flush:
            level = _LEVEL5[Kind.STRAIGHT_FLUSH]
            if cr.royal_only_beats_quads and rank_mask != _ROYAL:
                level = _LEVEL_NON_ROYAL_SF
            return made(Kind.STRAIGHT_FLUSH, level, skey, cr.bombs)
        return made(Kind.STRAIGHT, _LEVEL5[Kind.STRAIGHT], skey)
    if flush:
        suit = strength[cards[0] & 3]
        ranks_key = _ranks_desc_key(list(counts))
        if cr.flush_compare == FlushCompare.RANKS_THEN_SUIT:
            fkey = ranks_key * 4 + suit
        elif cr.flush_compare == FlushCompare.HIGHEST_CARD:
            fkey = top_single(cards)
        else:
            fkey = suit * 13**5 + ranks_key
        return made(Kind.FLUSH, _LEVEL5[Kind.FLUSH], fkey)
    if _is_any_sequence(rank_mask):
        return (
            f"{_seq_text(rank_mask)} is not a straight under "
            f"straight_order = {cr.straight_order.value}"
        )
    return "five cards that are no straight, flush, full house, four of a kind or straight flush"


def _is_any_sequence(rank_mask: int) -> bool:
    return any(rank_mask in seqs for seqs in STRAIGHTS.values()) or rank_mask in _CYCLIC_RUNS


def _candidates(cr: ComboRules) -> Iterator[int]:
    """Every card set that may be a legal play under some ruleset (a superset, cheaply)."""
    by_rank = [[card(r, s) for s in range(4)] for r in range(13)]
    for r in range(13):
        for k in (1, 2, 3, 4):
            for cs in combinations(by_rank[r], k):
                yield sum(1 << c for c in cs)
    pair_masks = [
        [sum(1 << c for c in cs) for cs in combinations(by_rank[r], 2)] for r in range(13)
    ]
    if cr.allow_two_pairs or cr.allow_two_pairs_plus_one:
        for r1, r2 in combinations(range(13), 2):
            for p1 in pair_masks[r1]:
                for p2 in pair_masks[r2]:
                    if cr.allow_two_pairs:
                        yield p1 | p2
                    if cr.allow_two_pairs_plus_one:
                        for c in range(52):
                            if c >> 2 not in (r1, r2):
                                yield p1 | p2 | 1 << c
    for r in range(13):  # four of a kind + kicker
        quad = sum(1 << c for c in by_rank[r])
        for c in range(52):
            if c >> 2 != r:
                yield quad | 1 << c
    for r3 in range(13):  # full houses
        for t in combinations(by_rank[r3], 3):
            tm = sum(1 << c for c in t)
            for r2 in range(13):
                if r2 != r3:
                    for pm in pair_masks[r2]:
                        yield tm | pm
    for s in range(4):  # flushes (and straight flushes)
        for five in combinations(range(13), 5):
            yield sum(1 << card(r, s) for r in five)
    for seq in STRAIGHTS[cr.straight_order]:  # straights
        seq_ranks = [r for r in range(13) if seq >> r & 1]
        for suits in product(range(4), repeat=5):
            yield sum(1 << card(r, s) for r, s in zip(seq_ranks, suits, strict=True))


@cache
def play_table(cr: ComboRules) -> dict[int, Play]:
    """Every legal play under the combination rules, by card mask (built once per rules)."""
    table: dict[int, Play] = {}
    for mask in _candidates(cr):
        if mask not in table:
            got = explain(mask, cr)
            if isinstance(got, Play):
                table[mask] = got
    return table


_BY_RULESET: dict[int, tuple[Ruleset, dict[int, Play]]] = {}


def table_for(rs: Ruleset) -> dict[int, Play]:
    """The play table of a ruleset (shared by rulesets with the same combination rules).

    Looked up by the ruleset's identity first: this sits on the hot path of every play.
    """
    hit = _BY_RULESET.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    table = play_table(ComboRules.of(rs))
    _BY_RULESET[id(rs)] = (rs, table)
    return table


def classify(mask: int, rs: Ruleset) -> Play | None:
    """The play a card set makes under a ruleset, or ``None`` if it is no combination.

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.cards import parse_cards, mask_of
    >>> classify(mask_of(parse_cards("Jd Qc Kh As 2s")), load_ruleset("hk", {"straight_order": "big2_natural"})).kind
    <Kind.STRAIGHT: 'straight'>
    """
    return table_for(rs).get(mask)


def require_play(mask: int, rs: Ruleset, **context: object) -> Play:
    """Classify or raise ``E_NOT_A_COMBINATION`` with the reason.

    >>> from pipeline.big2.rules import load_ruleset
    >>> require_play(0b11 << 4 | 1, load_ruleset("hk"))
    Traceback (most recent call last):
    ...
    pipeline.errors.IllegalPlayError: E_NOT_A_COMBINATION: 3♦4♦4♣ is not a combination: three cards must be of one rank (a triple)
    """
    got = table_for(rs).get(mask)
    if got is not None:
        return got
    reason = explain(mask, rs)
    assert isinstance(reason, str)
    raise IllegalPlayError(
        "E_NOT_A_COMBINATION",
        f"{format_cards(mask)} is not a combination: {reason}",
        cards=format_cards(mask),
        **context,
    )
