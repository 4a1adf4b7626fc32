"""``big2 sql --format json`` writes what ``json.dumps(rows, indent=1, ensure_ascii=False,
default=str)`` writes, whatever the values, the columns' names and the chunks the rows come in
(each column's values go through its type's own encoder: ``sqlout._json_column``)."""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cli.sqlout import write_json

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


def _json_dumps(names: list[str], rows: list[tuple[Any, ...]]) -> str:
    objs = [dict(zip(names, row, strict=True)) for row in rows]
    return json.dumps(objs, indent=1, ensure_ascii=False, default=str)


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


def test_special_floats_and_big_numbers_as_json_dumps_writes_them() -> None:
    rows = [(math.nan, 2**64, -0.0, decimal.Decimal("1.50")), (math.inf, -(2**64), 1e-7, None)]
    parts: list[str] = []
    write_json(["f", "i", "z", "d"], iter([rows]), parts.append, final_newline=False)
    assert "".join(parts) == _json_dumps(["f", "i", "z", "d"], rows)
    assert '"f": NaN' in "".join(parts) and '"f": Infinity' in "".join(parts)
