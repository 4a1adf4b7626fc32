"""``big2 bench``: the benchmarks of the source checkout (``python -m bench``)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.app import EXIT_OK, command, domain_errors, flag
from pipeline.errors import Big2Error

#: The source checkout (the benchmarks are not installed with the package).
ROOT = Path(__file__).resolve().parents[2]


def _bench_main() -> Callable[[list[str]], int]:
    """``bench.run.main`` from the source checkout (the benchmarks are not installed)."""
    if not (ROOT / "bench" / "__init__.py").is_file():
        raise Big2Error(
            "E_NO_BENCH", f"the benchmarks live in a source checkout; no bench/ under {ROOT}"
        )
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    run: Callable[[list[str]], int] = importlib.import_module("bench.run").main
    return run


@command("bench")
def bench_command(
    only: Annotated[
        str | None, typer.Option("--only", metavar="NAME", help="Run one benchmark.")
    ] = None,
    no_record: Annotated[
        bool, flag("--no-record", help="Print only; do not append to docs/benchmarks.md.")
    ] = False,
) -> None:
    """Run the benchmarks (same as `python -m bench`), print the figures with the machine."""
    with domain_errors():
        run = _bench_main()
    argv = (["--only", only] if only else []) + (["--no-record"] if no_record else [])
    code = run(argv)
    if code != EXIT_OK:
        raise typer.Exit(code=code)
