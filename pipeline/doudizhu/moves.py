"""Dou Dizhu move generation: every combination a hand can make, built up kind by kind.

Generation composes plays from the hand's rank counts (a main part, then its attachments), a
different road from the classifier's decomposition in :mod:`pipeline.doudizhu.combos`; the
tests hold the two equal. Moves are rank-level (suits never matter): each :class:`Play` holds
the hand's lowest cards of its ranks.

>>> from pipeline.doudizhu.rules import load_ruleset
>>> from pipeline.doudizhu.cards import mask_of, parse_cards
>>> hand = mask_of(parse_cards("3d 3c 3h 4d BJ RJ"))
>>> sorted(p.text for p in plays_from(hand, load_ruleset("ddz")) if p.size >= 2)
['3-3', '3-3-3', '3-3-3-4', '3-3-3-BJ', '3-3-3-RJ', 'BJ-RJ']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from pipeline.cards import cards_of
from pipeline.doudizhu.cards import (
    ACE_RANK,
    BJ_RANK,
    N_RANKS,
    RJ_RANK,
    TWO_RANK,
    counts_of,
    rank_of,
)
from pipeline.doudizhu.combos import CHAIN_UNITS, MAIN_WIDTH, Counts, Kind, Play
from pipeline.doudizhu.rules import DdzRuleset


def _kickers(
    counts: Counts, banned: range, k: int, pairs: bool, start: int = 0
) -> Iterator[list[int]]:
    """Attachment multisets: ``k`` singles (≤ 3 of a rank, not both jokers) or ``k`` pairs of
    distinct ranks, from ranks outside ``banned``; each a list of (rank, n) pairs flattened."""
    if k == 0:
        yield []
        return
    for r in range(start, N_RANKS):
        if r in banned:
            continue
        have = counts[r]
        if pairs:
            if have >= 2 and r <= TWO_RANK:
                for tail in _kickers(counts, banned, k - 1, pairs, r + 1):
                    yield [r, r, *tail]
            continue
        for take in range(1, min(have, 3, k) + 1):
            for tail in _kickers(counts, banned, k - take, pairs, r + 1):
                if r == BJ_RANK and RJ_RANK in tail:
                    continue
                yield [r] * take + tail


def _build(base: list[int], extra: list[int]) -> Counts:
    out = list(base)
    for r in extra:
        out[r] += 1
    return tuple(out)


def rank_plays(counts: Counts, rs: DdzRuleset) -> Iterator[Play]:
    """Every combination of a rank multiset (no cards attached), each reading once."""
    zero = [0] * N_RANKS

    def of(ranks: dict[int, int]) -> list[int]:
        out = list(zero)
        for r, n in ranks.items():
            out[r] = n
        return out

    for r in range(N_RANKS):
        c = counts[r]
        if c >= 1:
            yield Play(Kind.SINGLE, r, 1, tuple(of({r: 1})))
        if c >= 2:
            yield Play(Kind.PAIR, r, 1, tuple(of({r: 2})))
        if c >= 3:
            triple = of({r: 3})
            yield Play(Kind.TRIPLE, r, 1, tuple(triple))
            for kick in _kickers(counts, range(r, r + 1), 1, False):
                yield Play(Kind.TRIPLE_SINGLE, r, 1, _build(triple, kick))
            for kick in _kickers(counts, range(r, r + 1), 1, True):
                yield Play(Kind.TRIPLE_PAIR, r, 1, _build(triple, kick))
        if c == 4:
            yield Play(Kind.BOMB, r, 1, tuple(of({r: 4})))
            if rs.four_with_two:
                four = of({r: 4})
                for kick in _kickers(counts, range(r, r + 1), 2, False):
                    yield Play(Kind.FOUR_TWO_SINGLES, r, 1, _build(four, kick))
                for kick in _kickers(counts, range(r, r + 1), 2, True):
                    yield Play(Kind.FOUR_TWO_PAIRS, r, 1, _build(four, kick))
    if counts[BJ_RANK] and counts[RJ_RANK]:
        yield Play(Kind.ROCKET, RJ_RANK, 1, tuple(of({BJ_RANK: 1, RJ_RANK: 1})))
    for width, kind in ((1, Kind.STRAIGHT), (2, Kind.PAIR_CHAIN), (3, Kind.AIRPLANE)):
        lo_units, hi_units = CHAIN_UNITS[kind]
        for lo in range(ACE_RANK + 1):
            for units in range(lo_units, hi_units + 1):
                hi = lo + units - 1
                if hi > ACE_RANK or counts[hi] < width:
                    break
                if any(counts[x] < width for x in range(lo, hi)):
                    break
                main = of(dict.fromkeys(range(lo, hi + 1), width))
                yield Play(kind, hi, units, tuple(main))
                if width == 3:
                    banned = range(lo, hi + 1)
                    for kick in _kickers(counts, banned, units, False):
                        yield Play(Kind.AIRPLANE_SINGLES, hi, units, _build(main, kick))
                    for kick in _kickers(counts, banned, units, True):
                        yield Play(Kind.AIRPLANE_PAIRS, hi, units, _build(main, kick))


def _by_rank(hand: int) -> list[list[int]]:
    groups: list[list[int]] = [[] for _ in range(N_RANKS)]
    for c in cards_of(hand):
        groups[rank_of(c)].append(c)
    return groups


def hand_counts(hand: int) -> Counts:
    """The rank counts of a hand mask."""
    return counts_of(hand)


def cards_for(hand: int, counts: Counts) -> int:
    """The hand's lowest cards of each rank for a rank multiset."""
    groups = _by_rank(hand)
    m = 0
    for r, n in enumerate(counts):
        for c in groups[r][:n]:
            m |= 1 << c
    return m


def low_masks(hand: int) -> list[list[int]]:
    """Per rank, the masks of the hand's lowest 0, 1, … cards of that rank (``low[r][n]``).

    >>> from pipeline.doudizhu.cards import mask_of, parse_cards
    >>> low = low_masks(mask_of(parse_cards("3d 3h 3s RJ")))
    >>> [bin(m) for m in low[0]], low[14] == [0, 1 << 53], low[1]
    (['0b0', '0b1', '0b101', '0b1101'], True, [0])
    """
    return [_LOW[r][hand >> shift & bits] for r, (shift, bits) in enumerate(_PATTERN)]


def _nibble_low(nib: int) -> list[int]:
    row = [0]
    m = 0
    while nib:
        b = nib & -nib
        m |= b
        row.append(m)
        nib ^= b
    return row


#: ``_LOW[r][pattern]``: for rank ``r`` holding the suits of the 4-bit ``pattern``, the masks of
#: its lowest 0, 1, … cards (shared, never changed); for BJ and RJ the pattern is one bit.
_LOW: tuple[tuple[list[int], ...], ...] = (
    *(tuple([m << 4 * r for m in _nibble_low(n)] for n in range(16)) for r in range(TWO_RANK + 1)),
    ([0], [0, 1 << 52]),
    ([0], [0, 1 << 53]),
)
#: Where each rank's cards sit in a hand mask, (shift, bits); cards per pattern in ``_POP``.
_PATTERN: tuple[tuple[int, int], ...] = (
    *((4 * r, 0xF) for r in range(TWO_RANK + 1)),
    (52, 1),
    (53, 1),
)
_POP: tuple[int, ...] = tuple(n.bit_count() for n in range(16))


#: ``_UNIT[r][n]``: the rank counts of ``n`` cards of rank ``r`` alone.
_UNIT: tuple[tuple[Counts, ...], ...] = tuple(
    tuple(tuple(n if x == r else 0 for x in range(N_RANKS)) for n in range(5))
    for r in range(N_RANKS)
)
_ROCKET_COUNTS: Counts = tuple(1 if r in (BJ_RANK, RJ_RANK) else 0 for r in range(N_RANKS))


def _kick_sets(
    counts: Counts, lo: int, hi: int, k: int, pairs: bool, start: int = 0
) -> list[list[tuple[int, int]]]:
    """:func:`_kickers` as (rank, cards) pairs, in the same order, ranks ``lo`` … ``hi`` banned."""
    if k == 0:
        return [[]]
    out: list[list[tuple[int, int]]] = []
    for r in range(start, N_RANKS):
        if lo <= r <= hi:
            continue
        have = counts[r]
        if pairs:
            if have >= 2 and r <= TWO_RANK:
                for tail in _kick_sets(counts, lo, hi, k - 1, pairs, r + 1):
                    out.append([(r, 2), *tail])
            continue
        for take in range(1, min(have, 3, k) + 1):
            for tail in _kick_sets(counts, lo, hi, k - take, pairs, r + 1):
                if r == BJ_RANK and tail and tail[-1][0] == RJ_RANK:
                    continue
                out.append([(r, take), *tail])
    return out


def _attached(
    kind: Kind,
    key: int,
    units: int,
    main: Counts,
    main_mask: int,
    kicks: list[list[tuple[int, int]]],
    low: list[list[int]],
) -> Iterator[Play]:
    for kick in kicks:
        c = list(main)
        m = main_mask
        for r, n in kick:
            c[r] += n
            m |= low[r][n]
        yield Play(kind, key, units, tuple(c), m)


def _chain(lo: int, hi: int, width: int, low: list[list[int]]) -> tuple[Counts, int]:
    c = [0] * N_RANKS
    m = 0
    for x in range(lo, hi + 1):
        c[x] = width
        m |= low[x][width]
    return tuple(c), m


_RANK_KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.TRIPLE_SINGLE, Kind.TRIPLE_PAIR)


def _generate(
    counts: Counts, low: list[list[int]], rs: DdzRuleset, top: Play | None
) -> Iterator[Play]:
    """:func:`rank_plays` filtered by ``beats(top)``, holding the cards, in the same order
    (the simulator's bots depend on it), made without the plays that cannot beat."""
    rocket = counts[BJ_RANK] and counts[RJ_RANK]
    kind = None if top is None else top.kind
    if kind == Kind.ROCKET:
        return
    key = -1 if top is None else top.key
    if kind == Kind.BOMB or kind in CHAIN_UNITS:
        for r in range(key + 1 if kind == Kind.BOMB else 0, TWO_RANK + 1):
            if counts[r] == 4:
                yield Play(Kind.BOMB, r, 1, _UNIT[r][4], low[r][4])
        if rocket:
            yield Play(Kind.ROCKET, RJ_RANK, 1, _ROCKET_COUNTS, low[BJ_RANK][1] | low[RJ_RANK][1])
        if kind == Kind.BOMB or top is None:
            return
        width = MAIN_WIDTH[kind]
        u = top.units
        run = 0  # ranks in a row up to ``hi`` holding ``width`` cards
        for hi in range(ACE_RANK + 1):
            run = run + 1 if counts[hi] >= width else 0
            if run < u or hi <= key:
                continue
            lo = hi - u + 1
            main, mask = _chain(lo, hi, width, low)
            if kind == Kind.AIRPLANE_SINGLES or kind == Kind.AIRPLANE_PAIRS:
                pairs = kind == Kind.AIRPLANE_PAIRS
                yield from _attached(
                    kind, hi, u, main, mask, _kick_sets(counts, lo, hi, u, pairs), low
                )
            else:
                yield Play(kind, hi, u, main, mask)
        return
    lead = top is None
    four_two = rs.four_with_two and (lead or kind in (Kind.FOUR_TWO_SINGLES, Kind.FOUR_TWO_PAIRS))
    for r in range(N_RANKS):
        c = counts[r]
        if not c:
            continue
        row = low[r]
        if r > key:
            if c >= 1 and (lead or kind == Kind.SINGLE):
                yield Play(Kind.SINGLE, r, 1, _UNIT[r][1], row[1])
            if c >= 2 and (lead or kind == Kind.PAIR):
                yield Play(Kind.PAIR, r, 1, _UNIT[r][2], row[2])
            if c >= 3:
                if lead or kind == Kind.TRIPLE:
                    yield Play(Kind.TRIPLE, r, 1, _UNIT[r][3], row[3])
                if lead or kind == Kind.TRIPLE_SINGLE:
                    kicks = _kick_sets(counts, r, r, 1, False)
                    yield from _attached(Kind.TRIPLE_SINGLE, r, 1, _UNIT[r][3], row[3], kicks, low)
                if lead or kind == Kind.TRIPLE_PAIR:
                    kicks = _kick_sets(counts, r, r, 1, True)
                    yield from _attached(Kind.TRIPLE_PAIR, r, 1, _UNIT[r][3], row[3], kicks, low)
        if c == 4:
            yield Play(Kind.BOMB, r, 1, _UNIT[r][4], row[4])
            if four_two and r > key:
                four = _UNIT[r][4]
                if lead or kind == Kind.FOUR_TWO_SINGLES:
                    kicks = _kick_sets(counts, r, r, 2, False)
                    yield from _attached(Kind.FOUR_TWO_SINGLES, r, 1, four, row[4], kicks, low)
                if lead or kind == Kind.FOUR_TWO_PAIRS:
                    kicks = _kick_sets(counts, r, r, 2, True)
                    yield from _attached(Kind.FOUR_TWO_PAIRS, r, 1, four, row[4], kicks, low)
    if rocket:
        yield Play(Kind.ROCKET, RJ_RANK, 1, _ROCKET_COUNTS, low[BJ_RANK][1] | low[RJ_RANK][1])
    if not lead:
        return
    for width, chain in ((1, Kind.STRAIGHT), (2, Kind.PAIR_CHAIN), (3, Kind.AIRPLANE)):
        lo_units, hi_units = CHAIN_UNITS[chain]
        for lo in range(ACE_RANK + 1):
            if counts[lo] < width:
                continue
            hi = lo
            while hi < ACE_RANK and counts[hi + 1] >= width:
                hi += 1
            for units in range(lo_units, min(hi_units, hi - lo + 1) + 1):
                top_rank = lo + units - 1
                main, mask = _chain(lo, top_rank, width, low)
                yield Play(chain, top_rank, units, main, mask)
                if width == 3:
                    for attached, pairs in (
                        (Kind.AIRPLANE_SINGLES, False),
                        (Kind.AIRPLANE_PAIRS, True),
                    ):
                        kicks = _kick_sets(counts, lo, top_rank, units, pairs)
                        yield from _attached(attached, top_rank, units, main, mask, kicks, low)


def plays_from(hand: int, rs: DdzRuleset, *, on: Play | None = None) -> Iterator[Play]:
    """Every play a hand can make (holding its cards), or only those that beat ``on``: the
    plays of :func:`rank_plays` in its order, each holding the hand's lowest cards of its
    ranks (the tests hold the two equal, order included).

    >>> from pipeline.doudizhu.cards import mask_of, parse_cards
    >>> from pipeline.doudizhu.combos import classify
    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> rs = load_ruleset("ddz")
    >>> hand = mask_of(parse_cards("4d 4c 5d 5c 9s 9h 9d 9c"))
    >>> [p.text for p in plays_from(hand, rs, on=classify(mask_of(parse_cards("3s 3h")), rs))]
    ['4-4', '5-5', '9-9', '9-9-9-9']
    """
    counts, low = _hand_view(hand)
    return _generate(counts, low, rs, on)


@lru_cache(maxsize=256)
def _hand_view(hand: int) -> tuple[Counts, list[list[int]]]:
    """A hand's rank counts and :func:`low_masks` (cached: a seat that passed asks again with
    the same hand; the lists are shared and never changed)."""
    patterns = [hand >> shift & bits for shift, bits in _PATTERN]
    return tuple([_POP[p] for p in patterns]), [_LOW[r][p] for r, p in enumerate(patterns)]


def _kicker_room(counts: Sequence[int], main: range, k: int, pairs: bool) -> bool:
    """Whether ``k`` attachments (singles or pairs) can be found outside ``main``."""
    if pairs:
        return sum(1 for r in range(TWO_RANK + 1) if r not in main and counts[r] >= 2) >= k
    room = sum(min(counts[r], 3) for r in range(TWO_RANK + 1) if r not in main)
    return room + min(counts[BJ_RANK] + counts[RJ_RANK], 1) >= k


def can_beat(hand: int, rs: DdzRuleset, top: Play) -> bool:
    """Whether a hand holds any play that beats ``top`` (a direct test, no enumeration;
    the tests hold it equal to ``any(plays_from(hand, rs, on=top))``).

    >>> from pipeline.doudizhu.rules import load_ruleset
    >>> from pipeline.doudizhu.cards import mask_of, parse_cards
    >>> from pipeline.doudizhu.combos import classify
    >>> rs = load_ruleset("ddz")
    >>> top = classify(mask_of(parse_cards("2s")), rs)
    >>> can_beat(mask_of(parse_cards("Ad Ac")), rs, top), can_beat(mask_of(parse_cards("BJ")), rs, top)
    (False, True)
    """
    return can_beat_counts(counts_of(hand), top)


_EXTRA: dict[Kind, tuple[int, bool]] = {
    Kind.TRIPLE_SINGLE: (1, False),
    Kind.TRIPLE_PAIR: (1, True),
    Kind.FOUR_TWO_SINGLES: (2, False),
    Kind.FOUR_TWO_PAIRS: (2, True),
}


def can_beat_counts(counts: Sequence[int], top: Play) -> bool:
    """:func:`can_beat` on a hand's rank counts (what the state machine keeps per seat)."""
    kind = top.kind
    if kind == Kind.ROCKET:
        return False
    if counts[BJ_RANK] and counts[RJ_RANK]:
        return True
    key = top.key
    if kind == Kind.BOMB:
        return 4 in counts[key + 1 : TWO_RANK + 1]
    if 4 in counts[: TWO_RANK + 1]:
        return True
    if kind == Kind.SINGLE:
        return any(counts[key + 1 :])
    units = top.units
    width = MAIN_WIDTH[kind]
    if kind == Kind.PAIR or kind == Kind.TRIPLE:
        return any(c >= width for c in counts[key + 1 : TWO_RANK + 1])
    if kind in CHAIN_UNITS:
        hi_limit = ACE_RANK
        extra = None
        if kind == Kind.AIRPLANE_SINGLES:
            extra = (units, False)
        elif kind == Kind.AIRPLANE_PAIRS:
            extra = (units, True)
    else:
        hi_limit = TWO_RANK
        extra = _EXTRA[kind]
    for hi in range(key + 1, hi_limit + 1):
        main = range(hi - units + 1, hi + 1)
        if width == 4:
            if counts[hi] != 4:
                continue
        elif any(counts[r] < width for r in main):
            continue
        if extra is None or _kicker_room(counts, main, *extra):
            return True
    return False
