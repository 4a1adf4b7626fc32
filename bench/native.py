"""Benchmark of the native core (issue 15): replay-and-validate games per core-second, the
Rust core and the Python engine side by side in one run, against the orjson parse-only rate
of the same lines.

The input is ``N_GAMES`` complete random 4-player ``hk`` games as JSON Lines text (compact
cards, times, seats, a declared result: the shape `big2 simulate` writes), built once outside
the timed part. Timed, on one core (this process):

- *native*: each line parsed, validated and replayed by the core (``Core.validate_lines``: the
  winner or the reject, no per-action Python object); and with every fact handed back as
  Python tuples (``Core.replay_line``);
- *Python*: ``pipeline.logs.jsonl.parse_line`` + ``pipeline.replay.replay`` (the mypyc build
  when ``make`` compiled it, else pure Python: the machine line says which);
- *parse floor*: ``orjson.loads`` of each line, nothing else.

Without the built extension only the Python and orjson figures are reported.
"""

from __future__ import annotations

from functools import partial

import orjson

from bench import Figure, benchmark, per_second
from pipeline import native
from pipeline.logs.jsonl import parse_line
from pipeline.logs.model import GameRecord, Source
from pipeline.replay import replay
from pipeline.sim.sample import sample_game

N_GAMES = 500
_SOURCE = Source("bench.jsonl", 1)


def game_lines(n_games: int = N_GAMES) -> list[str]:
    """``n_games`` distinct complete random games as JSON Lines text (fixed seeds).

    >>> lines = game_lines(2)
    >>> len(lines), all(line.startswith("{") for line in lines)
    (2, True)
    """
    return [orjson.dumps(sample_game(seed=i, game_id=f"n{i}")).decode() for i in range(n_games)]


def _python(lines: list[str]) -> None:
    for line in lines:
        record = parse_line(line, _SOURCE)
        assert isinstance(record, GameRecord)
        replay(record)


def _orjson(lines: list[str]) -> None:
    for line in lines:
        orjson.loads(line)


def _native_validate(core: object, lines: list[str]) -> None:
    ok, rejected, left = core.validate_lines(lines)  # type: ignore[attr-defined]
    assert ok == len(lines), (ok, rejected, left)


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
        native_rate = per_second(partial(_native_validate, core, lines), n)
        figures.append(("native: games validated per core-second", native_rate, "games/s"))
        facts = per_second(partial(_native_facts, core, lines), n)
        figures.append(("native: games replayed, facts as Python tuples", facts, "games/s"))
    python_rate = per_second(partial(_python, lines), n)
    figures.append(("Python: games parsed + replayed per core-second", python_rate, "games/s"))
    parse_rate = per_second(partial(_orjson, lines), n)
    figures.append(("orjson parse-only, the same lines", parse_rate, "games/s"))
    if module is not None:
        figures.append(("native ÷ Python", native_rate / python_rate, "×"))
        figures.append(("native ÷ orjson parse-only", native_rate / parse_rate, "×"))
    return figures
