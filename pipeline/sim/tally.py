"""What a simulated run came to, player by player: the table ``big2 simulate`` prints.

Counted from the ``result`` of the log lines as written (the core's or the Python simulator's,
the same bytes), so the figures are the ones the warehouse holds once the file is imported:
Big Two's wins (``mart_player_standings``) and cards left (``seats``), Dou Dizhu's wins, games
as landlord and scores (``ddz_player_standings``, under the games' own rules). Big Two's money
is left to the warehouse: it depends on the settlement system (``big2 rescore``).

Each line's result is found backwards from the line's end and read by a regular expression,
then summed a run of lines with the same seating at a time (a run's matches seat their players
alike unless the lineup rotates): ~2.5 µs of CPU a Big Two game, where reading each result as
JSON, or one ``findall`` over the whole block, cost ~8 and ~5 µs (the simulator itself takes
~65 µs a game: docs/benchmarks.md, "The simulate table").

>>> tally = RunTally([("p0", "random"), ("p1", "greedy")], dou_dizhu=False)
>>> data = (
...     b'{"seats": [], "result": {"winner": 1, "cards_left": [7, 0]}, "truth": {}}\\n'
...     b'{"seats": [], "result": {"winner": 0, "cards_left": [0, 3]}, "truth": {}}\\n'
... )
>>> tally.add_lines(data, [(0, 1), (1, 0)])
>>> [(p.player_id, p.games, p.wins, p.cards_left) for p in tally.players]
[('p0', 2, 0, 10), ('p1', 2, 2, 0)]
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Where a line's result starts.
RESULT = b'"result": {'
#: A Big Two line's result (the simulator writes exactly these keys): winner, cards left.
BIG2_RESULT = re.compile(rb'"result": \{"winner": (\d+), "cards_left": \[([\d, ]*)\]\}')
#: A Dou Dizhu line's result: outcome, landlord, whether the landlord won, scores.
DDZ_RESULT = re.compile(
    rb'"result": \{"outcome": "(\w+)", "landlord": (\d+|null), [^}]*?'
    rb'"landlord_won": (true|false|null), [^}]*?"scores": \[([-\d, ]*)\]\}'
)


@dataclass(slots=True)
class PlayerTally:
    """One player's games of a run. Big Two: ``wins`` (out first), ``cards_left`` summed.
    Dou Dizhu: ``wins`` (the side that won), as landlord (``landlord_games``, ``landlord_wins``),
    and ``score`` (the lines' ``scores`` summed, in stakes). Void deals are not games."""

    player_id: str
    bot: str
    games: int = 0
    wins: int = 0
    cards_left: int = 0
    landlord_games: int = 0
    landlord_wins: int = 0
    score: int = 0


class RunTally:
    """Every player of a run of Big Two or Dou Dizhu games (``players``: ``(player id,
    bot)``, in the order the run names them), counted block by block; ``voids``: the void
    deals (Dou Dizhu's 荒牌)."""

    def __init__(self, players: Sequence[tuple[str, str]], *, dou_dizhu: bool) -> None:
        self.players = [PlayerTally(p, bot) for p, bot in players]
        self.dou_dizhu = dou_dizhu
        self.voids = 0

    def add_lines(self, data: bytes, seats: Sequence[Sequence[int]]) -> None:
        """The lines of ``data`` (a block as written): ``seats[i]``, the players (indexes into
        :attr:`players`) of line ``i``'s seats; lines in a row with the same seating are
        counted together."""
        found: list[Any] = _results(data, DDZ_RESULT if self.dou_dizhu else BIG2_RESULT)
        if len(found) != len(seats):
            raise ValueError(f"{len(seats)} lines, {len(found)} results read")
        add = self._add_ddz if self.dou_dizhu else self._add_big2
        at = 0
        for table, run in itertools.groupby(seats):
            n = sum(1 for _ in run)
            add(found[at : at + n], [self.players[p] for p in table])
            at += n

    def _add_big2(self, found: list[tuple[bytes, bytes]], seats: list[PlayerTally]) -> None:
        won = Counter(w for w, _ in found)
        left = _ints(b", ".join(c for _, c in found))
        for s, player in enumerate(seats):
            player.games += len(found)
            player.wins += won[str(s).encode()]
            player.cards_left += sum(left[s :: len(seats)])

    def _add_ddz(self, found: list[tuple[bytes, ...]], seats: list[PlayerTally]) -> None:
        played = [f for f in found if f[0] != b"redeal"]
        self.voids += len(found) - len(played)
        scores = _ints(b", ".join(f[3] for f in played))
        for s, player in enumerate(seats):
            mine = str(s).encode()
            landlord = [f[2] == b"true" for f in played if f[1] == mine]
            farmer_wins = sum(f[2] == b"false" for f in played if f[1] != mine)
            player.games += len(played)
            player.landlord_games += len(landlord)
            player.landlord_wins += sum(landlord)
            player.wins += sum(landlord) + farmer_wins
            player.score += sum(scores[s :: len(seats)])

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


def _results(data: bytes, shape: re.Pattern[bytes]) -> list[tuple[bytes, ...]]:
    """The groups of ``shape`` at each line's result. The result is near a line's end: it is
    looked for backwards from there (a search over the whole line took twice as long).

    >>> _results(b'{"result": {"winner": 2, "cards_left": [3, 0, 1]}}\\n', BIG2_RESULT)
    [(b'2', b'3, 0, 1')]
    """
    found: list[tuple[bytes, ...]] = []
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        got = shape.match(data, data.rfind(RESULT, start, end))
        if got is None:
            raise ValueError(f"a simulated line's result unread: {data[start:end][-300:]!r}")
        found.append(got.groups())
        start = end + 1
    return found


def _ints(text: bytes) -> list[int]:
    """``b"1, -2, 3"`` → ``[1, -2, 3]`` (empty: ``[]``)."""
    return list(map(int, text.split(b", "))) if text else []
