"""Combinations and their order: every clause of spec 1.1-1.2, checked against the engine.

Each test cites the spec clause it checks. Card sets are written in any notation the
parser reads (``"3d 4c"``, ``"♠6♦6"``).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.big2.combos import Kind, Play, classify, explain, require_play, table_for
from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.cards import (
    RANK_TEXT,
    SUIT_SYMBOL,
    card,
    cards_of,
    format_card,
    format_cards,
    mask_of,
    parse_cards,
)
from pipeline.errors import IllegalPlayError

HK = load_ruleset("hk")
TAIWAN = load_ruleset("taiwan")
MAINLAND = load_ruleset("mainland")

#: Suits low to high per suit order (spec 1.1), as suit indexes ♦0 ♣1 ♥2 ♠3.
SUITS_LOW_TO_HIGH = {"hk": (0, 1, 2, 3), "taiwan": (1, 0, 2, 3)}


def rules(**overrides: Any) -> Ruleset:
    """The hk preset with overrides."""
    return load_ruleset("hk", overrides)


def cards(text: str) -> int:
    return mask_of(parse_cards(text))


def play(text: str, rs: Ruleset = HK) -> Play:
    got = classify(cards(text), rs)
    assert got is not None, f"{text} should be a play: {explain(cards(text), rs)}"
    return got


def strictly_above(a: Play, b: Play) -> bool:
    """``a`` beats ``b`` and not the other way round."""
    return a.beats(b) and not b.beats(a)


def tie(a: Play, b: Play) -> bool:
    return not a.beats(b) and not b.beats(a)


# ---------------------------------------------------------------------------------------
# 1.1 single-card order
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["hk", "taiwan"])
def test_single_order_rank_then_suit(order: str) -> None:
    # spec 1.1: "A single card compares by rank, then suit"; suit_order hk ♦<♣<♥<♠,
    # taiwan ♣<♦<♥<♠; spec 1.2 table: single compares by rank, then suit.
    rs = rules(suit_order=order)
    expected = [card(r, s) for r in range(13) for s in SUITS_LOW_TO_HIGH[order]]
    singles = [play(format_card(c), rs) for c in range(52)]
    assert all(p.kind == Kind.SINGLE for p in singles)
    for a, b in itertools.product(singles, repeat=2):
        ia, ib = expected.index(cards_of(a.mask)[0]), expected.index(cards_of(b.mask)[0])
        assert a.beats(b) == (ia > ib), (str(a), str(b))


def test_single_lowest_and_highest_hk() -> None:
    # spec 1.1: "Lowest card under hk is ♦3, highest ♠2."
    singles = [play(format_card(c)) for c in range(52)]
    low = next(p for p in singles if all(q.mask == p.mask or q.beats(p) for q in singles))
    high = next(p for p in singles if all(q.mask == p.mask or p.beats(q) for q in singles))
    assert str(low) == "3♦"
    assert str(high) == "2♠"


def test_single_lowest_and_highest_taiwan() -> None:
    # spec 1.1 / 1.4: under taiwan ♣3 is the lowest card (♣ < ♦ < ♥ < ♠), ♠2 the highest.
    singles = [play(format_card(c), TAIWAN) for c in range(52)]
    low = next(p for p in singles if all(q.mask == p.mask or q.beats(p) for q in singles))
    high = next(p for p in singles if all(q.mask == p.mask or p.beats(q) for q in singles))
    assert str(low) == "3♣"
    assert str(high) == "2♠"
    assert strictly_above(play("3d", TAIWAN), play("3c", TAIWAN))
    assert strictly_above(play("3c", HK), play("3d", HK))


def test_card_encoding_does_not_depend_on_rules() -> None:
    # spec 1.1: "A card is a card: stored encodings must not depend on the house rules."
    for rs in (HK, TAIWAN, MAINLAND):
        assert play("3c", rs).mask == cards("3c") == 1 << card(0, 1)


# ---------------------------------------------------------------------------------------
# 1.2 pairs, triples, quads, two pairs
# ---------------------------------------------------------------------------------------


def test_pair_seed_001_example() -> None:
    # spec 1.2 table, pair: "001: ♠6♦6 beats ♥6♣6".
    assert strictly_above(play("♠6♦6"), play("♥6♣6"))


@pytest.mark.parametrize("order", ["hk", "taiwan"])
def test_pair_compares_by_rank_then_higher_suit(order: str) -> None:
    # spec 1.2 table, pair: "rank, then the higher suit in the pair" (all 78 x 78 pairs).
    rs = rules(suit_order=order)
    strength = {s: i for i, s in enumerate(SUITS_LOW_TO_HIGH[order])}
    pairs = [
        play(format_cards([card(r, a), card(r, b)]), rs)
        for r in range(13)
        for a, b in itertools.combinations(range(4), 2)
    ]
    assert len(pairs) == 78 and all(p.kind == Kind.PAIR for p in pairs)

    def key(p: Play) -> tuple[int, int]:
        cs = cards_of(p.mask)
        return cs[0] >> 2, max(strength[c & 3] for c in cs)

    for a, b in itertools.product(pairs, repeat=2):
        assert a.beats(b) == (key(a) > key(b)), (str(a), str(b))


def test_pair_needs_same_rank() -> None:
    # spec 1.2 table, pair: "2 same rank".
    assert classify(cards("6s 7s"), HK) is None
    assert "pair" in str(explain(cards("6s 7s"), HK))


def test_triples_compare_by_rank() -> None:
    # spec 1.2 table, triple: "3 same rank", compares by rank.
    triples = [
        play(format_cards([card(r, s) for s in three]))
        for r in range(13)
        for three in itertools.combinations(range(4), 3)
    ]
    assert all(p.kind == Kind.TRIPLE for p in triples)
    for a, b in itertools.product(triples, repeat=2):
        ra, rb = cards_of(a.mask)[0] >> 2, cards_of(b.mask)[0] >> 2
        assert a.beats(b) == (ra > rb), (str(a), str(b))


def test_triples_banned_by_allow_triples() -> None:
    # spec 1.2 table, triple: "parameter allow_triples (001 local rule bans them)".
    off = rules(allow_triples=False)
    assert classify(cards("3d 3c 3h"), off) is None
    assert explain(cards("3d 3c 3h"), off) == "triples are not allowed (allow_triples = false)"
    assert play("3d 3c 3h").kind == Kind.TRIPLE
    assert not any(p.kind == Kind.TRIPLE for p in table_for(off).values())


def test_triple_needs_one_rank() -> None:
    # spec 1.2 table, triple: "3 same rank".
    assert classify(cards("3d 3c 4h"), HK) is None


def test_quads_parameter() -> None:
    # spec 1.2 table, quad: "4 same rank", parameter allow_four_card_quads, default off.
    assert classify(cards("5d 5c 5h 5s"), HK) is None
    assert "allow_four_card_quads = false" in str(explain(cards("5d 5c 5h 5s"), HK))
    on = rules(allow_four_card_quads=True)
    assert play("5d 5c 5h 5s", on).kind == Kind.QUAD
    # compares by rank
    assert strictly_above(play("6d 6c 6h 6s", on), play("5d 5c 5h 5s", on))
    assert strictly_above(play("2d 2c 2h 2s", on), play("Ad Ac Ah As", on))


def test_two_pairs_parameter_and_order() -> None:
    # spec 1.2 table, two pairs: "4 cards", compares by "higher pair", parameter
    # allow_two_pairs, default off.
    assert classify(cards("5d 5c 9h 9s"), HK) is None
    assert "allow_two_pairs = false" in str(explain(cards("5d 5c 9h 9s"), HK))
    on = rules(allow_two_pairs=True)
    assert play("5d 5c 9h 9s", on).kind == Kind.TWO_PAIRS
    # the higher pair decides, the lower pair does not
    assert strictly_above(play("3d 3c Th Td", on), play("8d 8c 9h 9s", on))
    assert strictly_above(play("3d 3c 2d 2c", on), play("Kd Kc As Ah", on))
    # the higher pair compares as a pair: rank, then its higher suit (♠ beats ♥)
    assert strictly_above(play("3d 3c 9s 9d", on), play("4h 4s 9h 9c", on))
    # the same higher pair with another lower pair is the same level
    assert tie(play("3d 3c 9h 9s", on), play("4d 4c 9h 9s", on))


def test_four_card_family_order_two_pairs_below_quad() -> None:
    # spec 1.2: "Four-card plays (when allowed) rank two pairs < quad."
    on = rules(allow_two_pairs=True, allow_four_card_quads=True)
    four = [p for p in table_for(on).values() if p.size == 4]
    quads = [p for p in four if p.kind == Kind.QUAD]
    pairs2 = [p for p in four if p.kind == Kind.TWO_PAIRS]
    assert len(quads) == 13 and len(pairs2) == 2808
    lowest_quad = min(quads, key=lambda p: p.order)
    highest_two_pairs = max(pairs2, key=lambda p: p.order)
    assert str(lowest_quad) == "3♦3♣3♥3♠"
    assert strictly_above(lowest_quad, highest_two_pairs)
    rng = random.Random(12)
    for q in quads:
        for tp in rng.sample(pairs2, 50):
            assert strictly_above(q, tp)
    assert strictly_above(play("3d 3c 3h 3s", on), play("Ad As 2s 2h", on))


def test_four_cards_of_mixed_shape_are_nothing() -> None:
    # spec 1.2: the only four-card plays are quad and two pairs.
    on = rules(allow_two_pairs=True, allow_four_card_quads=True)
    for text in ("3d 3c 3h 4s", "3d 3c 4h 5s", "3d 4c 5h 6s"):
        assert classify(cards(text), on) is None
        assert isinstance(explain(cards(text), on), str)


# ---------------------------------------------------------------------------------------
# 1.2 five-card kinds
# ---------------------------------------------------------------------------------------

FIVE_KIND_ORDER = [
    Kind.STRAIGHT,
    Kind.FLUSH,
    Kind.FULL_HOUSE,
    Kind.FOUR_OF_A_KIND,
    Kind.STRAIGHT_FLUSH,
]


@pytest.mark.parametrize("preset", ["hk", "taiwan", "mainland", "hk-classic"])
def test_five_card_kind_order_extremes(preset: str) -> None:
    # spec 1.2: "Five-card kinds rank straight < flush < full house < four of a kind <
    # straight flush: any five-card play of a higher kind beats any of a lower kind."
    # Checked on the weakest play of each kind against the strongest of the kind below.
    rs = load_ruleset(preset, {"bombs": False})
    by_kind: dict[Kind, list[Play]] = {}
    for p in table_for(rs).values():
        by_kind.setdefault(p.kind, []).append(p)
    for low_kind, high_kind in itertools.pairwise(FIVE_KIND_ORDER):
        weakest = min(by_kind[high_kind], key=lambda p: p.order)
        strongest = max(by_kind[low_kind], key=lambda p: p.order)
        assert strictly_above(weakest, strongest), (high_kind, str(weakest), str(strongest))


def test_five_card_kind_order_random_pairs() -> None:
    # spec 1.2: any five-card play of a higher kind beats any of a lower kind (sampled).
    rng = random.Random(5)
    for rs in (HK, MAINLAND, rules(suit_order="taiwan", flush_compare="suit_then_ranks")):
        by_kind: dict[Kind, list[Play]] = {}
        for p in table_for(rs).values():
            by_kind.setdefault(p.kind, []).append(p)
        for (i, lo), (j, hi) in itertools.combinations(enumerate(FIVE_KIND_ORDER), 2):
            assert i < j
            for _ in range(200):
                a, b = rng.choice(by_kind[hi]), rng.choice(by_kind[lo])
                assert strictly_above(a, b), (str(a), str(b))


def test_spec_kinds_examples() -> None:
    # spec 1.2 kind order on concrete hands: a small straight flush beats four twos, four
    # threes beat the top full house, the weakest full house beats a top flush, the
    # weakest flush beats the top straight.
    assert strictly_above(play("3c 4c 5c 6c 7c"), play("2d 2c 2h 2s As"))
    assert strictly_above(play("3d 3c 3h 3s 4d"), play("2d 2c 2h As Ah"))
    assert strictly_above(play("3d 3c 3h 4s 4d"), play("2s As Ks Qs 9s"))
    assert strictly_above(play("3h 4h 5h 6h 8h"), play("As 2s 3d 4d 5d"))


def test_full_house_by_triple_rank() -> None:
    # spec 1.2 table, full house: compares by "rank of the triple"; K-K-K-2-2 equals
    # K-K-K-3-3 in level.
    assert play("7d 7c 7h 3s 3d").kind == Kind.FULL_HOUSE
    assert strictly_above(play("7d 7c 7h 3s 3d"), play("3h 3c 3s 9c 9h"))
    assert tie(play("Kd Kc Kh 2s 2d"), play("Kd Kc Kh 3s 3d"))
    assert strictly_above(play("4d 4c 4h 3s 3d"), play("3h 3c 3s 2c 2h"))


def test_four_of_a_kind_by_rank_of_the_four() -> None:
    # spec 1.2 table, four of a kind: "4 + any 1", compares by rank of the four;
    # "4-4-4-4-3 beats 3-3-3-3-K".
    assert play("4s 4h 4c 4d 3s").kind == Kind.FOUR_OF_A_KIND
    assert strictly_above(play("4s 4h 4c 4d 3s"), play("3d 3c 3h 3s Ks"))
    assert strictly_above(play("7d 7c 7h 7s 5d"), play("4d 4c 4h 4s 9d"))
    # the kicker does not matter
    assert tie(play("7d 7c 7h 7s 5d"), play("7d 7c 7h 7s 2s"))


# ---------------------------------------------------------------------------------------
# 1.2 four_of_a_kind: with a kicker (default), alone, or off
# ---------------------------------------------------------------------------------------


def test_four_of_a_kind_with_kicker_needs_the_fifth_card() -> None:
    # four_of_a_kind = with_kicker (000, 001, 002: "4 + any 1"): the four cards alone are no
    # play unless allow_four_card_quads; the refusal names both parameters.
    assert HK.four_of_a_kind.value == "with_kicker"
    reason = explain(cards("5d 5c 5h 5s"), HK)
    assert reason == (
        "four cards of a rank are not a play (allow_four_card_quads = false, "
        "four_of_a_kind = with_kicker needs a fifth card)"
    )
    assert play("5d 5c 5h 5s 3d").size == 5


def test_four_of_a_kind_alone_is_four_cards() -> None:
    # four_of_a_kind = alone (000: 其實只出四隻牌亦可): the four cards without a kicker are the
    # four of a kind; with a kicker they are refused, naming the parameter.
    rs = rules(four_of_a_kind="alone")
    four = play("5d 5c 5h 5s", rs)
    assert (four.kind, four.size, four.is_bomb) == (Kind.FOUR_OF_A_KIND, 4, False)
    assert classify(cards("5d 5c 5h 5s 3d"), rs) is None
    assert explain(cards("5d 5c 5h 5s 3d"), rs) == (
        "four of a kind is played without a kicker (four_of_a_kind = alone)"
    )
    # compares by the rank of the four
    assert strictly_above(play("6d 6c 6h 6s", rs), four)
    assert strictly_above(play("2d 2c 2h 2s", rs), play("Ad Ac Ah As", rs))
    # without bombs it follows only four-card plays: not a straight, not a single
    for text in ("3d 4c 5h 6s 7d", "2s", "Kd Kc"):
        other = play(text, rs)
        assert not four.beats(other) and not other.beats(four), text


def test_four_of_a_kind_alone_beats_two_pairs() -> None:
    # spec 1.2 "Four-card plays (when allowed) rank two pairs < quad": the four of a kind
    # played alone keeps its place above two pairs.
    rs = rules(four_of_a_kind="alone", allow_two_pairs=True)
    assert strictly_above(play("3d 3c 3h 3s", rs), play("Ad As 2s 2h", rs))


def test_four_of_a_kind_alone_as_a_bomb() -> None:
    # bombs + alone (001 Taiwan: 四條 is a bomb): the four cards alone beat any non-bomb trick
    # of any size, a straight flush beats them, and only a higher four or a straight flush
    # beats them.
    rs = load_ruleset("taiwan", {"four_of_a_kind": "alone"})
    four = play("3d 3c 3h 3s", rs)
    assert four.is_bomb and four.size == 4
    for text in NON_BOMB_TRICKS:
        assert strictly_above(four, play(text, rs)), text
    assert strictly_above(play("4d 4c 4h 4s", rs), four)
    assert strictly_above(play("3d 4d 5d 6d 7d", rs), play("2d 2c 2h 2s", rs))


def test_four_of_a_kind_alone_with_royal_only_beats_quads() -> None:
    # royal_only_beats_quads + bombs + alone: the four alone outranks a non-royal straight
    # flush, the royal one outranks the four.
    rs = load_ruleset("taiwan", {"four_of_a_kind": "alone", "royal_only_beats_quads": True})
    four = play("3d 3c 3h 3s", rs)
    assert strictly_above(four, play("9s Ts Js Qs Ks", rs))
    assert strictly_above(play("Td Jd Qd Kd Ad", rs), play("2d 2c 2h 2s", rs))


def test_four_of_a_kind_off() -> None:
    # four_of_a_kind = off: four cards of a rank make no four of a kind, with or without a
    # kicker; with allow_four_card_quads they still make the four-card quad.
    rs = rules(four_of_a_kind="off")
    assert classify(cards("5d 5c 5h 5s 3d"), rs) is None
    assert (
        explain(cards("5d 5c 5h 5s 3d"), rs) == "four of a kind is no play (four_of_a_kind = off)"
    )
    assert classify(cards("5d 5c 5h 5s"), rs) is None
    assert "four_of_a_kind = off" in str(explain(cards("5d 5c 5h 5s"), rs))
    quads = rules(four_of_a_kind="off", allow_four_card_quads=True, bombs=True)
    quad = play("5d 5c 5h 5s", quads)
    assert quad.kind == Kind.QUAD and not quad.is_bomb
    assert not any(p.kind == Kind.FOUR_OF_A_KIND for p in table_for(quads).values())


def test_five_cards_with_triple_and_two_odd_cards_are_nothing() -> None:
    # spec 1.2 table: no five-card kind has a triple plus two different cards.
    assert classify(cards("7d 7c 7h 3s 4d"), HK) is None
    assert isinstance(explain(cards("7d 7c 7h 3s 4d"), HK), str)


def test_two_pairs_plus_one_parameter() -> None:
    # spec 1.2 table, two pairs + 1: parameter allow_two_pairs_plus_one, default off;
    # compares by the higher pair; ranks below straight.
    assert classify(cards("5d 5c 9h 9s Kd"), HK) is None
    assert "allow_two_pairs_plus_one = false" in str(explain(cards("5d 5c 9h 9s Kd"), HK))
    on = rules(allow_two_pairs_plus_one=True)
    assert play("5d 5c 9h 9s Kd", on).kind == Kind.TWO_PAIRS_PLUS_ONE
    assert strictly_above(play("3d 3c Th Td 4s", on), play("8d 8c 9h 9s 2s", on))
    assert strictly_above(play("3d 3c 9s 9d 4s", on), play("4h 4c 9h 9c As", on))
    assert strictly_above(play("3d 4c 5h 6s 7d", on), play("2d 2c Ah As Kd", on))


def test_two_pairs_plus_one_below_every_straight() -> None:
    # spec 1.2: two pairs + 1 "ranks below straight" (and so below every five-card kind).
    on = rules(allow_two_pairs_plus_one=True)
    fives = [p for p in table_for(on).values() if p.size == 5]
    tp1 = [p for p in fives if p.kind == Kind.TWO_PAIRS_PLUS_ONE]
    others = [p for p in fives if p.kind != Kind.TWO_PAIRS_PLUS_ONE]
    weakest_other = min(others, key=lambda p: p.order)
    assert weakest_other.kind == Kind.STRAIGHT
    assert strictly_above(weakest_other, max(tp1, key=lambda p: p.order))
    rng = random.Random(3)
    for _ in range(2000):
        a, b = rng.choice(others), rng.choice(tp1)
        assert strictly_above(a, b), (str(a), str(b))


# ---------------------------------------------------------------------------------------
# 1.2 straight_order
# ---------------------------------------------------------------------------------------

SEQ_LOW = ["3", "4", "5", "6", "7", "8", "9", "10"]  # 34567 ... 10JQKA by lowest rank


def seq(low: str) -> tuple[str, ...]:
    """Five consecutive ranks in poker order starting at ``low`` (A may be low or high)."""
    poker = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    i = poker.index(low) if low != "A" else 0
    return tuple(poker[i : i + 5])


PLAIN = [seq(r) for r in SEQ_LOW]  # 34567 < ... < TJQKA
A2345, S23456, JQKA2 = seq("A"), seq("2"), ("J", "Q", "K", "A", "2")

#: spec 1.2 straight_order: the straights of each order, weakest first.
STRAIGHT_ORDERS: dict[str, list[tuple[str, ...]]] = {
    "hk": [*PLAIN, S23456, A2345],
    "big2_natural": [*PLAIN, JQKA2],
    "poker": [A2345, S23456, *PLAIN],
    "a2345_top_poker": [S23456, *PLAIN, A2345],
    "akqjt_top_poker": [S23456, *PLAIN[:-1], A2345, PLAIN[-1]],
}


def straight_of(ranks: tuple[str, ...], top_suit: str, other_suit: str = "d") -> str:
    """A mixed-suit straight on ``ranks`` whose highest card (Big Two order) has ``top_suit``."""
    top = max(ranks, key=RANK_TEXT.index)
    return " ".join(r + (top_suit if r == top else other_suit) for r in ranks)


def rank_set_text(ranks: tuple[str, ...]) -> str:
    return "".join(ranks)


@pytest.mark.parametrize("order", [*STRAIGHT_ORDERS, "highest_card"])
def test_which_rank_sets_are_straights(order: str) -> None:
    # spec 1.2 straight_order: hk, highest_card, poker, a2345_top_poker, akqjt_top_poker
    # have the ten sequences 34567..TJQKA, 23456, A2345; big2_natural has nine, 34567..TJQKA
    # and JQKA2. Every other 5-rank set (all 1287 checked) is not a straight.
    rs = rules(straight_order=order)
    expected = {frozenset(s) for s in STRAIGHT_ORDERS.get(order, STRAIGHT_ORDERS["hk"])}
    assert len(expected) == (9 if order == "big2_natural" else 10)
    for five in itertools.combinations(RANK_TEXT, 5):
        text = straight_of(five, "s")
        got = classify(cards(text), rs)
        is_straight = frozenset(five) in expected
        assert (got is not None and got.kind == Kind.STRAIGHT) == is_straight, (order, text)
        if not is_straight:
            assert got is None, (order, text, got)


@pytest.mark.parametrize("order", list(STRAIGHT_ORDERS))
def test_straight_sequence_order(order: str) -> None:
    # spec 1.2 straight_order: the exact ranking of sequences, weakest first:
    # hk 34567 < ... < TJQKA < 23456 < A2345; big2_natural 34567 < ... < TJQKA < JQKA2;
    # poker 5432A < 65432 < ... < AKQJT; a2345_top_poker 65432 < ... < AKQJT < A2345;
    # akqjt_top_poker 65432 < ... < KQJT9 < A2345 < AKQJT.
    # A straight "compares first by its sequence's position in the order": the weaker
    # sequence loses even with a spade top card against a diamond top card.
    rs = rules(straight_order=order)
    seqs = STRAIGHT_ORDERS[order]
    for (i, lo), (j, hi) in itertools.combinations(enumerate(seqs), 2):
        assert i < j
        a = play(straight_of(hi, "d", "c"), rs)
        b = play(straight_of(lo, "s", "h"), rs)
        assert a.kind == b.kind == Kind.STRAIGHT
        assert strictly_above(a, b), (order, rank_set_text(hi), rank_set_text(lo))


def test_hk_straight_examples() -> None:
    # spec 1.2 straight_order hk: A2345 > 23456 > 10JQKA > 9TJQK > ... > 34567;
    # J-Q-K-A-2, Q-K-A-2-3, K-A-2-3-4 are not straights.
    chain = ["As 2d 3d 4d 5d", "2c 3s 4s 5s 6s", "Th Jh Qh Kh Ad", "9s Ts Js Qs Kh"]
    plays = [play(t) for t in chain]
    for a, b in itertools.pairwise(plays):
        assert strictly_above(a, b), (str(a), str(b))
    assert strictly_above(play("9s Ts Js Qs Kh"), play("8s 9s Ts Js Qh"))
    assert strictly_above(play("4d 5d 6d 7d 8c"), play("3s 4s 5s 6s 7h"))
    for text in ("Jd Qc Kh As 2s", "Qd Kc Ah 2s 3s", "Kd Ac 2h 3s 4s"):
        assert classify(cards(text), HK) is None, text


def test_big2_natural_examples() -> None:
    # spec 1.2 straight_order big2_natural: JQKA2 is the top; A2345 and 23456 are not
    # straights; no wrap-around.
    rs = rules(straight_order="big2_natural")
    top = play("Jd Qc Kh As 2d", rs)
    assert top.kind == Kind.STRAIGHT
    assert strictly_above(top, play("Ts Js Qs Ks Ah", rs))
    for text in ("Ad 2c 3h 4s 5s", "2d 3c 4h 5s 6s", "Qd Kc Ah 2s 3s", "Kd Ac 2h 3s 4s"):
        assert classify(cards(text), rs) is None, text


def test_highest_card_straights_mainland() -> None:
    # spec 1.2 straight_order highest_card (003 mainland): the ten hk sequences; a straight
    # compares only by its highest card in Big-Two order (rank, then suit): 23456 and
    # A2345 both top out at a 2 and are told apart by the suit of the 2;
    # 6-5-4-3-2 beats 10-J-Q-K-A.
    rs = MAINLAND
    assert rs.straight_order.value == "highest_card"
    assert strictly_above(play("2s 3d 4d 5d 6d", rs), play("Ad 2h 3s 4s 5s", rs))
    assert strictly_above(play("Ad 2s 3d 4d 5c", rs), play("2h 3s 4s 5s 6s", rs))
    assert strictly_above(play("2d 3c 4c 5c 6c", rs), play("Ts Js Qs Ks Ah", rs))
    assert strictly_above(play("Ts Js Qs Ks Ad", rs), play("9s Ts Js Qs Kh", rs))
    assert strictly_above(play("4d 5d 6d 7d 8c", rs), play("3s 4s 5s 6s 7h", rs))
    for text in ("Jd Qc Kh As 2s", "Qd Kc Ah 2s 3s", "Kd Ac 2h 3s 4s"):
        assert classify(cards(text), rs) is None, text


def test_highest_card_straights_full_order() -> None:
    # spec 1.2 highest_card: for every two straights, the one with the higher highest
    # card (rank, then suit) wins (sampled over the table).
    rs = MAINLAND
    straights = [p for p in table_for(rs).values() if p.kind == Kind.STRAIGHT]

    def top(p: Play) -> tuple[int, int]:
        c = max(cards_of(p.mask), key=lambda c: (c >> 2, c & 3))  # hk suits: index = strength
        return c >> 2, c & 3

    rng = random.Random(9)
    for _ in range(3000):
        a, b = rng.choice(straights), rng.choice(straights)
        assert a.beats(b) == (top(a) > top(b)), (str(a), str(b))


def test_poker_straight_examples() -> None:
    # spec 1.2 straight_order poker: 2 counts low inside straights;
    # A-K-Q-J-10 > K-Q-J-10-9 > ... > 6-5-4-3-2 > 5-4-3-2-A.
    rs = rules(straight_order="poker")
    chain = [
        "Ad Kd Qd Jd Tc",
        "Ks Qs Js Ts 9d",
        "Qs Js Ts 9s 8d",
        "7s 6s 5s 4s 3d",
        "6s 5s 4s 3s 2d",
        "5s 4s 3s 2h As",
    ]
    plays = [play(t, rs) for t in chain]
    for a, b in itertools.pairwise(plays):
        assert strictly_above(a, b), (str(a), str(b))
    assert classify(cards("Jd Qc Kh As 2s"), rs) is None


def test_a2345_top_poker_examples() -> None:
    # spec 1.2 straight_order a2345_top_poker: A-2-3-4-5 > A-K-Q-J-10 > K-Q-J-10-9 > ...
    # > 6-5-4-3-2.
    rs = rules(straight_order="a2345_top_poker")
    chain = [
        "Ad 2d 3d 4d 5c",
        "As Ks Qs Js Td",
        "Ks Qs Js Ts 9d",
        "7s 6s 5s 4s 3d",
        "6s 5s 4s 3s 2h",
    ]
    plays = [play(t, rs) for t in chain]
    for a, b in itertools.pairwise(plays):
        assert strictly_above(a, b), (str(a), str(b))


def test_akqjt_top_poker_examples() -> None:
    # spec 1.2 straight_order akqjt_top_poker: A-K-Q-J-10 > A-2-3-4-5 > K-Q-J-10-9 > ...
    # > 6-5-4-3-2.
    rs = rules(straight_order="akqjt_top_poker")
    chain = [
        "Ad Kd Qd Jd Tc",
        "As 2s 3s 4s 5d",
        "Ks Qs Js Ts 9d",
        "7s 6s 5s 4s 3d",
        "6s 5s 4s 3s 2h",
    ]
    plays = [play(t, rs) for t in chain]
    for a, b in itertools.pairwise(plays):
        assert strictly_above(a, b), (str(a), str(b))


@pytest.mark.parametrize("order", list(STRAIGHT_ORDERS))
@pytest.mark.parametrize("suit_order", ["hk", "taiwan"])
def test_same_sequence_suit_of_highest_card_decides(order: str, suit_order: str) -> None:
    # spec 1.2 straight_order: "then (same sequence) by the suit of its highest card under
    # single-card order (the 2 in A2345 and 23456)". The other cards' suits do not matter.
    rs = rules(straight_order=order, suit_order=suit_order)
    suits_up = ["d", "c", "h", "s"] if suit_order == "hk" else ["c", "d", "h", "s"]
    for ranks in STRAIGHT_ORDERS[order]:
        for lo, hi in itertools.combinations(suits_up, 2):
            weak = play(straight_of(ranks, lo, "s" if lo != "s" else "h"), rs)
            strong = play(straight_of(ranks, hi, lo), rs)
            assert strictly_above(strong, weak), (order, str(strong), str(weak))
        # same highest card: same level, whatever the other suits
        assert tie(play(straight_of(ranks, "h", "d"), rs), play(straight_of(ranks, "h", "s"), rs))


# ---------------------------------------------------------------------------------------
# 1.2 flush_compare
# ---------------------------------------------------------------------------------------


def test_flush_ranks_then_suit_examples() -> None:
    # spec 1.2 flush_compare ranks_then_suit: ranks from the highest card down,
    # lexicographically; equal ranks -> suit. 000: ♠2-4-5-6-8 > ♥A-K-Q-10-8;
    # ♦A-6-5-4-3 > ♠K-Q-J-10-8. 001: ♥2♥K♥J♥9♥7 > ♠2♠K♠9♠8♠4 > ♦2♦K♦9♦8♦4.
    assert HK.flush_compare.value == "ranks_then_suit"
    assert strictly_above(play("♠2♠4♠5♠6♠8"), play("♥A♥K♥Q♥10♥8"))
    assert strictly_above(play("♦A♦6♦5♦4♦3"), play("♠K♠Q♠J♠10♠8"))
    a, b, c = play("♥2♥K♥J♥9♥7"), play("♠2♠K♠9♠8♠4"), play("♦2♦K♦9♦8♦4")
    assert strictly_above(a, b) and strictly_above(b, c) and strictly_above(a, c)
    assert all(p.kind == Kind.FLUSH for p in (a, b, c))


def test_flush_ranks_then_suit_taiwan_suits() -> None:
    # spec 1.2 ranks_then_suit with spec 1.1 taiwan suits: equal ranks, ♦ beats ♣.
    assert strictly_above(play("♦2♦K♦9♦8♦4", TAIWAN), play("♣2♣K♣9♣8♣4", TAIWAN))
    assert strictly_above(play("♣2♣K♣9♣8♣4", HK), play("♦2♦K♦9♦8♦4", HK))


def test_flush_ranks_then_suit_full_order() -> None:
    # spec 1.2 ranks_then_suit on sampled flushes: the descending rank list decides,
    # then the suit.
    flushes = [p for p in table_for(HK).values() if p.kind == Kind.FLUSH]

    def key(p: Play) -> tuple[list[int], int]:
        cs = cards_of(p.mask)
        return sorted((c >> 2 for c in cs), reverse=True), cs[0] & 3

    rng = random.Random(21)
    for _ in range(3000):
        a, b = rng.choice(flushes), rng.choice(flushes)
        assert a.beats(b) == (key(a) > key(b)), (str(a), str(b))


def test_flush_highest_card() -> None:
    # spec 1.2 flush_compare highest_card (001 local rule, 003): the highest card's rank,
    # then its suit; the other cards do not count.
    rs = rules(flush_compare="highest_card")
    assert strictly_above(play("♥2♥3♥4♥5♥7", rs), play("♠A♠K♠Q♠J♠9", rs))
    assert strictly_above(play("♠2♠3♠4♠5♠7", rs), play("♥2♥K♥Q♥J♥9", rs))
    assert tie(play("♥2♥3♥4♥5♥7", rs), play("♥2♥K♥Q♥J♥9", rs))
    # the mainland preset uses it
    assert strictly_above(play("♥2♥3♥4♥5♥7", MAINLAND), play("♠A♠K♠Q♠J♠9", MAINLAND))


def test_flush_suit_then_ranks() -> None:
    # spec 1.2 flush_compare suit_then_ranks: suit first, then ranks from the top down.
    rs = rules(flush_compare="suit_then_ranks")
    assert strictly_above(play("♠3♠4♠5♠6♠8", rs), play("♥2♥A♥K♥Q♥10", rs))
    assert strictly_above(play("♠K♠9♠7♠5♠4", rs), play("♠K♠9♠7♠5♠3", rs))
    assert strictly_above(play("♠K♠9♠7♠6♠3", rs), play("♠K♠9♠7♠5♠4", rs))
    tw = rules(flush_compare="suit_then_ranks", suit_order="taiwan")
    assert strictly_above(play("♦3♦4♦5♦6♦8", tw), play("♣2♣A♣K♣Q♣10", tw))


# ---------------------------------------------------------------------------------------
# 1.2 straight flush, royal_only_beats_quads
# ---------------------------------------------------------------------------------------


def test_straight_flush_compares_as_straight_then_suit() -> None:
    # spec 1.2 table, straight flush: "5 in sequence, one suit", compares "as straight,
    # then suit".
    assert play("3c 4c 5c 6c 7c").kind == Kind.STRAIGHT_FLUSH
    assert strictly_above(play("3s 4s 5s 6s 7s"), play("3h 4h 5h 6h 7h"))
    assert strictly_above(play("Td Jd Qd Kd Ad"), play("9s Ts Js Qs Ks"))
    # hk order: A2345 is the top sequence, 23456 next
    assert strictly_above(play("Ad 2d 3d 4d 5d"), play("Ts Js Qs Ks As"))
    assert strictly_above(play("Ad 2d 3d 4d 5d"), play("2s 3s 4s 5s 6s"))
    # a suited J-Q-K-A-2 is no straight under hk, so it is a flush
    assert play("Jd Qd Kd Ad 2d").kind == Kind.FLUSH
    # highest_card: by the highest card only
    assert strictly_above(play("2s 3s 4s 5s 6s", MAINLAND), play("Ah 2h 3h 4h 5h", MAINLAND))
    # poker: 5432A is the lowest straight flush
    poker = rules(straight_order="poker")
    assert strictly_above(play("2d 3d 4d 5d 6d", poker), play("As 2s 3s 4s 5s", poker))


@pytest.mark.parametrize("order", [*STRAIGHT_ORDERS, "highest_card"])
def test_straight_flushes_rank_like_straights(order: str) -> None:
    # spec 1.2: straight flush compares "as straight, then suit": two straight flushes
    # compare exactly as the straights with the same highest card would.
    rs = rules(straight_order=order)
    table = table_for(rs)
    sfs = [p for p in table.values() if p.kind == Kind.STRAIGHT_FLUSH]
    assert len(sfs) == (36 if order == "big2_natural" else 40)

    def as_straight(p: Play) -> Play:
        cs = cards_of(p.mask)
        top = max(cs, key=lambda c: (c >> 2, c & 3))
        other = [card(c >> 2, (c & 3) ^ 1) for c in cs if c != top]  # change the other suits
        got = table[mask_of([top, *other])]
        assert got.kind == Kind.STRAIGHT
        return got

    for a, b in itertools.product(sfs, repeat=2):
        assert a.beats(b) == as_straight(a).beats(as_straight(b)), (str(a), str(b))


def test_royal_only_beats_quads() -> None:
    # spec 1.2: royal_only_beats_quads (001 local rule): only 10-J-Q-K-A straight flushes
    # outrank four of a kind; other straight flushes rank between full house and four.
    rs = rules(royal_only_beats_quads=True)
    royal = play("Td Jd Qd Kd Ad", rs)
    low_royal = play("Tc Jc Qc Kc Ac", rs)  # hk suits: ♣ > ♦
    top_quad = play("2d 2c 2h 2s As", rs)
    low_quad = play("3d 3c 3h 3s 4d", rs)
    top_full_house = play("2d 2c 2h As Ah", rs)
    for sf_text in ("Ad 2d 3d 4d 5d", "2s 3s 4s 5s 6s", "9s Ts Js Qs Ks", "3d 4d 5d 6d 7d"):
        sf = play(sf_text, rs)
        assert sf.kind == Kind.STRAIGHT_FLUSH
        assert strictly_above(low_quad, sf), sf_text
        assert strictly_above(sf, top_full_house), sf_text
        assert strictly_above(royal, sf), sf_text
    assert strictly_above(royal, top_quad)
    assert strictly_above(low_royal, royal)
    # non-royal straight flushes keep their straight order among themselves
    assert strictly_above(play("Ad 2d 3d 4d 5d", rs), play("9s Ts Js Qs Ks", rs))
    # without the rule, every straight flush beats every four of a kind
    assert strictly_above(play("3d 4d 5d 6d 7d"), play("2d 2c 2h 2s As"))


def test_royal_only_beats_quads_whole_table() -> None:
    # spec 1.2 royal_only_beats_quads, every straight flush against the extremes.
    rs = rules(royal_only_beats_quads=True)
    fives = list(table_for(rs).values())
    quads = [p for p in fives if p.kind == Kind.FOUR_OF_A_KIND]
    houses = [p for p in fives if p.kind == Kind.FULL_HOUSE]
    weakest_quad = min(quads, key=lambda p: p.order)
    strongest_quad = max(quads, key=lambda p: p.order)
    strongest_house = max(houses, key=lambda p: p.order)
    for sf in (p for p in fives if p.kind == Kind.STRAIGHT_FLUSH):
        royal = {c >> 2 for c in cards_of(sf.mask)} == {7, 8, 9, 10, 11}
        if royal:
            assert strictly_above(sf, strongest_quad), str(sf)
        else:
            assert strictly_above(weakest_quad, sf), str(sf)
            assert strictly_above(sf, strongest_house), str(sf)


# ---------------------------------------------------------------------------------------
# 1.2 bombs
# ---------------------------------------------------------------------------------------

NON_BOMB_TRICKS = [
    "2s",
    "2s 2h",
    "2s 2h 2c",
    "As 2s 3s 4s 5d",  # top straight
    "2s As Ks Qs 9s",  # top flush
    "2d 2c 2h As Ah",  # top full house
]


@pytest.mark.parametrize("bomb", ["3d 3c 3h 3s 4d", "3d 4d 5d 6d 7d"])
@pytest.mark.parametrize("top", NON_BOMB_TRICKS)
@pytest.mark.parametrize("preset", ["hk", "taiwan"])
def test_bombs_beat_any_trick(bomb: str, top: str, preset: str) -> None:
    # spec 1.2 bombs (001 local rule, Taiwan): four of a kind and straight flush may be
    # played on top of any trick (single, pair, triple, five); the trick's cards cannot
    # answer a bomb.
    rs = load_ruleset(preset, {"bombs": True})
    b, t = play(bomb, rs), play(top, rs)
    assert b.is_bomb and not t.is_bomb
    assert strictly_above(b, t)


@pytest.mark.parametrize("top", ["5d 5c 9h 9s", "5d 5c 5h 5s"])
def test_bombs_beat_four_card_tricks(top: str) -> None:
    # spec 1.2 bombs: "on top of any trick" includes the four-card family when allowed.
    rs = rules(bombs=True, allow_two_pairs=True, allow_four_card_quads=True)
    assert strictly_above(play("3d 3c 3h 3s 4d", rs), play(top, rs))


def test_only_a_higher_bomb_beats_a_bomb() -> None:
    # spec 1.2 bombs: "and then only a higher bomb beats them".
    rs = TAIWAN
    assert rs.bombs
    q3, q4 = play("3d 3c 3h 3s 4d", rs), play("4d 4c 4h 4s 3d", rs)
    sf_low, sf_high = play("3d 4d 5d 6d 7d", rs), play("4s 5s 6s 7s 8s", rs)
    assert strictly_above(q4, q3)
    assert strictly_above(sf_low, q4)
    assert strictly_above(sf_high, sf_low)
    for bomb in (q3, q4, sf_low, sf_high):
        for text in [*NON_BOMB_TRICKS, "Td Jd Qd Kd Ac"]:
            assert not play(text, rs).beats(bomb), (text, str(bomb))


def test_bombs_with_royal_only_beats_quads() -> None:
    # spec 1.2 bombs + royal_only_beats_quads: a four of a kind is a higher bomb than a
    # non-royal straight flush.
    rs = rules(bombs=True, royal_only_beats_quads=True)
    sf, quad = play("3d 4d 5d 6d 7d", rs), play("3c 3h 3s 3d 4c", rs)
    assert sf.is_bomb and quad.is_bomb
    assert strictly_above(quad, sf)
    assert strictly_above(play("Td Jd Qd Kd Ad", rs), quad)


@pytest.mark.parametrize("top", ["2s", "2s 2h", "2s 2h 2c", "As 2s 3s 4s 5d"])
def test_no_bombs_four_of_a_kind_is_a_five_card_play(top: str) -> None:
    # spec 1.2 / 1.4: with bombs off, following needs the same number of cards, so a four
    # of a kind or straight flush cannot be played on a single, pair or triple.
    quad, sf = play("3d 3c 3h 3s 4d"), play("3c 4c 5c 6c 7c")
    assert not quad.is_bomb and not sf.is_bomb
    t = play(top)
    if t.size == 5:
        assert strictly_above(quad, t) and strictly_above(sf, t)
    else:
        assert not quad.beats(t) and not sf.beats(t)
        assert not t.beats(quad) and not t.beats(sf)


def test_different_sizes_never_beat_each_other_without_bombs() -> None:
    # spec 1.4: "Following: same number of cards and same family".
    rs = rules(allow_two_pairs=True, allow_four_card_quads=True)
    by_size: dict[int, list[Play]] = {}
    for p in table_for(rs).values():
        by_size.setdefault(p.size, []).append(p)
    rng = random.Random(4)
    for s1, s2 in itertools.permutations(by_size, 2):
        for _ in range(50):
            assert not rng.choice(by_size[s1]).beats(rng.choice(by_size[s2]))


# ---------------------------------------------------------------------------------------
# explain(), require_play
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "overrides", "reason"),
    [
        ("3d 3c 3h", {"allow_triples": False}, "triples are not allowed (allow_triples = false)"),
        ("Jd Qc Kh As 2s", {}, "J-Q-K-A-2 is not a straight under straight_order = hk"),
        ("Qd Kc Ah 2s 3s", {}, "Q-K-A-2-3 is not a straight under straight_order = hk"),
        ("Kd Ac 2h 3s 4s", {}, "K-A-2-3-4 is not a straight under straight_order = hk"),
        (
            "Ad 2c 3h 4s 5s",
            {"straight_order": "big2_natural"},
            "A-2-3-4-5 is not a straight under straight_order = big2_natural",
        ),
        (
            "2d 3c 4h 5s 6s",
            {"straight_order": "big2_natural"},
            "2-3-4-5-6 is not a straight under straight_order = big2_natural",
        ),
        (
            "Jd Qc Kh As 2s",
            {"straight_order": "poker"},
            "J-Q-K-A-2 is not a straight under straight_order = poker",
        ),
    ],
)
def test_explain_exact_reasons(text: str, overrides: dict[str, Any], reason: str) -> None:
    # spec 1.2 (and STYLE 2: named errors carrying the evidence): a refusal names the rule.
    assert explain(cards(text), rules(**overrides)) == reason


@pytest.mark.parametrize(
    ("text", "overrides", "names"),
    [
        ("5d 5c 5h 5s", {}, "allow_four_card_quads = false"),
        ("5d 5c 9h 9s", {}, "allow_two_pairs = false"),
        ("5d 5c 9h 9s Kd", {}, "allow_two_pairs_plus_one = false"),
        ("6s 7s", {}, "pair"),
        ("3d 3c 4h", {}, "triple"),
        ("3d 3c 4h 5s", {}, "quad or two pairs"),
        ("3d 5c 7h 9s Jd", {}, "straight"),
        ("3d 3c 3h 3s 4d 5d", {}, "6 cards"),
        ("", {}, "no cards"),
    ],
)
def test_explain_reasons_name_the_rule(text: str, overrides: dict[str, Any], names: str) -> None:
    # spec 1.2: every refusal carries a reason; parameter refusals name the parameter.
    got = explain(cards(text) if text else 0, rules(**overrides))
    assert isinstance(got, str)
    assert names in got


def test_require_play_raises_not_a_combination() -> None:
    # spec 1.2 + STYLE 2: an illegal card set is refused with a stable code and the reason.
    with pytest.raises(IllegalPlayError) as info:
        require_play(cards("Jd Qc Kh As 2s"), HK, seat=2, trick=4)
    err = info.value
    assert err.code == "E_NOT_A_COMBINATION"
    assert "J-Q-K-A-2 is not a straight under straight_order = hk" in err.message
    assert format_cards(cards("Jd Qc Kh As 2s")) in err.message
    assert err.context["seat"] == 2 and err.context["trick"] == 4
    assert require_play(cards("3d"), HK).kind == Kind.SINGLE
    with pytest.raises(IllegalPlayError, match="allow_triples = false"):
        require_play(cards("3d 3c 3h"), rules(allow_triples=False))


# ---------------------------------------------------------------------------------------
# Hypothesis properties
# ---------------------------------------------------------------------------------------

NOTATIONS = [
    lambda c: format_card(c, compact=True),  # Td
    lambda c: format_card(c),  # 10♦
    lambda c: SUIT_SYMBOL[c & 3] + RANK_TEXT[c >> 2],  # ♦10
    lambda c: ("階磚", "梅花", "紅心", "葵扇")[c & 3] + RANK_TEXT[c >> 2],
    lambda c: format_card(c, compact=True).upper(),  # TD
]

subsets = st.lists(st.integers(0, 51), min_size=1, max_size=5, unique=True)
#: Card sets inside a window of five consecutive ranks (cyclic, so A-2-3-4-5 and J-Q-K-A-2
#: occur): pairs, triples, full houses, four of a kinds and runs turn up often.
near_combos = st.integers(0, 12).flatmap(
    lambda low: st.lists(
        st.builds(lambda k, s: card((low + k) % 13, s), st.integers(0, 4), st.integers(0, 3)),
        min_size=1,
        max_size=5,
        unique=True,
    )
)


@settings(max_examples=300, deadline=None)
@given(cs=st.one_of(subsets, near_combos), data=st.data())
def test_classification_ignores_card_order(cs: list[int], data: st.DataObject) -> None:
    # spec 1.1-1.2: a combination is a set of cards; the order a log lists them in (and
    # the notation) changes nothing.
    tokens = [data.draw(st.sampled_from(NOTATIONS))(c) for c in cs]
    shuffled = data.draw(st.permutations(tokens))
    mask = mask_of(parse_cards(" ".join(shuffled)))
    assert mask == mask_of(cs)
    for rs in (HK, TAIWAN, MAINLAND):
        assert classify(mask, rs) == classify(mask_of(sorted(cs)), rs)
        assert explain(mask_of(reversed(cs)), rs) == explain(mask, rs)


def _ruleset_pool() -> list[Ruleset]:
    """Combination parameters in many mixes; every value of every parameter appears."""
    rng = random.Random(1234)
    pool = [
        rules(),
        rules(
            allow_two_pairs=True,
            allow_two_pairs_plus_one=True,
            allow_four_card_quads=True,
            allow_triples=False,
            royal_only_beats_quads=True,
        ),
    ]
    orders = ["hk", "big2_natural", "highest_card", "poker", "a2345_top_poker", "akqjt_top_poker"]
    flushes = ["ranks_then_suit", "highest_card", "suit_then_ranks"]
    for i, order in enumerate(orders):
        pool.append(
            rules(
                straight_order=order,
                flush_compare=flushes[i % 3],
                suit_order=("hk", "taiwan")[i % 2],
                allow_triples=rng.random() < 0.7,
                allow_four_card_quads=rng.random() < 0.5 and i % 3 != 1,  # not with alone
                allow_two_pairs=rng.random() < 0.5,
                allow_two_pairs_plus_one=i == 3,
                four_of_a_kind=("with_kicker", "alone", "off")[i % 3],
                bombs=rng.random() < 0.5,
                royal_only_beats_quads=rng.random() < 0.5,
            )
        )
    return pool


RULESET_POOL = _ruleset_pool()


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cs=st.one_of(subsets, near_combos), rs=st.sampled_from(RULESET_POOL))
def test_classify_agrees_with_explain(cs: list[int], rs: Ruleset) -> None:
    # spec 1.2: the fast table and the explaining classifier are one definition: a card
    # set is a play in one exactly when it is in the other, with the same kind and order.
    mask = mask_of(cs)
    fast, slow = classify(mask, rs), explain(mask, rs)
    if fast is None:
        assert isinstance(slow, str) and slow, (format_cards(mask), rs.overrides, slow)
    else:
        assert slow == fast, (format_cards(mask), rs.overrides)


def _plays_by_size(rs: Ruleset) -> dict[int, list[Play]]:
    out: dict[int, list[Play]] = {}
    for p in table_for(rs).values():
        out.setdefault(p.size, []).append(p)
    return out


ORDER_RULESETS = [
    rules(allow_two_pairs=True, allow_four_card_quads=True),
    rules(suit_order="taiwan", straight_order="akqjt_top_poker", flush_compare="suit_then_ranks"),
    load_ruleset("mainland", {"royal_only_beats_quads": True, "allow_two_pairs": True}),
    rules(straight_order="big2_natural", allow_two_pairs_plus_one=True),
    rules(four_of_a_kind="alone", allow_two_pairs=True),
]
ORDER_PLAYS = [(rs, _plays_by_size(rs)) for rs in ORDER_RULESETS]


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_beats_is_a_strict_order_within_a_size(data: st.DataObject) -> None:
    # spec 1.2 / 1.4: without bombs, "beats" orders the plays of one size strictly:
    # irreflexive, antisymmetric, transitive; and of two disjoint plays (both could be in
    # play from one deck) exactly one beats the other.
    rs, by_size = data.draw(st.sampled_from(ORDER_PLAYS))
    size = data.draw(st.sampled_from(sorted(by_size)))
    a, b, c = (data.draw(st.sampled_from(by_size[size])) for _ in range(3))
    assert not a.beats(a)
    assert not (a.beats(b) and b.beats(a))
    if a.beats(b) and b.beats(c):
        assert a.beats(c), (str(a), str(b), str(c))
    if not a.beats(b) and not b.beats(a) and not (b.beats(c) or c.beats(b)):
        assert not a.beats(c) and not c.beats(a), (str(a), str(b), str(c))  # ties transitive
    if a.mask & b.mask == 0:
        assert a.beats(b) != b.beats(a), (str(a), str(b), rs.overrides)


# ---------------------------------------------------------------------------------------
# play table sizes
# ---------------------------------------------------------------------------------------


def test_play_table_sizes_hk() -> None:
    # spec 1.2 under the hk preset, counted from one deck: 52 singles, C(4,2)*13 = 78
    # pairs, C(4,3)*13 = 52 triples, 10 sequences * 4^5 straights minus the 40 straight
    # flushes, 4 * C(13,5) flushes minus the straight flushes, 13*4*12*6 = 3744 full
    # houses, 13 * 48 = 624 four of a kinds, 10 * 4 = 40 straight flushes.
    counts = Counter(p.kind for p in table_for(HK).values())
    assert counts == {
        Kind.SINGLE: 52,
        Kind.PAIR: 78,
        Kind.TRIPLE: 52,
        Kind.STRAIGHT: 10 * 1024 - 40,
        Kind.FLUSH: 5148 - 40,
        Kind.FULL_HOUSE: 3744,
        Kind.FOUR_OF_A_KIND: 624,
        Kind.STRAIGHT_FLUSH: 40,
    }


@pytest.mark.parametrize(
    ("overrides", "extra"),
    [
        ({"straight_order": "big2_natural"}, {}),
        ({"straight_order": "highest_card"}, {}),
        ({"straight_order": "poker"}, {}),
        ({"straight_order": "a2345_top_poker", "suit_order": "taiwan"}, {}),
        ({"straight_order": "akqjt_top_poker", "royal_only_beats_quads": True}, {}),
        ({"allow_triples": False, "bombs": True}, {Kind.TRIPLE: 0}),
        ({"allow_four_card_quads": True}, {Kind.QUAD: 13}),
        ({"allow_two_pairs": True}, {Kind.TWO_PAIRS: 78 * 36}),
        ({"allow_two_pairs_plus_one": True}, {Kind.TWO_PAIRS_PLUS_ONE: 78 * 36 * 44}),
        ({"four_of_a_kind": "alone"}, {Kind.FOUR_OF_A_KIND: 13}),
        ({"four_of_a_kind": "alone", "bombs": True}, {Kind.FOUR_OF_A_KIND: 13}),
        ({"four_of_a_kind": "off"}, {Kind.FOUR_OF_A_KIND: 0}),
        (
            {"four_of_a_kind": "off", "allow_four_card_quads": True},
            {Kind.FOUR_OF_A_KIND: 0, Kind.QUAD: 13},
        ),
    ],
)
def test_play_table_sizes_variants(overrides: dict[str, Any], extra: dict[Kind, int]) -> None:
    # spec 1.2: the same counts under other parameters (9 sequences under big2_natural,
    # 10 otherwise; two pairs C(13,2) * 6 * 6; two pairs + 1 with 44 kickers; quads 13;
    # four of a kind 13 when played alone, none when off).
    # With every entry checked by explain() (the table is built from it) and the count of
    # each kind equal to the count of such card sets in one deck, the table is complete.
    n_seq = 9 if overrides.get("straight_order") == "big2_natural" else 10
    expected = {
        Kind.SINGLE: 52,
        Kind.PAIR: 78,
        Kind.TRIPLE: 52,
        Kind.STRAIGHT: n_seq * 1024 - 4 * n_seq,
        Kind.FLUSH: 5148 - 4 * n_seq,
        Kind.FULL_HOUSE: 3744,
        Kind.FOUR_OF_A_KIND: 624,
        Kind.STRAIGHT_FLUSH: 4 * n_seq,
        **extra,
    }
    table = table_for(rules(**overrides))
    counts = Counter(p.kind for p in table.values())
    assert counts == {k: v for k, v in expected.items() if v}
    assert all(p.mask == m and p.size == m.bit_count() for m, p in table.items())
