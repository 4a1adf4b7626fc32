"""The core's Parquet writer (``native/src/parquet/``), which writes the import's part files
(:func:`pipeline.warehouse.store._write_file`), against pyarrow's writer with the same options:
for any rows of the warehouse's tables (nulls, extremes, NaN and signed zeros, empty and
non-ASCII strings, lists with empty, null and null-holding values, several record batches,
sliced arrays), both files read back the same in pyarrow (values and Arrow schema) and in
DuckDB (values and types), with the same Parquet schema, encodings and statistics (what DuckDB
prunes row groups by).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.warehouse import store
from pipeline.warehouse.tables import SCHEMAS, Table
from tests.native import NEEDS_CORE

pytestmark = NEEDS_CORE

#: Years 1 to 9999 in epoch milliseconds (what DuckDB and Python read as a time).
TS_RANGE = (-62_135_596_800_000, 253_402_300_799_999)


def _ints(bits: int) -> st.SearchStrategy[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return st.one_of(st.sampled_from([lo, hi, 0, -1, 1]), st.integers(lo, hi), st.integers(0, 5))


_TEXT = st.one_of(
    st.sampled_from(["play", "pass", "", "♠2", "3♦4♦5♦6♦7♦", "a" * 40]),
    st.text(max_size=6),
)


def _values(type_: pa.DataType) -> st.SearchStrategy[Any]:
    """Values of a warehouse column's type (None among them)."""
    if pa.types.is_list(type_):
        item = _values(type_.value_type)
        return st.one_of(st.none(), st.lists(item, max_size=5))
    if pa.types.is_string(type_):
        plain: st.SearchStrategy[Any] = _TEXT
    elif pa.types.is_boolean(type_):
        plain = st.booleans()
    elif pa.types.is_timestamp(type_):
        plain = st.integers(*TS_RANGE)
    elif pa.types.is_floating(type_):
        plain = st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1.5, math.nan]))
    else:
        plain = _ints(type_.bit_width)
    return st.one_of(st.none(), plain, plain)


@st.composite
def _tables(draw: st.DrawFn) -> tuple[Table, pa.Table]:
    """A warehouse table's rows in one to three record batches, some of them sliced."""
    table = draw(st.sampled_from(list(Table)))
    schema = SCHEMAS[table]
    # a column all NULL, all one value, or of any values
    shapes = {f.name: draw(st.sampled_from(["null", "one", "any", "any"])) for f in schema}
    batches = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(0, 30))
        cols = []
        for f in schema:
            shape = shapes[f.name]
            if shape == "null":
                values = [None] * n
            elif shape == "one":
                values = [draw(_values(f.type))] * n
            else:
                values = draw(st.lists(_values(f.type), min_size=n, max_size=n))
            cols.append(pa.array(values, f.type))
        batch = pa.RecordBatch.from_arrays(cols, schema=schema)
        if n > 2 and draw(st.booleans()):
            start = draw(st.integers(0, n - 1))
            batch = batch.slice(start, draw(st.integers(0, n - start)))
        batches.append(batch)
    return table, pa.Table.from_batches(batches, schema)


def _plain(value: Any) -> Any:
    """A value to compare: NaN as a string (NaN never equals itself), a zero with its sign."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else (value, math.copysign(1.0, value))
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _rows(rows: list[tuple[Any, ...]] | list[dict[str, Any]]) -> list[Any]:
    return [_plain(list(r.values()) if isinstance(r, dict) else list(r)) for r in rows]


def _write_both(tmp: Path, table: Table, rows: pa.Table) -> tuple[Path, Path]:
    """The same rows written by ``_write_file`` on the core and with pyarrow; on the core also
    without its texts' dictionaries taken from their masks' (``follows``): the same bytes."""
    ours, theirs = tmp / "core.parquet", tmp / "pyarrow.parquet"
    written = store._write_file(ours, table, rows)
    assert written == (store.sha256_file(ours), ours.stat().st_size)
    options = store._writer_options(table)
    batches = [b.__arrow_c_array__() for b in rows.to_batches()]
    if batches:  # else pyarrow wrote both
        hashed = native.write_parquet(
            str(tmp / "hashed.parquet"),
            batches,
            dictionary=options["use_dictionary"],
            statistics=options["write_statistics"],
            delta=options.get("column_encoding", {}),
            follows={},
            metadata=store._footer_metadata(rows.schema),
        )
        assert hashed == written
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(native, "_MODULE", None)  # the pure Python path: pyarrow's writer
        store._write_file(theirs, table, rows)
    return ours, theirs


def _stats(path: Path) -> list[tuple[Any, ...]]:
    group = pq.read_metadata(path).row_group(0) if pq.read_metadata(path).num_row_groups else None
    if group is None:
        return []
    out = []
    for i in range(group.num_columns):
        c = group.column(i)
        s = c.statistics
        minmax = None if s is None or not s.has_min_max else (_plain(s.min), _plain(s.max))
        nulls = None if s is None else s.null_count
        out.append((c.path_in_schema, c.physical_type, set(c.encodings), nulls, minmax))
    return out


def _schema_text(path: Path) -> str:
    return str(pq.ParquetFile(path).schema).split("\n", 1)[1]


def _same_files(ours: Path, theirs: Path, rows: pa.Table) -> None:
    back = pq.read_table(ours)
    assert back.schema == rows.schema
    assert _rows(back.to_pylist()) == _rows(rows.to_pylist())
    assert _rows(pq.read_table(theirs).to_pylist()) == _rows(back.to_pylist())
    assert _schema_text(ours) == _schema_text(theirs)
    assert pq.read_metadata(ours).metadata == pq.read_metadata(theirs).metadata
    assert pq.read_metadata(ours).num_rows == rows.num_rows
    assert _stats(ours) == _stats(theirs)
    con = duckdb.connect()
    read: Callable[[Path], Any] = lambda p: con.execute(  # noqa: E731
        "select * from read_parquet(?)", [str(p)]
    )
    a, b = read(ours), read(theirs)
    assert [d[:2] for d in a.description] == [d[:2] for d in b.description]
    assert _rows(read(ours).fetchall()) == _rows(read(theirs).fetchall())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_the_core_writes_what_pyarrow_writes(tmp_path_factory: Any, drawn: Any) -> None:
    table, rows = drawn
    ours, theirs = _write_both(tmp_path_factory.mktemp("pq"), table, rows)
    _same_files(ours, theirs, rows)


def test_a_part_of_an_import_reads_back_the_same(tmp_path: Path) -> None:
    # the rows of a real chunk: Big Two games of every option, from the core's rows builder
    from pipeline.ingest import chunk_rows
    from pipeline.logs.model import Source
    from tests.native import test_differential as big2

    games = [big2._game(seed, seed % len(big2.OPTIONS), "compact", False) for seed in range(12)]
    items: list[Any] = [(Source("g.jsonl", i + 1), json.dumps(g)) for i, g in enumerate(games)]
    done = chunk_rows(items, "b1")
    for table in store.PART_TABLES:
        rows = done.tables[table].select(SCHEMAS[table].names).cast(SCHEMAS[table])
        ours, theirs = _write_both(tmp_path / table.value, table, rows)
        _same_files(ours, theirs, rows)


def test_a_dictionary_past_1_mib_gives_way_to_plain_values(tmp_path: Path) -> None:
    # 40,000 distinct 30-byte texts (1.3 MB plain) in a dictionary column: plain, as pyarrow
    texts = [f"{i:030d}" for i in range(40_000)]
    schema = SCHEMAS[Table.ACTIONS]
    cols = [pa.array(texts if f.name == "kind" else [None] * len(texts), f.type) for f in schema]
    rows = pa.Table.from_arrays(cols, schema=schema)
    ours, theirs = _write_both(tmp_path, Table.ACTIONS, rows)
    assert pq.read_table(ours).equals(pq.read_table(theirs))
    kind = schema.names.index("kind")
    column = pq.read_metadata(ours).row_group(0).column(kind)
    assert "RLE_DICTIONARY" not in column.encodings and "PLAIN" in column.encodings
    assert pq.read_table(ours, columns=["kind"])["kind"].to_pylist() == texts
    assert column.statistics.min == texts[0] and column.statistics.max == texts[-1]


def test_a_type_the_core_does_not_write_is_refused(tmp_path: Path) -> None:
    rows = pa.table({"x": pa.array([1.5], pa.float32())})
    batches = [b.__arrow_c_array__() for b in rows.to_batches()]
    with pytest.raises(ValueError, match="x: Arrow type"):
        native.write_parquet(
            str(tmp_path / "x.parquet"),
            batches,
            dictionary=(),
            statistics=(),
            delta=(),
            follows={},
            metadata=[],
        )
