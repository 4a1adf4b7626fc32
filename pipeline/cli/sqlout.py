"""The output writers of ``big2 sql`` and ``big2 rescore``: a result as a table, CSV, JSON or
Parquet, streamed :data:`FETCH_ROWS` rows at a time, to stdout or to a file written whole or
not at all; and the sandboxed run of one query (:func:`run_sandboxed`)."""

from __future__ import annotations

import contextlib
import csv
import difflib
import io
import json
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.cells import cell_len

from pipeline.cli import grid
from pipeline.cli.app import output_file_errors, plural, terminal_width
from pipeline.errors import Big2Error

if TYPE_CHECKING:  # the warehouse (pyarrow, duckdb) loads when a query runs
    from pipeline.warehouse import Warehouse


class SqlFormat(StrEnum):
    """Output formats of ``big2 sql``."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"


#: ``big2 sql --format table`` shows at most this many rows (and says how many it left out).
TABLE_MAX_ROWS = 1000
#: Rows fetched (and written) at a time: the memory of ``big2 sql`` whatever the row count.
FETCH_ROWS = 10_000


def list_tables(
    wh: Warehouse, fmt: SqlFormat, out: Path | None, *, columns_of: str | None = None
) -> None:
    """``big2 sql --tables``: every table and column with its description. On the screen (the
    table format, no ``--out``) a row a table, the first sentence of its description (its
    grain, mostly), and how to see the columns: every column of ~100 tables was ~6,000 lines.
    ``columns_of`` (``--columns TABLE``): that table's columns only (on the screen after its
    whole description), in any format; ``E_SQL_USAGE`` naming the names close to it when the
    warehouse has no such table or view."""
    from pipeline import sqlbuild
    from pipeline.warehouse import reading

    con = reading.open_readonly(wh)
    try:
        rows = list(sqlbuild.catalogue(con))
    finally:
        con.close()
    if columns_of is not None:
        mine = [(c, d) for t, _, c, d in rows if t == columns_of and c != "*"]
        if not mine:
            close = difflib.get_close_matches(columns_of, sorted({t for t, *_ in rows}), n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else " (`big2 sql --tables`)"
            raise Big2Error("E_SQL_USAGE", f"--columns {columns_of}: no such table or view{hint}")
        if fmt is SqlFormat.TABLE and out is None:
            (about,) = [d for t, _, c, d in rows if t == columns_of and c == "*"]
            lines = grid.fold(f"{columns_of}: {about}", terminal_width())
            typer.echo("\n".join(line.rstrip() for line in lines) + "\n")
        emit_rows(["column", "description"], mine, fmt, out)
        return
    if fmt is SqlFormat.TABLE and out is None:
        n = Counter(t for t, _, c, _ in rows if c != "*")
        name_width = max((cell_len(t) for t, *_ in rows), default=5)
        # the description folded to what the other columns leave of the screen (a long one
        # made the whole table a list of records)
        room = max(terminal_width() - name_width - 20, 30)
        summary = [
            (t, k, n[t], "\n".join(p.rstrip() for p in grid.fold(first_sentence(d), room)))
            for t, k, c, d in rows
            if c == "*"
        ]
        emit_rows(["table", "kind", "columns", "description"], summary, fmt, out)
        typer.echo(
            f"{len(summary):,} tables and views: `big2 sql --columns TABLE` lists one's columns, "
            "`big2 sql --tables --format csv` (or json) every column of every one"
        )
        return
    emit_rows(["table", "kind", "column", "description"], rows, fmt, out)


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence (all of it when it has one only): what a
    table's line of ``big2 sql --tables`` shows of its description.

    >>> first_sentence("Grain: one row per game (key game_id). The rest: more.")
    'Grain: one row per game (key game_id).'
    >>> first_sentence("one row per seat, e.g. 4 a game")
    'one row per seat, e.g. 4 a game'
    """
    match = re.search(r"(?<!\be\.g)(?<!\bi\.e)[.。](\s|$)", text)
    return text if match is None else text[: match.start() + 1]


def run_sandboxed(
    wh: Warehouse,
    text: str,
    fmt: SqlFormat,
    out: Path | None,
    *,
    timeout: float,
    memory: str | None = None,
) -> None:
    """Check ``text`` is one read-only statement, run it in the sandbox of ``wh`` within
    ``timeout`` seconds and ``memory`` (DuckDB's ``memory_limit``) and write its result; a
    reader of stdout that leaves (``| head``) stops it quietly."""
    import duckdb

    from pipeline import sqlbuild
    from pipeline.warehouse import reading

    reading.check_query(text)
    con = reading.open_readonly(wh, memory=memory)
    try:
        with reading.time_limit(con, timeout):
            try:
                with reading.memory_bound(con), reading.missing_files_said(wh):
                    emit_result(con, text, fmt, out)
            except BrokenPipeError:  # the reader of stdout left (`| head`): stop quietly
                with contextlib.suppress(OSError, ValueError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return
            except (duckdb.Error, OSError) as err:
                raise sqlbuild.SqlError("E_SQL_QUERY", query_error(str(err))) from err
    finally:
        con.close()


#: DuckDB's words for a statement that writes inside a SELECT (a data-modifying CTE).
_WRITES = ("Can only delete from", "Can only update", "Can only insert into", "read-only mode")


def query_error(message: str) -> str:
    """DuckDB's error message as ``big2 sql`` prints it: one line, the error with DuckDB's
    hints ("Did you mean ...?", the candidate columns), without the echo of the query; a write
    hidden in a SELECT is said to be refused as such.

    >>> query_error('Catalog Error: Table with name gamez does not exist!\\n'
    ...             'Did you mean "games"?\\n\\nLINE 1: from gamez\\n             ^^^^^')
    'Catalog Error: Table with name gamez does not exist! Did you mean "games"?'
    >>> query_error("Binder Error: Can only delete from base table")
    'read-only: only SELECT queries run here, and this one writes (Binder Error: Can only delete from base table)'
    """
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(lines) if line.startswith("LINE ")), len(lines))
    head = " ".join(lines[:at])
    if any(word in head for word in _WRITES):
        return f"read-only: only SELECT queries run here, and this one writes ({head})"
    return head


@contextmanager
def _output(out: Path | None) -> Iterator[Callable[[str], object]]:
    """A text sink: stdout, or ``out`` written whole or not at all (a ``.part`` file renamed
    at the end, removed on failure; an error writing it is ``E_OUTPUT_FILE``, naming
    ``out``)."""
    if out is None:
        yield lambda chunk: typer.echo(chunk, nl=False)
        return
    part = out.with_name(f".{out.name}.part")
    try:
        with output_file_errors(out), part.open("w", encoding="utf-8") as fh:
            yield fh.write
        with output_file_errors(out):
            part.replace(out)
    finally:
        part.unlink(missing_ok=True)


def _chunks(con: Any) -> Iterator[list[tuple[Any, ...]]]:
    while rows := con.fetchmany(FETCH_ROWS):
        yield rows


def emit_result(
    con: Any,
    query: str,
    fmt: SqlFormat,
    out: Path | None,
    *,
    params: dict[str, Any] | None = None,
    table_rows: int | None = TABLE_MAX_ROWS,
) -> None:
    """Run ``query`` on ``con`` with its ``$params`` and write its result, fetched
    :data:`FETCH_ROWS` rows at a time: memory stays bounded whatever the row count. The
    table format shows the first ``table_rows`` rows (``None``: all) and says how many it
    left out; CSV, JSON and Parquet hold every row."""
    if fmt is not SqlFormat.PARQUET:
        con.execute(query, params)
        columns = [d[0] for d in con.description or []]
        as_text = [d[0] for d in con.description or [] if str(d[1]) in TEXT_TYPES]
        if as_text:  # run again with DuckDB's text of them
            import duckdb

            try:
                con.execute(columns_as_text(query, as_text), params)
            except duckdb.ParserException:  # a ; then a comment: they stay timedeltas
                con.execute(query, params)
        emit_chunks(columns, _chunks(con), fmt, out, table_rows=table_rows)
        return
    import pyarrow.parquet as pq

    assert out is not None  # checked before the query ran
    rel = con.sql(query, params=params)
    if rel is None:
        raise Big2Error("E_SQL_QUERY", "the statement returns no rows to write")
    reader = rel.to_arrow_reader(FETCH_ROWS)
    check_parquet_schema(reader.schema)
    part = out.with_name(f".{out.name}.part")
    n = 0
    try:
        with output_file_errors(out):
            with pq.ParquetWriter(part, reader.schema) as writer:
                for batch in reader:
                    writer.write_batch(batch)
                    n += batch.num_rows
            part.replace(out)
    finally:
        part.unlink(missing_ok=True)
    typer.echo(f"{plural(n, 'row')} → {out}")


#: The types a text output takes as DuckDB's text of them, the Python client's values being
#: wrong or Python's: an INTERVAL's ``timedelta`` (a month as 30 days), a BLOB's ``b'...'``.
TEXT_TYPES = frozenset({"INTERVAL", "BLOB"})


def columns_as_text(query: str, columns: Sequence[str]) -> str:
    """``query`` with its ``columns`` (of :data:`TEXT_TYPES`) as DuckDB's text: an interval's
    ``1 month 1 day`` (the Python client turns it into a ``timedelta``, a month into 30 days:
    ``age(date '2026-03-01', date '2026-01-31')`` printed ``31 days, 0:00:00``), a blob's
    ``\\xAA\\x00x`` (printed ``b'\\xaa\\x00x'``, Python's repr).

    >>> columns_as_text("select age(a, b) as gap from t", ["gap"])
    'select * replace ("gap"::varchar as "gap") from (\\nselect age(a, b) as gap from t\\n)'
    >>> columns_as_text("select interval 1 day as d; -- the day", ["d"])
    'select * replace ("d"::varchar as "d") from (\\nselect interval 1 day as d\\n)'
    """
    names = ['"' + c.replace('"', '""') + '"' for c in dict.fromkeys(columns)]
    cast = ", ".join(f"{n}::varchar as {n}" for n in names)
    head, semicolon, tail = query.rpartition(";")
    if semicolon and all(not t.strip() or t.strip().startswith("--") for t in tail.split("\n")):
        query = head  # the statement's ; and a comment after it
    return f"select * replace ({cast}) from (\n{query.strip()}\n)"


def check_parquet_schema(schema: Any) -> None:
    """Refuse, with ``E_SQL_QUERY`` naming them, the columns of a result that Parquet cannot
    hold (an ``INTERVAL``, a ``UNION``): pyarrow's writer raised its own error, a traceback.

    >>> import pyarrow as pa
    >>> check_parquet_schema(pa.schema([("n", pa.int64()), ("s", pa.string())]))
    >>> check_parquet_schema(pa.schema([("n", pa.int64()), ("gap", pa.month_day_nano_interval())]))
    Traceback (most recent call last):
    ...
    pipeline.errors.Big2Error: E_SQL_QUERY: --format parquet cannot hold column gap (month_day_nano_interval); cast it in the query (gap::varchar) or write --format csv or json
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    bad = []
    for field in schema:
        try:
            pq.ParquetWriter(pa.BufferOutputStream(), pa.schema([field])).close()
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            bad.append(field)
    if bad:
        names = ", ".join(f"{field.name} ({field.type})" for field in bad)
        raise Big2Error(
            "E_SQL_QUERY",
            f"--format parquet cannot hold column{'s' if len(bad) > 1 else ''} {names}; "
            f"cast {'them' if len(bad) > 1 else 'it'} in the query ({bad[0].name}::varchar) or write "
            "--format csv or json",
        )


def emit_rows(
    columns: Sequence[str], rows: Sequence[tuple[Any, ...]], fmt: SqlFormat, out: Path | None
) -> None:
    """Print or write a small result as a table, CSV, JSON (one array) or Parquet."""
    if fmt is SqlFormat.PARQUET:
        if out is None:
            raise Big2Error("E_SQL_USAGE", "--format parquet needs --out FILE")
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = {c: [r[i] for r in rows] for i, c in enumerate(columns)}
        with output_file_errors(out):
            pq.write_table(pa.table(data), out)
        typer.echo(f"{plural(len(rows), 'row')} → {out}")
        return
    emit_chunks(columns, iter([list(rows)]), fmt, out)


def emit_chunks(
    columns: Sequence[str],
    chunks: Iterator[Sequence[tuple[Any, ...]]],
    fmt: SqlFormat,
    out: Path | None,
    *,
    table_rows: int | None = TABLE_MAX_ROWS,
) -> None:
    """Write rows arriving in chunks as a table (the first ``table_rows``, then how many
    were left out), CSV or JSON (one array, as ``json.dumps(rows, indent=1)``)."""
    if fmt is SqlFormat.TABLE:
        emit_table(columns, chunks, out, max_rows=table_rows)
        return
    with _output(out) as write:
        if fmt is SqlFormat.CSV:
            write_csv(columns, chunks, write)
        else:
            write_json(columns, chunks, write, final_newline=out is None)


def emit_table(
    columns: Sequence[str],
    chunks: Iterator[Sequence[tuple[Any, ...]]],
    out: Path | None,
    *,
    max_rows: int | None = TABLE_MAX_ROWS,
) -> None:
    """The first ``max_rows`` rows (``None``: all) as a text table that never cuts a value
    (:mod:`pipeline.cli.grid`: folded to the screen's width on stdout, whole rows in a file),
    then how many were left out.

    >>> emit_table(["n"], iter([[(1,), (2,)], [(3,)]]), None, max_rows=1)
    n
    -
    1
    2 more rows not shown (the table shows 1; --format csv, json or parquet writes them all)
    """
    rows: list[tuple[Any, ...]] = []
    left_out = 0
    for chunk in chunks:
        room = len(chunk) if max_rows is None else max(max_rows - len(rows), 0)
        rows.extend(chunk[:room])
        left_out += max(len(chunk) - room, 0)
    width = None if out is not None else terminal_width()
    lines = list(grid.render(columns, rows, width))
    if left_out:
        lines.append(
            f"{plural(left_out, 'more row')} not shown (the table shows {max_rows:,}; "
            "--format csv, json or parquet writes them all)"
        )
    with _output(out) as write:
        write("".join(f"{line}\n" for line in lines))


def write_csv(
    columns: Sequence[str],
    chunks: Iterator[Sequence[tuple[Any, ...]]],
    write: Callable[[str], object],
) -> None:
    """The rows as CSV with a header line, one write per chunk; a list or struct value as
    one JSON text (:func:`grid.nested_text`), not Python's ``repr``.

    >>> parts: list[str] = []
    >>> write_csv(["id", "tags"], iter([[("g1", ["雙炒", None]), ("g2", None)]]), parts.append)
    >>> print("".join(parts), end="")
    id,tags
    g1,"[""雙炒"", null]"
    g2,
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for chunk in chunks:
        writer.writerows(_nested_as_text(chunk))
        write(buf.getvalue())
        buf.seek(0)
        buf.truncate()
    write(buf.getvalue())


def _nested_as_text(chunk: Sequence[tuple[Any, ...]]) -> Sequence[tuple[Any, ...]]:
    """``chunk`` with its list and struct values as :func:`grid.nested_text`; the chunk itself
    when no column holds one (a column's type is the same in every row: its first value that
    is not NULL tells)."""
    nested = set()
    for i in range(len(chunk[0]) if chunk else 0):
        first = next((row[i] for row in chunk if row[i] is not None), None)
        if isinstance(first, list | tuple | dict):
            nested.add(i)
    if not nested:
        return chunk
    return [
        tuple(
            grid.nested_text(v) if i in nested and v is not None else v for i, v in enumerate(row)
        )
        for row in chunk
    ]


def write_json(
    columns: Sequence[str],
    chunks: Iterator[Sequence[tuple[Any, ...]]],
    write: Callable[[str], object],
    *,
    final_newline: bool,
) -> None:
    """The rows as one JSON array of objects, as ``json.dumps(rows, indent=1)`` writes them
    (nested values in its indented layout too), a chunk at a time; a NaN or infinite float,
    which JSON has no word for, is ``null`` (nested ones too), so that any JSON parser reads
    the result.

    >>> parts: list[str] = []
    >>> rows = iter([[(1, [2, "x"])], [(None, {"k": 1.5})]])
    >>> write_json(["a", "b%"], rows, parts.append, final_newline=True)
    >>> print("".join(parts), end="")
    [
     {
      "a": 1,
      "b%": [
       2,
       "x"
      ]
     },
     {
      "a": null,
      "b%": {
       "k": 1.5
      }
     }
    ]
    """
    keys = [json.dumps(c, ensure_ascii=False) for c in columns]
    # one row's text with a %s for each value (a % in a column's name doubled)
    template = " {\n" + ",\n".join(f"  {k.replace('%', '%%')}: %s" for k in keys) + "\n }"
    first = True
    for chunk in chunks:
        if not keys:
            items = [" {}"] * len(chunk)
        else:
            columns_text = (_json_column(values) for values in zip(*chunk, strict=True))
            texts = zip(*columns_text, strict=True)
            items = [template % row for row in texts]
        if items:
            write(("[\n" if first else ",\n") + ",\n".join(items))
            first = False
    write(("[]" if first else "\n]") + ("\n" if final_newline else ""))


def _json_column(values: Sequence[Any]) -> list[str]:
    """One column's values of a chunk as :func:`_json_value` writes them: a column of whole
    numbers, of floats or of texts (and NULLs) by its type's own encoder, without a
    ``json.dumps`` call a value (8x the time of the rest).

    >>> _json_column([1, None, -7]), _json_column(["a", 'q"é', None]), _json_column([0.5, 1e16])
    (['1', 'null', '-7'], ['"a"', '"q\\\\"é"', 'null'], ['0.5', '1e+16'])
    """
    kinds = {type(v) for v in values}
    kinds.discard(type(None))
    if kinds == {int}:  # bool is a type of its own
        return ["null" if v is None else int.__repr__(v) for v in values]
    if kinds == {str}:
        return ["null" if v is None else _encode_text(v) for v in values]
    if kinds == {float}:
        return ["null" if v is None else _encode_float(v) for v in values]
    return [_json_value(v) for v in values]


#: ``json.dumps``' encoders of a text (``ensure_ascii=False``) and of a float.
_encode_text = json.encoder.encode_basestring


def _encode_float(value: float) -> str:
    """A float as ``json.dumps`` writes it, but NaN and ±infinity, which JSON has no word
    for, as ``null``.

    >>> _encode_float(0.1), _encode_float(float("nan")), _encode_float(float("-inf"))
    ('0.1', 'null', 'null')
    """
    return float.__repr__(value) if math.isfinite(value) else "null"


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float in it, nested ones too, as ``None``.

    >>> _finite([1.5, float("nan"), {"k": (float("inf"), "x")}])
    [1.5, None, {'k': [None, 'x']}]
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _json_value(value: Any) -> str:
    value = _finite(value)
    if isinstance(value, dict | list):  # nested: json's indented layout, one level in
        text = json.dumps(value, ensure_ascii=False, default=str, indent=1, allow_nan=False)
        return text.replace("\n", "\n  ")
    return json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
