"""Benchmark of Dou Dizhu on the native core (issue 15): replay-and-validate games per
CPU-second on the core and in the Python engine, and the import of a Dou Dizhu file.

``native.ddz_replay``: ``N_GAMES`` simulated ``ddz`` and ``ddz-2p`` games (three random bots,
or two; the lines ``big2 simulate --ruleset ddz`` writes: the deal, the auction, times, the
declared result, void deals included), built once outside the timed part. Timed, on one core
(CPU time of this process, best of 5):

- *native*: each line parsed, validated and replayed by the core (``DdzCore.validate_lines``);
  and with every record handed back as Python tuples (``DdzCore.replay_line``);
- *Python*: ``pipeline.logs.jsonl.parse_line`` + ``pipeline.replay.replay``;
- *parse floor*: ``orjson.loads`` of each line.

``native.ddz_sim``: Dou Dizhu games simulated (played and written as log lines, void deals
included: ``ddz_simulate.match_lines``) per CPU-second of this process, three random bots and
three heuristic bots on ``ddz``: the native core (``SIM_GAMES_NATIVE`` games, best of 5) and
the Python simulator (``SIM_GAMES_PYTHON``, best of 3) side by side, with the load average.

``native.ddz_ingest``: ``big2 ingest --no-build --workers 1`` (:func:`pipeline.ingest.ingest`)
of ``BIG2_BENCH_DDZ_INGEST_GAMES`` simulated ``ddz`` games (default 3,000), on the core and with
``BIG2_PURE_PYTHON=1``, each in a fresh process, alternating, three times: the median games/s
of each and the load average around the runs. Without the built extension only the Python
figures are reported.

``native.ddz_csv``: ``BIG2_BENCH_DDZ_CSV_GAMES`` simulated ``ddz`` games (default 20,000) as
JSON Lines and as a CSV pair (``pipeline.sim.sample.ddz_csv_text``), each imported with one
worker and with two in a fresh process (:func:`bench.aims.import_rate`), alternating,
``BIG2_BENCH_AIMS_ROUNDS`` rounds (default 3): median games/s, and the CSV reader alone (CPU
per game).
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import partial
from pathlib import Path

from bench import Figure, benchmark
from bench.native import (
    ingest_side_by_side,
    parse_orjson,
    per_core_second,
    replay_python,
    sim_side_by_side,
    validate_native,
)
from pipeline import native
from pipeline.logs.model import Source
from pipeline.sim.ddz_simulate import (
    DdzSimConfig,
    match_lines,
    match_lines_native,
    match_lines_python,
)

N_GAMES = 400
_SOURCE = Source("bench-ddz.jsonl", 1)


def ddz_lines(preset: str, n_games: int = N_GAMES, *, bots: str = "random") -> list[str]:
    """``n_games`` simulated Dou Dizhu games of ``preset`` as log lines (void deals included).

    >>> lines = ddz_lines("ddz-2p", 2)
    >>> len(lines) >= 2, all('"game_kind": "doudizhu"' in line for line in lines)
    (True, True)
    """
    players = 2 if preset == "ddz-2p" else 3
    cfg = DdzSimConfig(games=n_games, seed=15, bots=(bots,) * players, preset=preset)
    return [line for m in range(cfg.n_matches) for line in match_lines(cfg, m)]


def _native_records(core: object, lines: list[str]) -> None:
    replay_line = core.replay_line  # type: ignore[attr-defined]
    for line in lines:
        replay_line(line)


@benchmark("native.ddz_replay")
def replay_rate() -> list[Figure]:
    """Dou Dizhu games parsed + validated + replayed per CPU-second: native and Python."""
    figures: list[Figure] = []
    module = native.load_module()
    for preset in ("ddz", "ddz-2p"):
        lines = ddz_lines(preset)
        n = len(lines)
        python_rate = per_core_second(partial(replay_python, lines), n, repeat=3)
        if module is not None:
            core = module.DdzCore(native.resolve_ddz_ruleset)
            rate = per_core_second(partial(validate_native, core, lines), n)
            figures.append((f"native: {preset} games validated per CPU-second", rate, "games/s"))
            records = per_core_second(partial(_native_records, core, lines), n)
            figures.append((f"native: {preset}, records as Python tuples", records, "games/s"))
        figures.append((f"Python: {preset} games parsed + replayed", python_rate, "games/s"))
        parse_rate = per_core_second(partial(parse_orjson, lines), n)
        figures.append((f"orjson parse-only, the same {preset} lines", parse_rate, "games/s"))
        if module is not None:
            figures.append((f"native ÷ Python ({preset})", rate / python_rate, "×"))
    return figures


@benchmark("native.ddz_sim")
def sim_rate() -> list[Figure]:
    """Simulated ``ddz`` games (played and written as log lines) per CPU-second, three random
    bots and three heuristic bots: the native core and the Python simulator side by side."""
    before = os.getloadavg()[0]
    figures = sim_side_by_side(
        lambda games, bot: DdzSimConfig(games=games, seed=11, bots=(bot,) * 3),
        match_lines_python,
        match_lines_native,
        label="{side}: ddz {bot}-bot games per CPU-second",
        python_repeat=3,
    )
    return [
        ("load average (1 min) before the runs", before, ""),
        *figures,
        ("load average (1 min) after the runs", os.getloadavg()[0], ""),
    ]


@benchmark("native.ddz_ingest")
def ingest_rate() -> list[Figure]:
    """Dou Dizhu import games/s, one worker, no mart build: native and Python side by side."""
    n = int(os.environ.get("BIG2_BENCH_DDZ_INGEST_GAMES", "3000"))
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "ddz.jsonl"
        lines = ddz_lines("ddz", n)
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ratio = "native ÷ Python, Dou Dizhu ingest"
        return ingest_side_by_side(log, len(lines), games="ddz games", ratio=ratio)


@benchmark("native.ddz_csv")
def csv_import() -> list[Figure]:
    """Dou Dizhu CSV imports beside JSON Lines imports of the same games, side by side."""
    import shutil
    import statistics

    from bench.aims import import_rate, read_seconds
    from pipeline.sim.sample import ddz_csv_text

    n = int(os.environ.get("BIG2_BENCH_DDZ_CSV_GAMES", "20000"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    before = os.getloadavg()[0]
    rate: dict[tuple[str, int], list[float]] = {}
    reading: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        lines = ddz_lines("ddz", n)
        log, pair = Path(tmp) / "ddz.jsonl", Path(tmp) / "ddz.csv"
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        games_text, actions_text = ddz_csv_text([json.loads(line) for line in lines])
        (Path(tmp) / "ddz.games.csv").write_text(games_text, encoding="utf-8")
        pair.write_text(actions_text, encoding="utf-8")
        os.sync()
        for k in range(rounds):
            reading.append(read_seconds(pair, core=True))
            for name, path in (("CSV", pair), ("JSON Lines", log)):
                for workers in (1, 2):
                    wh = Path(tmp) / f"wh-{k}"
                    done = import_rate(path, wh, len(lines), workers)[0]
                    rate.setdefault((name, workers), []).append(done)
                    shutil.rmtree(wh)
    figures: list[Figure] = [("input: ddz games (void deals included)", len(lines), "games")]
    for (name, workers), rates in rate.items():
        s = "s" if workers > 1 else ""
        figures.append(
            (f"ingest --no-build {name}, {workers} worker{s}", statistics.median(rates), "games/s")
        )
    for workers in (1, 2):
        ratio = statistics.median(rate["CSV", workers]) / statistics.median(
            rate["JSON Lines", workers]
        )
        figures.append(
            (f"CSV ÷ JSON Lines, {workers} worker{'s' if workers > 1 else ''}", ratio, "×")
        )
    figures.append(
        ("the CSV reader alone, CPU per game", 1e6 * statistics.median(reading) / len(lines), "µs")
    )
    figures.append(("load average (1 min) before the runs", before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures
