"""Dou Dizhu rulesets as data: every parameter of spec 2.2-2.6, presets in TOML files.

A :class:`DdzRuleset` is a frozen, hashable value built from a preset name plus overrides;
every key and value is validated where the ruleset is built, and a bad one is refused with an
error naming the key (the codes of :mod:`pipeline.big2.rules`: ``E_RULESET_KEY``,
``E_RULESET_VALUE``, ``E_RULESET_PRESET``).

>>> rs = load_ruleset("ddz")
>>> rs.players, rs.bidding.value, rs.bid_reentry, rs.kitty_size, rs.set_aside_size
(3, 'points', True, 3, 0)
>>> two = load_ruleset("ddz-2p")
>>> two.players, two.bidding.value, two.hand_size, two.set_aside_size
(2, 'call', 20, 11)
>>> load_ruleset("ddz-2p", {"hand_size": 17}).set_aside_size
17
>>> try:
...     load_ruleset("ddz", {"spring_double": True})
... except RulesetError as err:
...     print(err.code, err.message)
E_RULESET_KEY override: unknown ruleset key 'spring_double' (did you mean 'spring_doubles'?)
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from pipeline.errors import RulesetError
from pipeline.rulesets import bad_value as _bad
from pipeline.rulesets import check_stake, unknown_key

DEFAULT_PRESET = "ddz"
DECK_SIZE = 54
KITTY_SIZE = 3
#: The highest bid of 叫分 (spec 2.2): a bid of 3 ends the auction.
MAX_BID = 3


class Bidding(StrEnum):
    """How the landlord is chosen (spec 2.2)."""

    POINTS = "points"  # 叫分: pass or bid 1-3, strictly higher than the current bid
    CALL = "call"  # 叫地主: call or not; the first call ends the auction (base 1)

    __hash__ = str.__hash__


@dataclass(frozen=True, kw_only=True)
class DdzRuleset:
    """One complete, validated set of Dou Dizhu rules (hashable, immutable)."""

    name: str = DEFAULT_PRESET
    overrides: tuple[tuple[str, Any], ...] = ()
    players: int = 3
    bidding: Bidding = Bidding.POINTS
    bid_reentry: bool = True
    hand_size: int = 17
    four_with_two: bool = True
    spring_doubles: bool = False
    multiplier_cap: int | None = None
    stake: float = 1
    description: str = field(default="", compare=False)

    @property
    def kitty_size(self) -> int:
        """The face-down cards the landlord takes (底牌): always 3."""
        return KITTY_SIZE

    @property
    def set_aside_size(self) -> int:
        """Cards dealt to nobody and never seen: 0 for 3 players, 11 (or 17) for 2."""
        return DECK_SIZE - self.players * self.hand_size - KITTY_SIZE

    def capped(self, multiplier: int) -> int:
        """The multiplier a table pays under ``multiplier_cap`` (封顶).

        >>> load_ruleset("ddz", {"multiplier_cap": 8}).capped(16), load_ruleset("ddz").capped(16)
        (8, 16)
        """
        cap = self.multiplier_cap
        return multiplier if cap is None else min(multiplier, cap)

    def to_dict(self) -> dict[str, Any]:
        """Every parameter as plain TOML-able values (``multiplier_cap`` none as ``"none"``)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "overrides":
                continue
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        if out["multiplier_cap"] is None:
            out["multiplier_cap"] = "none"
        return out


#: The keys a preset or an override may set (:func:`pipeline.rulesets.unknown_key` looks a key
#: of another game's up here).
KEYS = frozenset(f.name for f in dataclasses.fields(DdzRuleset)) - {"name", "overrides"}
_BOOL_FIELDS = {"bid_reentry", "four_with_two", "spring_doubles"}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_value(key: str, value: Any) -> Any:
    """Validate and normalise one parameter; raise naming the key.

    >>> _check_value("multiplier_cap", "none") is None, _check_value("bidding", "call").value
    (True, 'call')
    >>> try:
    ...     _check_value("players", 4)
    ... except RulesetError as err:
    ...     print(err.message)
    players = 4: Dou Dizhu is played by 2 or 3 players
    """
    if key not in KEYS:
        raise unknown_key(key, game="Dou Dizhu")
    if key in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise _bad(key, value, "expected true or false")
        return value
    if key == "players":
        if not _is_int(value) or value not in (2, 3):
            raise _bad(key, value, "Dou Dizhu is played by 2 or 3 players")
        return value
    if key == "bidding":
        try:
            return Bidding(value)
        except ValueError:
            raise _bad(key, value, "expected one of points, call") from None
    if key == "hand_size":
        if not _is_int(value) or not 1 <= value <= 25:
            raise _bad(key, value, "expected a whole number of cards 1-25")
        return value
    if key == "multiplier_cap":
        if value == "none":
            return None
        if not _is_int(value) or value < 1:
            raise _bad(key, value, 'expected "none" or a whole number ≥ 1')
        return value
    if key == "stake":
        return check_stake(value)
    return str(value)  # description


def _check_together(settings: Mapping[str, Any], overridden: Collection[str] = ()) -> None:
    """Refuse parameters that contradict each other: the deal must fit the 54 cards. The
    error names the parameter overridden (``players`` when only it was), the other's value
    beside it.

    >>> try:
    ...     load_ruleset("ddz", {"hand_size": 20})
    ... except RulesetError as err:
    ...     print(err.message)
    override: hand_size = 20: 3 players × 20 + 3 kitty cards is more than the 54 cards
    >>> try:
    ...     load_ruleset("ddz-2p", {"players": 3})
    ... except RulesetError as err:
    ...     print(err.message)
    override: players = 3: 3 players × 20 (hand_size) + 3 kitty cards is more than the 54 cards
    """
    players, size = settings["players"], settings["hand_size"]
    by_players = "players" in overridden and "hand_size" not in overridden
    key, value, hand = ("players", players, f"{size} (hand_size)") if by_players else (
        "hand_size", size, str(size))  # fmt: skip
    if players * size + KITTY_SIZE > DECK_SIZE:
        why = f"{players} players × {hand} + {KITTY_SIZE} kitty cards is more than the {DECK_SIZE} cards"
        raise _bad(key, value, why)
    if players == 3 and size != 17:
        raise _bad(key, value, f"3 players are dealt 17 cards each (spec 2.2), not {hand}")


_META_KEYS = frozenset({"description", "source"})


def _presets_dir() -> Any:
    return resources.files("pipeline.doudizhu") / "presets"


def preset_names() -> list[str]:
    """The Dou Dizhu presets shipped with the package, default first.

    >>> preset_names()
    ['ddz', 'ddz-2p']
    """
    names = sorted(
        p.name.removesuffix(".toml")
        for p in _presets_dir().iterdir()
        if p.name.endswith(".toml") and p.name != "defaults.toml"
    )
    return [DEFAULT_PRESET] + [n for n in names if n != DEFAULT_PRESET]


@cache
def _read_toml(name: str) -> dict[str, Any]:
    path = _presets_dir() / f"{name}.toml"
    if not path.is_file():
        raise RulesetError(
            "E_RULESET_PRESET",
            f"unknown preset {name!r}; Dou Dizhu presets: {', '.join(preset_names())}",
            key="preset",
            value=name,
        )
    with path.open("rb") as fh:
        doc: dict[str, Any] = tomllib.load(fh)
    for key in doc.get("meta", {}):
        if key not in _META_KEYS:
            raise RulesetError(
                "E_RULESET_KEY", f"preset {name!r}: unknown [meta] key {key!r}", key=key
            )
    return doc


def preset_meta(name: str) -> dict[str, str]:
    """The ``[meta]`` table of a preset (description, source).

    >>> preset_meta("ddz-2p")["source"]
    '004 (二人斗地主)'
    """
    return dict(_read_toml(name).get("meta", {}))


def _settings(doc: Mapping[str, Any], source: str, *, is_file: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "meta" and is_file:
            continue
        try:
            out[key] = _check_value(key, value)
        except RulesetError as err:
            raise RulesetError(err.code, f"{source}: {err.message}", **err.context) from None
    return out


@cache
def _load(name: str, overrides: tuple[tuple[str, Any], ...]) -> DdzRuleset:
    if name not in preset_names():
        _read_toml(name)  # raises E_RULESET_PRESET
    settings = _settings(_read_toml("defaults"), "defaults.toml")
    preset = _read_toml(name)
    settings.update(_settings(preset, f"preset {name!r}"))
    settings["description"] = preset.get("meta", {}).get("description", "")
    settings.update(_settings(dict(overrides), "override", is_file=False))
    try:
        _check_together(settings, dict(overrides))
    except RulesetError as err:
        where = "override" if overrides else f"preset {name!r}"
        raise RulesetError(err.code, f"{where}: {err.message}", **err.context) from None
    return DdzRuleset(name=name, overrides=overrides, **settings)


def load_ruleset(
    name: str = DEFAULT_PRESET, overrides: Mapping[str, Any] | None = None
) -> DdzRuleset:
    """A Dou Dizhu preset plus overrides, validated (cached: same inputs, same object).

    >>> load_ruleset("ddz", {"bid_reentry": False}).bid_reentry
    False
    >>> try:
    ...     load_ruleset("ddz-3p")
    ... except RulesetError as err:
    ...     print(err.code, err.message)
    E_RULESET_PRESET unknown preset 'ddz-3p'; Dou Dizhu presets: ddz, ddz-2p
    """
    items = tuple(sorted((overrides or {}).items()))
    _settings(dict(items), "override", is_file=False)
    return _load(name, items)
