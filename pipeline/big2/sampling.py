"""A uniformly random lead without listing every five-card play.

Listing a 13-card hand's plays costs most of a random game: hundreds of five-card plays
(flushes, straights, full houses) are generated one by one. Their number, though, follows
from the rank and suit counts alone, so a uniform lead can be drawn in two steps: pick the
category by its exact count (each single, pair, triple or four-card play is listed, they are
few; the five-card plays are counted per kind and sequence), then draw uniformly inside it.
Every play is then equally likely, exactly as with ``rng.choice(list(game.legal_plays()))``.

The counts mirror :func:`pipeline.big2.moves.plays_from` (tests check they agree on random
hands under every combination rule). Part of the engine's legal-moves API (the simulator's
random bot draws its free leads here: :attr:`pipeline.big2.state.Game.plays_restricted`
says when a lead is free).

>>> import random
>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.cards import mask_of, parse_cards
>>> from pipeline.big2.moves import plays_from
>>> rs = load_ruleset("hk")
>>> hand = mask_of(parse_cards("3d 4d 5d 6d 7d 8c 8h 8s 9c 9d Jd 2s 2h"))
>>> five_card_count(hand, rs) == len(list(plays_from(hand, rs, size=5)))
True
>>> play, n = random_lead(hand, rs, random.Random(1))
>>> play in set(plays_from(hand, rs)), n == len(list(plays_from(hand, rs)))
(True, True)
"""

from __future__ import annotations

import random
from itertools import combinations
from math import comb

from pipeline.big2.combos import STRAIGHTS, Play, table_for
from pipeline.big2.moves import plays_from
from pipeline.big2.rules import FourOfAKind, Ruleset
from pipeline.cards import cards_of

#: For each 4-bit pattern of suits held in one rank: its k-card sub-patterns (k = 0..4).
_SUBSETS = [
    [
        tuple(
            sum(1 << s for s in cs) for cs in combinations([s for s in range(4) if nib >> s & 1], k)
        )
        for nib in range(16)
    ]
    for k in range(5)
]
_SUIT_MASKS = tuple(sum(1 << c for c in range(s, 52, 4)) for s in range(4))
#: Per straight order: (the 5 ranks, the 4 straight-flush masks) for every sequence.
_SEQUENCES = {
    order: tuple(
        (
            tuple(r for r in range(13) if seq >> r & 1),
            tuple(sum(1 << (r * 4 + s) for r in range(13) if seq >> r & 1) for s in range(4)),
        )
        for seq in seqs
    )
    for order, seqs in STRAIGHTS.items()
}


def _nth_card(mask: int, n: int) -> int:
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def _pick(rng: random.Random, nib: int, k: int) -> int:
    """A uniform ``k``-card sub-pattern of a rank's suit pattern."""
    return rng.choice(_SUBSETS[k][nib])


class _Counts:
    """A hand's plays counted per kind (and per rank, suit or sequence); nothing is listed."""

    def __init__(self, hand: int, rs: Ruleset) -> None:
        self.hand = hand
        n = self.n = hand.bit_count()
        nibs = self.nibs = [hand >> (r * 4) & 15 for r in range(13)]
        k = [_POP[x] for x in nibs]
        pairs = self.pairs = [comb(x, 2) for x in k]
        all_pairs = sum(pairs)
        self.n_pairs = all_pairs
        self.n_triples = sum(comb(x, 3) for x in k) if rs.allow_triples else 0
        self.small4: tuple[Play, ...] = ()
        alone = rs.four_of_a_kind == FourOfAKind.ALONE
        if rs.allow_four_card_quads or rs.allow_two_pairs or alone:
            self.small4 = tuple(plays_from(hand, rs, size=4))
        with_kicker = rs.four_of_a_kind == FourOfAKind.WITH_KICKER
        self.quads = [r for r in range(13) if k[r] == 4] if with_kicker else []
        self.n_quads = len(self.quads) * (n - 4)
        self.full = [(r, comb(k[r], 3) * (all_pairs - pairs[r])) for r in range(13) if k[r] >= 3]
        self.flush = [(s, comb((hand & _SUIT_MASKS[s]).bit_count(), 5)) for s in range(4)]
        self.straights: list[tuple[tuple[int, ...], int]] = []
        for ranks, sf_masks in _SEQUENCES[rs.straight_order]:
            n_all = k[ranks[0]] * k[ranks[1]] * k[ranks[2]] * k[ranks[3]] * k[ranks[4]]
            if n_all:
                sf = sum(1 for m in sf_masks if hand & m == m)
                self.straights.append((ranks, n_all - sf))
        self.two_pairs_one: list[tuple[int, int, int]] = []
        if rs.allow_two_pairs_plus_one:
            for r1, r2 in combinations(range(13), 2):
                w = pairs[r1] * pairs[r2] * (n - k[r1] - k[r2])
                if w:
                    self.two_pairs_one.append((r1, r2, w))
        self.n_five = (
            self.n_quads
            + sum(w for _, w in self.full)
            + sum(w for _, w in self.flush)
            + sum(w for _, w in self.straights)
            + sum(w for _, _, w in self.two_pairs_one)
        )
        self.total = n + all_pairs + self.n_triples + len(self.small4) + self.n_five

    def draw(self, u: int, rng: random.Random) -> int:
        """The mask of the ``u``-th category's play, drawn uniformly inside the category."""
        hand, nibs = self.hand, self.nibs
        if u < self.n:
            return 1 << _nth_card(hand, u)
        u -= self.n
        if u < self.n_pairs:
            for r in range(13):
                subs = _SUBSETS[2][nibs[r]]
                if u < len(subs):
                    return subs[u] << (r * 4)
                u -= len(subs)
        u -= self.n_pairs
        if u < self.n_triples:
            for r in range(13):
                subs = _SUBSETS[3][nibs[r]]
                if u < len(subs):
                    return subs[u] << (r * 4)
                u -= len(subs)
        u -= self.n_triples
        if u < len(self.small4):
            return self.small4[u].mask
        u -= len(self.small4)
        if u < self.n_quads:
            quad = 15 << (self.quads[u // (self.n - 4)] * 4)
            return quad | 1 << _nth_card(hand & ~quad, rng.randrange(self.n - 4))
        u -= self.n_quads
        for r, w in self.full:
            if u < w:
                weights = [0 if q == r else p for q, p in enumerate(self.pairs)]
                pr = rng.choices(range(13), weights=weights)[0]
                return _pick(rng, nibs[r], 3) << (r * 4) | _pick(rng, nibs[pr], 2) << (pr * 4)
            u -= w
        for s, w in self.flush:
            if u < w:
                return sum(1 << c for c in rng.sample(cards_of(hand & _SUIT_MASKS[s]), 5))
            u -= w
        for ranks, w in self.straights:
            if u < w:
                while True:
                    cs = [rng.choice(cards_of(15 << (r * 4) & hand)) for r in ranks]
                    if len({c & 3 for c in cs}) > 1:
                        return sum(1 << c for c in cs)
            u -= w
        for r1, r2, w in self.two_pairs_one:
            if u < w:
                rest = hand & ~(15 << (r1 * 4)) & ~(15 << (r2 * 4))
                kicker = _nth_card(rest, rng.randrange(rest.bit_count()))
                pairs = _pick(rng, nibs[r1], 2) << (r1 * 4) | _pick(rng, nibs[r2], 2) << (r2 * 4)
                return pairs | 1 << kicker
            u -= w
        raise AssertionError("u out of range")  # pragma: no cover


_POP = tuple(x.bit_count() for x in range(16))


def five_card_count(hand: int, rs: Ruleset) -> int:
    """How many five-card plays the hand holds (the length of ``plays_from(hand, rs, size=5)``)."""
    return _Counts(hand, rs).n_five


def lead_count(hand: int, rs: Ruleset) -> int:
    """How many plays the hand holds (the length of ``plays_from(hand, rs)``)."""
    return _Counts(hand, rs).total


def random_lead(hand: int, rs: Ruleset, rng: random.Random) -> tuple[Play, int]:
    """A uniformly random play of the hand (any lead), and how many plays there were."""
    counts = _Counts(hand, rs)
    mask = counts.draw(rng.randrange(counts.total), rng)
    return table_for(rs)[mask], counts.total
