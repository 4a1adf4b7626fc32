"""Saved filters: the sidebar's filters as URL query parameters (a link reproduces the view) and
as named sets in a small JSON file beside the warehouse (``<warehouse>.filters.json``: the
warehouse's own files are never written).

Pure of Streamlit: :mod:`dashboards.ui` reads and writes ``st.query_params`` and the widgets.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

#: Filter widget key → (query parameter, its type).
FIELDS: dict[str, tuple[str, type]] = {
    "f_ruleset": ("ruleset", str),
    "f_match": ("match", str),
    "f_player": ("player", str),
    "f_from": ("from", date),
    "f_to": ("to", date),
    "f_seat": ("seat", int),
    "f_opponent": ("opponent", str),
    "f_players": ("players", int),
    "f_outcome": ("outcome", str),
    "f_tier": ("tier", int),
}


def _parse(kind: type, text: str) -> Any:
    if kind is date:
        return date.fromisoformat(text)
    return kind(text)


def to_query(values: dict[str, Any]) -> dict[str, str]:
    """Widget values → query parameters (``None`` left out).

    >>> to_query({"f_player": "p3", "f_from": date(2026, 11, 1), "f_seat": 2, "f_match": None})
    {'player': 'p3', 'from': '2026-11-01', 'seat': '2'}
    """
    out = {}
    for key, (name, _) in FIELDS.items():
        value = values.get(key)
        if value is not None:
            out[name] = value.isoformat() if isinstance(value, date) else str(value)
    return out


def from_query(params: dict[str, str]) -> dict[str, Any]:
    """Query parameters → widget values; a value that does not parse is left out.

    >>> from_query({"player": "p3", "from": "2026-11-01", "seat": "2", "tier": "x", "game_id": "g"})
    {'f_player': 'p3', 'f_from': datetime.date(2026, 11, 1), 'f_seat': 2}
    """
    out = {}
    for key, (name, kind) in FIELDS.items():
        if name in params:
            try:
                out[key] = _parse(kind, str(params[name]))
            except ValueError:
                continue
    return out


def path_for(warehouse_root: Path) -> Path:
    """The saved-filters file of a warehouse: beside its folder, not in it.

    >>> path_for(Path("data/warehouse")).as_posix()
    'data/warehouse.filters.json'
    """
    return warehouse_root.with_name(warehouse_root.name + ".filters.json")


def load(path: Path) -> dict[str, dict[str, str]]:
    """Name → its query parameters; none when the file is missing or unreadable."""
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(got, dict):
        return {}
    return {str(k): {str(a): str(b) for a, b in v.items()} for k, v in got.items()
            if isinstance(v, dict)}  # fmt: skip


def save(path: Path, name: str, params: dict[str, str]) -> None:
    """Add (or replace) the named set ``name`` in the file (written whole, then renamed)."""
    sets = load(path) | {name: params}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(sets, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)
