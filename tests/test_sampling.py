"""The uniform random lead drawn from counts agrees with the engine's list of plays."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from pipeline.big2.moves import plays_from
from pipeline.big2.rules import load_ruleset
from pipeline.big2.sampling import five_card_count, lead_count, random_lead
from pipeline.cards import mask_of, parse_cards

RULES: list[dict[str, Any]] = [
    {},
    {"allow_two_pairs_plus_one": True},
    {"allow_two_pairs": True, "allow_four_card_quads": True},
    {"allow_triples": False},
    {"straight_order": "big2_natural"},
    {"straight_order": "poker", "bombs": True},
    {"straight_order": "a2345_top_poker", "suit_order": "taiwan"},
    {"straight_order": "akqjt_top_poker", "royal_only_beats_quads": True},
    {"four_of_a_kind": "alone", "bombs": True},
    {"four_of_a_kind": "alone", "allow_two_pairs": True},
    {"four_of_a_kind": "off"},
]


@pytest.mark.parametrize("overrides", RULES, ids=str)
def test_counts_match_the_list_of_plays(overrides: dict[str, Any]) -> None:
    rs = load_ruleset("hk", overrides)
    rng = random.Random(4)
    sizes = [1, 2, 4, 5, 7, 9, 13] + ([] if rs.allow_two_pairs_plus_one else [17])
    for _ in range(60):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = mask_of(deck[: rng.choice(sizes)])
        plays = list(plays_from(hand, rs))
        assert lead_count(hand, rs) == len(plays)
        assert five_card_count(hand, rs) == sum(1 for p in plays if p.size == 5)
        play, n = random_lead(hand, rs, rng)
        assert n == len(plays) and play in plays


def test_every_play_is_equally_likely() -> None:
    rs = load_ruleset("hk", {"allow_two_pairs_plus_one": True})
    hand = mask_of(parse_cards("3d 3c 3h 4d 5d 6d 7d 8c 8s 9s Ts 2s 2h"))
    plays = {p.mask for p in plays_from(hand, rs)}
    rng = random.Random(8)
    per_play = 120
    seen = Counter(random_lead(hand, rs, rng)[0].mask for _ in range(per_play * len(plays)))
    assert set(seen) == plays
    # each count is Binomial(n, 1/k): mean per_play, sd about 11; allow 5 sd either way
    assert all(abs(c - per_play) < 55 for c in seen.values()), seen.most_common(3)
