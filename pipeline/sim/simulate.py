"""Play seeded matches with bots into log objects, with the planted ground truth.

A run of ``games`` games is cut into matches of ``match_games`` games at one table (the
same seats; the previous winner leads when the ruleset says so; ``alternate`` direction
follows the game number). Every game draws from its own generator, seeded from the run's
seed and the game's index, and a match is always played whole by one process: the output
is the same, byte for byte, whatever the number of worker processes.

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
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pipeline.big2.playout import deal
from pipeline.big2.rules import Ruleset, ThreePlayerMode, load_ruleset
from pipeline.big2.state import Action, Block, Claim, Game, claim_holds
from pipeline.logs.writer import GameMeta, LogWriter, Notation, dumps, game_log, seats_of, utc
from pipeline.sim.bots import (
    Bot,
    BotName,
    SimError,
    Turn,
    block_card,
    legal_options,
    make_bot,
    meets_block,
)

#: Simulated matches start during 2026 (seconds since the Unix epoch).
BASE_TIMESTAMP = 1_767_225_600.0  # 2026-01-01T00:00:00Z
YEAR_SECONDS = 365 * 86_400
GENERATOR = "pipeline.sim"


class Reason(StrEnum):
    """Why a seat deliberately did not block (``truth.deliberate_non_blocks[].reason``)."""

    DISCIPLINE = "discipline"  # the must_block_discipline draw said no
    COLLUDER = "colluder"  # seat A never blocks its partner B


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
    id_prefix: str = "sim"

    def __post_init__(self) -> None:
        rs = self.ruleset()
        if self.games < 0:
            raise SimError("E_SIM_OPTION", f"games = {self.games}: must be 0 or more")
        if self.match_games < 1:
            raise SimError("E_SIM_OPTION", f"match_games = {self.match_games}: must be 1 or more")
        if len(self.bots) != rs.players:
            raise SimError(
                "E_SIM_OPTION",
                f"{len(self.bots)} bots ({', '.join(self.bots)}) for {rs.players} players",
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


@dataclass
class PlayedGame:
    """A finished game with what the log needs besides the engine's history."""

    game: Game
    hands: list[int]
    stock: list[int]
    times: list[float]
    non_blocks: list[dict[str, Any]]


def _enabled_claims(rs: Ruleset) -> list[Claim]:
    out = [Claim(r.value) for r in rs.redeal_if]
    if rs.four_twos_instant_win:
        out.insert(0, Claim.FOUR_TWOS)
    if rs.dragon_instant_win:
        out.insert(0, Claim.DRAGON)
    return out


def _think(bot: Bot, options: int, leading: bool, rng: random.Random) -> float:
    """Seconds a bot takes: its median, longer on a lead and with more options, lognormal."""
    if options <= 1:
        return 0.4 + rng.random() * 0.6
    t = bot.think * rng.lognormvariate(0.0, 0.45) * (1.3 if leading else 1.0)
    return t + 0.12 * math.log(options)


def play_game(
    rs: Ruleset,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    game_number: int = 1,
    previous_winner: int | None = None,
    discipline: float = 1.0,
    colluders: tuple[int, int] | None = None,
    clock: float = BASE_TIMESTAMP,
) -> PlayedGame:
    """Deal and play one game to its end; ``clock``: the Unix time the game starts."""
    hands, stock = deal(rs, rng)
    game = Game(
        rs, hands=hands, stock=stock, game_number=game_number, previous_winner=previous_winner
    )
    assert game.hands is not None
    times: list[float] = []
    non_blocks: list[dict[str, Any]] = []

    def act(action: Action, seconds: float) -> None:
        nonlocal clock
        game.do(action)
        clock += seconds
        times.append(round(clock, 1))

    claims = _enabled_claims(rs)
    if claims:
        claimant = game.turn or 0  # the leader first, then round the table in play order
        for _ in range(rs.players):
            held = [c for c in claims if claim_holds(c, game.hands[claimant])]
            choice = bots[claimant].claim(held, rng) if held else None
            if choice is not None:
                act(Action.claim_(claimant, choice), 1.0 + rng.random() * 2)
                break
            claimant = game.next_seat(claimant)
    if (
        not game.finished
        and rs.players == 3
        and rs.three_player_mode == ThreePlayerMode.SWAP_LEFTOVER
        and game.lowest is not None
    ):
        holder = next(s for s in range(rs.players) if game.hands[s] >> game.lowest & 1)
        if bots[holder].swap(game, holder, rng):
            act(Action.swap(holder), 1.0 + rng.random() * 3)
    while not game.finished:
        seat = game.turn
        assert seat is not None
        leading = game.top is None
        best = block_card(game, seat)
        partner = colluders[1] if colluders is not None and colluders[0] == seat else None
        if best is None and partner is None:
            quick = bots[seat].quick(game, rng)
            if quick is not None:
                act(quick[0], _think(bots[seat], quick[1], leading, rng))
                continue
        plays, can_pass = legal_options(game)
        n_options = len(plays) + can_pass
        block: bool | None = None
        reason = Reason.DISCIPLINE
        if best is not None:
            meet = [p for p in plays if meets_block(p, best, leading=leading)]
            miss = [p for p in plays if not meets_block(p, best, leading=leading)]
            nxt = game.next_seat(seat)
            if colluders is not None and colluders == (seat, nxt):
                honour, reason = False, Reason.COLLUDER
            else:
                honour, reason = rng.random() < discipline, Reason.DISCIPLINE
            if not honour and (miss or can_pass):
                plays, block = miss, False
            elif meet:
                plays, can_pass, block = meet, False, True
        action = bots[seat].choose(Turn(game, seat, plays, can_pass, block, partner), rng)
        index = len(game.history)
        act(action, _think(bots[seat], n_options, leading, rng))
        if block is False:
            record = game.history[index]
            assert record.block == Block.VIOLATED, record
            non_blocks.append(
                {
                    "action_index": index,
                    "seat": seat,
                    "next_seat": record.next_seat,
                    "reason": reason.value,
                }
            )
    return PlayedGame(game, hands, stock, times, non_blocks)


def play_match(cfg: SimConfig, match: int) -> list[dict[str, Any]]:
    """The log objects of one whole match (match ``match`` of the run)."""
    rs = cfg.ruleset()
    lineup = cfg.lineup(match)
    bots = [make_bot(name) for _, name in lineup]
    names = [name for _, name in lineup]
    seats = seats_of(
        [f"{cfg.id_prefix}-{cfg.seed}-p{j}-{name}" for j, name in lineup],
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


def match_lines(cfg: SimConfig, match: int) -> list[str]:
    """One whole match as JSON lines (what worker processes send back)."""
    return [dumps(g) for g in play_match(cfg, match)]


def in_match_order(
    cfg: SimConfig, work: Callable[[SimConfig, int], list[Any]], workers: int
) -> Iterator[list[Any]]:
    """``work(cfg, k)`` for every match, in match order, in ``workers`` processes."""
    if workers <= 1 or cfg.n_matches <= 1:
        for k in range(cfg.n_matches):
            yield work(cfg, k)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[list[Any]]] = deque()
        for k in range(cfg.n_matches):
            pending.append(pool.submit(work, cfg, k))
            while len(pending) >= 4 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def simulate(cfg: SimConfig, *, workers: int = 1) -> Iterator[dict[str, Any]]:
    """Every game of the run as a log object, in order."""
    for match in in_match_order(cfg, play_match, workers):
        yield from match


def simulate_lines(cfg: SimConfig, *, workers: int = 1) -> Iterator[list[str]]:
    """The run as JSON lines, one list per match, in order."""
    return in_match_order(cfg, match_lines, workers)


@dataclass(frozen=True)
class SimSummary:
    """What a run wrote."""

    path: Path
    games: int
    matches: int
    seconds: float
    workers: int


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
    with LogWriter(path) as out:
        for lines in simulate_lines(cfg, workers=workers):
            for line in lines:
                out.write_line(line)
            if on_progress is not None:
                on_progress(out.count)
        count = out.count
    return SimSummary(path, count, cfg.n_matches, time.perf_counter() - started, workers)


__all__ = [
    "BotName",
    "PlayedGame",
    "SimConfig",
    "SimSummary",
    "play_game",
    "play_match",
    "simulate",
    "simulate_to_file",
]
