"""Legal moves equal a brute-force enumeration (Hypothesis), on random positions of both
presets, with the table holding each of the 13 kinds (four + two as its two kinds) or nothing."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.doudizhu.cards import N_CARDS, counts_of, mask_of
from pipeline.doudizhu.combos import Kind, Play, readings
from pipeline.doudizhu.moves import can_beat, cards_for, plays_from, rank_plays
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset
from pipeline.doudizhu.state import Game, Phase, random_game
from tests.doudizhu.reference import all_combinations

RULESETS = [
    load_ruleset("ddz"),
    load_ruleset("ddz-2p"),
    load_ruleset("ddz", {"four_with_two": False}),
]
_BY_KIND: dict[Kind, list[tuple[tuple[int, ...], tuple[Kind, int, int]]]] = {}
for _counts, _readings in all_combinations().items():
    for _r in _readings:
        _BY_KIND.setdefault(_r[0], []).append((_counts, _r))


def brute_force(hand: int, rs: DdzRuleset, top: Play | None) -> set[Play]:
    """Every sub-multiset of the hand, every reading of it, kept when it may be played."""
    have = counts_of(hand)
    out: set[Play] = set()
    for sub in product(*(range(c + 1) for c in have)):
        for p in readings(tuple(sub), rs):
            if top is None or p.beats(top):
                out.add(p)
    return out


def _top(kind: Kind | None, index: int) -> Play | None:
    if kind is None:
        return None
    counts, (k, key, units) = _BY_KIND[kind][index % len(_BY_KIND[kind])]
    return Play(k, key, units, counts)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.parametrize("kind", [None, *Kind], ids=lambda k: "lead" if k is None else k.value)
@given(
    cards=st.lists(st.integers(0, N_CARDS - 1), min_size=1, max_size=12, unique=True),
    which=st.integers(0, 10_000),
    rules=st.integers(0, len(RULESETS) - 1),
)
def test_legal_plays_equal_brute_force(
    kind: Kind | None, cards: list[int], which: int, rules: int
) -> None:
    rs = RULESETS[rules]
    hand = mask_of(cards)
    top = _top(kind, which)
    generated = list(plays_from(hand, rs, on=top))
    assert len(generated) == len(set(generated))  # each reading once
    assert set(generated) == brute_force(hand, rs, top)
    for p in generated:
        assert p.mask & ~hand == 0 and counts_of(p.mask) == p.counts
        assert p.mask == cards_for(hand, p.counts)
    if top is not None:
        assert can_beat(hand, rs, top) == bool(generated)


@settings(max_examples=40, deadline=None)
@given(
    cards=st.lists(st.integers(0, N_CARDS - 1), min_size=14, max_size=20, unique=True),
    which=st.integers(0, 10_000),
    kind=st.sampled_from(list(Kind)),
)
def test_can_beat_on_full_hands_agrees_with_generation(
    cards: list[int], which: int, kind: Kind
) -> None:
    rs = RULESETS[0]
    hand = mask_of(cards)
    top = _top(kind, which)
    assert top is not None
    assert can_beat(hand, rs, top) == any(True for _ in plays_from(hand, rs, on=top))


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(["ddz", "ddz-2p"]))
def test_the_legal_plays_of_game_positions_equal_brute_force(seed: int, preset: str) -> None:
    """Positions reached by random play: once the seat to act holds 12 cards or fewer, its
    legal-moves view equals the brute force against the play on the table."""
    rs = load_ruleset(preset)
    (hands, kitty, aside), first, actions = random_game(rs, random.Random(seed))
    game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=first)
    checked = 0
    for action in actions:
        seat = game.turn
        hand = None if seat is None else game.hand(seat)
        if game.phase == Phase.PLAY and hand is not None and hand.bit_count() <= 12 and checked < 4:
            assert set(game.legal_plays()) == brute_force(hand, rs, game.top)
            checked += 1
        game.do(action)
    assert game.finished


def _listed_by_rank_plays(hand: int, rs: DdzRuleset, top: Play | None) -> list[tuple[Play, int]]:
    """The plain listing the fast generator replaces: every reading of :func:`rank_plays`,
    filtered by ``beats``, holding the hand's lowest cards (what the logs were made with)."""
    counts = counts_of(hand)
    return [
        (p, cards_for(hand, p.counts))
        for p in rank_plays(counts, rs)
        if top is None or p.beats(top)
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.parametrize("kind", [None, *Kind], ids=lambda k: "lead" if k is None else k.value)
@given(
    cards=st.lists(st.integers(0, N_CARDS - 1), min_size=1, max_size=20, unique=True),
    which=st.integers(0, 10_000),
    rules=st.integers(0, len(RULESETS) - 1),
)
def test_plays_from_lists_rank_plays_in_its_order(
    kind: Kind | None, cards: list[int], which: int, rules: int
) -> None:
    """Same plays, same cards, same order: the bots pick by position and first-of-ties, so the
    simulated logs stay byte-identical only if the order does."""
    rs = RULESETS[rules]
    hand = mask_of(cards)
    top = _top(kind, which)
    got = [(p, p.mask) for p in plays_from(hand, rs, on=top)]
    assert got == _listed_by_rank_plays(hand, rs, top)


def test_plays_from_keeps_the_order_on_a_full_deck_and_full_hands() -> None:
    rng = random.Random(4)
    for rs in RULESETS:
        hands = [(1 << N_CARDS) - 1] + [mask_of(rng.sample(range(N_CARDS), 20)) for _ in range(30)]
        for hand in hands:
            for kind in [None, *Kind]:
                top = _top(kind, rng.randrange(10_000))
                got = [(p, p.mask) for p in plays_from(hand, rs, on=top)]
                assert got == _listed_by_rank_plays(hand, rs, top)
