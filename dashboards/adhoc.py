"""The SQL explorer's ad-hoc queries: ``big2 sql``'s sandbox (read-only, the committed Parquet
files only, a row and a time limit), not cached."""

from __future__ import annotations

import time

import duckdb
import pandas as pd

from dashboards import data
from dashboards.frames import SqlResult
from pipeline.warehouse import reading

#: The SQL explorer's most rows and seconds (the page offers lower limits).
MAX_ROWS, TIMEOUT_S = 10_000, 10.0


def run_sql(sql: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
    """One ad-hoc query on ``big2 sql``'s sandbox (:func:`reading.run_adhoc`)."""
    started = time.perf_counter()
    try:
        names, rows, cut = reading.run_adhoc(data.warehouse(), sql, max_rows=max_rows,
                                             timeout_s=timeout_s)  # fmt: skip
    except reading.SqlTimeout as err:
        raise data.QueryError(
            "E_SQL_TIMEOUT", f"stopped after the time limit of {timeout_s:g} s"
        ) from err
    except (reading.SqlRefused, duckdb.Error) as err:
        raise data.QueryError("E_SQL_QUERY", getattr(err, "message", str(err))) from err
    out = pd.DataFrame.from_records(rows, columns=names)
    return SqlResult(out, truncated=cut, seconds=time.perf_counter() - started)
