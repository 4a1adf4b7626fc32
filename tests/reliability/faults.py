"""Fault injection for the kill-point tests: run the ``big2`` command line in a child process
that dies (``os._exit``, no clean-up, like SIGKILL) at the n-th durable step of its work, or
stops there (``SIGSTOP``, to be looked at mid-work and continued with ``SIGCONT``).

A *durable step* is a call of ``os.replace`` (a file becomes its final name) or ``os.fsync``
(bytes reach the disk): the points where the commit protocol's order matters. Counting mode
(``n = 0``) runs the command to the end and writes how many of each step it took, so a
test can kill it once at every step.

Usage, as a child process::

    python faults.py COUNTS_FILE STEP N -- ingest log.jsonl -w WH
    python faults.py --stop COUNTS_FILE STEP N -- ingest log.jsonl -w WH
    python faults.py --fork JOBS_FILE STEP

``STEP`` is ``replace`` or ``fsync``; ``N`` the call that dies (0: count only). ``--stop``:
the call stops the process instead (it goes on when continued). ``--fork``: one run per
job of the JSON list in ``JOBS_FILE`` (``{"n", "counts", "log", "args"}`` each), each in a
child forked from this process once it has imported the command line (the ~1.5 CPU-s of a
fresh interpreter's imports paid once, not per kill point), two at a time; it prints the
exit code of each ``n`` as a JSON object. What a child does from the fork on is what a
fresh ``big2`` process does.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

KILLED = 137  # the exit code a SIGKILL gives a shell
PARALLEL = 2  # children at a time in --fork mode: 2 cores


def arm(step: str, n: int, counts: dict[str, int], *, stop: bool = False) -> None:
    """Wrap ``os.replace`` and ``os.fsync``: count every call; at call ``n`` of ``step``, die
    (or, with ``stop``, stop until continued, then make the call)."""
    for name in ("replace", "fsync"):
        original: Callable[..., Any] = getattr(os, name)

        def wrapped(*args: Any, _name: str = name, _original: Callable[..., Any] = original) -> Any:
            counts[_name] = counts.get(_name, 0) + 1
            if _name == step and counts[_name] == n:
                if not stop:
                    os._exit(KILLED)
                os.kill(os.getpid(), signal.SIGSTOP)
            return _original(*args)

        setattr(os, name, wrapped)


def run(counts_file: str, step: str, n: int, args: list[str], *, stop: bool = False) -> int:
    """Arm, run ``big2 ARGS`` in this process, write the counts; the command's exit code."""
    counts: dict[str, int] = {}
    arm(step, n, counts, stop=stop)
    from pipeline.cli import app

    try:
        app(args, standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    with open(counts_file, "w", encoding="utf-8") as fh:
        json.dump(counts, fh)
    return code


def _child(job: dict[str, Any], step: str) -> None:
    """In a forked child: output to the job's log, run it, leave with its exit code."""
    code = 1
    try:
        fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        code = run(job["counts"], step, int(job["n"]), list(job["args"]))
    except BaseException as exc:  # reported in the job's log, then the exit code
        print(f"faults.py: {exc!r}", file=sys.stderr)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_forked(jobs: list[dict[str, Any]], step: str) -> dict[str, int]:
    """Each job in a child forked from this process, ``PARALLEL`` at a time; exit code per n."""
    from pipeline.cli import app  # noqa: F401 (imported before the forks: what they share)

    pending = list(jobs)
    running: dict[int, dict[str, Any]] = {}
    codes: dict[str, int] = {}
    while pending or running:
        while pending and len(running) < PARALLEL:
            job = pending.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(job, step)
            running[pid] = job
        pid, status = os.wait()
        codes[str(running.pop(pid)["n"])] = os.waitstatus_to_exitcode(status)
    return codes


def main(argv: list[str]) -> int:
    if argv[0] == "--fork":
        with open(argv[1], encoding="utf-8") as fh:
            jobs = json.load(fh)
        print(json.dumps(run_forked(jobs, argv[2])))
        return 0
    stop = argv[0] == "--stop"
    if stop:
        argv = argv[1:]
    counts_file, step, n = argv[0], argv[1], int(argv[2])
    return run(counts_file, step, n, argv[argv.index("--") + 1 :], stop=stop)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
