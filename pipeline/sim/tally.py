"""What a simulated run came to, player by player: the table ``big2 simulate`` prints.

Counted from the ``result`` of the log lines as written (the core's or the Python simulator's,
the same bytes), so the figures are the ones the warehouse holds once the file is imported:
Big Two's wins (``mart_player_standings``) and cards left (``seats``), Dou Dizhu's wins, games
as landlord and scores (``ddz_player_standings``, under the games' own rules). Big Two's money
is left to the warehouse: it depends on the settlement system (``big2 rescore``).

A block's results are read as numbers (:func:`read_results`) on the native core, with the GIL
let go (~0.6 µs a Big Two line, its quick build), else by :func:`python_results` (the
reference: the same numbers, a test holds them equal), then summed a run of lines with the
same seating at a time (a run's matches seat their players alike unless the lineup rotates).
Read in Python with the GIL held (~2.5 µs a Big Two game), the reading slowed the worker
threads' play: ``big2 simulate`` spent 1.08× the CPU; on the core 1.02× (docs/benchmarks.md,
"The simulate table").

>>> tally = RunTally([("p0", "random"), ("p1", "greedy")], dou_dizhu=False)
>>> data = (
...     b'{"seats": [], "result": {"winner": 1, "cards_left": [7, 0]}, "truth": {}}\\n'
...     b'{"seats": [], "result": {"winner": 0, "cards_left": [0, 3]}, "truth": {}}\\n'
...     b'{"seats": [], "result": {"winner": null, "cards_left": [13, 13]}, "truth": {}}\\n'
... )
>>> tally.add_lines(data, [(0, 1), (1, 0), (1, 0)])
>>> [(p.player_id, p.games, p.wins, p.cards_left) for p in tally.players], tally.voids
([('p0', 2, 0, 10), ('p1', 2, 2, 0)], 1)
"""

from __future__ import annotations

import array
import itertools
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline import native

#: Where a line's result starts.
RESULT = b'"result": {'
#: A Big Two line's result (the simulator writes exactly these keys): the winner (null: a
#: redeal), cards left.
BIG2_RESULT = re.compile(rb'"result": \{"winner": (\d+|null), "cards_left": \[([\d, ]*)\]\}')
#: A Dou Dizhu line's result: outcome, landlord, whether the landlord won, scores (floats
#: under a stake such as 2.5).
DDZ_RESULT = re.compile(
    rb'"result": \{"outcome": "(\w+)", "landlord": (\d+|null), [^}]*?'
    rb'"landlord_won": (true|false|null), [^}]*?"scores": \[([-+\d.eE, ]*)\]\}'
)
_WON = {b"true": 1.0, b"false": 0.0, b"null": -1.0}


@dataclass(slots=True)
class PlayerTally:
    """One player's games of a run. Big Two: ``wins`` (out first), ``cards_left`` summed.
    Dou Dizhu: ``wins`` (the side that won), as landlord (``landlord_games``, ``landlord_wins``),
    and ``score`` (the lines' ``scores`` summed, in stakes). Redeals and void deals are not
    games."""

    player_id: str
    bot: str
    games: int = 0
    wins: int = 0
    cards_left: int = 0
    landlord_games: int = 0
    landlord_wins: int = 0
    score: float = 0


class RunTally:
    """Every player of a run of Big Two or Dou Dizhu games (``players``: ``(player id,
    bot)``, in the order the run names them), counted block by block; ``voids``: the redeals
    (Big Two) or void deals (Dou Dizhu's 荒牌)."""

    def __init__(self, players: Sequence[tuple[str, str]], *, dou_dizhu: bool) -> None:
        self.players = [PlayerTally(p, bot) for p, bot in players]
        self.dou_dizhu = dou_dizhu
        self.voids = 0

    def add_lines(self, data: bytes, seats: Sequence[Sequence[int]]) -> None:
        """The lines of ``data`` (a block as written): ``seats[i]``, the players (indexes into
        :attr:`players`) of line ``i``'s seats; lines in a row with the same seating are
        counted together."""
        n = len(seats[0]) if seats else 0
        numbers = read_results(data, n, dou_dizhu=self.dou_dizhu)
        stride = n + (3 if self.dou_dizhu else 1)
        if len(numbers) != stride * len(seats):
            raise ValueError(f"{len(seats)} lines, {len(numbers) // stride} results read")
        add = self._add_ddz if self.dou_dizhu else self._add_big2
        at = 0
        for table, run in itertools.groupby(seats):
            lines = sum(1 for _ in run)
            add(numbers[at * stride : (at + lines) * stride], [self.players[p] for p in table])
            at += lines

    def _add_big2(self, numbers: Sequence[float], seats: list[PlayerTally]) -> None:
        stride = len(seats) + 1
        winners = list(numbers[::stride])
        redeals = winners.count(-1)
        self.voids += redeals
        for s, player in enumerate(seats):
            left = numbers[s + 1 :: stride]
            if redeals:  # a redeal's hands are no game's
                left = [c for w, c in zip(winners, left, strict=True) if w >= 0]
            player.games += len(winners) - redeals
            player.wins += winners.count(s)
            player.cards_left += int(sum(left))

    def _add_ddz(self, numbers: Sequence[float], seats: list[PlayerTally]) -> None:
        stride = len(seats) + 3
        played = list(numbers[::stride])
        self.voids += played.count(0)
        # (landlord, landlord won) of each line
        sides = Counter(zip(numbers[1::stride], numbers[2::stride], strict=True))
        for s, player in enumerate(seats):
            as_landlord = sides[(s, 1)] + sides[(s, 0)]
            as_farmer_won = sum(
                n for (landlord, won), n in sides.items() if won == 0 and landlord != s
            )
            player.games += played.count(1)
            player.landlord_games += as_landlord
            player.landlord_wins += sides[(s, 1)]
            player.wins += sides[(s, 1)] + as_farmer_won
            player.score += sum(numbers[s + 3 :: stride])

    def rows(self) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The printed table: headers and a row a player, Big Two's or Dou Dizhu's columns
        (the bot ends each player's id, so it has no column).

        >>> t = RunTally([("p0", "random"), ("p1", "random")], dou_dizhu=False)
        >>> t.add_lines(b'{"result": {"winner": 0, "cards_left": [0, 5]}}\\n', [(0, 1)])
        >>> t.rows()
        (['player', 'games', 'wins', 'win %', 'cards left a game'], [('p0', 1, 1, 100.0, 0.0), ('p1', 1, 0, 0.0, 5.0)])
        """
        if self.dou_dizhu:
            headers = ["player", "games", "wins", "win %", "landlord games"]
            headers += ["landlord win %", "farmer win %", "score"]
        else:
            headers = ["player", "games", "wins", "win %", "cards left a game"]
        rows: list[tuple[Any, ...]] = []
        for p in self.players:
            row: tuple[Any, ...] = (p.player_id, p.games, p.wins, _pct(p.wins, p.games))
            if self.dou_dizhu:
                farmer = p.games - p.landlord_games
                farmer_wins = p.wins - p.landlord_wins
                row += (p.landlord_games, _pct(p.landlord_wins, p.landlord_games))
                row += (_pct(farmer_wins, farmer), p.score)
            else:
                row += (round(p.cards_left / p.games, 2) if p.games else None,)
            rows.append(row)
        return headers, rows


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def read_results(data: bytes, players: int, *, dou_dizhu: bool) -> Sequence[float]:
    """Each line's result in ``data`` as numbers, one line's after another: Big Two
    ``[winner (−1: none, a redeal), cards left × players]``, Dou Dizhu ``[played out (1) or
    void (0), landlord (−1: none), landlord won (1, 0; −1: none), scores × players]``. On the
    native core when it is built (``sim_results``, the GIL let go), else
    :func:`python_results`.

    >>> list(read_results(b'{"result": {"winner": 2, "cards_left": [3, 0, 1]}}\\n', 3, dou_dizhu=False))
    [2.0, 3.0, 0.0, 1.0]
    """
    words = native.sim_results(data, players, dou_dizhu)
    if words is None:
        return python_results(data, dou_dizhu=dou_dizhu)
    numbers = array.array("d", words)
    if sys.byteorder == "big":  # the core writes little-endian floats
        numbers.byteswap()
    return numbers


def python_results(data: bytes, *, dou_dizhu: bool) -> list[float]:
    """:func:`read_results` in Python, the reference: each line's result found backwards from
    the line's end (a search over the whole line took twice as long) and read by a regular
    expression.

    >>> python_results(b'{"result": {"outcome": "redeal", "landlord": null, "landlord_won": null, '
    ...                b'"scores": [0, 0]}}\\n', dou_dizhu=True)
    [0.0, -1.0, -1.0, 0.0, 0.0]
    """
    shape = DDZ_RESULT if dou_dizhu else BIG2_RESULT
    out: list[float] = []
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        got = shape.match(data, data.rfind(RESULT, start, end))
        if got is None:
            raise ValueError(f"a simulated line's result unread: {data[start:end][-300:]!r}")
        if dou_dizhu:
            outcome, landlord, won, scores = got.groups()
            out.append(float(outcome != b"redeal"))
            out.append(-1.0 if landlord == b"null" else float(landlord))
            out.append(_WON[won])
        else:
            winner, scores = got.groups()
            out.append(-1.0 if winner == b"null" else float(winner))
        out.extend(map(float, scores.split(b", ")) if scores else ())
        start = end + 1
    return out
