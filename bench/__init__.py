"""Benchmarks: a tiny registry, run by ``python -m bench`` (``make bench``, ``big2 bench``).

A benchmark is a function that takes no argument and returns a list of figures, each a
``(figure name, value, unit)`` tuple. ``python -m bench`` imports every module of this
package, runs the registered benchmarks (or one, with ``--only NAME``), prints each figure
with the machine it ran on and appends a dated section to ``docs/benchmarks.md``
(unless ``--no-record``).

Adding one is a five-line job: a new module ``bench/<topic>.py`` (found automatically)::

    from bench import Figure, benchmark, per_second

    @benchmark("combos.classify")
    def classify_rate() -> list[Figure]:
        hands = make_hands()  # realistic inputs, built once, outside the timed part
        return [("hands classified per second", per_second(run, len(hands)), "hands/s")]

``per_second(fn, n_items)`` times ``fn()`` (best of a few repeats, each at least
``min_seconds`` long) and returns ``n_items / seconds per call``. Importing any module here
has no side effect beyond registering its benchmarks: nothing runs, nothing is written.

>>> @benchmark("example.noop", registry={})
... def noop() -> list[Figure]:
...     return [("nothing per second", per_second(lambda: None, 1, min_seconds=0.001), "1/s")]
>>> name, value, unit = noop()[0]
>>> name, value > 0, unit
('nothing per second', True, '1/s')
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: One measured figure: (figure name, value, unit).
Figure = tuple[str, float, str]
Benchmark = Callable[[], list[Figure]]

#: Registered benchmarks by name, in registration order.
REGISTRY: dict[str, Benchmark] = {}


def benchmark(
    name: str, *, registry: dict[str, Benchmark] | None = None
) -> Callable[[Benchmark], Benchmark]:
    """Register a benchmark function under ``name`` (a dotted ``module.thing`` label).

    >>> reg: dict[str, Benchmark] = {}
    >>> @benchmark("x.y", registry=reg)
    ... def f() -> list[Figure]:
    ...     return []
    >>> list(reg)
    ['x.y']
    """
    target = REGISTRY if registry is None else registry

    def register(fn: Benchmark) -> Benchmark:
        if name in target and target[name] is not fn:
            raise ValueError(f"benchmark {name!r} is registered twice")
        target[name] = fn
        return fn

    return register


def per_second(
    fn: Callable[[], object], n_items: int, *, min_seconds: float = 0.2, repeat: int = 3
) -> float:
    """Items per second of ``fn()``, which handles ``n_items`` items per call (best of ``repeat``).

    Each repeat calls ``fn`` as many times as fit in ``min_seconds``; the fastest repeat counts.
    """
    best = float("inf")
    for _ in range(repeat):
        calls = 0
        start = time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        best = min(best, elapsed / calls)
    return n_items / best
