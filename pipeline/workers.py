"""Worker process pools, started one way for the import and the simulators.

A pool forked from a process that runs other threads (DuckDB's and Arrow's thread pools, a
test runner's) copies only the forking thread; a lock another thread held stays held in the
child, which then hangs or dies (the import saw ``E_WORKER_DIED`` under pytest-xdist). So
on Linux the workers are forked from the ``forkserver``: one clean, single-threaded server
process per parent, started on the first pool and reused by the next ones, which imports
the modules the workers run (``preload``) once. Elsewhere the platform's default applies.

What a worker knows comes through its task's arguments and the environment the server was
started with, not from the parent's memory: module state set in the parent after start-up
is not seen by a worker. Nor does a worker run the parent's ``__main__`` again (as
``multiprocessing`` does by default): the tasks are functions of ``pipeline`` modules, and a
parent's main may be anything (a test runner, a Streamlit page that AppTest ran last).

Every worker dies with the process that started the pool (:func:`die_with`): a SIGKILLed
import or simulation leaves no worker behind. (``PR_SET_PDEATHSIG`` cannot do it here: a
worker's parent is the forkserver, which lives on while any worker does.)

>>> start_method() in {"forkserver", "spawn", "fork"}
True
"""

from __future__ import annotations

import multiprocessing
import os
import select
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing import popen_forkserver
from multiprocessing.context import BaseContext, ForkServerContext, ForkServerProcess
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")

#: What a worker's start sees as the parent's ``__main__``: a module with no file to run.
_NO_MAIN = ModuleType("__main__")


class _Popen(popen_forkserver.Popen):
    def _launch(self, process_obj: Any) -> None:
        # multiprocessing puts "run the parent's main" in a new process's start data; only
        # while that data is taken does the parent's main look like an empty module.
        main = sys.modules["__main__"]
        sys.modules["__main__"] = _NO_MAIN
        try:
            super()._launch(process_obj)  # type: ignore[misc]
        finally:
            sys.modules["__main__"] = main


class _Process(ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> _Popen:
        return _Popen(process_obj)


class _WorkerContext(ForkServerContext):
    """The forkserver context, its processes started without the parent's main."""

    Process = _Process


def start_method() -> str:
    """``forkserver`` where the platform has it, else the platform's default start method."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else multiprocessing.get_start_method()


def context(preload: Sequence[str] = ()) -> BaseContext:
    """The start context of every pool; ``preload``: modules the forkserver imports when it
    starts (the workers' own module, so each worker starts with it imported).

    >>> type(context()).__name__ in {"_WorkerContext", "SpawnContext", "ForkContext"}
    True
    """
    if start_method() != "forkserver":
        return multiprocessing.get_context()
    ctx = _WorkerContext()
    if preload:
        ctx.set_forkserver_preload(list(preload))
    return ctx


#: What the forkserver's environment adds to this process's, unless set already: one BLAS
#: thread. NumPy's OpenBLAS otherwise starts one a core when imported, each spinning for a
#: while (~0.1-0.2 CPU-s, measured) on the cores the import and the first workers need; no
#: worker does linear algebra.
SERVER_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def warm(preload: Sequence[str]) -> None:
    """Start the forkserver now (it imports ``preload`` while this process goes on), so that
    a pool made later starts its workers without waiting for those imports; with
    :data:`SERVER_ENV`."""
    context(preload)
    if start_method() == "forkserver":
        from multiprocessing import forkserver

        added = {k: v for k, v in SERVER_ENV.items() if k not in os.environ}
        os.environ.update(added)
        try:
            forkserver.ensure_running()
        finally:
            for k in added:
                del os.environ[k]


def die_with(main: int) -> None:
    """End this process (``os._exit``) as soon as process ``main`` ends: a daemon thread
    waits on a pidfd of it (Linux 5.3+), elsewhere checks it twice a second.

    >>> die_with(os.getpid())  # returns at once: the watch runs in its own thread
    """
    try:
        fd: int | None = os.pidfd_open(main)
    except ProcessLookupError:  # it ended already
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd here
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])  # readable once the process has ended
        else:
            while alive(main):
                time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name=f"die-with-{main}", daemon=True).start()


def alive(pid: int) -> bool:
    """Whether a process of this id runs (one of another user's too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _start_worker(
    main: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]
) -> None:
    die_with(main)
    if initializer is not None:
        initializer(*initargs)


def pool(
    workers: int,
    *,
    preload: Sequence[str] = (),
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started by :func:`context`, each of which dies with
    this process (:func:`die_with`) and then runs ``initializer(*initargs)``."""
    warm(preload)
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context(preload),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )


def in_order(
    pool: Executor, tasks: Iterable[tuple[Callable[..., T], tuple[Any, ...]]], ahead: int
) -> Iterator[T]:
    """Run ``tasks`` on ``pool`` (threads or processes), at most ``ahead`` submitted and not yet
    taken, and yield their results in the tasks' order.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as threads:
    ...     list(in_order(threads, [(pow, (2, k)) for k in range(6)], 4))
    [1, 2, 4, 8, 16, 32]
    """
    pending: deque[Future[T]] = deque()
    for task, args in tasks:
        pending.append(pool.submit(task, *args))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
