"""What the games' rulesets share (:mod:`pipeline.big2.rules`, :mod:`pipeline.doudizhu.rules`):
the error of a bad value, and the check of a parameter both games have, written once.

>>> check_stake(2.5), check_stake(10)
(2.5, 10)
>>> check_stake(float("nan"))
Traceback (most recent call last):
...
pipeline.errors.RulesetError: E_RULESET_VALUE: stake = nan: expected a finite number > 0
"""

from __future__ import annotations

import math
from typing import Any

from pipeline.errors import RulesetError


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
