"""``big2 sql --format json`` writes what ``json.dumps(rows, indent=1, ensure_ascii=False,
default=str)`` writes, whatever the values, the columns' names and the chunks the rows come in
(each column's values go through its type's own encoder: ``sqlout._json_column``), except
that a NaN or infinite float, which JSON has no word for, is ``null``: the output is JSON
that a strict parser reads."""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.cli.sqlout import write_json
from pipeline.sim.sample import dumps, sample_game

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
)
#: What DuckDB hands Python besides scalars: lists, structs (dicts), dates, decimals.
OTHERS = st.one_of(
    st.lists(SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=3), SCALARS, max_size=2),
    st.datetimes(timezones=st.just(dt.UTC)),
    st.dates(),
    st.decimals(allow_nan=False, places=2, min_value=-1000, max_value=1000),
)
#: A column: its values all of one kind (as a DuckDB column's are) or, rarely, mixed.
COLUMN_KINDS = st.sampled_from(["int", "float", "text", "bool", "other", "mixed"])
OF_KIND = {
    "int": st.integers(min_value=-(2**70), max_value=2**70),
    "float": st.floats(allow_nan=True, allow_infinity=True),
    "text": st.text(),
    "bool": st.booleans(),
    "other": OTHERS,
    "mixed": st.one_of(SCALARS, OTHERS),
}


@st.composite
def results(draw: st.DrawFn) -> tuple[list[str], list[tuple[Any, ...]], list[int]]:
    names = draw(st.lists(st.text(max_size=4), max_size=4, unique=True))
    kinds = [draw(COLUMN_KINDS) for _ in names]
    n = draw(st.integers(min_value=0, max_value=8))
    rows = [tuple(draw(st.one_of(st.none(), OF_KIND[k])) for k in kinds) for _ in range(n)]
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=n), max_size=3)))
    return names, rows, cuts


def _finite(value: Any) -> Any:
    """``value`` with each NaN or infinite float in it (nested ones too) as ``None``."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _json_dumps(names: list[str], rows: list[tuple[Any, ...]]) -> str:
    objs = [dict(zip(names, _finite(row), strict=True)) for row in rows]
    return json.dumps(objs, indent=1, ensure_ascii=False, default=str, allow_nan=False)


def _strict_json(text: str) -> Any:
    """``text`` read by a parser that refuses ``NaN`` and ``Infinity`` (not JSON)."""

    def refuse(word: str) -> Any:
        raise ValueError(f"{word} is not JSON")

    return json.loads(text, parse_constant=refuse)


@settings(max_examples=400, deadline=None)
@given(results())
def test_json_is_json_dumps_indent_1(
    result: tuple[list[str], list[tuple[Any, ...]], list[int]],
) -> None:
    names, rows, cuts = result
    bounds = [0, *cuts, len(rows)]
    chunks = [rows[a:b] for a, b in itertools.pairwise(bounds)]
    parts: list[str] = []
    write_json(names, iter(chunks), parts.append, final_newline=True)
    assert "".join(parts) == _json_dumps(names, rows) + "\n"
    _strict_json("".join(parts))


def test_special_floats_are_null_and_big_numbers_as_json_dumps_writes_them() -> None:
    rows = [
        (math.nan, 2**64, -0.0, decimal.Decimal("1.50"), [1.5, -math.inf]),
        (math.inf, -(2**64), 1e-7, None, {"k": math.nan}),
    ]
    parts: list[str] = []
    write_json(["f", "i", "z", "d", "n"], iter([rows]), parts.append, final_newline=False)
    text = "".join(parts)
    assert text == _json_dumps(["f", "i", "z", "d", "n"], rows)
    got = _strict_json(text)
    assert [r["f"] for r in got] == [None, None]
    assert got[0]["n"] == [1.5, None] and got[1]["n"] == {"k": None}


def test_big2_sql_json_of_nan_and_infinity_is_strict_json(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="one")) + "\n", encoding="utf-8")
    wh = str(tmp_path / "wh")
    assert CliRunner().invoke(app, ["ingest", str(log), "-w", wh, "--no-build"]).exit_code == 0
    query = (
        "select 'nan'::double c, 'inf'::double e, '-inf'::float f, 1.5::double g, "
        "['nan'::double, 2.0] l, {'x': 'inf'::double} s"
    )
    result = CliRunner().invoke(app, ["sql", query, "--format", "json", "-w", wh])
    assert result.exit_code == 0, result.output
    assert _strict_json(result.stdout) == [
        {"c": None, "e": None, "f": None, "g": 1.5, "l": [None, 2.0], "s": {"x": None}}
    ]
