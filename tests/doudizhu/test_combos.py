"""Dou Dizhu classification: exhaustive against the independent reference, and every
ambiguous shape read as docs/doudizhu.md says (spec 2.4 **Decision**)."""

from __future__ import annotations

import pytest

from pipeline.doudizhu.cards import counts_of, mask_of, parse_cards, parse_ranks, take_ranks
from pipeline.doudizhu.combos import FOUR_WITH_TWO_KINDS, Kind, Play, classify, explain, readings
from pipeline.doudizhu.moves import rank_plays
from pipeline.doudizhu.rules import load_ruleset
from tests.doudizhu.reference import N_RANKS, all_combinations, multisets

DDZ = load_ruleset("ddz")
NO_FOUR_TWO = load_ruleset("ddz", {"four_with_two": False})
FULL = (4,) * 13 + (1, 1)
DECK = (1 << 54) - 1


def _set(plays: tuple[Play, ...] | list[Play]) -> set[tuple[Kind, int, int]]:
    return {(p.kind, p.key, p.units) for p in plays}


def counts(text: str) -> tuple[int, ...]:
    c = [0] * N_RANKS
    for r in parse_ranks(text):
        c[r] += 1
    return tuple(c)


@pytest.mark.parametrize("size", range(8))
def test_every_multiset_up_to_seven_cards_is_classified_as_the_reference(size: int) -> None:
    ref = all_combinations()
    wrong = [m for m in multisets(size) if _set(readings(m, DDZ)) != ref.get(m, frozenset())]
    assert wrong == []


def test_every_combination_of_every_size_is_classified_as_the_reference() -> None:
    ref = all_combinations()
    assert len(ref) > 30_000
    assert {k for rs in ref.values() for k, _, _ in rs} == set(Kind)
    wrong = [m for m, r in ref.items() if _set(readings(m, DDZ)) != r]
    assert wrong == []


def test_four_with_two_off_removes_exactly_the_two_kinds() -> None:
    for m, r in all_combinations().items():
        if 4 in m and sum(m) in (6, 8):  # only a four with two may differ
            expected = {x for x in r if x[0] not in FOUR_WITH_TWO_KINDS}
            assert _set(readings(m, NO_FOUR_TWO)) == expected, m


def test_generation_on_the_whole_deck_yields_every_combination_once() -> None:
    plays = list(rank_plays(FULL, DDZ))
    assert len(plays) == len(set(plays))
    generated: dict[tuple[int, ...], set[tuple[Kind, int, int]]] = {}
    for p in plays:
        generated.setdefault(p.counts, set()).add((p.kind, p.key, p.units))
    assert generated == {m: set(r) for m, r in all_combinations().items()}


# ----- the ambiguous shapes, one by one (docs/doudizhu.md "Ambiguous card sets") -----------
AMBIGUOUS = [
    # cards, readings in preference order (kind, key)
    (
        "3 3 3 4 4 4 5 5 5 6 6 6",
        [(Kind.AIRPLANE, "6"), (Kind.AIRPLANE_SINGLES, "6"), (Kind.AIRPLANE_SINGLES, "5")],
    ),
    (
        "J J J Q Q Q K K K A A A",
        [(Kind.AIRPLANE, "A"), (Kind.AIRPLANE_SINGLES, "A"), (Kind.AIRPLANE_SINGLES, "K")],
    ),
    (
        "3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 9",
        [(Kind.AIRPLANE_SINGLES, "7"), (Kind.AIRPLANE_SINGLES, "6")],
    ),
    ("3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 3", []),  # 4-7 + 3-3-3-3: a bomb is no attachment
    (
        "3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 8 8 8 9 10",
        [(Kind.AIRPLANE_SINGLES, "8"), (Kind.AIRPLANE_SINGLES, "7")],
    ),
    ("3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 8 8 8", [(Kind.AIRPLANE, "8")]),  # 18: not 4 × k
    ("3 3 3 4 4 4 5 5 5 9 9 9", [(Kind.AIRPLANE_SINGLES, "5")]),  # a triple as three singles
    ("Q Q Q K K K A A A 2 2 2", [(Kind.AIRPLANE_SINGLES, "A")]),  # 2s never in the airplane
    (  # eight triples in a row (24 cards, more than a hand holds): three mains of six
        "3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 8 8 8 9 9 9 10 10 10",
        [(Kind.AIRPLANE_SINGLES, "10"), (Kind.AIRPLANE_SINGLES, "9"), (Kind.AIRPLANE_SINGLES, "8")],
    ),
]


def test_the_only_ambiguities_are_airplanes_with_or_without_singles() -> None:
    """Over the whole deck, a set with two or more readings is an airplane with singles read
    from two or three mains, or also a plain airplane: the shapes tested one by one above."""
    shapes = {
        tuple(sorted(k.value for k, _, _ in r)) for r in all_combinations().values() if len(r) > 1
    }
    assert shapes == {
        ("airplane_singles", "airplane_singles"),
        ("airplane", "airplane_singles", "airplane_singles"),
        ("airplane_singles", "airplane_singles", "airplane_singles"),
    }


@pytest.mark.parametrize(("text", "expected"), AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_ambiguous_shapes_are_read_in_the_documented_preference(
    text: str, expected: list[tuple[Kind, str]]
) -> None:
    got = [(p.kind, p.key) for p in readings(counts(text), DDZ)]
    assert got == [(k, parse_ranks(key)[0]) for k, key in expected]


def test_the_reading_that_follows_is_taken_and_a_named_kind_wins() -> None:
    cards = take_ranks(DECK, "3 3 3 4 4 4 5 5 5 6 6 6")
    led = classify(cards, DDZ)
    assert led is not None and led.kind == Kind.AIRPLANE  # leading: the preferred reading
    named = classify(cards, DDZ, kind=Kind.AIRPLANE_SINGLES)
    assert named is not None and named.key == parse_ranks("6")[0]
    assert classify(cards, DDZ, kind=Kind.AIRPLANE_PAIRS) is None
    # following an airplane with singles 3-4-5 + 7 8 9: read as 4-5-6 + 3-3-3, which beats it
    top = classify(take_ranks(DECK, "3 3 3 4 4 4 5 5 5 7 8 9"), DDZ)
    assert top is not None and (top.kind, top.key) == (Kind.AIRPLANE_SINGLES, parse_ranks("5")[0])
    follow = classify(cards, DDZ, on=top)
    assert follow is not None and (follow.kind, follow.key) == (top.kind, parse_ranks("6")[0])
    # … but not an airplane with singles 5-6-7: no reading of the cards beats it
    high = classify(take_ranks(DECK, "5 5 5 6 6 6 7 7 7 9 10 J"), DDZ)
    assert high is not None and classify(cards, DDZ, on=high) is None
    # following a plain airplane of four triples: read as the plain airplane
    plain = classify(take_ranks(DECK, "4 4 4 5 5 5 6 6 6 7 7 7"), DDZ, on=led)
    assert plain is not None and plain.kind == Kind.AIRPLANE


NOT_COMBINATIONS = [
    ("BJ RJ 3 3 3 3", "the rocket is not two singles"),
    ("3 3 3 BJ RJ", "all singles or all pairs"),
    ("3 3 3 4 4 4 6 7 7", "all singles or all pairs"),
    ("3 3 3 3", None),  # a bomb, not a triple + single
    ("J Q K A 2", "2s and jokers never in a sequence"),
    ("3 4 5 6", "a straight"),
    ("3 3 4 4", "pair chain needs 3 to 10"),
    ("BJ BJ", None),
    ("5 5 5 5 6 6 6 6", "attachments never hold a rank of the main part"),
    ("3 3 3 4 4 4 4 5", "attachments never hold a rank of the main part"),
    ("5 5 5 6 6 6 7 7 7 8 8 8 3 3 3 3", "a bomb is not an attachment"),
    ("3 3 3 3 5 5 5 5", "two pair attachments are of two different ranks"),
]


@pytest.mark.parametrize(("text", "why"), NOT_COMBINATIONS, ids=[n[0] for n in NOT_COMBINATIONS])
def test_explain_says_why_cards_are_not_a_combination(text: str, why: str | None) -> None:
    if text == "BJ BJ":
        with pytest.raises(ValueError, match="E_DUPLICATE_CARD"):
            parse_cards("BJ 小王")
        return
    cards = take_ranks(DECK, text)
    said = explain(cards, DDZ)
    if text == "3 3 3 3":
        assert said == "3-3-3-3: bomb of 3"
        assert [p.kind for p in readings(counts_of(cards), DDZ)] == [Kind.BOMB]
        return
    assert "is not a combination" in said
    assert why is not None and why.replace("a straight", "straight needs 5 to 12") in said


def test_four_with_two_off_is_explained() -> None:
    cards = take_ranks(DECK, "9 9 9 9 3 4")
    assert classify(cards, NO_FOUR_TWO) is None
    assert "four_with_two = false" in explain(cards, NO_FOUR_TWO)
    assert classify(cards, DDZ) is not None


COMPARISONS = [
    ("9 9 9 3", "8 8 8 A", True),  # 004
    ("Q Q Q 6 6", "10 10 10 K K", True),  # 004
    ("3 3 3 3", "2 2 2 2 BJ 3", True),  # any bomb beats four + two (004)
    ("A A A A 3 4", "K K K K 5 5 6 6", False),  # four + two singles vs pairs: different kinds
    ("BJ RJ", "2 2 2 2", True),
    ("2 2 2 2", "BJ RJ", False),
    ("4 5 6 7 8 9", "3 4 5 6 7", False),  # straights of another length
    ("4 5 6 7 8", "3 4 5 6 7", True),
    ("RJ", "BJ", True),
    ("BJ", "2", True),
    ("5 5 5 5", "4 4 4 4", True),
    ("3 3 3 4 4 4 9 9 10 10", "3 3 3 4 4 4 5 6", False),
]


@pytest.mark.parametrize(
    ("a", "b", "beats"), COMPARISONS, ids=[f"{a} on {b}" for a, b, _ in COMPARISONS]
)
def test_comparisons_of_spec_2_4(a: str, b: str, beats: bool) -> None:
    top = classify(take_ranks(DECK, b), DDZ)
    assert top is not None
    play = classify(take_ranks(DECK, a), DDZ, on=top)
    assert (play is not None) == beats
    first = classify(take_ranks(DECK, a), DDZ)
    assert first is not None and first.beats(top) == beats


def test_play_text_writes_the_main_part_then_the_attachments() -> None:
    play = classify(mask_of(parse_cards("3d 9d 9c 9h")), DDZ)
    assert play is not None and play.text == "9-9-9-3" and str(play) == "9-9-9-3"
    rocket = classify(mask_of(parse_cards("小王 大王")), DDZ)
    assert rocket is not None and rocket.kind == Kind.ROCKET and rocket.text == "BJ-RJ"
