"""Imports of the logs an operator meets besides clean ones: games rejected, met again, or
timed in ISO strings.

``ingest.reimport`` imports ``BIG2_BENCH_REIMPORT_GAMES`` distinct games (default 100,000, as
``big2 simulate`` writes them), then imports again, each time into a copy of that warehouse, in
a fresh process, with the default workers, alternating (``BIG2_BENCH_AIMS_ROUNDS`` rounds,
medians):

- the same file: every game a duplicate, nothing written;
- an edited copy (each game's ``started_at`` a year earlier): every game an ``E_CONFLICT``,
  whose reject keeps the record, read back from the file once the file is done
  (``pipeline.ingest._ReadBack``), so the rejects hold the whole file's text.

``ingest.rejects`` imports the same games without their ``previous_winner`` (an export that
leaves it out: two games in three are ``E_OUT_OF_TURN``, their first play not the previous
winner's) as JSON Lines and as a CSV pair, one worker and two, alternating; a reject is
the core's on both (a CSV game's keeps its CSV rows).

``ingest.repeats`` imports the same games as a log that writes each line twice (every second
copy a repeat in its chunk, judged by the core's game id and content hash) and once, one
worker and two, alternating.

``ingest.iso_times`` imports the same games with each action's ``ts`` a number and an ISO
time (``…T11:14:21.900+08:00``), ``ingest.database_times`` a number and a time as a database
prints it (``2026-07-31 03:14:21.900``), and ``ingest.long_numbers`` with each ``ts`` to the tenth of a
second and to the last digit a double holds, one worker and two, alternating.

``ingest.escapes`` imports the same Big Two games, and ``BIG2_BENCH_DDZ_ESCAPE_GAMES`` Dou
Dizhu games (default 20,000), each seat named in Chinese, written by ``json.dumps`` with the
names in UTF-8 and with them as ``\\u`` escapes (``json.dumps``' default), one worker and
two, alternating.

The import's own games/s (``IngestSummary.seconds``: the read-back included, the start of the
process not), and the rejects' Parquet bytes.
"""

from __future__ import annotations

import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from bench import Figure, benchmark

#: Imports argv[1] into argv[2] (argv[3] workers, 0: the default); prints the games read per
#: second and the rejects.
_RUN = """
import sys
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse
s = ingest([sys.argv[1]], Warehouse(sys.argv[2]), workers=int(sys.argv[3]) or None)
print(s.total().read / s.seconds, s.total().rejected)
"""


def _import(log: Path, wh: Path, workers: int = 0) -> tuple[float, int]:
    """``log`` imported into ``wh`` in a fresh process: (games/s, rejects)."""
    cmd = [sys.executable, "-c", _RUN, str(log), str(wh), str(workers)]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # as the big2 command sets it
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout.split()
    return float(out[-2]), int(out[-1])


def _side_by_side(
    write: Callable[[Path], tuple[Path, Path]], shapes: tuple[str, str], unit: str = "games/s"
) -> list[Figure]:
    """Two inputs of the same games, each imported with one worker and with two, alternating
    (``BIG2_BENCH_AIMS_ROUNDS`` rounds) into a new warehouse in a fresh process: each one's
    median rate (``unit``) and, per worker count, the second's rate ÷ the first's in the same
    round; the load before and after. ``write(folder)`` writes the two inputs there."""
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    load_before = os.getloadavg()[0]
    rate: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = dict(zip(shapes, write(Path(tmp)), strict=True))
        os.sync()
        for _ in range(rounds):
            for shape, path in paths.items():
                for workers in (1, 2):
                    wh = Path(tmp) / "wh"
                    rate.setdefault((shape, workers), []).append(_import(path, wh, workers)[0])
                    shutil.rmtree(wh)
    first, second = shapes
    figures: list[Figure] = []
    for workers in (1, 2):
        s = "s" if workers > 1 else ""
        for shape in shapes:
            got = statistics.median(rate[shape, workers])
            figures.append((f"ingest, {shape}, {workers} worker{s}", got, unit))
        ratio = statistics.median(
            b / a for a, b in zip(rate[first, workers], rate[second, workers], strict=True)
        )
        figures.append((f"{second} ÷ {first}, {workers} worker{s}, same round", ratio, "×"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures


def _games() -> int:
    """The games of each input (``BIG2_BENCH_REIMPORT_GAMES``, default 100,000)."""
    return int(os.environ.get("BIG2_BENCH_REIMPORT_GAMES", "100000"))


def edit_log(log: Path, out: Path) -> int:
    """``log`` with each game's ``started_at`` a year earlier (same ids, other content) in
    ``out``; how many lines were edited.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"started_at": "2026-07-31T03:14:21+00:00"}\\n{"x": 1}\\n')
    ...     edit_log(log, out), out.read_text().splitlines()[0]
    (1, '{"started_at": "2025-07-31T03:14:21+00:00"}')
    """
    edited = 0
    with log.open("rb") as src, out.open("wb") as dst:
        for line in src:
            new = line.replace(b'"started_at": "2026-', b'"started_at": "2025-', 1)
            edited += new != line
            dst.write(new)
    return edited


@benchmark("ingest.reimport")
def reimport() -> list[Figure]:
    """A first import, then the same file again and an edited copy, side by side."""
    from bench.ingest import write_distinct_log

    n = _games()
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    load_before = os.getloadavg()[0]
    rate: dict[str, list[float]] = {}
    rejects_bytes = conflicts = 0
    with tempfile.TemporaryDirectory() as tmp:
        log, edited, first = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl", Path(tmp) / "first"
        write_distinct_log(log, n)
        n_edited = edit_log(log, edited)
        first_rate, _ = _import(log, first)
        os.sync()
        for _ in range(rounds):
            for shape, path in (("the same file", log), ("an edited copy", edited)):
                wh = Path(tmp) / "wh"
                shutil.copytree(first, wh)
                got, conflicts_now = _import(path, wh)
                rate.setdefault(shape, []).append(got)
                if path == edited:
                    conflicts = conflicts_now
                    rejects_bytes = sum(f.stat().st_size for f in (wh / "rejects").glob("*"))
                shutil.rmtree(wh)
    same = statistics.median(rate["the same file"])
    changed = statistics.median(rate["an edited copy"])
    ratio = statistics.median(
        b / a for a, b in zip(rate["the same file"], rate["an edited copy"], strict=True)
    )
    return [
        (f"input: {n:,} games, {n_edited:,} of them edited in the copy", n, "games"),
        ("first import (default workers)", first_rate, "games/s"),
        ("again, the same file: all duplicates", same, "games/s"),
        ("again, the edited copy: all conflicts, records read back", changed, "games/s"),
        ("edited copy ÷ same file, same round", ratio, "×"),
        ("E_CONFLICT rejects of the edited copy", conflicts, "rejects"),
        ("rejects Parquet bytes of the edited copy", rejects_bytes, "B"),
        ("load average (1 min) before the runs", load_before, ""),
        ("load average (1 min) after the runs", os.getloadavg()[0], ""),
    ]


def drop_previous_winner(log: Path, out: Path) -> int:
    """``log`` without each game's ``previous_winner`` in ``out`` (orjson's compact lines); how
    many lines had one.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"a": 1, "previous_winner": 2}\\n{"x": 1}\\n')
    ...     drop_previous_winner(log, out), out.read_text().splitlines()
    (1, ['{"a":1}', '{"x":1}'])
    """
    dropped = 0
    with log.open("rb") as src, out.open("wb") as dst:
        for line in src:
            obj = orjson.loads(line)
            if "previous_winner" in obj:
                del obj["previous_winner"]
                dropped += 1
            dst.write(orjson.dumps(obj) + b"\n")
    return dropped


@benchmark("ingest.rejects")
def rejects() -> list[Figure]:
    """The same games rejected two in three, as JSON Lines and as a CSV pair, side by side."""
    from bench.aims import write_csv_pair
    from bench.ingest import write_distinct_log

    n = _games()

    def write(tmp: Path) -> tuple[Path, Path]:
        log, bad, pair = tmp / "a.jsonl", tmp / "bad.jsonl", tmp / "bad.csv"
        write_distinct_log(log, n)
        drop_previous_winner(log, bad)
        log.unlink()
        write_csv_pair(bad, pair)
        return bad, pair

    figures = _side_by_side(write, ("JSON Lines", "CSV pair"))
    return [(f"input: {n:,} games, without previous_winner", n, "games"), *figures]


@benchmark("ingest.repeats")
def repeats() -> list[Figure]:
    """A log that writes each line twice against the same lines once, side by side: each
    second copy is a repeat in its chunk, which the batch judges by the core's id and hash."""
    from bench.ingest import write_distinct_log

    n = _games()

    def write(tmp: Path) -> tuple[Path, Path]:
        once, twice = tmp / "once.jsonl", tmp / "twice.jsonl"
        write_distinct_log(once, n)
        with once.open("rb") as src, twice.open("wb") as dst:
            for line in src:
                dst.write(line + line)
        return once, twice

    figures = _side_by_side(write, ("each line once", "each line twice"), "lines/s")
    return [(f"input: {n:,} games", n, "games"), *figures]


def iso_times(log: Path, out: Path, minutes: int = 480) -> int:
    """``log`` with each action's numeric ``ts`` as an ISO time to the millisecond at UTC
    +``minutes`` (``2026-07-31T11:14:21.900+08:00``); how many times were rewritten.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"actions": [{"ts": 1785467661.9}, {"ts": null}]}\\n')
    ...     iso_times(log, out), out.read_text()
    (1, '{"actions":[{"ts":"2026-07-31T11:14:21.900+08:00"},{"ts":null}]}\\n')
    """
    from datetime import UTC, datetime, timedelta, timezone

    zone = timezone(timedelta(minutes=minutes))

    def iso(ts: float) -> str:
        return datetime.fromtimestamp(ts, UTC).astimezone(zone).isoformat(timespec="milliseconds")

    return _rewrite_ts(log, out, iso)


def _rewrite_ts(log: Path, out: Path, new: Callable[[float], Any]) -> int:
    """``log`` with each action's numeric ``ts`` replaced by ``new(ts)`` in ``out`` (orjson's
    compact lines); how many were replaced."""
    done = 0
    with log.open("rb") as src, out.open("wb") as dst:
        for line in src:
            obj = orjson.loads(line)
            for action in obj.get("actions", []):
                ts = action.get("ts")
                if isinstance(ts, int | float):
                    action["ts"] = new(ts)
                    done += 1
            dst.write(orjson.dumps(obj) + b"\n")
    return done


def database_times(log: Path, out: Path) -> int:
    """``log`` with each action's numeric ``ts`` as a database prints a time: a space for the
    ``T``, milliseconds, no zone (UTC), ``2026-07-31 03:14:21.900``; how many were rewritten.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"actions": [{"ts": 1785467661.9}]}\\n')
    ...     database_times(log, out), out.read_text()
    (1, '{"actions":[{"ts":"2026-07-31 03:14:21.900"}]}\\n')
    """
    from datetime import UTC, datetime

    def printed(ts: float) -> str:
        at = datetime.fromtimestamp(ts, UTC).isoformat(sep=" ", timespec="milliseconds")
        return at.removesuffix("+00:00")

    return _rewrite_ts(log, out, printed)


@benchmark("ingest.database_times")
def database_times_rate() -> list[Figure]:
    """The same games with each ``ts`` a number and as a database prints a time, side by side:
    the core reads both (before 2026-12-04, a time with a space for the ``T`` was the Python
    reader's)."""
    return _ts_side_by_side(database_times, ("ts as numbers", "ts as a database prints it"))


@benchmark("ingest.iso_times")
def iso_times_rate() -> list[Figure]:
    """The same games with each ``ts`` a number and an ISO time, side by side: the core reads
    both (before 2026-12-04, a line with an ISO ``ts`` was the Python reader's)."""
    return _ts_side_by_side(iso_times, ("ts as numbers", "ts as ISO times"))


def dotnet_times(log: Path, out: Path) -> int:
    """``log`` with each action's numeric ``ts`` as .NET's round-trip format (``"o"``) prints a
    UTC time, seven digits of a second and a ``Z`` (``2026-07-31T03:14:21.9000000Z``); how many
    were rewritten.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"actions": [{"ts": 1785467661.9}]}\\n')
    ...     dotnet_times(log, out), out.read_text()
    (1, '{"actions":[{"ts":"2026-07-31T03:14:21.9000000Z"}]}\\n')
    """
    from datetime import UTC, datetime

    def printed(ts: float) -> str:
        return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "0Z"

    return _rewrite_ts(log, out, printed)


@benchmark("ingest.dotnet_times")
def dotnet_times_rate() -> list[Figure]:
    """The same games with each ``ts`` a number and as .NET prints a time, side by side: the
    core reads both (before 2026-12-04, a time with seven digits of a second was the Python
    reader's)."""
    return _ts_side_by_side(dotnet_times, ("ts as numbers", "ts as .NET prints it"))


def _ts_side_by_side(rewrite: Callable[[Path, Path], int], shapes: tuple[str, str]) -> list[Figure]:
    """:func:`_side_by_side` of the distinct games as ``big2 simulate`` writes them and of
    their copy with each ``ts`` rewritten by ``rewrite(log, out)``."""
    from bench.ingest import write_distinct_log

    n = _games()

    def write(tmp: Path) -> tuple[Path, Path]:
        log, rewritten = tmp / "log.jsonl", tmp / "rewritten.jsonl"
        write_distinct_log(log, n)
        rewrite(log, rewritten)
        return log, rewritten

    return [(f"input: {n:,} games", n, "games"), *_side_by_side(write, shapes)]


def full_precision(log: Path, out: Path, seed: int = 1) -> int:
    """``log`` with each action's numeric ``ts`` given a random fraction of a tenth of a
    second, written to the last digit a double holds (``1785467661.9229562``, as
    ``json.dumps(time.time())`` writes a time); how many times were rewritten.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"actions": [{"ts": 1785467661.9}, {"ts": null}]}\\n')
    ...     full_precision(log, out), len(str(orjson.loads(out.read_text())["actions"][0]["ts"]))
    (1, 18)
    """
    import random

    rng = random.Random(seed)
    return _rewrite_ts(log, out, lambda ts: ts + rng.random() / 10)


@benchmark("ingest.long_numbers")
def long_numbers() -> list[Figure]:
    """The same games with each ``ts`` to the tenth of a second and to the last digit a double
    holds, side by side: the core reads both (before 2026-12-04, a line with a number of more
    than 15 digits was the Python reader's)."""
    return _ts_side_by_side(full_precision, ("ts to 0.1 s", "ts to the last digit"))


#: Names of players beyond ASCII (``json.dumps`` writes each character as a ``\\u`` escape).
_NAMES = ("黃大文", "陳小明", "李四", "王五", "張三豐", "劉德華")


def named(log: Path, out: Path, *, ascii_only: bool) -> int:
    """``log`` with each seat named in Chinese in ``out``, written by ``json.dumps`` with every
    character beyond ASCII as a ``\\u`` escape (``ascii_only``, its default) or in UTF-8; how
    many lines hold an escape.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     _ = log.write_text('{"seats": [{"seat": 1, "name": "x"}]}\\n')
    ...     named(log, out, ascii_only=True), out.read_text()
    (1, '{"seats": [{"seat": 1, "name": "\\\\u9673\\\\u5c0f\\\\u660e"}]}\\n')
    """
    import json

    escaped = 0
    with log.open("rb") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            obj = orjson.loads(line)
            for seat in obj.get("seats", []):
                seat["name"] = _NAMES[seat["seat"] % len(_NAMES)]
            text = json.dumps(obj, ensure_ascii=ascii_only)
            escaped += "\\u" in text
            dst.write(text + "\n")
    return escaped


@benchmark("ingest.escapes")
def escapes() -> list[Figure]:
    """Big Two and Dou Dizhu games named in Chinese, the names in UTF-8 and as ``\\u``
    escapes, side by side: the core reads both (before 2026-12-04, a string with an escape
    sent a Big Two line to serde's slower reading and a Dou Dizhu line to Python)."""
    from bench.ddz_native import ddz_lines
    from bench.ingest import write_distinct_log

    n, n_ddz = _games(), int(os.environ.get("BIG2_BENCH_DDZ_ESCAPE_GAMES", "20000"))
    shapes = ("names in UTF-8", "names as \\u escapes")

    def write(tmp: Path, game: str) -> tuple[Path, Path]:
        log, utf8, escaped = tmp / "log.jsonl", tmp / "utf8.jsonl", tmp / "escaped.jsonl"
        if game == "big2":
            write_distinct_log(log, n)
        else:
            log.write_text("\n".join(ddz_lines("ddz", n_ddz)) + "\n", encoding="utf-8")
        named(log, utf8, ascii_only=False)
        named(log, escaped, ascii_only=True)
        return utf8, escaped

    figures: list[Figure] = [(f"input: {n:,} Big Two games, {n_ddz:,} Dou Dizhu games", n, "")]
    for game in ("big2", "ddz"):
        for name, value, unit in _side_by_side(functools.partial(write, game=game), shapes):
            figures.append((f"{game}: {name}", value, unit))
    return figures


def run_together(log: Path, out: Path) -> int:
    """``log`` with every hand and play's cards run together as the warehouse prints them
    (``5♦5♣``, lowest first; a stock keeps its order) in ``out``; how many strings changed.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log, out = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
    ...     line = '{"deal": {"hands": ["5c 5d"]}, "actions": [{"cards": "Ts"}, {}]}\\n'
    ...     _ = log.write_text(line)
    ...     run_together(log, out), out.read_text()
    (2, '{"deal":{"hands":["5♦5♣"]},"actions":[{"cards":"10♠"},{}]}\\n')
    """
    from pipeline.cards import format_cards, parse_cards

    changed = 0
    with log.open("rb") as src, out.open("wb") as dst:
        for line in src:
            obj = orjson.loads(line)
            deal = obj.get("deal") or {}
            texts: list[tuple[Any, int | str]] = [
                (deal["hands"], k) for k in range(len(deal.get("hands", [])))
            ]
            texts += [(a, "cards") for a in obj.get("actions", []) if a.get("cards")]
            for holder, key in texts:
                holder[key] = format_cards(parse_cards(holder[key]))
                changed += 1
            if deal.get("stock"):
                deal["stock"] = "".join(format_cards([c]) for c in parse_cards(deal["stock"]))
                changed += 1
            dst.write(orjson.dumps(obj) + b"\n")
    return changed


@benchmark("ingest.notations")
def notations() -> list[Figure]:
    """The same games with cards as ``big2 simulate`` writes them and run together, side by
    side: the core reads both (before 2026-12-04, a line with cards run together was the
    Python reader's)."""
    from bench.ingest import write_distinct_log

    n = _games()

    def write(tmp: Path) -> tuple[Path, Path]:
        log, together = tmp / "log.jsonl", tmp / "together.jsonl"
        write_distinct_log(log, n)
        _rewrite_ts(log, tmp / "compact.jsonl", lambda ts: ts)  # the other's layout
        run_together(log, together)
        return tmp / "compact.jsonl", together

    shapes = ("cards as 3d 4d", "cards run together (3♦4♦)")
    return [(f"input: {n:,} games", n, "games"), *_side_by_side(write, shapes)]
