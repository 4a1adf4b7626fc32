"""``big2 simulate --ruleset ddz``: seeded Dou Dizhu matches written as JSON Lines logs.

A run of ``games`` games is cut into matches of ``match_games`` games at one table (the same
seats and players). Game ``index`` is :func:`pipeline.sim.ddz_play.play_game` (its own generator,
``ddz:{seed}:{index}``): its void deals (荒牌, outcome ``redeal``), then the deal played out.
Every deal is one log line (docs/log-format.md, "Dou Dizhu") with its own ``game_id``
(``<prefix>-<seed>-<index>-d<deal>``, the prefix :data:`ID_PREFIX` by default, so the match
and player ids of a Big Two run of the same seed are not this run's) and ``game_number`` (the deal's place in the match), the
full deal, the auction and the plays, the declared result, timestamps (think time from a
generator of their own, so they never change the play) and the ground truth in ``truth``: the
bots per seat, the planted feeding farmer (``feeder``, ``feed_rate``, every
``feed_opportunities`` entry) and ``seed`` / ``game_index`` / ``deal_number``.

A match is always played whole by one worker and the matches are written in order: the file is
the same, byte for byte, whatever the number of workers.

>>> cfg = DdzSimConfig(games=2, seed=7, bots=("heuristic", "greedy", "random"))
>>> lines = [line for match in simulate_lines(cfg) for line in match]
>>> lines[0]["game_kind"], lines[0]["truth"]["bots"], lines[-1]["result"]["outcome"]
('doudizhu', ['heuristic', 'greedy', 'random'], 'played_out')
>>> DdzSimConfig(games=1, seed=1, bots=("random",) * 3, preset="ddz-2p")
Traceback (most recent call last):
...
pipeline.sim.bots.SimError: E_SIM_OPTION: 3 bots (random, random, random) for ddz-2p's 2 players: give --bots once per seat
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from pipeline import native
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset
from pipeline.logs.writer import LogWriter, dumps, seats_of, utc
from pipeline.sim.bots import SimError
from pipeline.sim.ddz_bots import make_ddz_bot
from pipeline.sim.ddz_play import GENERATOR, log_line, play_game
from pipeline.sim.play import BASE_TIMESTAMP
from pipeline.sim.simulate import blocks_in_order, in_match_order
from pipeline.sim.tally import RunTally
from pipeline.wording import plural

YEAR_SECONDS = 365 * 86_400
#: What a run's ids start with unless told (``--id-prefix``): not Big Two's ``sim``, so a Big Two
#: run and a Dou Dizhu run of one seed never share a match, table or player id.
ID_PREFIX = "sim-ddz"


@dataclass(frozen=True, kw_only=True)
class DdzSimConfig:
    """One Dou Dizhu simulation run, validated where it is built."""

    games: int
    seed: int
    bots: tuple[str, ...]
    preset: str = "ddz"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    feeder: int | None = None
    feed_rate: float = 0.0
    match_games: int = 8
    id_prefix: str = ID_PREFIX

    def __post_init__(self) -> None:
        rs = self.ruleset()
        if self.games < 0:
            raise SimError("E_SIM_OPTION", f"games = {self.games}: must be 0 or more")
        if self.match_games < 1:
            raise SimError("E_SIM_OPTION", f"match_games = {self.match_games}: must be 1 or more")
        if len(self.bots) != rs.players:
            raise SimError(
                "E_SIM_OPTION",
                f"{plural(len(self.bots), 'bot')} "
                f"({', '.join(self.bots)}) for {rs.name}'s {rs.players} players: "
                "give --bots once per seat",
            )
        for name in self.bots:
            make_ddz_bot(name)
        if not 0.0 <= self.feed_rate <= 1.0:
            raise SimError("E_SIM_OPTION", f"feed_rate = {self.feed_rate}: must be in [0, 1]")
        if self.feeder is not None and not 0 <= self.feeder < rs.players:
            raise SimError("E_SIM_OPTION", f"feeder {self.feeder}: a seat of 0..{rs.players - 1}")

    def ruleset(self) -> DdzRuleset:
        return load_ruleset(self.preset, dict(self.overrides))

    @property
    def n_matches(self) -> int:
        return math.ceil(self.games / self.match_games)


def _think(rng: random.Random, options: int) -> float:
    """Seconds a seat takes over an action with ``options`` choices (lognormal, longer with more)."""
    return round((0.8 + 0.25 * math.log1p(options)) * rng.lognormvariate(0.0, 0.45), 2)


def play_match(cfg: DdzSimConfig, match: int) -> list[dict[str, Any]]:
    """The log lines (as objects) of one whole match: every deal of its games, in order."""
    rs = cfg.ruleset()
    bots = list(cfg.bots)
    ids = _player_ids(cfg)
    seats = _seats(cfg)
    mrng = random.Random(f"ddz:{cfg.seed}:match:{match}")
    clock = BASE_TIMESTAMP + round(mrng.random() * YEAR_SECONDS)
    match_id = f"{cfg.id_prefix}-{cfg.seed}-m{match:06d}"
    table_id = f"{cfg.id_prefix}-{cfg.seed}-t{match % 1000:03d}"
    first = match * cfg.match_games
    number = 0
    out: list[dict[str, Any]] = []
    for index in range(first, min(first + cfg.match_games, cfg.games)):
        deals = play_game(
            rs, bots, seed=cfg.seed, index=index, feeder=cfg.feeder, feed_rate=cfg.feed_rate
        )
        times = random.Random(f"ddz:{cfg.seed}:times:{index}")
        for record in deals:
            number += 1
            line = log_line(
                record,
                game_id=f"{cfg.id_prefix}-{cfg.seed}-{index:08d}-d{record['deal_number']}",
                player_ids=ids,
            )
            line["seats"] = [dict(s) for s in seats]
            started = clock
            for action in line["actions"]:
                clock += _think(times, 1 if action["action"] == "pass" else 4)
                action["ts"] = round(clock, 2)
            line.update(
                match_id=match_id,
                game_number=number,
                table_id=table_id,
                started_at=utc(started).isoformat(),
            )
            line["truth"] = {
                "generator": GENERATOR,
                "seed": cfg.seed,
                "game_index": index,
                "deal_number": record["deal_number"],
                **{k: v for k, v in record["truth"].items() if k != "generator"},
            }
            out.append(line)
            clock += 15 + round(times.random() * 30)
    return out


def _player_ids(cfg: DdzSimConfig) -> list[str]:
    """The players' ids of the run's lines, seat by seat (the same table in every match)."""
    return [f"{cfg.id_prefix}-{cfg.seed}-p{s}-{name}" for s, name in enumerate(cfg.bots)]


def _seats(cfg: DdzSimConfig) -> list[dict[str, Any]]:
    """The ``seats`` list of the run's lines."""
    return seats_of(_player_ids(cfg), [f"{name} {s}" for s, name in enumerate(cfg.bots)])


def native_simulator(
    cfg: DdzSimConfig, module: ModuleType | None = None
) -> native.NativeSimulator | None:
    """The run's simulator on the core (:func:`pipeline.native.ddz_simulator`; ``module``:
    the extension, by default this process's path), or None when the core does not take the
    run."""
    return native.ddz_simulator(
        preset=cfg.preset,
        overrides=dict(cfg.overrides),
        seed=cfg.seed,
        games=cfg.games,
        match_games=cfg.match_games,
        feeder=cfg.feeder,
        feed_rate=cfg.feed_rate,
        id_prefix=cfg.id_prefix,
        generator=GENERATOR,
        module=module,
    )


def match_lines_native(
    cfg: DdzSimConfig, match: int, module: ModuleType | None = None
) -> list[str] | None:
    """The match played on the native core (:func:`native_simulator`), or None when the core
    does not play it (then :func:`match_lines_python` does, with the same bytes)."""
    sim = native_simulator(cfg, module)
    if sim is None:
        return None
    return sim.match_lines(match, list(cfg.bots), _seats(cfg))


def match_lines_python(cfg: DdzSimConfig, match: int) -> list[str]:
    """One whole match as JSON lines, played by the Python simulator (the reference)."""
    return [dumps(line) for line in play_match(cfg, match)]


def match_lines(cfg: DdzSimConfig, match: int) -> list[str]:
    """One whole match as JSON lines (what the workers hand back): on the native core
    when it is built and plays the match, else in Python; the same bytes either way.

    >>> cfg = DdzSimConfig(games=3, seed=5, bots=("random", "greedy"), preset="ddz-2p")
    >>> match_lines(cfg, 0) == match_lines_python(cfg, 0)
    True
    """
    lines = match_lines_native(cfg, match)
    return match_lines_python(cfg, match) if lines is None else lines


def match_objects(cfg: DdzSimConfig, match: int) -> list[dict[str, Any]]:
    """One whole match's log lines as objects: :func:`match_lines` read back (on the core when
    it plays the match), equal to :func:`play_match`'s."""
    return [orjson.loads(line) for line in match_lines(cfg, match)]


def simulate_lines(cfg: DdzSimConfig, *, workers: int = 1) -> Iterator[list[dict[str, Any]]]:
    """The run's log lines as objects, one list per match, in order."""
    return in_match_order(cfg, match_objects, workers)


@dataclass(frozen=True)
class DdzSimSummary:
    """What a run wrote: ``games`` games in ``lines`` log lines (void deals are lines too)."""

    path: Path
    games: int
    lines: int
    matches: int
    seconds: float
    workers: int
    tally: RunTally


def simulate_to_file(
    cfg: DdzSimConfig,
    path: Path,
    *,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> DdzSimSummary:
    """Stream the run into ``path`` (``.jsonl`` or ``.jsonl.gz``); ``on_progress(games so far)``."""
    if not (path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz")):
        raise SimError("E_SIM_OPTION", f"output {path}: expected a .jsonl or .jsonl.gz file")
    workers = max(1, workers)
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    games = 0
    threads = native_simulator(cfg) is not None
    tally = RunTally(list(zip(_player_ids(cfg), cfg.bots, strict=True)), dou_dizhu=True)
    table = list(range(len(cfg.bots)))  # the same seats in every match
    with LogWriter(path) as out:
        for block in blocks_in_order(cfg, match_lines, workers, threads=threads):
            out.write_block(block.data, block.lines)
            tally.add_lines(block.data, [table] * block.lines)
            games = min(cfg.games, block.last * cfg.match_games)
            if on_progress is not None:
                on_progress(games)
        count = out.count
    seconds = time.perf_counter() - started
    return DdzSimSummary(path, games, count, cfg.n_matches, seconds, workers, tally)
