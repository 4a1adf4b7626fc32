"""Dou Dizhu rulesets (presets, validation naming the key) and cards (54, jokers, notation)."""

from __future__ import annotations

import pytest

from pipeline.doudizhu.cards import (
    BLACK_JOKER,
    FULL_DECK,
    RED_JOKER,
    cards_of,
    counts_of,
    format_card,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    parse_ranks,
    rank_of,
)
from pipeline.doudizhu.rules import Bidding, load_ruleset, preset_meta, preset_names
from pipeline.errors import CardParseError, RulesetError


def test_presets_follow_spec_2_6() -> None:
    assert preset_names() == ["ddz", "ddz-2p"]
    three, two = load_ruleset("ddz"), load_ruleset("ddz-2p")
    assert (three.players, three.bidding, three.bid_reentry, three.hand_size) == (
        3, Bidding.POINTS, True, 17,
    )  # fmt: skip
    assert (two.players, two.bidding, two.hand_size, two.set_aside_size) == (
        2,
        Bidding.CALL,
        20,
        11,
    )
    for rs in (three, two):
        assert rs.four_with_two and not rs.spring_doubles and rs.multiplier_cap is None
        assert rs.kitty_size == 3 and rs.stake == 1
        assert rs.players * rs.hand_size + rs.kitty_size + rs.set_aside_size == 54
    assert "004" in preset_meta("ddz")["source"]
    assert three.to_dict()["multiplier_cap"] == "none" and three.to_dict()["bidding"] == "points"


@pytest.mark.parametrize(
    ("overrides", "code", "key"),
    [
        ({"players": 4}, "E_RULESET_VALUE", "players"),
        ({"bidding": "auction"}, "E_RULESET_VALUE", "bidding"),
        ({"bid_reentry": "yes"}, "E_RULESET_VALUE", "bid_reentry"),
        ({"multiplier_cap": 0}, "E_RULESET_VALUE", "multiplier_cap"),
        ({"stake": -1}, "E_RULESET_VALUE", "stake"),
        ({"stake": float("nan")}, "E_RULESET_VALUE", "stake"),  # scores NaN, logs not JSON
        ({"stake": float("inf")}, "E_RULESET_VALUE", "stake"),
        ({"hand_size": 18}, "E_RULESET_VALUE", "hand_size"),
        ({"bombs": True}, "E_RULESET_KEY", "bombs"),
    ],
)
def test_bad_parameters_are_refused_naming_the_key(
    overrides: dict[str, object], code: str, key: str
) -> None:
    with pytest.raises(RulesetError) as info:
        load_ruleset("ddz", overrides)
    assert info.value.code == code and info.value.context["key"] == key
    assert key in info.value.message


def test_an_unknown_preset_is_refused() -> None:
    with pytest.raises(RulesetError, match="E_RULESET_PRESET"):
        load_ruleset("hk")  # a Big Two preset is not a Dou Dizhu one


def test_caps_and_two_player_sizes() -> None:
    assert load_ruleset("ddz", {"multiplier_cap": 16}).capped(64) == 16
    assert load_ruleset("ddz-2p", {"hand_size": 17}).set_aside_size == 17
    with pytest.raises(RulesetError, match="hand_size = 26"):
        load_ruleset("ddz-2p", {"hand_size": 26})
    with pytest.raises(RulesetError, match="more than the 54 cards"):
        load_ruleset(
            "ddz",
            {"players": 2, "hand_size": 17, "bidding": "call"} | {"players": 3, "hand_size": 20},
        )


def test_the_deck_is_54_distinct_cards_that_print_and_parse_back() -> None:
    cards = cards_of(FULL_DECK)
    assert len(cards) == 54
    texts = [format_card(c) for c in cards]
    assert len(set(texts)) == 54
    assert parse_cards(" ".join(texts)) == cards
    assert counts_of(FULL_DECK) == (4,) * 13 + (1, 1)
    assert [rank_of(c) for c in (BLACK_JOKER, RED_JOKER)] == [13, 14]


@pytest.mark.parametrize(
    ("token", "card"),
    [("小王", 52), ("小怪", 52), ("BJ", 52), ("sj", 52), ("大王", 53), ("大怪", 53), ("RJ", 53),
     ("3♦", 0), ("黑桃2", 51), ("Td", 28)],
)  # fmt: skip
def test_card_notations(token: str, card: int) -> None:
    assert parse_card(token) == card


def test_bad_cards_and_ranks() -> None:
    with pytest.raises(CardParseError, match="E_BAD_CARD"):
        parse_card("ZJ")
    with pytest.raises(CardParseError, match="E_DUPLICATE_CARD"):
        parse_cards("RJ 大王")
    with pytest.raises(CardParseError, match="E_BAD_CARD"):
        parse_ranks("3 4 1")
    assert parse_ranks("3-3-大王") == [0, 0, 14]
    assert format_cards(mask_of(parse_cards("RJ 2s BJ 3d"))) == "3♦ 2♠ BJ RJ"
