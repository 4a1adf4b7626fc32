"""Cards: every notation the parser promises, the errors it names, printing round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cards import (
    FULL_DECK,
    N_CARDS,
    Rank,
    Suit,
    card,
    cards_of,
    format_card,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    popcount,
    rank_of,
    suit_of,
)
from pipeline.errors import Big2Error, CardParseError

D3 = card(Rank.THREE, Suit.DIAMONDS)
TD = card(Rank.TEN, Suit.DIAMONDS)
S2 = card(Rank.TWO, Suit.SPADES)


def test_encoding_is_rank_times_four_plus_suit() -> None:
    assert D3 == 0
    assert S2 == N_CARDS - 1
    assert card(Rank.ACE, Suit.HEARTS) == 11 * 4 + 2
    assert [rank_of(c) for c in (0, 3, 4, 51)] == [0, 0, 1, 12]
    assert [suit_of(c) for c in (0, 1, 2, 3)] == [0, 1, 2, 3]


@pytest.mark.parametrize("token", ["3d", "3D", "D3", "d3", "♦3", "3♦", "♢3", " 3d "])
def test_three_of_diamonds_in_every_notation(token: str) -> None:
    assert parse_card(token) == D3


@pytest.mark.parametrize("token", ["10d", "Td", "td", "TD", "T♦", "10♦", "♦10", "dT", "D10"])
def test_ten_of_diamonds_in_every_notation(token: str) -> None:
    assert parse_card(token) == TD


@pytest.mark.parametrize(
    ("token", "suit"),
    [
        ("葵扇2", Suit.SPADES),
        ("黑桃2", Suit.SPADES),
        ("♠2", Suit.SPADES),
        ("2s", Suit.SPADES),
        ("紅心2", Suit.HEARTS),
        ("红桃2", Suit.HEARTS),
        ("红心2", Suit.HEARTS),
        ("紅桃2", Suit.HEARTS),
        ("♥2", Suit.HEARTS),
        ("梅花2", Suit.CLUBS),
        ("♣2", Suit.CLUBS),
        ("階磚2", Suit.DIAMONDS),
        ("阶砖2", Suit.DIAMONDS),
        ("方块2", Suit.DIAMONDS),
        ("方塊2", Suit.DIAMONDS),
        ("2階磚", Suit.DIAMONDS),
    ],
)
def test_suit_names_symbols_and_chinese(token: str, suit: Suit) -> None:
    assert parse_card(token) == card(Rank.TWO, suit)


@pytest.mark.parametrize(
    ("token", "rank"),
    [("Jh", Rank.JACK), ("jh", Rank.JACK), ("QH", Rank.QUEEN), ("kH", Rank.KING), ("aH", Rank.ACE)],
)
def test_case_insensitive(token: str, rank: Rank) -> None:
    assert parse_card(token) == card(rank, Suit.HEARTS)


@pytest.mark.parametrize(
    "text",
    [
        "3d 10d 2s",
        "3d,10d,2s",
        "3d; 10d; 2s",
        "[3d, Td, 2s]",
        "3d10d2s",
        "3♦10♦2♠",
        "♦3♦10♠2",
        "階磚3 方塊10 葵扇2",
        "階磚3方塊10葵扇2",
        "D3 DT S2",
    ],
)
def test_lists_separated_or_run_together(text: str) -> None:
    assert parse_cards(text) == [D3, TD, S2]


def test_list_of_tokens_and_empty_text() -> None:
    assert parse_cards(["3d", "T♦", "黑桃2"]) == [D3, TD, S2]
    assert parse_cards("") == []
    assert parse_cards("   ") == []


# the long s and the Kelvin sign: letters whose case Unicode folds to "s" and "k" (read as a
# suit, "3ſ" once crashed the import with a KeyError)
@pytest.mark.parametrize(
    "token", ["11x", "1d", "3", "d", "3x", "♦", "Xd", "3dd", "", "3ſ", "ſ3", "\u212a♠", "♠\u212a"]
)
def test_bad_card_names_the_token(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(token)
    assert info.value.code == "E_BAD_CARD"
    assert repr(token) in str(info.value)
    assert info.value.context["token"] == token


@pytest.mark.parametrize(("text", "bad"), [("3d 4x 5c", "4x"), ("3d4x", "4x"), ("3d 5c zz", "zz")])
def test_bad_token_in_a_list_is_named(text: str, bad: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards(text)
    assert info.value.code == "E_BAD_CARD"
    assert info.value.context["token"] == bad
    assert repr(bad) in info.value.message


@pytest.mark.parametrize("text", ["3d 3D", "3d ♦3", "3d4c3d", ["3d", "D3"], "葵扇2 2s"])
def test_duplicates_are_refused(text: str | list[str]) -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards(text)
    assert info.value.code == "E_DUPLICATE_CARD"
    assert "appears twice" in info.value.message


def test_card_errors_are_big2_errors_and_value_errors() -> None:
    with pytest.raises(Big2Error):
        parse_card("zz")
    with pytest.raises(ValueError, match="E_BAD_CARD"):
        parse_card("zz")


def test_printers() -> None:
    assert format_card(TD) == "10♦"
    assert format_card(TD, compact=True) == "Td"
    assert format_cards([S2, D3, TD]) == "3♦10♦2♠"
    assert format_cards([S2, D3, TD], compact=True) == "3d Td 2s"
    assert format_cards(mask_of([S2, D3]), sep=" ") == "3♦ 2♠"
    assert format_cards([]) == ""


def test_masks() -> None:
    assert cards_of(FULL_DECK) == list(range(N_CARDS))
    assert popcount(FULL_DECK) == N_CARDS
    assert mask_of(cards_of(0b1010)) == 0b1010


subsets = st.integers(min_value=0, max_value=FULL_DECK)


@given(subsets)
def test_round_trip_compact(mask: int) -> None:
    assert mask_of(parse_cards(format_cards(mask, compact=True))) == mask


@given(subsets)
def test_round_trip_pretty_run_together(mask: int) -> None:
    assert mask_of(parse_cards(format_cards(mask))) == mask


@given(subsets)
def test_round_trip_keeps_order_lowest_first(mask: int) -> None:
    assert parse_cards(format_cards(mask)) == cards_of(mask)


@given(st.integers(min_value=0, max_value=N_CARDS - 1))
def test_every_card_round_trips_alone(c: int) -> None:
    assert parse_card(format_card(c)) == c
    assert parse_card(format_card(c, compact=True)) == c
    assert parse_card(format_card(c, compact=True).upper()) == c
