"""The simulator's defaults: the bot lineup round the table and the planted behaviour of
``big2 simulate`` and ``big2 demo`` (docs/bots.md). The commands read them from here; no
command body holds a lineup or a discipline of its own.

>>> [b.value for b in lineup(3)]
['heuristic', 'greedy', 'random']
>>> DEMO.must_block_discipline, DEMO.colluders
(0.9, (1, 2))
>>> DDZ_HONEST.feeder, DDZ_DEMO.feeder, DDZ_DEMO.feed_rate
(None, 2, 0.8)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.sim.bots import BotName

#: The seats' bots when ``--bots`` is not given, repeated round a table of more than four.
DEFAULT_LINEUP: tuple[BotName, ...] = (
    BotName.HEURISTIC,
    BotName.GREEDY,
    BotName.RANDOM,
    BotName.HEURISTIC,
)
#: ``big2 simulate``: games played, games per match (the same seats).
DEFAULT_GAMES = 1000
DEFAULT_MATCH_GAMES = 8
#: ``big2 demo``: games simulated.
DEMO_GAMES = 2000


@dataclass(frozen=True, kw_only=True)
class Planted:
    """Behaviour planted in a run, with its ground truth in each game's ``truth``: the
    probability a bot honours 頂大 when obliged, and a seat pair (A never blocks B)."""

    must_block_discipline: float = 1.0
    colluders: tuple[int, int] | None = None


#: ``big2 simulate`` without options: every bot blocks when obliged, nobody colludes.
HONEST = Planted()
#: ``big2 demo``: imperfect blocking and a colluder pair, so the audit has something to find.
DEMO = Planted(must_block_discipline=0.9, colluders=(1, 2))


#: ``big2 simulate --feeder SEAT`` without ``--feed-rate``: the share of its chances it feeds.
DEFAULT_FEED_RATE = 0.8


@dataclass(frozen=True, kw_only=True)
class DdzPlanted:
    """Behaviour planted in a Dou Dizhu run, with its ground truth in each game's ``truth``: a
    farmer seat that feeds the landlord (passes though it can beat a landlord on one or two
    cards) with probability ``feed_rate`` per chance (docs/bots.md)."""

    feeder: int | None = None
    feed_rate: float = 0.0


#: ``big2 simulate --ruleset ddz`` without options: nobody feeds the landlord.
DDZ_HONEST = DdzPlanted()
#: A planted run for demos: seat 2 feeds the landlord at 4 chances out of 5.
DDZ_DEMO = DdzPlanted(feeder=2, feed_rate=DEFAULT_FEED_RATE)


def lineup(players: int, bots: Sequence[BotName] | None = None) -> tuple[BotName, ...]:
    """One bot per seat: ``bots`` as given (the simulator checks the count), else
    :data:`DEFAULT_LINEUP` round the table.

    >>> [b.value for b in lineup(6)][4:]
    ['heuristic', 'greedy']
    >>> lineup(4, [BotName.RANDOM])
    (<BotName.RANDOM: 'random'>,)
    """
    if bots:
        return tuple(bots)
    return tuple(DEFAULT_LINEUP[s % len(DEFAULT_LINEUP)] for s in range(players))


#: ``big2 demo``: Dou Dizhu games simulated per preset, next to the Big Two games.
DEMO_DDZ_GAMES: tuple[tuple[str, int], ...] = (("ddz", 60), ("ddz-2p", 30))
#: ``big2 demo``: in the 3-player Dou Dizhu games, the farmer at seat 2 feeds the landlord
#: (passes though it can beat a landlord on one or two cards) at 4 chances out of 5.
DEMO_DDZ_FEEDER: tuple[int, float] = (2, 0.8)
