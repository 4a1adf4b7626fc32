"""Rulesets: presets match spec 1.9, overrides, validation naming the key, tiers, hand sizes."""

from __future__ import annotations

import json
import tomllib
from enum import StrEnum
from importlib import import_module, resources
from typing import Any, get_type_hints

import pytest

from pipeline.big2.rules import (
    DEFAULT_PRESET,
    TIER_TABLES,
    Ruleset,
    load_ruleset,
    parse_override,
    preset_meta,
    preset_names,
)
from pipeline.errors import RulesetError
from pipeline.games import game_for, kinds
from pipeline.rulesets import RULES

# Spec 1.9, written out: parameter → value per preset (on/off as booleans).
SPEC_PRESETS: dict[str, dict[str, Any]] = {
    "hk": {
        "suit_order": "hk",
        "straight_order": "hk",
        "flush_compare": "ranks_then_suit",
        "bombs": False,
        "allow_four_card_quads": False,
        "pass_locks_out": True,
        "first_lead": "lowest_card_then_winner",
        "first_play_must_contain_lowest": "contain",
        "must_block": "liability",
        "dragon_instant_win": False,
        "multiplier_tiers": "hk_8_10_13",
        "spade_two_doubles": False,
        "settlement": "place",
    },
    "hk-classic": {
        "suit_order": "hk",
        "straight_order": "hk",
        "flush_compare": "ranks_then_suit",
        "bombs": False,
        "allow_four_card_quads": False,
        "pass_locks_out": True,
        "first_lead": "lowest_card_then_winner",
        "first_play_must_contain_lowest": "contain",
        "must_block": "liability",
        "dragon_instant_win": True,
        "multiplier_tiers": "hk_10_13",
        "spade_two_doubles": False,
        "settlement": "penalty_points",
    },
    "taiwan": {
        "suit_order": "taiwan",
        "straight_order": "hk",
        "flush_compare": "ranks_then_suit",
        "bombs": True,
        "allow_four_card_quads": False,
        "pass_locks_out": True,
        "first_lead": "lowest_card_then_winner",
        "first_play_must_contain_lowest": "contain",
        "must_block": "liability",
        "dragon_instant_win": True,
        "multiplier_tiers": "hk_10_13",
        "spade_two_doubles": False,
        "settlement": "winner_takes_all",
    },
    "mainland": {
        "suit_order": "hk",
        "straight_order": "highest_card",
        "flush_compare": "highest_card",
        "bombs": False,
        "allow_four_card_quads": False,
        "pass_locks_out": False,
        "first_lead": "lowest_card_then_winner",
        "first_play_must_contain_lowest": "contain",
        "must_block": "off",
        "dragon_instant_win": False,
        "multiplier_tiers": "hk_8_10_13",
        "spade_two_doubles": True,
        "settlement": "place",
    },
}
# The seeds each preset cites in spec 1.9's "source" row.
SPEC_SOURCES = {
    "hk": ["000", "002"],
    "hk-classic": ["000", "001"],
    "taiwan": ["000", "001"],
    "mainland": ["003"],
}

ENUM_KEYS = [
    key
    for key, hint in get_type_hints(Ruleset).items()
    if isinstance(hint, type) and issubclass(hint, StrEnum)
]
BOOL_KEYS = [key for key, hint in get_type_hints(Ruleset).items() if hint is bool]


def _value(rs: Ruleset, key: str) -> Any:
    value = getattr(rs, key)
    if key == "multiplier_tiers":
        return next(name for name, table in TIER_TABLES.items() if table == value)
    return value.value if isinstance(value, StrEnum) else value


def _code(err: pytest.ExceptionInfo[RulesetError]) -> str:
    return err.value.code


# --- presets ---------------------------------------------------------------------------


def test_a_remembered_validation_is_never_another_value_s() -> None:
    """load_ruleset remembers the overrides it validated (a score sheet names the same ones
    for every game), by their repr: a value equal to one seen but of another type (1 for
    True, 2.0 for 2) is still validated, and the errors quote the value as given."""
    assert load_ruleset("hk", {"bombs": True}).bombs is True
    assert load_ruleset("hk", {"multiplier_tiers": [[0, 1], [8, 2]]}).tier(8) == 2
    for bad, why in [
        ({"bombs": 1}, "bombs = 1: expected true or false"),
        ({"multiplier_tiers": [[0, 1], [8, 2.0]]}, "row [8, 2.0] is not [min_cards, multiplier]"),
    ]:
        for _ in range(2):  # a rejected value is not remembered either
            with pytest.raises(RulesetError) as caught:
                load_ruleset("hk", bad)
            assert why in caught.value.message
    tiers = load_ruleset("hk", {"multiplier_tiers": [[8, 2]]})
    assert load_ruleset("hk", {"multiplier_tiers": ((8, 2),)}) is tiers  # the same ruleset
    assert load_ruleset("hk", {"multiplier_tiers": [[8, 2]]}) is tiers


def test_preset_names_default_first() -> None:
    assert preset_names() == ["hk", "hk-classic", "mainland", "taiwan"]
    assert DEFAULT_PRESET == "hk"
    assert load_ruleset() == load_ruleset("hk")


@pytest.mark.parametrize("name", sorted(SPEC_PRESETS))
def test_preset_matches_spec_table(name: str) -> None:
    rs = load_ruleset(name)
    got = {key: _value(rs, key) for key in SPEC_PRESETS[name]}
    assert got == SPEC_PRESETS[name]
    assert rs.name == name


@pytest.mark.parametrize("name", sorted(SPEC_PRESETS))
def test_preset_meta_cites_the_spec_sources(name: str) -> None:
    meta = preset_meta(name)
    assert meta["description"]
    assert all(seed in meta["source"] for seed in SPEC_SOURCES[name])
    assert load_ruleset(name).description == meta["description"]


def test_presets_are_different_rulesets() -> None:
    """A preset whose settings are silently dropped would equal the defaults."""
    settings = []
    for name in preset_names():
        params = load_ruleset(name).to_dict()
        del params["name"], params["description"]
        settings.append(repr(params))
    assert len(set(settings)) == len(settings)
    assert load_ruleset("taiwan").to_dict() != Ruleset(name="taiwan").to_dict()


def test_dataclass_defaults_equal_defaults_toml() -> None:
    """The CLI marks 'default' against Ruleset(); it must say what defaults.toml says."""
    path = resources.files("pipeline.big2") / "presets" / "defaults.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    doc.pop("meta")
    assert set(doc) == set(Ruleset().to_dict()) - {"name", "description"}
    for key, value in doc.items():
        from_file = load_ruleset("hk", {key: value})
        assert getattr(from_file, key) == getattr(Ruleset(), key), key


def test_unknown_preset() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hong-kong")
    assert _code(err) == "E_RULESET_PRESET"
    assert "'hong-kong'" in err.value.message
    assert "hk-classic" in err.value.message


# --- overrides -------------------------------------------------------------------------


def test_overrides_apply_and_are_recorded() -> None:
    rs = load_ruleset("mainland", {"settlement": "winner_takes_all", "bombs": True})
    assert rs.settlement.value == "winner_takes_all"
    assert rs.bombs is True
    assert rs.straight_order.value == "highest_card"  # the preset still applies
    assert dict(rs.overrides) == {"settlement": "winner_takes_all", "bombs": True}


def test_same_inputs_same_object_and_hashable() -> None:
    a = load_ruleset("hk", {"multiplier_tiers": [[8, 2], [11, 3], [13, 4]]})
    b = load_ruleset("hk", {"multiplier_tiers": [[8, 2], [11, 3], [13, 4]]})
    assert a is b
    assert len({a, b, load_ruleset("hk")}) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bombs=true", ("bombs", True)),
        ("players = 3", ("players", 3)),
        ("stake=0.5", ("stake", 0.5)),
        ("settlement=place", ("settlement", "place")),
        ('settlement="place"', ("settlement", "place")),
        ("redeal_if=[no_jqk]", ("redeal_if", "[no_jqk]")),
        ('redeal_if=["no_jqk"]', ("redeal_if", ["no_jqk"])),
        ("multiplier_tiers=[[8,2],[11,3]]", ("multiplier_tiers", [[8, 2], [11, 3]])),
    ],
)
def test_parse_override(text: str, expected: tuple[str, Any]) -> None:
    assert parse_override(text) == expected


@pytest.mark.parametrize("text", ["bombs", "=true", "  =x", ""])
def test_parse_override_needs_key_equals_value(text: str) -> None:
    with pytest.raises(RulesetError) as err:
        parse_override(text)
    assert _code(err) == "E_RULESET_OVERRIDE"


# --- validation names the key ----------------------------------------------------------


def test_enum_keys_are_all_covered() -> None:
    assert len(ENUM_KEYS) == 14
    assert {
        "suit_order",
        "settlement",
        "must_block",
        "four_of_a_kind",
        "last_card_call",
        "missed_call_penalty",
        "bao_place",
    } <= set(ENUM_KEYS)


@pytest.mark.parametrize("key", ENUM_KEYS)
def test_every_enum_key_rejects_a_bad_value(key: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {key: "nonsense"})
    assert _code(err) == "E_RULESET_VALUE"
    assert key in err.value.message
    assert "'nonsense'" in err.value.message
    assert "expected one of" in err.value.message
    assert err.value.context["key"] == key


@pytest.mark.parametrize("key", BOOL_KEYS)
def test_bool_keys_reject_non_bools(key: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {key: "on"})
    assert _code(err) == "E_RULESET_VALUE"
    assert err.value.context["key"] == key


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("players", 53),
        ("players", 1),
        ("players", 0),
        ("players", "4"),
        ("players", True),
        ("winner_bonus", -5),
        ("stake", 0),
        ("stake", -1.5),
        ("stake", float("nan")),  # scores NaN, the log line not JSON
        ("stake", float("inf")),
        ("redeal_if", ["no_jqk", "always"]),
        ("redeal_if", 3),
    ],
)
def test_bad_values_name_the_key(key: str, value: Any) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {key: value})
    assert _code(err) == "E_RULESET_VALUE"
    assert err.value.message.startswith(f"override: {key} = ")


def test_the_rules_modules_of_unknown_key_are_every_games() -> None:
    # pipeline.rulesets.unknown_key looks a key up in the other games' rules modules (RULES,
    # by the game's name in messages): each registered game's, with its presets and its keys
    games = {game_for(k).csv.title: game_for(k) for k in kinds()}
    assert set(RULES) == set(games)
    for name, module in RULES.items():
        rules = import_module(module)
        assert tuple(rules.preset_names()) == games[name].preset_names()
        params = games[name].load_ruleset(rules.DEFAULT_PRESET, {}).to_dict()
        assert set(params) - {"name"} == rules.KEYS, name


def test_a_key_of_no_game_is_unknown_with_no_game_named() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"two_low": True})
    assert err.value.message == "override: unknown ruleset key 'two_low'"


@pytest.mark.parametrize(
    ("key", "near"),
    [("bomb", "bombs"), ("suit_ordr", "suit_order"), ("settelment", "settlement")],
)
def test_unknown_key_suggests_the_close_match(key: str, near: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {key: True})
    assert _code(err) == "E_RULESET_KEY"
    assert f"unknown ruleset key {key!r}" in err.value.message
    assert f"did you mean {near!r}?" in err.value.message


def test_unknown_key_without_a_close_match() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"zzzzzz": 1})
    assert "did you mean" not in err.value.message


# --- four of a kind: with a kicker, alone, or not at all (spec 1.2) ---------------------


@pytest.mark.parametrize("name", preset_names())
def test_presets_play_four_of_a_kind_with_a_kicker(name: str) -> None:
    # spec 1.2 table, four of a kind: "4 + any 1" in every seed's main rule; the parameter
    # defaults to today's behaviour and no preset changes it.
    assert load_ruleset(name).four_of_a_kind.value == "with_kicker"
    assert Ruleset().four_of_a_kind.value == "with_kicker"


@pytest.mark.parametrize("value", ["with_kicker", "alone", "off"])
def test_four_of_a_kind_values(value: str) -> None:
    rs = load_ruleset("taiwan", {"four_of_a_kind": value})
    assert rs.four_of_a_kind.value == value
    assert rs.to_dict()["four_of_a_kind"] == value


def test_four_of_a_kind_alone_refuses_four_card_quads() -> None:
    # The four cards alone cannot be both a quad (the four-card family) and a four of a kind.
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"four_of_a_kind": "alone", "allow_four_card_quads": True})
    assert _code(err) == "E_RULESET_VALUE"
    assert err.value.context["key"] == "four_of_a_kind"
    assert "allow_four_card_quads = true" in err.value.message
    # each alone is fine, and off leaves the four-card quad to allow_four_card_quads
    assert load_ruleset("hk", {"four_of_a_kind": "alone"}).allow_four_card_quads is False
    both = load_ruleset("hk", {"four_of_a_kind": "off", "allow_four_card_quads": True})
    assert both.allow_four_card_quads is True


def test_four_of_a_kind_rejects_a_bad_value() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"four_of_a_kind": True})
    assert _code(err) == "E_RULESET_VALUE"
    assert "expected one of with_kicker, alone, off" in err.value.message


def test_redeal_if_accepts_one_or_many() -> None:
    assert [r.value for r in load_ruleset("hk", {"redeal_if": "no_jqk"}).redeal_if] == ["no_jqk"]
    many = load_ruleset("hk", {"redeal_if": ["no_jqk", "points_below_3"]}).redeal_if
    assert {r.value for r in many} == {"no_jqk", "points_below_3"}


# --- multiplier tiers ------------------------------------------------------------------


def test_named_tier_tables() -> None:
    assert load_ruleset("hk", {"multiplier_tiers": "hk_10_13"}).multiplier_tiers == (
        (0, 1),
        (10, 2),
        (13, 3),
    )
    assert load_ruleset("hk").multiplier_tiers == ((0, 1), (8, 2), (10, 3), (13, 4))


@pytest.mark.parametrize(
    ("cards_left", "mult"), [(0, 1), (1, 1), (9, 1), (10, 2), (12, 2), (13, 3)]
)
def test_tier_boundaries_hk_10_13(cards_left: int, mult: int) -> None:
    assert load_ruleset("hk-classic").tier(cards_left) == mult


@pytest.mark.parametrize(
    ("cards_left", "mult"), [(0, 1), (7, 1), (8, 2), (9, 2), (10, 3), (12, 3), (13, 4)]
)
def test_tier_boundaries_hk_8_10_13(cards_left: int, mult: int) -> None:
    assert load_ruleset("hk").tier(cards_left) == mult


def test_custom_funtown_table() -> None:
    rs = load_ruleset("hk", {"multiplier_tiers": [[8, 2], [11, 3], [13, 4]]})
    assert rs.multiplier_tiers == ((0, 1), (8, 2), (11, 3), (13, 4))
    # spec 1.10 example 3: left 0 / 5 / 10 / 13 → penalties 0 / 5 / 20 / 52
    assert [n * rs.tier(n) for n in (0, 5, 10, 13)] == [0, 5, 20, 52]
    assert [rs.tier(n) for n in (7, 8, 10, 11, 12, 13)] == [1, 2, 2, 3, 3, 4]


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ([[8, 2], [8, 3]], "strictly increase"),
        ([[10, 2], [8, 3]], "strictly increase"),
        ([[8, 3], [10, 2]], "never decrease"),
        ([[8, 0]], "≥ 1"),
        ([[0, 0], [8, 2]], "≥ 1"),
        ([[8, 2, 1]], "is not [min_cards, multiplier]"),
        ([[8]], "is not [min_cards, multiplier]"),
        ([8, 2], "is not [min_cards, multiplier]"),
        ([[8, "2"]], "is not [min_cards, multiplier]"),
        ([[8, True]], "is not [min_cards, multiplier]"),
        ([], "expected a tier name or a table"),
        ("hk_9_99", "expected one of hk_10_13, hk_8_10_13"),
        ([[27, 2]], "more cards than any hand holds"),
    ],
)
def test_impossible_tier_tables_are_refused(table: Any, why: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"multiplier_tiers": table})
    assert _code(err) == "E_RULESET_VALUE"
    assert "multiplier_tiers" in err.value.message
    assert why in err.value.message


# --- players, hand and stock sizes ------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "mode", "hand", "stock"),
    [
        (4, None, 13, 0),
        (2, None, 26, 0),
        (3, "deal_17", 17, 1),
        (3, "swap_leftover", 17, 1),
        (3, "stock_13", 13, 13),
        (5, None, 10, 2),
        (6, None, 8, 4),
        (7, None, 7, 3),
        (8, None, 6, 4),
        (13, None, 4, 0),
        (52, None, 1, 0),
    ],
)
def test_hand_and_stock_sizes(players: int, mode: str | None, hand: int, stock: int) -> None:
    overrides: dict[str, Any] = {"players": players}
    if mode is not None:
        overrides["three_player_mode"] = mode
    rs = load_ruleset("hk", overrides)
    assert (rs.hand_size, rs.stock_size) == (hand, stock)
    assert rs.hand_size * players + rs.stock_size == 52


@pytest.mark.parametrize("players", [5, 6, 7, 8, 13, 52])
def test_more_than_four_players(players: int) -> None:
    # spec 1.3 (000: "in theory 2 to 52"): deal evenly, the leftover to the lowest-card
    # holder (as deal_17), whatever the 3-player mode says.
    for mode in ("deal_17", "stock_13", "swap_leftover"):
        rs = load_ruleset("hk", {"players": players, "three_player_mode": mode})
        assert (rs.hand_size, rs.stock_size) == (52 // players, 52 % players)
        assert rs.leftover_to_lowest
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"players": 53})
    assert "the engine plays 2 to 52 players" in err.value.message


@pytest.mark.parametrize("name", preset_names())
def test_presets_stay_at_two_to_four_players(name: str) -> None:
    # spec 1.3: "The presets stay 2-4 players."
    assert 2 <= load_ruleset(name).players <= 4


def test_three_player_mode_does_not_matter_with_four() -> None:
    rs = load_ruleset("hk", {"three_player_mode": "stock_13"})
    assert (rs.hand_size, rs.stock_size) == (13, 0)


def test_to_dict_is_plain_data() -> None:
    d = load_ruleset("taiwan").to_dict()
    assert d["suit_order"] == "taiwan"
    assert d["multiplier_tiers"] == [[0, 1], [10, 2], [13, 3]]
    assert d["name"] == "taiwan"
    assert "overrides" not in d


@pytest.mark.parametrize("name", ["defaults", "../hk", "HK", ""])
def test_only_shipped_presets_load(name: str) -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset(name)
    assert err.value.code == "E_RULESET_PRESET"


def test_meta_is_not_an_override() -> None:
    with pytest.raises(RulesetError) as err:
        load_ruleset("hk", {"meta": {"description": "x"}})
    assert err.value.code == "E_RULESET_KEY"


def test_rules_show_prints_four_of_a_kind() -> None:
    # `big2 rules show`: the parameter is listed with where it comes from, and a
    # contradicting pair is a bad input (exit 2) naming the key.
    from typer.testing import CliRunner

    from pipeline.cli import app

    runner = CliRunner()
    args = ["rules", "show", "taiwan", "-s", "four_of_a_kind=alone", "--format", "json"]
    shown = runner.invoke(app, args)
    assert shown.exit_code == 0, shown.output
    params = json.loads(shown.stdout)["parameters"]
    assert params["four_of_a_kind"] == {"value": "alone", "from": "override"}
    default = json.loads(runner.invoke(app, ["rules", "show", "--format", "json"]).stdout)
    assert default["parameters"]["four_of_a_kind"] == {"value": "with_kicker", "from": "default"}
    bad = runner.invoke(app, [*args, "-s", "allow_four_card_quads=true"])
    assert bad.exit_code == 2
    assert "E_RULESET_VALUE: four_of_a_kind = 'alone'" in bad.output
