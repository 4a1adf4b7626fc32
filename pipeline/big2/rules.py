"""Rulesets as data: every house-rule parameter of spec 1.2-1.9, presets in TOML files.

A :class:`Ruleset` is a frozen, hashable value. Build one from a preset name plus
overrides; every key and value is validated where the ruleset is built, and a bad one is
refused with an error naming the key.

>>> rs = load_ruleset("hk")
>>> rs.suit_order, rs.straight_order, rs.settlement
(<SuitOrder.HK: 'hk'>, <StraightOrder.HK: 'hk'>, <Settlement.PLACE: 'place'>)
>>> load_ruleset("mainland", {"settlement": "winner_takes_all"}).settlement.value
'winner_takes_all'
>>> try:
...     load_ruleset("hk", {"bomb": True})
... except RulesetError as err:
...     print(err.code, err.message)
E_RULESET_KEY override: unknown ruleset key 'bomb' (did you mean 'bombs'?)
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pipeline.errors import RulesetError
from pipeline.rulesets import bad_value as _bad
from pipeline.rulesets import check_stake, unknown_key

DEFAULT_PRESET = "hk"
#: One deck, at least one card a seat (spec 1.3: "2 to 52 are possible in theory").
MAX_PLAYERS = 52


class RuleEnum(StrEnum):
    """A string enum hashed like its value: ``Enum.__hash__`` is Python code, and the engine
    looks members up in dicts on every action. Members equal their values, so hashing them
    alike also keeps the hash / equality contract (``SuitOrder.HK == "hk"``)."""

    __hash__ = str.__hash__


class SuitOrder(RuleEnum):
    """Suit strength order, low to high (spec 1.1)."""

    HK = "hk"  # ♦ < ♣ < ♥ < ♠
    TAIWAN = "taiwan"  # ♣ < ♦ < ♥ < ♠


class StraightOrder(RuleEnum):
    """Which five-card sequences are straights and how they rank (spec 1.2)."""

    HK = "hk"
    BIG2_NATURAL = "big2_natural"
    HIGHEST_CARD = "highest_card"
    POKER = "poker"
    A2345_TOP_POKER = "a2345_top_poker"
    AKQJT_TOP_POKER = "akqjt_top_poker"


class FlushCompare(RuleEnum):
    """How two flushes compare (spec 1.2)."""

    RANKS_THEN_SUIT = "ranks_then_suit"
    HIGHEST_CARD = "highest_card"
    SUIT_THEN_RANKS = "suit_then_ranks"


class FourOfAKind(RuleEnum):
    """How four cards of one rank are played as the four of a kind 四條 (spec 1.2)."""

    WITH_KICKER = "with_kicker"  # four of a rank + any one card, a five-card play (000, 001, 002)
    ALONE = "alone"  # the four cards alone, no kicker (000: 其實只出四隻牌亦可)
    OFF = "off"  # no four-of-a-kind play at all


class ThreePlayerMode(RuleEnum):
    """How three players are dealt (spec 1.3)."""

    DEAL_17 = "deal_17"
    STOCK_13 = "stock_13"
    SWAP_LEFTOVER = "swap_leftover"


class Direction(RuleEnum):
    """Play direction (spec 1.3). Seats are numbered counter-clockwise."""

    COUNTERCLOCKWISE = "counterclockwise"
    CLOCKWISE = "clockwise"
    ALTERNATE = "alternate"  # odd games clockwise, even games counter-clockwise (001)


class FirstLead(RuleEnum):
    """Who leads the first trick of a game (spec 1.4)."""

    LOWEST_CARD_THEN_WINNER = "lowest_card_then_winner"
    LOWEST_CARD_EVERY_GAME = "lowest_card_every_game"


class FirstPlay(RuleEnum):
    """What the lowest-card holder's opening lead must do with that card (spec 1.4)."""

    CONTAIN = "contain"
    SINGLE = "single"
    SHOW = "show"
    NONE = "none"


class RedealReason(RuleEnum):
    """Hands that may ask for a redeal (spec 1.5)."""

    POINTS_BELOW_3 = "points_below_3"
    NO_CARD_ABOVE_10 = "no_card_above_10"
    NO_JQK = "no_jqk"


class MustBlock(RuleEnum):
    """頂大: what happens when the next player is on one card and the obligation is not met."""

    LIABILITY = "liability"  # allowed; the violator pays 包牌 if the next player goes out
    ENFORCED = "enforced"  # the engine rejects the action
    OFF = "off"  # audited as information only


class LastCardCall(RuleEnum):
    """The last-card call (001: 剩最後一張牌時，必須宣告; spec 1.6)."""

    OFF = "off"  # not required: a call in the log is recorded, a missing one is no fact
    REQUIRED = "required"  # a play leaving one card not followed by the call: a fact, counted


class MissedCallPenalty(RuleEnum):
    """What a winner who went out without the last-card call pays (spec 1.6)."""

    NONE = "none"  # nothing: the missed call is counted, not scored
    TAKES_ALL_LOSSES = "takes_all_losses"  # charged the losers' penalties, the losers none


class Settlement(RuleEnum):
    """How penalties turn into money or points (spec 1.7)."""

    WINNER_TAKES_ALL = "winner_takes_all"
    PLACE = "place"
    PENALTY_POINTS = "penalty_points"


class BaoPlace(RuleEnum):
    """包牌 under place (zero-sum) settlement: the two house readings (spec 1.6)."""

    NET_LOSSES = "net_losses"  # the violator pays the other losers' net losses (002)
    ALL_CARDS = "all_cards"  # the violator takes on every loser's cards, the others none


class BonusMultipliers(RuleEnum):
    """Table options multiplying the stake for kinds played 3+ times (002 歡樂炸藥)."""

    OFF = "off"
    HUANLE = "huanle"


#: Named multiplier tables: (minimum cards left, multiplier), lowest first.
TIER_TABLES: dict[str, tuple[tuple[int, int], ...]] = {
    "hk_10_13": ((0, 1), (10, 2), (13, 3)),
    "hk_8_10_13": ((0, 1), (8, 2), (10, 3), (13, 4)),
}

#: 歡樂炸藥 table (002): kind → multiplier once the kind was played at least 3 times in a game.
HUANLE_TABLE: dict[str, int] = {"straight": 2, "flush": 2, "full_house": 3, "four_of_a_kind": 4}
HUANLE_MIN_PLAYS = 3

#: Tier names by multiplier (炒).
TIER_NAMES: dict[int, str] = {1: "", 2: "雙炒", 3: "三炒", 4: "四炒"}

#: Rank ladder (spec 1.8, 003): title → minimum cumulative score; 主席 from ``rank_ladder_top``.
RANK_LADDER: tuple[tuple[str, int], ...] = (
    ("待业", 0), ("科员", 1000), ("科长助理", 2000), ("副科长", 3000), ("第一副科", 4000),
    ("正科长", 5000), ("处长助理", 7000), ("副处长", 9000), ("第一副处", 11000),
    ("正处长", 13000), ("局长助理", 18000), ("副局长", 23000), ("第一副局", 28000),
    ("正局长", 33000), ("厅长助理", 43000), ("副厅长", 53000), ("第一副厅", 63000),
    ("正厅长", 73000), ("部长助理", 88000), ("副部长", 103000), ("第一副部", 118000),
    ("正部长", 133000), ("总理助理", 200000), ("副总理", 250000), ("第一副总理", 300000),
    ("总理", 350000), ("副主席", 500000),
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Ruleset:
    """One complete, validated set of Big Two house rules (hashable, immutable)."""

    name: str = DEFAULT_PRESET
    overrides: tuple[tuple[str, Any], ...] = ()
    # cards and combinations
    suit_order: SuitOrder = SuitOrder.HK
    straight_order: StraightOrder = StraightOrder.HK
    flush_compare: FlushCompare = FlushCompare.RANKS_THEN_SUIT
    allow_triples: bool = True
    four_of_a_kind: FourOfAKind = FourOfAKind.WITH_KICKER
    allow_four_card_quads: bool = False
    allow_two_pairs: bool = False
    allow_two_pairs_plus_one: bool = False
    bombs: bool = False
    royal_only_beats_quads: bool = False
    # players
    players: int = 4
    three_player_mode: ThreePlayerMode = ThreePlayerMode.DEAL_17
    direction: Direction = Direction.COUNTERCLOCKWISE
    # leading and passing
    first_lead: FirstLead = FirstLead.LOWEST_CARD_THEN_WINNER
    first_play_must_contain_lowest: FirstPlay = FirstPlay.CONTAIN
    pass_locks_out: bool = True
    # instant wins, redeals
    dragon_instant_win: bool = False
    four_twos_instant_win: bool = False
    redeal_if: tuple[RedealReason, ...] = ()
    # 頂大
    must_block: MustBlock = MustBlock.LIABILITY
    last_card_call: LastCardCall = LastCardCall.OFF
    missed_call_penalty: MissedCallPenalty = MissedCallPenalty.NONE
    # scoring
    multiplier_tiers: tuple[tuple[int, int], ...] = TIER_TABLES["hk_8_10_13"]
    spade_two_doubles: bool = False
    first_leader_seven_doubles: bool = False
    card_points: bool = False
    winner_bonus: int = 0
    stake: float = 1
    bonus_multipliers: BonusMultipliers = BonusMultipliers.OFF
    settlement: Settlement = Settlement.PLACE
    bao_place: BaoPlace = BaoPlace.NET_LOSSES
    # matches
    bankroll: bool = False
    bankroll_start: int = 0
    rank_ladder_top: int = 1_000_000
    # play-time rewards (spec 1.8, 002): table data, read by mart_playtime_rewards
    reward_minutes: tuple[int, ...] = (10,)
    reward_claims_per_day: int = 8
    reward_day_starts: str = "08:00"
    reward_timezone: str = "Asia/Hong_Kong"
    description: str = field(default="", compare=False)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat before any leftover: 52 // players, 17 for 3 players
        (13 under ``stock_13``).

        >>> [load_ruleset("hk", {"players": n}).hand_size for n in (2, 3, 4, 5, 6, 7, 8)]
        [26, 17, 13, 10, 8, 7, 6]
        """
        if self.players == 3:
            return 13 if self.three_player_mode == ThreePlayerMode.STOCK_13 else 17
        return 52 // self.players

    @property
    def stock_size(self) -> int:
        """Cards not dealt to any seat: the 3-player stock or the leftover cards.

        >>> load_ruleset("hk", {"players": 3, "three_player_mode": "stock_13"}).stock_size
        13
        >>> [load_ruleset("hk", {"players": n}).stock_size for n in (5, 6, 7, 8)]
        [2, 4, 3, 4]
        """
        return 52 - self.hand_size * self.players

    @property
    def leftover_to_lowest(self) -> bool:
        """Whether the undealt cards go to the holder of the lowest dealt card (spec 1.3):
        3 players under ``deal_17``, and 5 or more players (deal evenly, as ``deal_17``).

        >>> [load_ruleset("hk", {"players": n}).leftover_to_lowest for n in (2, 3, 4, 5)]
        [False, True, False, True]
        """
        if self.players == 3:
            return self.three_player_mode == ThreePlayerMode.DEAL_17
        return self.players > 4

    def tier(self, cards_left: int) -> int:
        """The 炒 multiplier for a loser with ``cards_left`` cards.

        >>> rs = load_ruleset("hk")
        >>> [rs.tier(n) for n in (1, 7, 8, 9, 10, 12, 13)]
        [1, 1, 2, 2, 3, 3, 4]
        """
        mult = 1
        for minimum, m in self.multiplier_tiers:
            if cards_left >= minimum:
                mult = m
        return mult

    def to_dict(self) -> dict[str, Any]:
        """Every parameter as plain TOML-able values (enums as strings, tiers as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("overrides",):
                continue
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


_FIELDS = {f.name: f for f in dataclasses.fields(Ruleset) if f.name not in ("name", "overrides")}
#: The keys a preset or an override may set (:func:`pipeline.rulesets.unknown_key` looks a key
#: of another game's up here).
KEYS = frozenset(_FIELDS)
_ENUM_FIELDS: dict[str, type[StrEnum]] = {
    "suit_order": SuitOrder,
    "straight_order": StraightOrder,
    "flush_compare": FlushCompare,
    "four_of_a_kind": FourOfAKind,
    "three_player_mode": ThreePlayerMode,
    "direction": Direction,
    "first_lead": FirstLead,
    "first_play_must_contain_lowest": FirstPlay,
    "must_block": MustBlock,
    "last_card_call": LastCardCall,
    "missed_call_penalty": MissedCallPenalty,
    "bonus_multipliers": BonusMultipliers,
    "settlement": Settlement,
    "bao_place": BaoPlace,
}
_BOOL_FIELDS = {n for n, f in _FIELDS.items() if f.type in ("bool", bool)}  # compiled: the type
_INT_FIELDS = {
    "players",
    "winner_bonus",
    "bankroll_start",
    "rank_ladder_top",
    "reward_claims_per_day",
}


def _check_value(key: str, value: Any) -> Any:
    """Validate and normalise one parameter value; raise naming the key."""
    if key not in KEYS:
        raise unknown_key(key, game="Big Two")
    if key in _ENUM_FIELDS:
        enum = _ENUM_FIELDS[key]
        try:
            return enum(value)
        except ValueError:
            choices = ", ".join(e.value for e in enum)
            raise _bad(key, value, f"expected one of {choices}") from None
    if key in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise _bad(key, value, "expected true or false")
        return value
    if key in _INT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _bad(key, value, "expected a whole number ≥ 0")
        if key == "players" and not 2 <= value <= MAX_PLAYERS:
            raise _bad(key, value, f"the engine plays 2 to {MAX_PLAYERS} players")
        return value
    if key == "stake":
        return check_stake(value)
    if key == "redeal_if":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            raise _bad(key, value, "expected a list of redeal reasons")
        try:
            return tuple(sorted({RedealReason(v) for v in items}))
        except ValueError:
            choices = ", ".join(e.value for e in RedealReason)
            raise _bad(key, value, f"expected items from {choices}") from None
    if key == "multiplier_tiers":
        return _check_tiers(value)
    if key.startswith("reward_"):
        return _check_reward(key, value)
    if key == "description":
        return str(value)
    raise AssertionError(f"no validator for {key}")  # pragma: no cover - every field has one


def _check_tiers(value: Any) -> tuple[tuple[int, int], ...]:
    key = "multiplier_tiers"
    if isinstance(value, str):
        if value not in TIER_TABLES:
            raise _bad(key, value, f"expected one of {', '.join(TIER_TABLES)} or a table")
        return TIER_TABLES[value]
    if not isinstance(value, list | tuple) or not value:
        raise _bad(key, value, "expected a tier name or a table [[min_cards, multiplier], ...]")
    rows: list[tuple[int, int]] = []
    for row in value:
        ok = (
            isinstance(row, list | tuple)
            and len(row) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in row)
        )
        if not ok:
            raise _bad(key, value, f"row {row!r} is not [min_cards, multiplier]")
        rows.append((row[0], row[1]))
    if rows[0][0] != 0:
        rows.insert(0, (0, 1))
    mins = [r[0] for r in rows]
    mults = [r[1] for r in rows]
    if any(b <= a for a, b in pairwise(mins)):
        raise _bad(key, value, "minimum cards must strictly increase")
    if mins[-1] > 26:
        raise _bad(key, value, "a tier needs more cards than any hand holds")
    if any(m < 1 for m in mults) or any(b < a for a, b in pairwise(mults)):
        raise _bad(key, value, "multipliers must be ≥ 1 and never decrease")
    return tuple(rows)


def _check_reward(key: str, value: Any) -> Any:
    """Validate a play-time reward parameter (spec 1.8, seed 002; docs/scoring.md).

    >>> _check_reward("reward_minutes", [5, 15, 30])
    (5, 15, 30)
    >>> _check_reward("reward_day_starts", "8:00")
    '08:00'
    >>> try:
    ...     _check_reward("reward_timezone", "Mars/Olympus")
    ... except RulesetError as err:
    ...     print(err.message)
    reward_timezone = 'Mars/Olympus': expected an IANA time zone name such as 'Asia/Hong_Kong' or 'UTC'
    """
    if key == "reward_minutes":
        ok = isinstance(value, list | tuple) and all(
            isinstance(x, int) and not isinstance(x, bool) for x in value
        )
        items = tuple(int(x) for x in value) if ok else ()
        if not ok or any(x < 1 for x in items) or any(b <= a for a, b in pairwise(items)):
            raise _bad(
                key, value, "expected strictly increasing whole minutes ≥ 1 ([] = no rewards)"
            )
        return items
    if key == "reward_day_starts":
        hh, sep, mm = str(value).partition(":")
        if not (sep and hh.isdigit() and mm.isdigit() and int(hh) < 24 and int(mm) < 60):
            raise _bad(key, value, "expected a time of day HH:MM")
        return f"{int(hh):02d}:{int(mm):02d}"
    if key == "reward_timezone":
        try:
            ZoneInfo(str(value))
        except (ZoneInfoNotFoundError, ValueError):
            raise _bad(
                key, value, "expected an IANA time zone name such as 'Asia/Hong_Kong' or 'UTC'"
            ) from None
        return str(value)
    raise AssertionError(f"no validator for {key}")  # pragma: no cover


_META_KEYS = frozenset({"description", "source"})


@cache
def _read_toml(name: str) -> dict[str, Any]:
    files = resources.files("pipeline.big2") / "presets"
    path = files / f"{name}.toml"
    if not path.is_file():
        raise RulesetError(
            "E_RULESET_PRESET",
            f"unknown preset {name!r}; presets: {', '.join(preset_names())}",
            key="preset",
            value=name,
        )
    with path.open("rb") as fh:
        doc = tomllib.load(fh)
    for key in doc.get("meta", {}):
        if key not in _META_KEYS:  # a parameter written under a [meta] header belongs to meta
            raise RulesetError(
                "E_RULESET_KEY",
                f"preset {name!r}: unknown [meta] key {key!r} (parameters go outside [meta])",
                key=key,
            )
    return doc


def preset_names() -> list[str]:
    """The presets shipped with the package, default first.

    >>> preset_names()
    ['hk', 'hk-classic', 'mainland', 'taiwan']
    """
    files = resources.files("pipeline.big2") / "presets"
    names = sorted(
        p.name.removesuffix(".toml")
        for p in files.iterdir()
        if p.name.endswith(".toml") and p.name != "defaults.toml"
    )
    return [DEFAULT_PRESET] + [n for n in names if n != DEFAULT_PRESET]


def preset_meta(name: str) -> dict[str, str]:
    """The ``[meta]`` table of a preset (description, source)."""
    return dict(_read_toml(name).get("meta", {}))


def _settings(doc: Mapping[str, Any], source: str, *, is_file: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "meta" and is_file:
            continue
        try:
            out[key] = _check_value(key, value)
        except RulesetError as err:
            raise type(err)(err.code, f"{source}: {err.message}", **err.context) from None
    return out


def parse_override(text: str) -> tuple[str, Any]:
    """Parse one ``key=value`` override; the value is read as TOML, else as a bare string.

    >>> parse_override("bombs=true"), parse_override("settlement=place")
    (('bombs', True), ('settlement', 'place'))
    >>> parse_override("multiplier_tiers=[[8,2],[11,3],[13,4]]")
    ('multiplier_tiers', [[8, 2], [11, 3], [13, 4]])
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RulesetError("E_RULESET_OVERRIDE", f"override {text!r} is not key=value", key=text)
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


@cache
def _load(name: str, overrides: tuple[tuple[str, Any], ...]) -> Ruleset:
    if name not in preset_names():
        raise RulesetError(
            "E_RULESET_PRESET",
            f"unknown preset {name!r}; presets: {', '.join(preset_names())}",
            key="preset",
            value=name,
        )
    settings = _settings(_read_toml("defaults"), "defaults.toml")
    preset = _read_toml(name)
    settings.update(_settings(preset, f"preset {name!r}"))
    settings["description"] = preset.get("meta", {}).get("description", "")
    settings.update(_settings(dict(overrides), "override", is_file=False))
    _check_together(settings)
    return Ruleset(name=name, overrides=overrides, **settings)


def _check_together(settings: Mapping[str, Any]) -> None:
    """Refuse parameters that contradict each other (each alone is valid).

    >>> try:
    ...     load_ruleset("hk", {"four_of_a_kind": "alone", "allow_four_card_quads": True})
    ... except RulesetError as err:
    ...     print(err.code, err.message)  # doctest: +ELLIPSIS
    E_RULESET_VALUE four_of_a_kind = 'alone': with allow_four_card_quads = true the same ... set allow_four_card_quads = false
    """
    if (
        settings["missed_call_penalty"] == MissedCallPenalty.TAKES_ALL_LOSSES
        and settings["last_card_call"] != LastCardCall.REQUIRED
    ):
        raise _bad(
            "missed_call_penalty",
            MissedCallPenalty.TAKES_ALL_LOSSES.value,
            "a call is missed only where it is required; set last_card_call = required",
        )
    if settings["four_of_a_kind"] == FourOfAKind.ALONE and settings["allow_four_card_quads"]:
        raise _bad(
            "four_of_a_kind",
            FourOfAKind.ALONE.value,
            "with allow_four_card_quads = true the same four cards would be two plays "
            "(a quad and a four of a kind); set allow_four_card_quads = false",
        )


def load_ruleset(name: str = DEFAULT_PRESET, overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """A preset plus overrides, validated (cached: the same inputs give the same object).

    >>> load_ruleset("hk", {"multiplier_tiers": [[8, 2], [11, 3], [13, 4]]}).tier(11)
    3
    >>> try:
    ...     load_ruleset("hk", {"multiplier_tiers": [[8, 2], [8, 3]]})
    ... except RulesetError as err:
    ...     print(err.code)
    ...     print(err.message)
    E_RULESET_VALUE
    override: multiplier_tiers = [[8, 2], [8, 3]]: minimum cards must strictly increase
    """
    items = tuple(sorted((overrides or {}).items()))
    seen = (name, repr(items))  # repr tells True from 1 and 1.0, a list from a tuple
    if (known := _VALIDATED.get(seen)) is not None:
        return known
    _settings(
        dict(items), "override", is_file=False
    )  # validate as given, so errors quote the user's value
    frozen = tuple((k, _freeze(v)) for k, v in items)
    ruleset = _load(name, frozen)
    if len(_VALIDATED) >= 4096:
        _VALIDATED.clear()
    _VALIDATED[seen] = ruleset
    return ruleset


#: The rulesets of the overrides already validated, by preset and the overrides' repr: each
#: game of a score sheet names the same ones (validating them again took ~9 µs a game, ~12 %
#: of a sheet's import; a look-up here ~1.5 µs).
_VALIDATED: dict[tuple[str, str], Ruleset] = {}


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value
