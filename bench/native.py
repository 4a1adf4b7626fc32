"""Benchmark of the native core (issue 15): replay-and-validate games per core-second, the
Rust core and the Python engine side by side in one run, against the orjson parse-only rate
of the same lines.

The input is ``N_GAMES`` complete random 4-player ``hk`` games as JSON Lines text (compact
cards, times, seats, a declared result: the shape `big2 simulate` writes), built once outside
the timed part. Timed, on one core (this process):

- *native*: each line parsed, validated and replayed by the core (``Core.validate_lines``: the
  winner or the reject, no per-action Python object); the replay and validation alone of the
  already parsed records (``big2_native.replay_parsed``: the issue's replay-and-validate
  figure, the parse taken out); with every fact handed back as Python
  tuples (``Core.replay_line``); and what ``big2 ingest`` asks of the core per line
  (``Core.rows_add``: parse, replay, content hash and the warehouse rows, then ``rows_take``);
- *Python*: ``pipeline.logs.jsonl.parse_line`` + ``pipeline.replay.replay`` (pure Python);
- *parse floor*: ``orjson.loads`` of each line, nothing else.

Without the built extension only the Python and orjson figures are reported.

``native.sim``: simulated ``hk`` games (played by four random bots, then four heuristic bots,
and written as log lines) per CPU-second of this process, on the core
(:func:`pipeline.sim.simulate.match_lines_native`) and in Python
(:func:`pipeline.sim.simulate.match_lines_python`), side by side.

``native.ingest``: the import alone (what ``big2 ingest --no-build --workers 1`` runs:
:func:`pipeline.ingest.ingest`, one worker, no mart build) of ``BIG2_BENCH_NATIVE_INGEST_GAMES``
games (default 20,000; the file of ``bench.ingest``), once on the core and once with
``BIG2_PURE_PYTHON=1``, each in a fresh process, alternating, three times; the median
games/s of each and the load average around the runs.

``native.simulate_file``: what ``big2 simulate --games N -o f.jsonl.gz`` (and ``-o f.jsonl``)
end to end (the command itself, one worker per core, its default bots and seed; the games/s it
prints), and ``-o f.jsonl --workers 1``, each in a fresh process, on the core
(``BIG2_BENCH_SIM_FILE_GAMES`` games, default 20,000) and with ``BIG2_PURE_PYTHON=1`` (a tenth of
them), alternating, three times: the median games/s of each, how much of the plain file's rate
the gzip file keeps, what the workers gain over one, and the load average around the runs.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from bench import Figure, benchmark, per_second
from pipeline import native
from pipeline.big2.rules import load_ruleset
from pipeline.logs.jsonl import parse_line
from pipeline.logs.model import GameRecord, Source
from pipeline.replay import replay
from pipeline.sim.sample import sample_game
from pipeline.sim.simulate import SimConfig, match_lines_native, match_lines_python

N_GAMES = 500
_SOURCE = Source("bench.jsonl", 1)


def game_lines(n_games: int = N_GAMES) -> list[str]:
    """``n_games`` distinct complete random games as JSON Lines text (fixed seeds).

    >>> lines = game_lines(2)
    >>> len(lines), all(line.startswith("{") for line in lines)
    (2, True)
    """
    return [orjson.dumps(sample_game(seed=i, game_id=f"n{i}")).decode() for i in range(n_games)]


def replay_python(lines: list[str]) -> None:
    """Read and replay each line in the Python engine (the reference)."""
    for line in lines:
        record = parse_line(line, _SOURCE)
        assert isinstance(record, GameRecord)
        replay(record)


def parse_orjson(lines: list[str]) -> None:
    """Parse each line with orjson only: the floor a reader cannot beat."""
    for line in lines:
        orjson.loads(line)


def validate_native(core: object, lines: list[str]) -> None:
    """Parse, replay and validate every line on the native core; all must pass."""
    ok, rejected, left = core.validate_lines(lines)  # type: ignore[attr-defined]
    assert ok == len(lines), (ok, rejected, left)


#: Rounds of replays over the parsed records per timing of :func:`replay_parsed_rate`.
REPLAY_ROUNDS = 10


def replay_parsed_rate(module: ModuleType, lines: list[str], *, repeat: int = 5) -> float:
    """Replay-and-validate of already parsed records per CPU-second of this thread.

    ``big2_native.replay_parsed(ruleset, lines, rounds)`` parses the lines, then replays
    the records ``rounds`` times; timed (``time.thread_time``) with ``rounds = 0`` and
    ``rounds = REPLAY_ROUNDS`` one after the other, the difference is the replays alone. The
    median of ``repeat`` such pairs.
    """
    ruleset = orjson.dumps(load_ruleset("hk").to_dict()).decode()
    run = module.replay_parsed
    rates: list[float] = []
    for _ in range(repeat):
        start = time.thread_time()
        parsed, _ = run(ruleset, lines, 0)
        middle = time.thread_time()
        _, ok = run(ruleset, lines, REPLAY_ROUNDS)
        end = time.thread_time()
        assert parsed == len(lines) and ok == REPLAY_ROUNDS * parsed, (parsed, ok)
        rates.append(ok / max((end - middle) - (middle - start), 1e-9))
    return statistics.median(rates)


def _native_rows(core: object, lines: list[str]) -> None:
    rows_add = core.rows_add  # type: ignore[attr-defined]
    for k, line in enumerate(lines):
        assert rows_add(line, "bench.jsonl", k + 1) is True
    core.rows_take()  # type: ignore[attr-defined]


def _native_facts(core: object, lines: list[str]) -> None:
    replay_line = core.replay_line  # type: ignore[attr-defined]
    for line in lines:
        replay_line(line)


@benchmark("native.replay")
def replay_rate() -> list[Figure]:
    """Games parsed + validated + replayed per core-second: native, Python, and the orjson floor."""
    lines = game_lines()
    n = len(lines)
    figures: list[Figure] = []
    module = native.load_module()
    if module is not None:
        core = module.Core(native.resolve_ruleset)
        native_rate = per_second(partial(validate_native, core, lines), n)
        figures.append(("native: games validated per core-second", native_rate, "games/s"))
        if hasattr(module, "replay_parsed"):
            parsed = replay_parsed_rate(module, lines)
            figures.append(
                (
                    "native: replay-and-validate of parsed records per core-second",
                    parsed,
                    "games/s",
                )
            )
        facts = per_second(partial(_native_facts, core, lines), n)
        figures.append(("native: games replayed, facts as Python tuples", facts, "games/s"))
        rows = per_second(partial(_native_rows, core, lines), n)
        figures.append(
            ("native: rows_add (parse, replay, hash, rows) per core-second", rows, "games/s")
        )
    python_rate = per_second(partial(replay_python, lines), n)
    figures.append(("Python: games parsed + replayed per core-second", python_rate, "games/s"))
    parse_rate = per_second(partial(parse_orjson, lines), n)
    figures.append(("orjson parse-only, the same lines", parse_rate, "games/s"))
    if module is not None:
        figures.append(("native ÷ Python", native_rate / python_rate, "×"))
        figures.append(("native ÷ orjson parse-only", native_rate / parse_rate, "×"))
    return figures


#: Times :func:`pipeline.ingest.ingest` (one worker) of argv[1] into argv[2]; prints games/s.
_INGEST_RUN = """
import sys
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse
s = ingest([sys.argv[1]], Warehouse(sys.argv[2]), workers=1)
assert s.total().stored == int(sys.argv[3]), s.total()
print(s.total().stored / s.seconds)
"""


def ingest_games_per_second(log: Path, wh: Path, n: int, *, pure: bool) -> float:
    """`big2 ingest --no-build --workers 1` of ``log`` (``n`` games) into ``wh``: games/s."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    cmd = [sys.executable, "-c", _INGEST_RUN, str(log), str(wh), str(n)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return float(out.split()[-1])


def ingest_side_by_side(log: Path, n: int, *, games: str, ratio: str) -> list[Figure]:
    """`big2 ingest --no-build --workers 1` of ``log`` (``n`` games), native and Python
    alternating, three rounds: the median games/s of each (``games`` names them in the
    figure), the ratio (named ``ratio``) and the load average before and after."""
    paths = (
        [("Python", True)]
        if native.load_module() is None
        else [("native", False), ("Python", True)]
    )
    rates: dict[str, list[float]] = {name: [] for name, _ in paths}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(3):
            for name, pure in paths:
                wh = Path(tmp) / f"wh-{name}-{k}"
                rates[name].append(ingest_games_per_second(log, wh, n, pure=pure))
    figures: list[Figure] = [
        (
            f"{name}: ingest --no-build, 1 worker, {n:,} {games} (median of 3)",
            statistics.median(r),
            "games/s",
        )
        for name, r in rates.items()
    ]
    if len(rates) == 2:
        rate = statistics.median(rates["native"]) / statistics.median(rates["Python"])
        figures.append((ratio, rate, "×"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures


@benchmark("native.ingest")
def ingest_rate() -> list[Figure]:
    """Import games/s, one worker, no mart build: native and Python side by side."""
    from bench.ingest import write_log

    n = int(os.environ.get("BIG2_BENCH_NATIVE_INGEST_GAMES", "20000"))
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "games.jsonl"
        write_log(log, n)
        return ingest_side_by_side(log, n, games="games", ratio="native ÷ Python, ingest")


#: One match's lines in the Python simulator, and on the core (None: the core left it).
MatchLines = Callable[[Any, int], list[str]]
CoreMatchLines = Callable[[Any, int, ModuleType], list[str] | None]


def per_core_second(fn: Callable[[], object], n_items: int, *, repeat: int = 5) -> float:
    """Items per CPU-second of this process (``time.process_time``: the figure stays a
    per-core rate on a loaded machine), best of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return n_items / max(best, 1e-9)


#: Games per lineup: the core's run, and the Python simulator's (slower: fewer games).
SIM_GAMES_NATIVE = 4_000
SIM_GAMES_PYTHON = 200


def _matches(
    cfg: Any, module: ModuleType | None, python: MatchLines, on_core: CoreMatchLines
) -> None:
    for match in range(cfg.n_matches):
        lines = python(cfg, match) if module is None else on_core(cfg, match, module)
        assert lines  # None: the core left a match to Python, which the figure must not time


def sim_side_by_side(
    config: Callable[[int, str], Any],
    python: MatchLines,
    on_core: CoreMatchLines,
    *,
    label: str,
    python_repeat: int = 5,
) -> list[Figure]:
    """Simulated games (whole matches played and written as log lines) per CPU-second of the
    random and the heuristic bot (``config(games, bot)``: a run of one bot in every seat), on
    the core (``on_core``) and in the Python simulator (``python``), side by side; ``label``
    formats the figures' names with ``{side}`` and ``{bot}``."""
    module = native.load_module()
    figures: list[Figure] = []
    for bot in ("random", "heuristic"):
        cfg = config(SIM_GAMES_PYTHON, bot)
        run = partial(_matches, cfg, None, python, on_core)
        python_rate = per_core_second(run, SIM_GAMES_PYTHON, repeat=python_repeat)
        if module is not None:
            cfg = config(SIM_GAMES_NATIVE, bot)
            run = partial(_matches, cfg, module, python, on_core)
            rate = per_core_second(run, SIM_GAMES_NATIVE)
            figures.append((label.format(side="native", bot=bot), rate, "games/s"))
        figures.append((label.format(side="Python", bot=bot), python_rate, "games/s"))
        if module is not None:
            figures.append((f"{bot}: native ÷ Python", rate / python_rate, "×"))
    return figures


@benchmark("native.sim")
def sim_rate() -> list[Figure]:
    """Simulated games (played and written as log lines) per core-second, four random bots and
    four heuristic bots on ``hk``: the native core and the Python simulator side by side."""
    return sim_side_by_side(
        lambda games, bot: SimConfig(games=games, seed=11, bots=(bot,) * 4),
        match_lines_python,
        match_lines_native,
        label="{side}: {bot}-bot games per core-second",
    )


def _simulate_rate(out: Path, n: int, *, pure: bool, workers: int) -> float:
    """``big2 simulate --games n --workers W -o out`` in a fresh process: the games/s it
    reports."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    cli = "from pipeline.cli import app; app()"
    cmd = [sys.executable, "-c", cli, "simulate", "--games", str(n), "-o", str(out)]
    cmd += ["--workers", str(workers)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    match = re.search(r"\(([0-9,]+) games/s", done.stdout)
    assert match is not None, done.stdout
    return float(match.group(1).replace(",", ""))


@benchmark("native.simulate_file")
def simulate_file_rate() -> list[Figure]:
    """`big2 simulate` end to end, games/s, into .jsonl.gz and .jsonl with one worker per core,
    and into .jsonl with one worker: native and Python, alternating, median of 3."""
    n = int(os.environ.get("BIG2_BENCH_SIM_FILE_GAMES", "20000"))
    cores = os.cpu_count() or 1
    paths = [("Python", True, max(1, n // 10))]
    if native.load_module() is not None:
        paths.insert(0, ("native", False, n))
    runs = [("jsonl.gz", cores), ("jsonl", cores), ("jsonl", 1)]
    rates: dict[tuple[str, str, int], list[float]] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(3):
            for name, pure, games in paths:
                for ext, workers in runs:
                    rate = _simulate_rate(Path(tmp) / f"f.{ext}", games, pure=pure, workers=workers)
                    rates.setdefault((name, ext, workers), []).append(rate)
    figures: list[Figure] = []
    for name, _, games in paths:
        gz, plain, one = (statistics.median(rates[name, ext, w]) for ext, w in runs)
        each = f"{games:,} games, {cores} workers (median of 3)"
        figures.append((f"{name}: simulate -o .jsonl.gz, {each}", gz, "games/s"))
        figures.append((f"{name}: simulate -o .jsonl, {each}", plain, "games/s"))
        figures.append((f"{name}: .jsonl.gz rate ÷ .jsonl rate", gz / plain, "×"))
        figures.append(
            (f"{name}: simulate -o .jsonl, {games:,} games, 1 worker (median of 3)", one, "games/s")
        )
        figures.append((f"{name}: .jsonl, {cores} workers ÷ 1 worker", plain / one, "×"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures
