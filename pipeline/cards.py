"""Cards: one canonical encoding, a forgiving parser and two printers.

Encoding (independent of house rules, never changes): a card is an ``int`` in ``0..51``::

    card = rank * 4 + suit

with ``rank`` in Big Two order (``Rank.THREE`` = 0 … ``Rank.ACE`` = 11, ``Rank.TWO`` = 12)
and ``suit`` a fixed index (``Suit.DIAMONDS`` = 0, ``CLUBS`` = 1, ``HEARTS`` = 2,
``SPADES`` = 3). The suit index is only a name: how strong a suit is depends on the
ruleset's ``suit_order`` (see :mod:`pipeline.big2.rules`). A set of cards is an ``int``
bit mask with bit ``card`` set, which is what the warehouse stores.

>>> parse_card("3d"), parse_card("D3"), parse_card("♦3"), parse_card("階磚3")
(0, 0, 0, 0)
>>> format_cards(parse_cards("10d 黑桃2"))
'10♦2♠'
>>> format_cards(parse_cards("5♦5♣"), compact=True)
'5d 5c'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from enum import IntEnum

from pipeline.errors import CardParseError

N_CARDS = 52
FULL_DECK = (1 << N_CARDS) - 1


class Rank(IntEnum):
    """Card ranks in Big Two order (3 lowest, 2 highest)."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12


class Suit(IntEnum):
    """Suit identities (an index, not a strength: strength is the ruleset's ``suit_order``)."""

    DIAMONDS = 0
    CLUBS = 1
    HEARTS = 2
    SPADES = 3


RANK_TEXT = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
RANK_COMPACT = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2")
SUIT_SYMBOL = ("♦", "♣", "♥", "♠")
SUIT_LETTER = ("d", "c", "h", "s")

_RANK_ALIASES: dict[str, int] = {text.lower(): r for r, text in enumerate(RANK_TEXT)}
_RANK_ALIASES["t"] = Rank.TEN
_SUIT_ALIASES: dict[str, int] = {
    "d": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
    "階磚": Suit.DIAMONDS, "阶砖": Suit.DIAMONDS, "方块": Suit.DIAMONDS, "方塊": Suit.DIAMONDS,
    "c": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS, "梅花": Suit.CLUBS,
    "h": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS,
    "紅心": Suit.HEARTS, "红心": Suit.HEARTS, "紅桃": Suit.HEARTS, "红桃": Suit.HEARTS,
    "s": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES,
    "葵扇": Suit.SPADES, "黑桃": Suit.SPADES, "黑心": Suit.SPADES,
}  # fmt: skip

_SUIT_RE = "|".join(sorted((re.escape(s) for s in _SUIT_ALIASES), key=len, reverse=True))
_RANK_RE = "10|[2-9]|[tjqka]"
# ASCII: the case of the letters ignored, and no other (under Unicode rules the long s "ſ"
# would match "s" and the Kelvin sign "K" "k", which the alias tables do not hold)
_CARD_RE = re.compile(
    rf"(?P<r1>{_RANK_RE})(?P<s1>{_SUIT_RE})|(?P<s2>{_SUIT_RE})(?P<r2>{_RANK_RE})",
    re.IGNORECASE | re.ASCII,
)
_SEPARATORS = re.compile(r"[\s,;/|\-\[\]]+")


def card(rank: int, suit: int) -> int:
    """The card id of a rank and a suit.

    >>> card(Rank.TWO, Suit.SPADES)
    51
    """
    return rank * 4 + suit


def rank_of(c: int) -> int:
    """The Big Two rank index of a card (0 = 3, 12 = 2).

    >>> rank_of(parse_card("As"))
    11
    """
    return c >> 2


def suit_of(c: int) -> int:
    """The suit index of a card (0 ♦, 1 ♣, 2 ♥, 3 ♠).

    >>> suit_of(parse_card("7h"))
    2
    """
    return c & 3


def parse_card(token: str) -> int:
    """Parse one card in any notation real logs use.

    >>> [parse_card(t) for t in ("3D", "d3", "3♦", "Td", "10d", "t♦", "紅心10")]
    [0, 0, 0, 28, 28, 28, 30]
    >>> parse_card("11x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.errors.CardParseError: E_BAD_CARD: cannot read '11x' as a card (...)
    """
    text = token.strip()
    m = _CARD_RE.fullmatch(text)
    if m is None:
        raise CardParseError(
            message=f"cannot read {token!r} as a card (rank 2-10/T/J/Q/K/A plus a suit "
            "d/c/h/s, ♦♣♥♠ or 階磚/梅花/紅心/葵扇)",
            token=token,
        )
    rank_text = (m.group("r1") or m.group("r2")).lower()
    suit_text = (m.group("s1") or m.group("s2")).lower()
    return card(_RANK_ALIASES[rank_text], _SUIT_ALIASES[suit_text])


def _tokens(text: str) -> Iterator[str]:
    for chunk in _SEPARATORS.split(text.strip()):
        if not chunk:
            continue
        pos = 0
        while pos < len(chunk):
            m = _CARD_RE.match(chunk, pos)
            if m is None:
                raise CardParseError(
                    message=f"cannot read {chunk[pos:]!r} in {text!r} as cards", token=chunk[pos:]
                )
            yield m.group(0)
            pos = m.end()


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse a list of cards: separated (``"3d 4d"``, ``"3d,4d"``) or run together (``"5♦5♣"``).

    Accepts a string or an iterable of single-card tokens. Duplicates are an error.

    >>> parse_cards("♠2♥2") == [parse_card("2s"), parse_card("2h")]
    True
    >>> parse_cards(["3d", "3D"])
    Traceback (most recent call last):
    ...
    pipeline.errors.CardParseError: E_DUPLICATE_CARD: card 3♦ appears twice in ['3d', '3D']
    """
    tokens = list(_tokens(text)) if isinstance(text, str) else list(text)
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


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of some cards.

    >>> mask_of([0, 1, 51]) == (1 | 2 | 1 << 51)
    True
    """
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest id first.

    >>> cards_of(0b1011)
    [0, 1, 3]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    """The number of cards in a mask.

    >>> popcount(0b1011)
    3
    """
    return mask.bit_count()


def format_card(c: int, *, compact: bool = False) -> str:
    """Print one card: pretty (``10♦``) or compact (``Td``).

    >>> format_card(28), format_card(28, compact=True)
    ('10♦', 'Td')
    """
    if compact:
        return RANK_COMPACT[c >> 2] + SUIT_LETTER[c & 3]
    return RANK_TEXT[c >> 2] + SUIT_SYMBOL[c & 3]


def format_cards(
    cards: int | Iterable[int], *, compact: bool = False, sep: str | None = None
) -> str:
    """Print cards lowest id first; a mask or an iterable of ids.

    Pretty form runs cards together (``5♦5♣``) unless ``sep`` is given; compact form
    separates them with a space.

    >>> format_cards(parse_cards("9h 9s"))
    '9♥9♠'
    >>> format_cards(0)
    ''
    """
    ids = cards_of(cards) if isinstance(cards, int) else sorted(cards)
    if sep is None:
        sep = " " if compact else ""
    return sep.join(format_card(c, compact=compact) for c in ids)
