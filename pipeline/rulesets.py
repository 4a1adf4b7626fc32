"""What the games' rulesets share (:mod:`pipeline.big2.rules`, :mod:`pipeline.doudizhu.rules`):
the error of a bad value, the check of a parameter both games have, written once, and the
refusal of an unknown key, which names the game whose key it is.

>>> check_stake(2.5), check_stake(10)
(2.5, 10)
>>> print(unknown_key("multiplier_cap", game="Big Two").message)
unknown ruleset key 'multiplier_cap' (a Dou Dizhu key, not Big Two's; Dou Dizhu presets: ddz, ddz-2p)
>>> check_stake(float("nan"))
Traceback (most recent call last):
...
pipeline.errors.RulesetError: E_RULESET_VALUE: stake = nan: expected a finite number > 0
"""

from __future__ import annotations

import difflib
import math
from importlib import import_module
from typing import Any

from pipeline.errors import RulesetError

#: Each game's rules module by the game's name in messages, imported on first use (as
#: :data:`pipeline.games.GAMES` registers the games): each has ``KEYS``, the keys its
#: presets and overrides may set, and ``preset_names()``.
RULES: dict[str, str] = {
    "Big Two": "pipeline.big2.rules",
    "Dou Dizhu": "pipeline.doudizhu.rules",
}


def unknown_key(key: str, *, game: str) -> RulesetError:
    """``E_RULESET_KEY`` for ``key``, which no ruleset of ``game`` (a name of :data:`RULES`)
    has: when another game's rulesets have it, which game and its presets (the key was
    meant for a preset of that game), else the closest key of ``game``'s.

    >>> print(unknown_key("bomb", game="Big Two").message)
    unknown ruleset key 'bomb' (did you mean 'bombs'?)
    >>> print(unknown_key("bombs", game="Dou Dizhu").message)
    unknown ruleset key 'bombs' (a Big Two key, not Dou Dizhu's; Big Two presets: hk, hk-classic, mainland, taiwan)
    """
    rules = {name: import_module(module) for name, module in RULES.items()}
    other = next((n for n, m in rules.items() if n != game and key in m.KEYS), None)
    if other is not None:
        presets = ", ".join(rules[other].preset_names())
        hint = f" (a {other} key, not {game}'s; {other} presets: {presets})"
    else:
        near = difflib.get_close_matches(key, sorted(rules[game].KEYS), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
    return RulesetError("E_RULESET_KEY", f"unknown ruleset key {key!r}{hint}", key=key)


def bad_value(key: str, value: Any, why: str) -> RulesetError:
    """``E_RULESET_VALUE`` naming the key and quoting the value, then why it is refused."""
    return RulesetError("E_RULESET_VALUE", f"{key} = {value!r}: {why}", key=key, value=value)


def check_stake(value: Any) -> int | float:
    """``stake``, the money a unit of the game's score is worth (spec 1.7, 2.5): a finite
    number > 0, an int or a float (``true`` is no number; NaN or infinity would score NaN).

    >>> check_stake(True)
    Traceback (most recent call last):
    ...
    pipeline.errors.RulesetError: E_RULESET_VALUE: stake = True: expected a finite number > 0
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not math.isfinite(value))
        or value <= 0
    ):
        raise bad_value("stake", value, "expected a finite number > 0")
    return value
