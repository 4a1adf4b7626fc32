"""Legal move generation: every combination a hand can make, and the legal plays in a state.

The state's own rules are two pure tests here, used by :class:`pipeline.big2.state.Game`
(its ``verify``, ``legal_plays`` and ``legal_moves``) and through it by the simulator:
:func:`first_play_ok` (the opening play and the lowest card, spec 1.4) and
:func:`meets_block` (頂大, spec 1.6).

Generation is structural (pairs inside a rank, flushes inside a suit, straights along the
ruleset's sequences ...) and every candidate is looked up in the ruleset's play table, so
the kinds and keys are exactly those of :func:`pipeline.big2.combos.classify`.

>>> from pipeline.big2.rules import load_ruleset
>>> from pipeline.cards import parse_cards, mask_of
>>> hand = mask_of(parse_cards("3d 3c 4h 5s 6d 7c 7s"))
>>> sorted(str(p) for p in plays_from(hand, load_ruleset("hk"), size=2))
['3♦3♣', '7♣7♠']
>>> len(list(plays_from(hand, load_ruleset("hk"))))
13
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

from pipeline.big2.combos import (
    STRAIGHTS,
    SUIT_STRENGTH,
    Play,
    highest_single,
    single_key,
    table_for,
)
from pipeline.big2.rules import FirstPlay, FourOfAKind, Ruleset


def _by_rank(hand: int) -> list[list[int]]:
    groups: list[list[int]] = [[] for _ in range(13)]
    m = hand
    while m:
        low = m & -m
        c = low.bit_length() - 1
        groups[c >> 2].append(c)
        m ^= low
    return groups


def _masks(cs: tuple[int, ...] | list[int]) -> int:
    m = 0
    for c in cs:
        m |= 1 << c
    return m


def _five_card_masks(hand: int, groups: list[list[int]], rs: Ruleset) -> Iterator[int]:
    quads = [r for r in range(13) if len(groups[r]) == 4]
    triples = [
        _masks(t) for r in range(13) if len(groups[r]) >= 3 for t in combinations(groups[r], 3)
    ]
    pairs_by_rank = [[_masks(p) for p in combinations(groups[r], 2)] for r in range(13)]
    if rs.four_of_a_kind != FourOfAKind.WITH_KICKER:
        quads = []
    for r in quads:  # four of a kind + any kicker
        quad = _masks(groups[r])
        rest = hand & ~quad
        while rest:
            low = rest & -rest
            yield quad | low
            rest ^= low
    for t in triples:  # full houses
        tr = (t & -t).bit_length() - 1 >> 2
        for r in range(13):
            if r != tr:
                for p in pairs_by_rank[r]:
                    yield t | p
    if rs.allow_two_pairs_plus_one:
        for r1, r2 in combinations(range(13), 2):
            for p1 in pairs_by_rank[r1]:
                for p2 in pairs_by_rank[r2]:
                    rest = hand & ~_masks(groups[r1]) & ~_masks(groups[r2])
                    while rest:
                        low = rest & -rest
                        yield p1 | p2 | low
                        rest ^= low
    for s in range(4):  # flushes and straight flushes
        suited = [c for c in range(s, 52, 4) if hand >> c & 1]
        if len(suited) >= 5:
            for five in combinations(suited, 5):
                yield _masks(five)
    for seq in STRAIGHTS[rs.straight_order]:  # straights (straight flushes came above)
        ranks = [r for r in range(13) if seq >> r & 1]
        if all(groups[r] for r in ranks):
            for cs in product(*(groups[r] for r in ranks)):
                if len({c & 3 for c in cs}) > 1:
                    yield _masks(cs)


def _candidate_masks(hand: int, rs: Ruleset, size: int | None) -> Iterator[int]:
    groups = _by_rank(hand)
    if size in (None, 1):
        m = hand
        while m:
            low = m & -m
            yield low
            m ^= low
    if size in (None, 2):
        for g in groups:
            for p in combinations(g, 2):
                yield _masks(p)
    if size in (None, 3) and rs.allow_triples:
        for g in groups:
            for t in combinations(g, 3):
                yield _masks(t)
    if size in (None, 4):
        if rs.allow_four_card_quads or rs.four_of_a_kind == FourOfAKind.ALONE:
            for g in groups:
                if len(g) == 4:
                    yield _masks(g)
        if rs.allow_two_pairs:
            pair_lists = [[_masks(p) for p in combinations(g, 2)] for g in groups]
            for r1, r2 in combinations(range(13), 2):
                for p1 in pair_lists[r1]:
                    for p2 in pair_lists[r2]:
                        yield p1 | p2
    if size in (None, 5):
        yield from _five_card_masks(hand, groups, rs)


#: Recent hands' plays: a seat's hand stays the same while others play, and bots ask again.
_RECENT: dict[tuple[int, int | None, int], tuple[Play, ...]] = {}
_RECENT_MAX = 50_000


def clear_cache() -> None:
    """Forget the remembered plays of recent hands (benchmarks start cold)."""
    _RECENT.clear()


def plays_from(hand: int, rs: Ruleset, *, size: int | None = None) -> Iterator[Play]:
    """Every legal combination the hand holds (optionally of one size), each once."""
    table = table_for(rs)
    key = (hand, size, id(table))  # the table lives as long as the process: ids stay unique
    plays = _RECENT.get(key)
    if plays is None:
        plays = tuple(
            play for play in map(table.get, _candidate_masks(hand, rs, size)) if play is not None
        )
        if len(_RECENT) >= _RECENT_MAX:
            _RECENT.clear()
        _RECENT[key] = plays
    return iter(plays)


#: Every straight flush's card mask, per straight order.
_STRAIGHT_FLUSHES = {
    order: tuple(
        _masks([r * 4 + suit for r in range(13) if seq >> r & 1])
        for seq in seqs
        for suit in range(4)
    )
    for order, seqs in STRAIGHTS.items()
}


def bombs_from(hand: int, rs: Ruleset) -> Iterator[Play]:
    """The hand's bombs when the ruleset has bombs: its fours of a kind (with each kicker,
    or alone, as ``four_of_a_kind`` says) and its straight flushes."""
    if not rs.bombs or hand.bit_count() < 4:
        return
    table = table_for(rs)
    mode = rs.four_of_a_kind
    for rank in range(13):
        quad = 15 << (rank * 4)
        if hand & quad == quad:
            if mode == FourOfAKind.ALONE:
                yield table[quad]
            elif mode == FourOfAKind.WITH_KICKER:
                rest = hand & ~quad
                while rest:
                    low = rest & -rest
                    yield table[quad | low]
                    rest ^= low
    for mask in _STRAIGHT_FLUSHES[rs.straight_order]:
        if hand & mask == mask:
            yield table[mask]


def beating_plays(hand: int, top: Play, rs: Ruleset) -> Iterator[Play]:
    """The hand's plays that beat ``top``: same size and higher, or a higher bomb."""
    for play in plays_from(hand, rs, size=top.size):
        if play.beats(top):
            yield play
    if top.size == 5 and rs.four_of_a_kind != FourOfAKind.ALONE:
        return  # every bomb has five cards, and those came above
    for play in bombs_from(hand, rs):  # bombs of another size (the same size came above)
        if play.size != top.size and play.beats(top):
            yield play


def can_beat(hand: int, top: Play, rs: Ruleset) -> bool:
    """Whether the hand holds any play that beats ``top`` (fast paths for 1-3 cards).

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.big2.combos import classify
    >>> from pipeline.cards import parse_cards, mask_of
    >>> hk = load_ruleset("hk")
    >>> top = classify(mask_of(parse_cards("9h 9s")), hk)
    >>> can_beat(mask_of(parse_cards("9d 9c Ts")), top, hk), can_beat(mask_of(parse_cards("Td Tc")), top, hk)
    (False, True)
    """
    if not hand:
        return False
    if (
        rs.bombs
        and (top.size != 5 or rs.four_of_a_kind == FourOfAKind.ALONE)  # else bombs are 5 cards
        and any(b.size != top.size and b.beats(top) for b in bombs_from(hand, rs))
    ):
        return True
    if top.size == 1:
        return single_key(highest_single(hand, rs.suit_order), rs.suit_order) > top.key
    if top.size == 2:
        strength = SUIT_STRENGTH[rs.suit_order]
        for rank in range(top.key >> 2, 13):
            suits = hand >> (rank * 4) & 15
            if suits.bit_count() >= 2:
                best = rank * 4 + max(strength[s] for s in range(4) if suits >> s & 1)
                if best > top.key:
                    return True
        return False
    if top.size == 3:
        return any((hand >> (rank * 4) & 15).bit_count() >= 3 for rank in range(top.key + 1, 13))
    return next(beating_plays(hand, top, rs), None) is not None


def first_play_ok(mask: int, lowest: int, rule: FirstPlay) -> bool:
    """Whether an opening play of ``mask`` meets ``first_play_must_contain_lowest = rule``
    when ``lowest`` is the lowest card dealt (spec 1.4): ``contain`` it, be it ``single``,
    or (``show``, ``none``) anything.

    Only the game's first play is bound (:attr:`pipeline.big2.state.Game.first_play_due`).

    >>> from pipeline.cards import parse_cards, mask_of
    >>> d3, pair = mask_of(parse_cards("3d")), mask_of(parse_cards("3d 3c"))
    >>> [first_play_ok(pair, 0, rule) for rule in FirstPlay]  # contain, single, show, none
    [True, False, True, True]
    >>> first_play_ok(mask_of(parse_cards("4d")), 0, FirstPlay.CONTAIN), first_play_ok(d3, 0, FirstPlay.SINGLE)
    (False, True)
    """
    if rule == FirstPlay.CONTAIN:
        return bool(mask >> lowest & 1)
    if rule == FirstPlay.SINGLE:
        return mask == 1 << lowest
    return True


def meets_block(play: Play | None, card: int, *, leading: bool) -> bool:
    """Whether an action meets a 頂大 obligation whose card is ``card`` (the seat's highest
    single: :meth:`pipeline.big2.state.Game.block_card`) (spec 1.6). Leading: any play of
    two or more cards, or that card alone; following a single: that card, or a bomb. A pass
    (``play`` None) never does.

    >>> from pipeline.big2.rules import load_ruleset
    >>> from pipeline.big2.combos import classify
    >>> from pipeline.cards import parse_cards, mask_of
    >>> hk = load_ruleset("hk")
    >>> two, ace, pair = (classify(mask_of(parse_cards(t)), hk) for t in ("2s", "As", "9h 9s"))
    >>> best = 51  # ♠2
    >>> meets_block(two, best, leading=False), meets_block(ace, best, leading=False)
    (True, False)
    >>> meets_block(pair, best, leading=True), meets_block(pair, best, leading=False), meets_block(None, best, leading=False)
    (True, False, False)
    """
    if play is None:
        return False
    if leading:
        return play.size > 1 or play.mask == 1 << card
    return play.mask == 1 << card or play.is_bomb
