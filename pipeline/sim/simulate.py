"""Play seeded matches with bots into log objects, with the planted ground truth.

A run of ``games`` games is cut into matches of ``match_games`` games at one table (the
same seats; the previous winner leads when the ruleset says so; ``alternate`` direction
follows the game number). Every game draws from its own generator, seeded from the run's
seed and the game's index, and a match is always played whole by one worker: the output
is the same, byte for byte, whatever the number of workers.

Each log holds the full deal, timestamps modelling think time, and a ``truth`` object the
analytics must not read: the bots per seat, ``must_block_discipline``, the colluders and
every deliberate non-block (action index, seat, reason).

>>> cfg = SimConfig(games=3, seed=7, bots=("heuristic", "greedy", "random", "heuristic"))
>>> games = list(simulate(cfg))
>>> [g["game_number"] for g in games], games[1]["previous_winner"] == games[0]["result"]["winner"]
([1, 2, 3], True)
>>> games[0]["truth"]["bots"]
['heuristic', 'greedy', 'random', 'heuristic']
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar

from pipeline import native
from pipeline.big2.logwriter import GameMeta, Notation, game_log
from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.logs.writer import LogWriter, dumps, seats_of, utc
from pipeline.sim.bots import (
    BotName,
    SimError,
    make_bot,
)
from pipeline.sim.play import BASE_TIMESTAMP, PlayedGame, Reason, play_game
from pipeline.sim.tally import RunTally
from pipeline.wording import plural
from pipeline.workers import in_order
from pipeline.workers import pool as worker_pool

YEAR_SECONDS = 365 * 86_400
GENERATOR = "pipeline.sim"
#: What a run's ids start with unless told (``--id-prefix``; Dou Dizhu's differs).
ID_PREFIX = "sim"


@dataclass(frozen=True, kw_only=True)
class SimConfig:
    """One simulation run, validated where it is built."""

    games: int
    seed: int
    bots: tuple[str, ...]
    preset: str = "hk"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    must_block_discipline: float = 1.0
    colluders: tuple[int, int] | None = None
    match_games: int = 8
    rotate_seats: bool = False  # match k seats the lineup rotated by k (strength ladders)
    notation: Notation = Notation.COMPACT
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
            make_bot(name)
        if not 0.0 <= self.must_block_discipline <= 1.0:
            raise SimError(
                "E_SIM_OPTION",
                f"must_block_discipline = {self.must_block_discipline}: must be in [0, 1]",
            )
        if self.colluders is not None:
            a, b = self.colluders
            if a == b or not (0 <= a < rs.players and 0 <= b < rs.players):
                raise SimError(
                    "E_SIM_OPTION",
                    f"colluders {a},{b}: two different seats of 0..{rs.players - 1}",
                )

    def ruleset(self) -> Ruleset:
        return load_ruleset(self.preset, dict(self.overrides))

    @property
    def n_matches(self) -> int:
        return math.ceil(self.games / self.match_games)

    def lineup(self, match: int) -> list[tuple[int, str]]:
        """(player index in ``bots``, bot name) per seat for a match."""
        n = len(self.bots)
        shift = match % n if self.rotate_seats else 0
        return [((s - shift) % n, self.bots[(s - shift) % n]) for s in range(n)]

    def player_id(self, j: int) -> str:
        """The id of player ``j`` (the player of ``bots[j]``) in the run's lines."""
        return f"{self.id_prefix}-{self.seed}-p{j}-{self.bots[j]}"

    def seats_of_lines(self, first: int, last: int) -> list[list[int]]:
        """Each line of matches ``first`` to ``last`` (excluded): its players seat by seat
        (indexes into ``bots``).

        >>> cfg = SimConfig(games=3, seed=1, bots=("random",) * 4, match_games=2, rotate_seats=True)
        >>> cfg.seats_of_lines(0, 2)
        [[0, 1, 2, 3], [0, 1, 2, 3], [3, 0, 1, 2]]
        """
        out: list[list[int]] = []
        for k in range(first, last):
            seats = [j for j, _ in self.lineup(k)]
            out.extend(
                seats for _ in range(min(self.match_games, self.games - k * self.match_games))
            )
        return out


def play_match(cfg: SimConfig, match: int) -> list[dict[str, Any]]:
    """The log objects of one whole match (match ``match`` of the run)."""
    rs = cfg.ruleset()
    lineup = cfg.lineup(match)
    bots = [make_bot(name) for _, name in lineup]
    names = [name for _, name in lineup]
    seats = seats_of(
        [cfg.player_id(j) for j, _ in lineup],
        [f"{name} {j}" for j, name in lineup],
    )
    mrng = random.Random(f"{cfg.seed}:match:{match}")
    clock = BASE_TIMESTAMP + round(mrng.random() * YEAR_SECONDS)
    match_id = f"{cfg.id_prefix}-{cfg.seed}-m{match:06d}"
    first = match * cfg.match_games
    previous: int | None = None
    out: list[dict[str, Any]] = []
    for number, index in enumerate(range(first, min(first + cfg.match_games, cfg.games)), 1):
        rng = random.Random(f"{cfg.seed}:{index}")
        played = play_game(
            rs,
            bots,
            rng,
            game_number=number,
            previous_winner=previous,
            discipline=cfg.must_block_discipline,
            colluders=cfg.colluders,
            clock=clock,
        )
        result = played.game.result
        assert result is not None
        meta = GameMeta(
            game_id=f"{cfg.id_prefix}-{cfg.seed}-{index:08d}",
            preset=cfg.preset,
            overrides=cfg.overrides,
            seats=seats,
            match_id=match_id,
            game_number=number,
            table_id=f"{cfg.id_prefix}-{cfg.seed}-t{match % 1000:03d}",
            started_at=utc(clock),
            previous_winner=previous,
        )
        truth = {
            "generator": GENERATOR,
            "seed": cfg.seed,
            "game_index": index,
            "bots": names,
            "must_block_discipline": cfg.must_block_discipline,
            "colluders": [] if cfg.colluders is None else [list(cfg.colluders)],
            "deliberate_non_blocks": played.non_blocks,
        }
        out.append(
            game_log(
                played.game,
                meta=meta,
                hands=played.hands,
                stock=played.stock,
                times=played.times,
                notation=cfg.notation,
                truth=truth,
            )
        )
        if result.winner is not None:
            previous = result.winner
        clock = (played.times[-1] if played.times else clock) + 20 + round(rng.random() * 40)
    return out


def native_simulator(
    cfg: SimConfig, module: ModuleType | None = None
) -> native.NativeSimulator | None:
    """The run's simulator on the core (:func:`pipeline.native.simulator`; ``module``: the
    extension, by default this process's path), or None when the core does not take the run."""
    return native.simulator(
        preset=cfg.preset,
        overrides=dict(cfg.overrides),
        seed=cfg.seed,
        games=cfg.games,
        match_games=cfg.match_games,
        discipline=cfg.must_block_discipline,
        colluders=cfg.colluders,
        notation=cfg.notation.value,
        id_prefix=cfg.id_prefix,
        module=module,
    )


def match_lines_native(
    cfg: SimConfig, match: int, module: ModuleType | None = None
) -> list[str] | None:
    """The match played on the native core (:func:`native_simulator`), or None when the core
    does not play it."""
    sim = native_simulator(cfg, module)
    if sim is None:
        return None
    lineup = cfg.lineup(match)
    seats = seats_of(
        [cfg.player_id(j) for j, _ in lineup],
        [f"{name} {j}" for j, name in lineup],
    )
    return sim.match_lines(match, [name for _, name in lineup], seats)


def match_lines_python(cfg: SimConfig, match: int) -> list[str]:
    """One whole match as JSON lines, played by the Python simulator (the reference)."""
    return [dumps(g) for g in play_match(cfg, match)]


def match_lines(cfg: SimConfig, match: int) -> list[str]:
    """One whole match as JSON lines (what the workers hand back): on the native core
    when it is built and takes the run, else in Python; the same bytes either way."""
    lines = match_lines_native(cfg, match)
    return match_lines_python(cfg, match) if lines is None else lines


class _Matches(Protocol):
    @property
    def n_matches(self) -> int: ...


C = TypeVar("C", bound=_Matches)

#: Matches in one task of a run on several workers, at most (~130 games: a few milliseconds of
#: the core's play), so that handing a task over and its lines back costs little beside it;
#: fewer in a short run, which still gives each worker four tasks.
SPAN = 16


def in_match_order(
    cfg: C, work: Callable[[C, int], list[Any]], workers: int
) -> Iterator[list[Any]]:
    """``work(cfg, k)`` for every match of a run of either game (``cfg.n_matches``), in match
    order, in ``workers`` processes."""
    if workers <= 1 or cfg.n_matches <= 1:
        for k in range(cfg.n_matches):
            yield work(cfg, k)
        return
    with worker_pool(workers, preload=["pipeline.sim.simulate"]) as pool:
        yield from in_order(pool, ((work, (cfg, k)) for k in range(cfg.n_matches)), 4 * workers)


@dataclass(frozen=True, slots=True)
class Block:
    """Matches ``first`` to ``last`` (excluded) of a run: ``lines`` log lines as UTF-8 bytes,
    each ended by a newline (what :meth:`LogWriter.write_block` writes)."""

    first: int
    last: int
    data: bytes
    lines: int


def match_block(cfg: C, lines_of: Callable[[C, int], list[str]], first: int, last: int) -> Block:
    """Matches ``first`` to ``last`` (excluded) of a run, their lines from ``lines_of(cfg, k)``.

    >>> cfg = SimConfig(games=3, seed=7, bots=("random",) * 4, match_games=2)
    >>> b = match_block(cfg, match_lines, 0, 2)
    >>> b.lines, b.data.count(b"\\n"), b.data.decode().splitlines() == match_lines(cfg, 0) + match_lines(cfg, 1)
    (3, 3, True)
    """
    lines = [line for k in range(first, last) for line in lines_of(cfg, k)]
    lines.append("")  # the last line's newline
    return Block(first, last, "\n".join(lines).encode(), len(lines) - 1)


def blocks_in_order(
    cfg: C, lines_of: Callable[[C, int], list[str]], workers: int, *, threads: bool
) -> Iterator[Block]:
    """A run's lines in blocks of up to :data:`SPAN` matches, in match order: in this thread (one
    worker), else in ``workers`` threads when ``threads`` (the core plays a match with the GIL
    let go: threads then play side by side, with nothing pickled or piped back), else in
    ``workers`` processes (the Python simulator holds the GIL)."""
    n = cfg.n_matches
    span = max(1, min(SPAN, n // (4 * workers)))
    spans = [(a, min(a + span, n)) for a in range(0, n, span)]
    if workers <= 1 or len(spans) <= 1:
        for first, last in spans:
            yield match_block(cfg, lines_of, first, last)
        return
    executor: Executor = (
        ThreadPoolExecutor(workers, thread_name_prefix="big2-sim")
        if threads
        else worker_pool(workers, preload=["pipeline.sim.simulate"])
    )
    with executor as pool:
        tasks = ((match_block, (cfg, lines_of, a, b)) for a, b in spans)
        yield from in_order(pool, tasks, 4 * workers)


def run_blocks(cfg: SimConfig, workers: int) -> Iterator[Block]:
    """The run's lines in blocks (:func:`blocks_in_order`), on worker threads when the core
    takes the run, else in processes: what ``big2 simulate`` writes."""
    threads = native_simulator(cfg) is not None
    return blocks_in_order(cfg, match_lines, workers, threads=threads)


def simulate(cfg: SimConfig, *, workers: int = 1) -> Iterator[dict[str, Any]]:
    """Every game of the run as a log object, in order."""
    for match in in_match_order(cfg, play_match, workers):
        yield from match


@dataclass(frozen=True)
class SimSummary:
    """What a run wrote."""

    path: Path
    games: int
    matches: int
    seconds: float
    workers: int
    tally: RunTally


def default_workers() -> int:
    return os.cpu_count() or 1


def simulate_to_file(
    cfg: SimConfig,
    path: Path,
    *,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> SimSummary:
    """Stream the run into ``path`` (``.jsonl`` or ``.jsonl.gz``); ``on_progress(games so far)``."""
    if not (path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz")):
        raise SimError("E_SIM_OPTION", f"output {path}: expected a .jsonl or .jsonl.gz file")
    workers = default_workers() if workers is None else max(1, workers)
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    tally = RunTally([(cfg.player_id(j), b) for j, b in enumerate(cfg.bots)], dou_dizhu=False)
    with LogWriter(path) as out:
        for block in run_blocks(cfg, workers):
            out.write_block(block.data, block.lines)
            tally.add_lines(block.data, cfg.seats_of_lines(block.first, block.last))
            if on_progress is not None:
                on_progress(out.count)
        count = out.count
    seconds = time.perf_counter() - started
    return SimSummary(path, count, cfg.n_matches, seconds, workers, tally)


__all__ = [
    "BASE_TIMESTAMP",
    "BotName",
    "PlayedGame",
    "Reason",
    "SimConfig",
    "SimSummary",
    "match_lines",
    "match_lines_native",
    "match_lines_python",
    "play_game",
    "play_match",
    "simulate",
    "simulate_to_file",
]
