"""One simulated game: deal, let the bots act, time every action, note deliberate non-blocks.

Split from :mod:`pipeline.sim.simulate` (matches, seeds, workers, files); the native core
(``native/src/sim.rs``) plays the same loop, draw for draw.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pipeline.big2.moves import meets_block
from pipeline.big2.playout import deal
from pipeline.big2.rules import LastCardCall, Ruleset, ThreePlayerMode
from pipeline.big2.state import Action, Block, Claim, Game, claim_holds
from pipeline.sim.bots import Bot, Turn

#: Simulated matches start during 2026 (seconds since the Unix epoch).
BASE_TIMESTAMP = 1_767_225_600.0  # 2026-01-01T00:00:00Z
#: Seconds a bot takes to make its last-card call (``last_card_call = required``; no draw from
#: the random stream, so the rest of the game is the same as without the rule).
CALL_SECONDS = 0.5


class Reason(StrEnum):
    """Why a seat deliberately did not block (``truth.deliberate_non_blocks[].reason``)."""

    DISCIPLINE = "discipline"  # the must_block_discipline draw said no
    COLLUDER = "colluder"  # seat A never blocks its partner B


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

    calls = rs.last_card_call == LastCardCall.REQUIRED

    def act(action: Action, seconds: float) -> None:
        nonlocal clock
        game.do(action)
        clock += seconds
        times.append(round(clock, 1))
        if calls and game.call_due is not None:  # down to one card: the bot calls at once
            game.do(Action.announce(action.seat))
            clock += CALL_SECONDS
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
        best = game.block_card(seat)
        partner = colluders[1] if colluders is not None and colluders[0] == seat else None
        if best is None and partner is None:
            quick = bots[seat].quick(game, rng)
            if quick is not None:
                act(quick[0], _think(bots[seat], quick[1], leading, rng))
                continue
        plays, can_pass = game.legal_moves()
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
