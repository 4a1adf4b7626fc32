"""Dou Dizhu combinations: one explaining classifier for the 13 kinds, and how plays compare.

A play is read from its **rank multiset** (suits never matter, spec 2.1). :func:`readings`
lists every combination a set of cards can be, in the engine's documented preference
(docs/doudizhu.md, "Ambiguous card sets"): the reading with the larger main part first
(no attachment before attachments), then the higher main part. :func:`classify` picks the first
reading of a named kind and/or that can follow the play on the table (spec 2.4 **Decision**).

>>> from pipeline.doudizhu.rules import load_ruleset
>>> from pipeline.doudizhu.cards import counts_of, mask_of, parse_cards
>>> rs = load_ruleset("ddz")
>>> def play(text):
...     return classify(mask_of(parse_cards(text)), rs)
>>> p, q = play("9d 9c 9h 3s"), play("8d 8c 8h As")
>>> p.kind.value, p.text, p.beats(q)
('triple_single', '9-9-9-3', True)
>>> [r.text + " " + r.kind.value for r in readings(counts_of(mask_of(parse_cards(
...     "3d 3c 3h 4d 4c 4h 5d 5c 5h 6d 6c 6h"))), rs)]
['3-3-3-4-4-4-5-5-5-6-6-6 airplane', '4-4-4-5-5-5-6-6-6-3-3-3 airplane_singles', '3-3-3-4-4-4-5-5-5-6-6-6 airplane_singles']
>>> explain(mask_of(parse_cards("BJ RJ 3d 3c 3h 3s")), rs)
'3-3-3-3-BJ-RJ is not a combination: the rocket is not two singles (attachments never hold both jokers)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from pipeline.doudizhu.cards import (
    ACE_RANK,
    BJ_RANK,
    N_RANKS,
    RJ_RANK,
    TWO_RANK,
    counts_of,
    format_ranks,
    rank_text,
)
from pipeline.doudizhu.rules import DdzRuleset


class Kind(StrEnum):
    """The 13 combination kinds of spec 2.4 (four + two is two kinds, as 004 says)."""

    SINGLE = "single"
    PAIR = "pair"
    TRIPLE = "triple"
    TRIPLE_SINGLE = "triple_single"  # 三带一
    TRIPLE_PAIR = "triple_pair"  # 三带一对
    STRAIGHT = "straight"  # 顺子, 5-12 cards
    PAIR_CHAIN = "pair_chain"  # 连对, 3-10 pairs
    AIRPLANE = "airplane"  # 飞机 / 三顺, 2-6 triples
    AIRPLANE_SINGLES = "airplane_singles"  # 飞机带单
    AIRPLANE_PAIRS = "airplane_pairs"  # 飞机带对
    BOMB = "bomb"  # 炸弹
    ROCKET = "rocket"  # 王炸 / 火箭
    FOUR_TWO_SINGLES = "four_two_singles"  # 四带二 (two singles)
    FOUR_TWO_PAIRS = "four_two_pairs"  # 四带两对

    __hash__ = str.__hash__


#: Cards of one rank in the main part, per kind (the rest are attachments).
MAIN_WIDTH: dict[Kind, int] = {
    Kind.SINGLE: 1, Kind.PAIR: 2, Kind.TRIPLE: 3, Kind.TRIPLE_SINGLE: 3, Kind.TRIPLE_PAIR: 3,
    Kind.STRAIGHT: 1, Kind.PAIR_CHAIN: 2, Kind.AIRPLANE: 3, Kind.AIRPLANE_SINGLES: 3,
    Kind.AIRPLANE_PAIRS: 3, Kind.BOMB: 4, Kind.ROCKET: 1, Kind.FOUR_TWO_SINGLES: 4,
    Kind.FOUR_TWO_PAIRS: 4,
}  # fmt: skip
#: Shortest and longest chain (units) of the sequence kinds (spec 2.4 **Decision**: 至多 = at least).
CHAIN_UNITS: dict[Kind, tuple[int, int]] = {
    Kind.STRAIGHT: (5, 12),
    Kind.PAIR_CHAIN: (3, 10),
    Kind.AIRPLANE: (2, 6),
    Kind.AIRPLANE_SINGLES: (2, 6),
    Kind.AIRPLANE_PAIRS: (2, 6),
}
#: Kinds that only exist with ``four_with_two = true``.
FOUR_WITH_TWO_KINDS = frozenset({Kind.FOUR_TWO_SINGLES, Kind.FOUR_TWO_PAIRS})

Counts = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Play:
    """One reading of a set of cards: kind, main part (``key`` its highest rank, ``units`` its
    length) and the rank multiset. Equality is by rank (suits never matter); ``mask`` keeps
    the actual cards when known."""

    kind: Kind
    key: int
    units: int
    counts: Counts
    mask: int = field(default=0, compare=False)

    @property
    def size(self) -> int:
        """The number of cards."""
        return sum(self.counts)

    @property
    def is_bomb(self) -> bool:
        """A bomb or the rocket: what doubles the score and beats other kinds."""
        return self.kind in (Kind.BOMB, Kind.ROCKET)

    @property
    def main_ranks(self) -> range:
        """The ranks of the main part (the attachments are the rest)."""
        if self.kind == Kind.ROCKET:
            return range(BJ_RANK, RJ_RANK + 1)
        return range(self.key - self.units + 1, self.key + 1)

    @property
    def text(self) -> str:
        """The play the way players write it: main part low to high, then the attachments.

        >>> from pipeline.doudizhu.cards import counts_of, mask_of, parse_cards
        >>> from pipeline.doudizhu.rules import load_ruleset
        >>> classify(mask_of(parse_cards("3d 4d 4c 4h 5d 5c 5h 9s")), load_ruleset("ddz")).text
        '4-4-4-5-5-5-3-9'
        """
        width = MAIN_WIDTH[self.kind]
        main = [r for r in self.main_ranks for _ in range(width)]
        rest = list(self.counts)
        for r in self.main_ranks:
            rest[r] -= width
        kick = [r for r in range(N_RANKS) for _ in range(rest[r])]
        return "-".join(rank_text(r) for r in main + kick)

    def with_cards(self, mask: int) -> Play:
        """The same reading holding the actual cards."""
        return Play(self.kind, self.key, self.units, self.counts, mask)

    def beats(self, top: Play) -> bool:
        """Whether this play may be played on ``top`` (spec 2.3, 2.4).

        The rocket beats everything (one deck holds one rocket); a bomb beats any non-bomb play and a lower bomb;
        otherwise same kind, same length, higher main part.

        >>> from pipeline.doudizhu.cards import mask_of, parse_cards
        >>> from pipeline.doudizhu.rules import load_ruleset
        >>> rs = load_ruleset("ddz")
        >>> bomb = classify(mask_of(parse_cards("3d 3c 3h 3s")), rs)
        >>> four_two = classify(mask_of(parse_cards("Ad Ac Ah As 4d 5d")), rs)
        >>> bomb.beats(four_two), four_two.beats(bomb)
        (True, False)
        """
        if self.kind == Kind.ROCKET:
            return top.kind != Kind.ROCKET
        if top.kind == Kind.ROCKET:
            return False
        if self.kind == Kind.BOMB:
            return top.kind != Kind.BOMB or self.key > top.key
        return self.kind == top.kind and self.units == top.units and self.key > top.key

    def __str__(self) -> str:
        return self.text


def _run(lo: int, k: int) -> range:
    return range(lo, lo + k)


def _attachments(
    rest: Sequence[int], main: range, k: int, pairs: bool, why: list[str] | None
) -> bool:
    """Whether ``rest`` is a valid set of ``k`` attachments for the main part (spec 2.4 **Decision**)."""
    if any(rest[r] for r in main):
        if why is not None:
            why.append("attachments never hold a rank of the main part")
        return False
    if pairs:
        ranks = [r for r in range(N_RANKS) if rest[r]]
        ok = len(ranks) == k and all(rest[r] == 2 for r in ranks)
        if not ok and why is not None:
            if any(rest[r] == 4 for r in ranks):
                why.append("two pair attachments are of two different ranks")
            else:
                why.append("the attachments of one play are all singles or all pairs")
        return ok
    if rest[BJ_RANK] and rest[RJ_RANK]:
        if why is not None:
            why.append("the rocket is not two singles (attachments never hold both jokers)")
        return False
    if max(rest) == 4:
        if why is not None:
            why.append("a bomb is not an attachment")
        return False
    return True


def _compute(counts: Counts, four_with_two: bool, why: list[str] | None) -> list[Play]:
    n = sum(counts)
    out: list[Play] = []
    ranks = [r for r in range(N_RANKS) if counts[r]]
    widths = {counts[r] for r in ranks}

    def add(kind: Kind, key: int, units: int = 1) -> None:
        out.append(Play(kind, key, units, counts))

    if n == 0:
        return out
    if n == 1:
        add(Kind.SINGLE, ranks[0])
    if n == 2 and counts[BJ_RANK] and counts[RJ_RANK]:
        add(Kind.ROCKET, RJ_RANK)
    if len(ranks) == 1 and n in (2, 3, 4):
        add((Kind.PAIR, Kind.TRIPLE, Kind.BOMB)[n - 2], ranks[0])
    # sequences: one width over consecutive ranks 3 … A
    if len(widths) == 1:
        width = widths.pop()
        consecutive = ranks[-1] - ranks[0] + 1 == len(ranks)
        kind = {1: Kind.STRAIGHT, 2: Kind.PAIR_CHAIN, 3: Kind.AIRPLANE}.get(width)
        if kind is not None and consecutive:
            lo, hi = CHAIN_UNITS[kind]
            if ranks[-1] > ACE_RANK and len(ranks) >= 2:
                if why is not None and (width > 1 or len(ranks) >= 5):
                    why.append("2s and jokers never in a sequence (3 … A)")
            elif lo <= len(ranks) <= hi:
                add(kind, ranks[-1], len(ranks))
            elif len(ranks) >= 2 and why is not None:
                why.append(f"{kind.value.replace('_', ' ')} needs {lo} to {hi} of its units")
    # triple + attachments, airplane + attachments
    for pairs, per in ((False, 1), (True, 2)):
        if n % (3 + per):
            continue
        k = n // (3 + per)
        if k == 1:
            for t in ranks:
                if counts[t] >= 3 and t <= TWO_RANK:
                    rest = list(counts)
                    rest[t] -= 3
                    if _attachments(rest, _run(t, 1), 1, pairs, why):
                        add(Kind.TRIPLE_PAIR if pairs else Kind.TRIPLE_SINGLE, t)
        elif k <= CHAIN_UNITS[Kind.AIRPLANE][1]:
            for lo in range(ACE_RANK - k + 2):
                main = _run(lo, k)
                if all(counts[r] >= 3 for r in main):
                    rest = list(counts)
                    for r in main:
                        rest[r] -= 3
                    if _attachments(rest, main, k, pairs, why):
                        kind = Kind.AIRPLANE_PAIRS if pairs else Kind.AIRPLANE_SINGLES
                        add(kind, lo + k - 1, k)
    # four + two
    if n in (6, 8):
        for f in ranks:
            if counts[f] == 4:
                if not four_with_two:
                    if why is not None:
                        why.append("four + two is off (four_with_two = false)")
                    continue
                rest = list(counts)
                rest[f] = 0
                if _attachments(rest, _run(f, 1), 2, n == 8, why):
                    add(Kind.FOUR_TWO_PAIRS if n == 8 else Kind.FOUR_TWO_SINGLES, f)
    out.sort(key=lambda p: (-MAIN_WIDTH[p.kind] * p.units, -p.key))
    return out


@lru_cache(maxsize=1 << 16)
def _readings(counts: Counts, four_with_two: bool) -> tuple[Play, ...]:
    return tuple(_compute(counts, four_with_two, None))


def readings(counts: Counts, rs: DdzRuleset) -> tuple[Play, ...]:
    """Every combination a rank multiset is, preferred reading first (empty: not a play)."""
    return _readings(counts, rs.four_with_two)


def classify(
    mask: int, rs: DdzRuleset, *, on: Play | None = None, kind: Kind | None = None
) -> Play | None:
    """The reading of some cards: the first (preferred) one of ``kind`` when named and that
    beats ``on`` when given, holding the cards; None when there is none.

    >>> from pipeline.doudizhu.cards import mask_of, parse_cards
    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> rs = load_ruleset("ddz")
    >>> cards = mask_of(parse_cards("3d 3c 3h 4d 4c 4h 5d 5c 5h 6d 6c 6h"))
    >>> classify(cards, rs).kind.value, classify(cards, rs, kind=Kind.AIRPLANE_SINGLES).key
    ('airplane', 3)
    >>> top = classify(mask_of(parse_cards("7s 7h 7d 8s 8h 8d 9s 9h 9d Js Qs Ks")), rs)
    >>> classify(cards, rs, on=top) is None
    True
    """
    for p in _readings(counts_of(mask), rs.four_with_two):
        if (kind is None or p.kind == kind) and (on is None or p.beats(on)):
            return p.with_cards(mask)
    return None


def explain(mask: int, rs: DdzRuleset) -> str:
    """Say what some cards are, or why they are not a combination (the one explaining classifier).

    >>> from pipeline.doudizhu.cards import mask_of, parse_cards
    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> rs = load_ruleset("ddz")
    >>> explain(mask_of(parse_cards("Jd Qd Kd Ad 2d")), rs)
    'J-Q-K-A-2 is not a combination: 2s and jokers never in a sequence (3 … A)'
    >>> explain(mask_of(parse_cards("3d 3c 3h 3s 4d 5d")), load_ruleset("ddz", {"four_with_two": False}))
    '3-3-3-3-4-5 is not a combination: four + two is off (four_with_two = false)'
    >>> explain(mask_of(parse_cards("3d 3c 3h 4d 4c 4h 6d 7d 7c")), rs)
    '3-3-3-4-4-4-7-7-6 is not a combination: attachments are one single or one pair per triple, all singles or all pairs'
    >>> explain(mask_of(parse_cards("5d 5c 5h 5s")), rs)
    '5-5-5-5: bomb of 5'
    """
    counts = counts_of(mask)
    why: list[str] = []
    found = _compute(counts, rs.four_with_two, why)
    shown = format_ranks(counts)
    if found:
        return "; ".join(
            f"{p.text}: {p.kind.value.replace('_', ' ')} of {rank_text(p.key)}"
            + (f" ({p.units} long)" if p.units > 1 else "")
            for p in found
        )
    if not mask:
        return "no cards is not a combination"
    if not why and max(counts) >= 3 and sum(counts) > 3:
        why.append("attachments are one single or one pair per triple, all singles or all pairs")
    reason = why[0] if why else f"no combination has this shape ({sum(counts)} cards)"
    return f"{shown} is not a combination: {reason}"
