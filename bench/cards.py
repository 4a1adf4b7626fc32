"""Benchmark ``cards.parse``: card tokens parsed per second by :func:`pipeline.cards.parse_cards`.

The inputs are 13-card hands written the ways real logs write them: compact letters
(``3d 4c Th``), suit first (``D3,C4,HT``), pretty symbols run together (``3♦4♣10♥``) and
Chinese suit names (``階磚3 梅花4 紅心10``). Hands come from a seeded shuffle, so every run
parses the same text.
"""

from __future__ import annotations

import random
from functools import partial

from bench import Figure, benchmark, per_second
from pipeline.cards import (
    N_CARDS,
    RANK_COMPACT,
    RANK_TEXT,
    SUIT_LETTER,
    SUIT_SYMBOL,
    parse_cards,
)

N_HANDS = 400
HAND_SIZE = 13
CHINESE_SUIT = ("階磚", "梅花", "紅心", "葵扇")


def _compact(c: int) -> str:
    return RANK_COMPACT[c >> 2] + SUIT_LETTER[c & 3]


def _suit_first(c: int) -> str:
    return SUIT_LETTER[c & 3].upper() + RANK_COMPACT[c >> 2]


def _pretty(c: int) -> str:
    return RANK_TEXT[c >> 2] + SUIT_SYMBOL[c & 3]


def _chinese(c: int) -> str:
    return CHINESE_SUIT[c & 3] + RANK_TEXT[c >> 2]


#: notation name → (how one card is written, how a hand's cards are joined)
NOTATIONS = {
    "compact": (_compact, " "),
    "suit first": (_suit_first, ","),
    "pretty run-together": (_pretty, ""),
    "chinese": (_chinese, " "),
}


def hands(n_hands: int = N_HANDS, *, seed: int = 2) -> list[list[int]]:
    """``n_hands`` 13-card hands from a seeded shuffle (the same on every run).

    >>> [len(h) for h in hands(3)]
    [13, 13, 13]
    """
    rng = random.Random(seed)
    deck = list(range(N_CARDS))
    out = []
    for _ in range(n_hands):
        rng.shuffle(deck)
        out.append(deck[:HAND_SIZE])
    return out


def texts(notation: str, n_hands: int = N_HANDS) -> list[str]:
    """The hands written in one notation.

    >>> texts("compact", 1)[0].count(" "), texts("suit first", 1)[0].count(",")
    (12, 12)
    """
    write, join = NOTATIONS[notation]
    return [join.join(write(c) for c in hand) for hand in hands(n_hands)]


def _parse_all(batch: list[str]) -> None:
    for text in batch:
        parse_cards(text)


@benchmark("cards.parse")
def parse_rate() -> list[Figure]:
    """Tokens per second for each notation, and over all of them."""
    figures: list[Figure] = []
    all_texts: list[str] = []
    for notation in NOTATIONS:
        batch = texts(notation)
        all_texts += batch
        rate = per_second(partial(_parse_all, batch), len(batch) * HAND_SIZE)
        figures.append((f"card tokens parsed per second ({notation})", rate, "tokens/s"))
    rate = per_second(partial(_parse_all, all_texts), len(all_texts) * HAND_SIZE)
    figures.insert(0, ("card tokens parsed per second (all notations)", rate, "tokens/s"))
    return figures
