"""Wording shared by the layers that talk to people: errors, reports and the CLI.

>>> plural(1, "bot"), plural(3, "bot")
('1 bot', '3 bots')
"""

from __future__ import annotations


def plural(n: int, noun: str) -> str:
    """``n`` and the noun, in the plural unless ``n`` is 1 (nouns ending in ``ch`` add ``es``).

    >>> plural(1, "batch"), plural(3, "batch"), plural(1_200, "row")
    ('1 batch', '3 batches', '1,200 rows')
    """
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {noun}{'es' if noun.endswith(('ch', 's')) else 's'}"
