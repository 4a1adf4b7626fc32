"""Run the registered benchmarks, print the figures with the machine, record them.

``main()`` is the entry point of ``python -m bench`` and ``big2 bench``. Exit codes: 0 ok,
2 bad usage (an unknown ``--only`` name).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import bench
from bench import REGISTRY, Benchmark, Figure
from bench.machine import Machine, current

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "docs" / "benchmarks.md"
RECORD_HEADER = """# Benchmarks

Figures from `make bench` (`python -m bench`), newest last. Each run appends one dated section
with the machine it ran on; earlier sections are never edited. See `bench/__init__.py` to add a
benchmark.
"""

Result = tuple[str, list[Figure]]


def discover() -> dict[str, Benchmark]:
    """Import every module of the ``bench`` package (registering its benchmarks); the registry."""
    for module in pkgutil.iter_modules(bench.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"bench.{module.name}")
    return REGISTRY


def format_value(value: float) -> str:
    """A figure's value for people: thousands separators for big numbers.

    >>> format_value(1234567.8), format_value(12.345), format_value(0.000123)
    ('1,234,568', '12.3', '0.000123')
    """
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def commit() -> str:
    """The checkout's short commit id, or ``"none"`` when there is no commit (or no git)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "none"
    return done.stdout.strip() or "none"


def render_section(results: Sequence[Result], machine: Machine, when: datetime) -> str:
    """The Markdown section one run appends to docs/benchmarks.md."""
    lines = [
        "",
        f"## {when:%Y-%m-%d %H:%M} UTC",
        "",
        f"- machine: {machine.describe()}",
        f"- commit: {commit()}",
        "",
        "| benchmark | figure | value | unit |",
        "|---|---|---:|---|",
    ]
    for name, figures in results:
        for figure, value, unit in figures:
            lines.append(f"| {name} | {figure} | {format_value(value)} | {unit} |")
    return "\n".join(lines) + "\n"


def record(section: str, path: Path = RECORD) -> None:
    """Append a section to the record, creating the file with its header if needed."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(RECORD_HEADER, encoding="utf-8")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(section)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run, print, record; the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", metavar="NAME", help="run one benchmark (e.g. cards.parse)")
    parser.add_argument(
        "--no-record", action="store_true", help="print only; do not append to docs/benchmarks.md"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)

    registry = discover()
    if args.list:
        print("\n".join(registry))
        return 0
    if args.only is not None and args.only not in registry:
        known = ", ".join(registry) or "none"
        print(f"bench: no benchmark {args.only!r}; known: {known}", file=sys.stderr)
        return 2
    names = [args.only] if args.only is not None else list(registry)

    machine = current()
    print(f"machine: {machine.describe()}")
    results: list[Result] = []
    for name in names:
        figures = registry[name]()
        results.append((name, figures))
        for figure, value, unit in figures:
            print(f"{name}: {figure}: {format_value(value)} {unit}")

    if not args.no_record:
        record(render_section(results, machine, datetime.now(UTC)))
        print(f"recorded in {RECORD.relative_to(ROOT)}")
    return 0
