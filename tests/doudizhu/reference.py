"""An independent reference for the Dou Dizhu combinations: every combination of the 54-card
deck, written straight from the table of spec 2.4 and its **Decision** on attachments, with
itertools (no code shared with pipeline.doudizhu.combos or .moves)."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement

from pipeline.doudizhu.combos import Kind

N_RANKS = 15
BJ, RJ, TWO, ACE = 13, 14, 12, 11
CAPS = (4,) * 13 + (1, 1)
#: One reading: (kind, key = highest main rank, units = chain length).
Reading = tuple[Kind, int, int]
Counts = tuple[int, ...]


def _counts(ranks: list[int]) -> Counts | None:
    c = Counter(ranks)
    if any(c[r] > CAPS[r] for r in c):
        return None  # more cards of a rank than the deck holds
    return tuple(c[r] for r in range(N_RANKS))


def _single_kickers(banned: set[int], k: int) -> list[list[int]]:
    pool = [r for r in range(N_RANKS) if r not in banned]
    out = []
    for combo in combinations_with_replacement(pool, k):
        c = Counter(combo)
        if c[BJ] and c[RJ]:
            continue  # the rocket is not two singles
        if any(n >= 4 for n in c.values()):
            continue  # a bomb is not an attachment
        out.append(list(combo))
    return out


def _pair_kickers(banned: set[int], k: int) -> list[list[int]]:
    pool = [r for r in range(TWO + 1) if r not in banned]  # jokers are no pair
    return [[r for r in combo for _ in range(2)] for combo in combinations(pool, k)]


@cache
def all_combinations(four_with_two: bool = True) -> dict[Counts, frozenset[Reading]]:
    """Every rank multiset that is a combination → all its readings."""
    found: dict[Counts, set[Reading]] = {}

    def add(ranks: list[int], kind: Kind, key: int, units: int = 1) -> None:
        counts = _counts(ranks)
        if counts is not None:
            found.setdefault(counts, set()).add((kind, key, units))

    for r in range(N_RANKS):
        add([r], Kind.SINGLE, r)
    add([BJ, RJ], Kind.ROCKET, RJ)
    for r in range(TWO + 1):
        add([r] * 2, Kind.PAIR, r)
        add([r] * 3, Kind.TRIPLE, r)
        add([r] * 4, Kind.BOMB, r)
        for kick in _single_kickers({r}, 1):
            add([r] * 3 + kick, Kind.TRIPLE_SINGLE, r)
        for kick in _pair_kickers({r}, 1):
            add([r] * 3 + kick, Kind.TRIPLE_PAIR, r)
        if four_with_two:
            for kick in _single_kickers({r}, 2):
                add([r] * 4 + kick, Kind.FOUR_TWO_SINGLES, r)
            for kick in _pair_kickers({r}, 2):
                add([r] * 4 + kick, Kind.FOUR_TWO_PAIRS, r)
    for width, kind, lo_units, hi_units in (
        (1, Kind.STRAIGHT, 5, 12),
        (2, Kind.PAIR_CHAIN, 3, 10),
        (3, Kind.AIRPLANE, 2, 6),
    ):
        for units in range(lo_units, hi_units + 1):
            for lo in range(ACE - units + 2):
                main_ranks = list(range(lo, lo + units))
                main = [r for r in main_ranks for _ in range(width)]
                hi = main_ranks[-1]
                add(main, kind, hi, units)
                if width == 3:
                    for kick in _single_kickers(set(main_ranks), units):
                        add(main + kick, Kind.AIRPLANE_SINGLES, hi, units)
                    for kick in _pair_kickers(set(main_ranks), units):
                        add(main + kick, Kind.AIRPLANE_PAIRS, hi, units)
    return {c: frozenset(r) for c, r in found.items()}


def multisets(size: int) -> list[Counts]:
    """Every rank multiset of ``size`` cards the deck allows."""
    out: list[Counts] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == N_RANKS:
            if left == 0:
                out.append(tuple(acc))
            return
        for c in range(min(CAPS[i], left) + 1):
            acc.append(c)
            rec(i + 1, left - c, acc)
            acc.pop()

    rec(0, size, [])
    return out
