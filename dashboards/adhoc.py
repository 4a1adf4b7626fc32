"""The SQL explorer's ad-hoc queries: ``big2 sql``'s sandbox (read-only, the committed Parquet
files only, a row, a time and a memory limit), not cached."""

from __future__ import annotations

import functools
import os
import time

import duckdb
import pandas as pd

from dashboards import data
from dashboards.frames import SqlResult
from pipeline.errors import Big2Error
from pipeline.warehouse import WarehouseError, reading

#: The SQL explorer's most rows and seconds (the page offers lower limits).
MAX_ROWS, TIMEOUT_S = 10_000, 10.0
#: A query's memory when ``$BIG2_SQL_MEMORY`` does not say (``big2 dashboard
#: --sql-memory-limit``): a quarter of the machine's, so that one visitor's query cannot take
#: the memory the server and the other visitors' queries need (DuckDB's own default is 80 %).
MEMORY = "25%"


def query_memory() -> str:
    """The memory limit of the explorer's queries in DuckDB's words: ``$BIG2_SQL_MEMORY``, else
    :data:`MEMORY`; ``E_SQL_USAGE`` (:class:`data.QueryError`) when DuckDB reads no size in it."""
    try:
        return _memory_limit(os.environ.get(reading.MEMORY_ENV) or MEMORY)
    except Big2Error as err:
        raise data.QueryError(err.code, f"${reading.MEMORY_ENV}: {err.message}") from err


@functools.cache
def _memory_limit(text: str) -> str:
    from pipeline.sqlbuild import memory_limit

    return memory_limit(text)


def run_sql(sql: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
    """One ad-hoc query on ``big2 sql``'s sandbox (:func:`reading.run_adhoc`), in at most
    :func:`query_memory`."""
    started = time.perf_counter()
    memory = query_memory()
    try:
        names, rows, cut = reading.run_adhoc(data.warehouse(), sql, max_rows=max_rows,
                                             timeout_s=timeout_s, memory=memory)  # fmt: skip
    except reading.SqlTimeout as err:
        raise data.QueryError(
            "E_SQL_TIMEOUT", f"stopped after the time limit of {timeout_s:g} s"
        ) from err
    except reading.SqlMemoryLimit as err:
        raise data.QueryError(
            "E_SQL_MEMORY_LIMIT",
            f"stopped at the memory limit of {memory} (big2 dashboard --sql-memory-limit, or"
            f" ${reading.MEMORY_ENV}, sets it; a query never spills to disk)",
        ) from err
    except (reading.SqlRefused, duckdb.Error) as err:
        raise data.QueryError("E_SQL_QUERY", getattr(err, "message", str(err))) from err
    except WarehouseError as err:  # busy, or a committed file missing (one line, the way out)
        raise data.QueryError(err.code, err.message) from err
    out = pd.DataFrame.from_records(rows, columns=names)
    return SqlResult(out, truncated=cut, seconds=time.perf_counter() - started)
