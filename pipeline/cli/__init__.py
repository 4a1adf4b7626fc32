"""The ``big2`` command line: parse arguments, delegate to the layers below, print.

Commands hold no rules and no SQL. A deliberate error (:class:`pipeline.errors.Big2Error`)
becomes one line on stderr and exit code 2 at this boundary
(:func:`pipeline.cli.app.domain_errors`), and so does a usage error of the parser (``E_USAGE``:
:func:`pipeline.cli.app.usage_errors`). Exit codes: 0 ok, 1 a check failed, 2 bad input or
usage, 3 a writing command could not finish.

- :mod:`pipeline.cli.app`: the Typer app, errors → exit codes, the shared options and helpers;
- one module per command family: :mod:`~pipeline.cli.rules`, :mod:`~pipeline.cli.ingest`
  (ingest, verify), :mod:`~pipeline.cli.simulate`, :mod:`~pipeline.cli.sql` (build, sql,
  rescore; its writers in :mod:`~pipeline.cli.sqlout`), :mod:`~pipeline.cli.report` (report,
  export), :mod:`~pipeline.cli.dashboard`, :mod:`~pipeline.cli.demo`, :mod:`~pipeline.cli.bench`.

>>> from typer.testing import CliRunner
>>> result = CliRunner().invoke(app, ["--version"])
>>> result.exit_code, result.output.startswith("big2-replay ")
(0, True)
"""

import os

# Before NumPy is first imported: the commands do no linear algebra, and OpenBLAS otherwise
# starts a thread a core that spins ~0.1 CPU-s on the cores the command needs (measured; the
# workers' forkserver is started so too: pipeline.workers.SERVER_ENV).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pipeline.cli import bench, dashboard, demo, ingest, report, rules, simulate, sql
from pipeline.cli.app import (
    EXIT_CHECK_FAILED,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    FAILURE_CODES,
    app,
    domain_errors,
    plural,
)
from pipeline.cli.dashboard import dashboard_command

__all__ = [
    "EXIT_CHECK_FAILED",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "FAILURE_CODES",
    "app",
    "bench",
    "dashboard",
    "dashboard_command",
    "demo",
    "domain_errors",
    "ingest",
    "plural",
    "report",
    "rules",
    "simulate",
    "sql",
]
