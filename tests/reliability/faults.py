"""Fault injection for the kill-point tests: run the ``big2`` command line in a child process
that dies (``os._exit``, no clean-up, like SIGKILL) at the n-th durable step of its work.

A *durable step* is a call of ``os.replace`` (a file becomes its final name) or ``os.fsync``
(bytes reach the disk): the points where the commit protocol's order matters. Counting mode
(``n = 0``) runs the command to the end and writes how many of each step it took, so a
test can kill it once at every step.

Usage, as a child process::

    python faults.py COUNTS_FILE STEP N -- ingest log.jsonl -w WH

``STEP`` is ``replace`` or ``fsync``; ``N`` the call that dies (0: count only).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

KILLED = 137  # the exit code a SIGKILL gives a shell


def arm(step: str, n: int, counts: dict[str, int]) -> None:
    """Wrap ``os.replace`` and ``os.fsync``: count every call, die at call ``n`` of ``step``."""
    for name in ("replace", "fsync"):
        original: Callable[..., Any] = getattr(os, name)

        def wrapped(*args: Any, _name: str = name, _original: Callable[..., Any] = original) -> Any:
            counts[_name] = counts.get(_name, 0) + 1
            if _name == step and counts[_name] == n:
                os._exit(KILLED)
            return _original(*args)

        setattr(os, name, wrapped)


def main(argv: list[str]) -> int:
    counts_file, step, n = argv[0], argv[1], int(argv[2])
    args = argv[argv.index("--") + 1 :]
    counts: dict[str, int] = {}
    arm(step, n, counts)
    from pipeline.cli import app

    try:
        app(args, standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    with open(counts_file, "w", encoding="utf-8") as fh:
        json.dump(counts, fh)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
