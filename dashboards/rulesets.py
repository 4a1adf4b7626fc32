"""The sidebar's ruleset filter: each preset of the chosen game, and under it each variant its
games use (the preset with house-rule overrides, a ruleset id: ``hk {"settlement": "chao"}``).
A preset keeps every game of the preset, a variant exactly its own (``sql/macros/
ruleset_chosen.sql``; docs/dashboards.md, "The ruleset filter"); the rollups and the
per-ruleset marts are keyed by the preset, so a variant takes the detailed queries
(:attr:`dashboards.frames.Filters.variant`, :func:`dashboards.data.rollup`).
"""

from __future__ import annotations

from dashboards import data


@data.cached
def variants(game_kind: str) -> dict[str, str]:
    """The variants to list (``dash_ruleset_variants``: ruleset id → its label) among the games
    of ``game_kind`` (``big2``, ``doudizhu``); none before a ``big2 build`` with the variants'
    macro (``ruleset_chosen``: an older build's filter knows the presets only)."""
    try:
        rows = data.frame("dash_ruleset_variants", game_kind=game_kind)
    except data.QueryError as err:
        if err.code != "E_SQL_NOT_BUILT":
            raise
        return {}
    return dict(zip(rows["ruleset_id"].astype(str), rows["label"].astype(str), strict=True))


def choices(presets: list[str], variants: dict[str, str]) -> list[str]:
    """The filter's choices: each preset, then each of its variants.

    >>> choices(["ddz", "hk"], {'hk {"players": 3}': 'hk {"players": 3}', "hk {}": "hk, …"})
    ['ddz', 'hk', 'hk {"players": 3}', 'hk {}']
    """
    return [c for p in presets
            for c in (p, *(v for v in variants if v.split(" ", 1)[0] == p))]  # fmt: skip


def label(value: str | None, variants: dict[str, str]) -> str:
    """A choice as the sidebar lists it: all, a preset by its name, a variant under its preset
    (``↳``) by its label.

    >>> [label(v, {"hk {}": "hk, no overrides"}) for v in (None, "hk", "hk {}", 'hk {"a": 1}')]
    ['(all)', 'hk', '  ↳ hk, no overrides', '  ↳ hk {"a": 1}']
    """
    if value is None:
        return "(all)"
    return f"  ↳ {variants.get(value, value)}" if data.Filters(ruleset=value).variant else value
