"""The warehouse rows the native core built (:class:`pipeline.native.CoreRows`) as Arrow tables.

The core hands each stored column over as the buffers of an Arrow array (validity bitmap,
values or offsets and data, a list's child), in its own memory: they are wrapped with
``pa.foreign_buffer`` and ``pa.Array.from_buffers`` into the table's schema
(:data:`pipeline.warehouse.tables.SCHEMAS`), no copy and no Python object per row. The
memory goes back to the core when the last array on it is dropped, for a later chunk.
The card-text columns (``*_text``) come printed by the core too (``native/src/texts.rs``,
byte for byte :func:`pipeline.cards.format_cards`). ``batch_id`` is the chunk's; a column the
core does not fill (Dou Dizhu's) is NULL.

>>> from pipeline import native
>>> rows = native.core_rows()
>>> rows is None or core_tables(rows.take(), "b1") == {}
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from pipeline.native import CoreBuffer, CoreColumn, CoreTaken
from pipeline.warehouse.tables import COLUMNS, SCHEMAS, Table, build_columns


def column_array(type_: pa.DataType, col: CoreColumn, memory: object = None) -> pa.Array:
    """One column's buffers from the core as an Arrow array of ``type_`` (no copy): each
    buffer ``(address, size)`` in ``memory`` (the take's, kept alive by the array).

    >>> memory = [pa.py_buffer(bytes([0b101])), pa.py_buffer(bytes([1, 0, 3]))]
    >>> valid, values = ((b.address, b.size) for b in memory)
    >>> column_array(pa.int8(), (3, 1, valid, [values], []), memory).to_pylist()
    [1, None, 3]
    """
    length, nulls, validity, buffers, children = col
    kids = [column_array(type_.value_type, child, memory) for child in children]
    bufs = [None if validity is None else _buffer(validity, memory)]
    bufs.extend(_buffer(b, memory) for b in buffers)
    return pa.Array.from_buffers(type_, length, bufs, null_count=nulls, children=kids or None)


def _buffer(buf: CoreBuffer, memory: object) -> pa.Buffer:
    address, size = buf
    return pa.foreign_buffer(address, size, base=memory)


def repeated(text: str, n: int) -> pa.Array:
    """``n`` times ``text``, a string array built from its buffers: no Python object a row,
    and no conversion from Python objects (pyarrow's first one in a process imports pandas,
    ~0.25 s of each import worker's time).

    >>> repeated("b1", 3).to_pylist(), repeated("", 2).to_pylist(), len(repeated("b1", 0))
    (['b1', 'b1', 'b1'], ['', ''], 0)
    """
    data = text.encode()
    offsets = np.arange(n + 1, dtype=np.int64) * len(data)
    return pa.Array.from_buffers(
        pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data * n)]
    ).cast(pa.string())


def _table(
    table: Table, columns: Sequence[tuple[str, CoreColumn]], batch_id: str, memory: object
) -> pa.Table:
    schema = SCHEMAS[table]
    built = {name: column_array(schema.field(name).type, col, memory) for name, col in columns}
    n = len(next(iter(built.values())))
    if "batch_id" in schema.names:
        built["batch_id"] = repeated(batch_id, n)
    # the columns the core does not build: NULL for another game's (no card printer among the
    # inputs: a *_text column the core does not print is another game's)
    arrays = build_columns(COLUMNS[table], {}, n, built=built)
    return pa.Table.from_arrays(list(arrays.values()), schema=schema)


def core_tables(taken: CoreTaken, batch_id: str) -> dict[Table, pa.Table]:
    """The tables of :meth:`pipeline.native.CoreRows.take` or
    :meth:`~pipeline.native.CoreRows.take_ddz` (those with rows), on the core's memory (no
    copy: the arrays keep it alive).

    >>> core_tables((None, []), "b1")
    {}
    """
    memory, tables = taken
    out: dict[Table, pa.Table] = {}
    for name, columns in tables:
        if columns and columns[0][1][0]:
            table = Table(name)
            out[table] = _table(table, columns, batch_id, memory)
    return out


def merged(first: dict[Table, pa.Table], second: dict[Table, pa.Table]) -> dict[Table, pa.Table]:
    """Two chunks' tables as one (``first``'s rows, then ``second``'s)."""
    out = dict(first)
    for table, rows in second.items():
        out[table] = pa.concat_tables([out[table], rows]) if table in out else rows
    return out
