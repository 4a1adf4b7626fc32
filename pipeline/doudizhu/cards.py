"""Dou Dizhu cards: the 52 Big Two cards plus two jokers, one encoding, a parser and printers.

Encoding (never changes): a card is an ``int`` in ``0..53``. ``0..51`` are the cards of
:mod:`pipeline.cards` (``rank * 4 + suit``, rank 0 = 3 … 12 = 2), ``52`` is the black (small)
joker 小王 ``BJ`` and ``53`` the red (big) joker 大王 ``RJ``. A set of cards is an ``int`` bit
mask. A Dou Dizhu **rank** is ``0..14``: the Big Two rank for ``0..51``, 13 for BJ, 14 for RJ,
which is also the order of strength (spec 2.1). Suits never compare; they are kept so a deal is
54 distinct cards.

>>> parse_cards("3d 10s 小王 RJ")
[0, 31, 52, 53]
>>> format_cards(parse_cards("大王 BJ 2s 2h"))
'2♥ 2♠ BJ RJ'
>>> rank_text(rank_of(parse_card("大怪")))
'RJ'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pipeline.cards import RANK_TEXT, cards_of
from pipeline.cards import format_card as format_big2_card
from pipeline.cards import parse_card as parse_big2_card
from pipeline.errors import CardParseError

N_CARDS = 54
N_RANKS = 15
FULL_DECK = (1 << N_CARDS) - 1
BLACK_JOKER = 52
RED_JOKER = 53
#: Rank indexes of the two jokers, and of the 2 (the highest rank a sequence may not use).
BJ_RANK = 13
RJ_RANK = 14
TWO_RANK = 12
ACE_RANK = 11

#: Rank names low to high (spec 2.1): ``3 4 … 10 J Q K A 2 BJ RJ``.
DDZ_RANK_TEXT = (*RANK_TEXT, "BJ", "RJ")

_JOKERS: dict[str, int] = {
    "bj": BLACK_JOKER, "sj": BLACK_JOKER, "小王": BLACK_JOKER, "小怪": BLACK_JOKER,
    "小鬼": BLACK_JOKER, "jb": BLACK_JOKER,
    "rj": RED_JOKER, "lj": RED_JOKER, "大王": RED_JOKER, "大怪": RED_JOKER,
    "大鬼": RED_JOKER, "jr": RED_JOKER,
}  # fmt: skip
_RANK_ALIASES: dict[str, int] = {t.lower(): r for r, t in enumerate(RANK_TEXT)} | {"t": 7}
_RANK_ALIASES |= {"bj": BJ_RANK, "sj": BJ_RANK, "小王": BJ_RANK, "小怪": BJ_RANK}
_RANK_ALIASES |= {"rj": RJ_RANK, "lj": RJ_RANK, "大王": RJ_RANK, "大怪": RJ_RANK}
_SEPARATORS = re.compile(r"[\s,;/|\[\]]+")
_RANK_SEPARATORS = re.compile(r"[\s,;/|\-\[\]]+")


def rank_of(c: int) -> int:
    """The Dou Dizhu rank of a card: 0 (a 3) … 12 (a 2), 13 BJ, 14 RJ.

    >>> rank_of(0), rank_of(51), rank_of(BLACK_JOKER), rank_of(RED_JOKER)
    (0, 12, 13, 14)
    """
    r = c >> 2
    return r if r < 13 else 13 + (c & 1)


def rank_text(rank: int) -> str:
    """The printed name of a rank.

    >>> [rank_text(r) for r in (0, 7, 12, 13, 14)]
    ['3', '10', '2', 'BJ', 'RJ']
    """
    return DDZ_RANK_TEXT[rank]


def parse_card(token: str) -> int:
    """Parse one card: any notation of :func:`pipeline.cards.parse_card`, or a joker
    (``BJ``/``SJ``/小王/小怪 and ``RJ``/大王/大怪).

    >>> [parse_card(t) for t in ("3d", "♠2", "BJ", "小王", "rj", "大怪")]
    [0, 51, 52, 52, 53, 53]
    >>> parse_card("XJ")
    Traceback (most recent call last):
    ...
    pipeline.errors.CardParseError: E_BAD_CARD: cannot read 'XJ' as a card (a rank and a suit, or a joker BJ/小王, RJ/大王)
    """
    text = token.strip()
    joker = _JOKERS.get(text.lower())
    if joker is not None:
        return joker
    try:
        return parse_big2_card(text)
    except CardParseError:
        raise CardParseError(
            message=f"cannot read {token!r} as a card (a rank and a suit, or a joker BJ/小王, RJ/大王)",
            token=token,
        ) from None


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse cards separated by spaces or commas (or an iterable of tokens); duplicates are an error.

    >>> parse_cards(["BJ", "小王"])
    Traceback (most recent call last):
    ...
    pipeline.errors.CardParseError: E_DUPLICATE_CARD: card BJ appears twice in ['BJ', '小王']
    """
    tokens = [t for t in _SEPARATORS.split(text.strip()) if t] if isinstance(text, str) else text
    out: list[int] = []
    seen = 0
    for tok in tokens:
        c = parse_card(tok)
        if seen >> c & 1:
            raise CardParseError(
                "E_DUPLICATE_CARD", f"card {format_card(c)} appears twice in {text!r}", token=tok
            )
        seen |= 1 << c
        out.append(c)
    return out


def parse_ranks(text: str) -> list[int]:
    """Parse a rank-only notation (suits irrelevant): ``9-9-9-3``, ``3 4 5 6 7``, ``BJ RJ``, ``大王``.

    >>> parse_ranks("9-9-9-3"), parse_ranks("10 J Q K A 2 小王 大王")
    ([6, 6, 6, 0], [7, 8, 9, 10, 11, 12, 13, 14])
    """
    out: list[int] = []
    for tok in _RANK_SEPARATORS.split(text.strip()):
        if not tok:
            continue
        rank = _RANK_ALIASES.get(tok.lower())
        if rank is None:
            raise CardParseError(message=f"cannot read {tok!r} in {text!r} as a rank", token=tok)
        out.append(rank)
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of some cards.

    >>> mask_of([52, 53]) == 3 << 52
    True
    """
    m = 0
    for c in cards:
        m |= 1 << c
    return m


_NIBBLE = tuple(bin(i).count("1") for i in range(16))
_SHIFTS = tuple(range(0, 52, 4))


def counts_of(mask: int) -> tuple[int, ...]:
    """The rank multiset of a set of cards: 15 counts, one per rank.

    >>> counts_of(mask_of(parse_cards("3d 3s BJ")))[:2], counts_of(mask_of(parse_cards("BJ")))[13]
    ((2, 0), 1)
    """
    nib = _NIBBLE
    return (*[nib[mask >> s & 15] for s in _SHIFTS], mask >> 52 & 1, mask >> 53 & 1)


def take_ranks(hand: int, ranks: Sequence[int] | str) -> int:
    """The cards of ``hand`` for a rank multiset, lowest suit first (suits never matter in play).

    >>> hand = mask_of(parse_cards("9d 9c 9h 9s 3h BJ"))
    >>> format_cards(take_ranks(hand, "9 9 9 3"))
    '3♥ 9♦ 9♣ 9♥'
    >>> take_ranks(hand, "3 3")
    Traceback (most recent call last):
    ...
    pipeline.errors.CardParseError: E_BAD_CARD: the hand 3♥ 9♦ 9♣ 9♥ 9♠ BJ holds too few 3s for 3-3
    """
    wanted = parse_ranks(ranks) if isinstance(ranks, str) else list(ranks)
    out = 0
    for r in wanted:
        pick = next((c for c in cards_of(hand & ~out) if rank_of(c) == r), None)
        if pick is None:
            shown = "-".join(rank_text(x) for x in wanted)
            raise CardParseError(
                message=f"the hand {format_cards(hand)} holds too few {rank_text(r)}s for {shown}",
                token=shown,
            )
        out |= 1 << pick
    return out


def format_card(c: int) -> str:
    """Print one card (``10♦``, ``BJ``, ``RJ``).

    >>> format_card(28), format_card(53)
    ('10♦', 'RJ')
    """
    return DDZ_RANK_TEXT[rank_of(c)] if c >= 52 else format_big2_card(c)


def _sort_key(c: int) -> tuple[int, int]:
    return rank_of(c), c


def format_cards(cards: int | Iterable[int], *, sep: str = " ") -> str:
    """Print cards low to high (by rank, then suit index); a mask or an iterable of ids.

    >>> format_cards(mask_of(parse_cards("RJ 3s 3d")))
    '3♦ 3♠ RJ'
    """
    ids = cards_of(cards) if isinstance(cards, int) else list(cards)
    return sep.join(format_card(c) for c in sorted(ids, key=_sort_key))


def format_ranks(counts: Sequence[int]) -> str:
    """Print a rank multiset the way players write a play: the larger groups first, then by rank.

    >>> format_ranks(counts_of(mask_of(parse_cards("3d 9d 9c 9s"))))
    '9-9-9-3'
    """
    order = sorted((r for r in range(N_RANKS) if counts[r]), key=lambda r: (-counts[r], r))
    return "-".join("-".join([rank_text(r)] * counts[r]) for r in order)
