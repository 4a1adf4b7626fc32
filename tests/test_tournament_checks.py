"""Tournament logs that contradict their tournament (spec 1.8, seed 002) are flagged by
``mart_tournament_problems`` with a named code, and the standings mark a tournament that is
incomplete or flagged (``is_complete``, ``n_rounds_played``, ``is_provisional``). The logs are
legal games (``tests.scoring_fixtures.played_game``) written to a JSONL file and loaded through
the real pipeline, next to the consistent fixtures of ``tests/data/scoring/tournaments.jsonl``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse
from tests.scoring_fixtures import played_game

CONSISTENT = Path(__file__).resolve().parent / "data" / "scoring" / "tournaments.jsonl"


def _at(hour: int) -> str:
    return f"2026-11-01T{hour:02d}:00:00+08:00"


class Builder:
    """Writes legal games of made-up tournaments; ``seed`` keeps every deal different."""

    def __init__(self) -> None:
        self.games: list[dict[str, Any]] = []
        self.seed = 5000

    def game(
        self,
        tid: str,
        kind: str,
        rnd: int,
        players: list[str],
        *,
        suffix: str = "",
        started_at: str | None = None,
    ) -> tuple[str, list[str]]:
        """Add one game; return (winner, losers)."""
        self.seed += 1
        meta = {"tournament_id": tid, "tournament_kind": kind, "tournament_round": rnd}
        log, winner, _ = played_game(f"{tid}-r{rnd}{suffix}", self.seed, players, meta)
        if started_at is not None:
            log["started_at"] = started_at
        self.games.append(log)
        return players[winner], [p for i, p in enumerate(players) if i != winner]

    def knockout(self, tid: str, rounds: int, *, skip: int = 0) -> str:
        """A consistent 晉級賽 chain of ``rounds`` rounds (round ``skip`` left out); its last winner."""
        table = [f"{tid}-p{i}" for i in range(4)]
        n = 4
        for rnd in range(1, rounds + 1):
            if rnd == skip:
                continue
            winner, _ = self.game(tid, "knockout", rnd, table)
            table = [winner, *(f"{tid}-p{n + i}" for i in range(3))]
            n += 3
        return table[0]


def contradictions() -> tuple[list[dict[str, Any]], set[tuple[str, str]], dict[str, list[str]]]:
    """Logs of contradicting tournaments, the (game_id, code) they must flag, and the
    players each not-qualified game must name."""
    b = Builder()
    expect: set[tuple[str, str]] = set()
    named: dict[str, list[str]] = {}
    # a round-2 seat who lost round 1
    winner, losers = b.game("ko-q", "knockout", 1, ["q1", "q2", "q3", "q4"])
    b.game("ko-q", "knockout", 2, [winner, losers[0], "q5", "q6"])
    expect.add(("ko-q-r2", "E_TOURNEY_NOT_QUALIFIED"))
    named["ko-q-r2"] = [losers[0]]
    # round 2 started before the round-1 game its winner came from
    winner, _ = b.game("ko-late", "knockout", 1, ["l1", "l2", "l3", "l4"], started_at=_at(21))
    b.game("ko-late", "knockout", 2, [winner, "l5", "l6", "l7"], started_at=_at(20))
    expect.add(("ko-late-r2", "E_TOURNEY_ROUND_ORDER"))
    # a round-1 winner who plays round 3 without round 2
    b.knockout("ko-skip", 3, skip=2)
    expect.add(("ko-skip-r3", "E_TOURNEY_ROUND_ORDER"))
    # a sixth knockout round
    b.knockout("ko-six", 6)
    expect.add(("ko-six-r6", "E_TOURNEY_TOO_MANY_GAMES"))
    pts = ["s1", "s2", "s3", "s4"]
    # a sixth 積分賽 game
    for g in range(1, 7):
        b.game("pts-six", "points", g, pts)
    expect.add(("pts-six-r6", "E_TOURNEY_TOO_MANY_GAMES"))
    # round 3 logged twice (five games)
    for g, suffix in ((1, ""), (2, ""), (3, ""), (3, "b"), (4, "")):
        b.game("pts-dup", "points", g, pts, suffix=suffix)
    expect.add(("pts-dup-r3b", "E_TOURNEY_ROUND_ORDER"))
    # round 2 started before round 1
    b.game("pts-late", "points", 1, pts, started_at=_at(22))
    b.game("pts-late", "points", 2, pts, started_at=_at(21))
    expect.add(("pts-late-r2", "E_TOURNEY_ROUND_ORDER"))
    # a stranger in game 3 of five
    for g in range(1, 6):
        b.game("pts-swap", "points", g, ["s1", "s2", "x9", "s4"] if g == 3 else pts)
    expect.add(("pts-swap-r3", "E_TOURNEY_PLAYERS_CHANGED"))
    # a knockout whose round 2 logs 積分賽, and whose round 3 logs no kind (taken as knockout)
    winner, _ = b.game("ko-kind", "knockout", 1, ["k1", "k2", "k3", "k4"])
    winner, _ = b.game("ko-kind", "points", 2, [winner, "k5", "k6", "k7"])
    b.game("ko-kind", "knockout", 3, [winner, "k8", "k9", "k10"])
    del b.games[-1]["tournament_kind"]
    expect.add(("ko-kind-r2", "E_TOURNEY_KIND_MIXED"))
    # consistent: two round-1 tables, their winners meet two direct entrants in round 2
    w1, _ = b.game("ko-wide", "knockout", 1, ["w1", "w2", "w3", "w4"], suffix="a")
    w2, _ = b.game("ko-wide", "knockout", 1, ["w5", "w6", "w7", "w8"], suffix="b")
    b.game("ko-wide", "knockout", 2, [w1, "w9", w2, "w10"])
    return b.games, expect, named


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[duckdb.DuckDBPyConnection, set[tuple[str, str]], dict[str, list[str]]]]:
    root = tmp_path_factory.mktemp("tourney-checks")
    games, expect, named = contradictions()
    # three imports, later rounds first: the check does not depend on arrival order
    games.reverse()
    half = len(games) // 2
    logs = [root / "late.jsonl", root / "early.jsonl"]
    for path, part in zip(logs, (games[:half], games[half:]), strict=True):
        path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in part), "utf-8")
    wh = Warehouse(root / "wh")
    for path in (*logs, CONSISTENT):
        summary = ingest([str(path)], wh, workers=1)
        assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(wh)
    con = wh.connect()
    yield con, expect, named
    con.close()


Built = tuple[duckdb.DuckDBPyConnection, set[tuple[str, str]], dict[str, list[str]]]


def test_each_contradiction_is_flagged_on_its_game(built: Built) -> None:
    con, expect, _ = built
    rows = con.execute("select game_id, code from mart_tournament_problems").fetchall()
    assert set(rows) == expect
    assert len(rows) == len(expect)


def test_consistent_tournaments_have_no_problem_rows(built: Built) -> None:
    con, _, _ = built
    (n,) = con.execute(
        "select count(*) from mart_tournament_problems "
        "where tournament_id in ('ko-full', 'ko-short', 'pts-1', 'ko-wide')"
    ).fetchone() or (None,)
    assert n == 0


def test_not_qualified_names_the_seat(built: Built) -> None:
    con, _, named = built
    rows = con.execute(
        "select game_id, player_ids, detail from mart_tournament_problems "
        "where code = 'E_TOURNEY_NOT_QUALIFIED'"
    ).fetchall()
    assert {g: p for g, p, _ in rows} == named
    assert all("did not win ko-q-r1 (round 1)" in d for _, _, d in rows)


def test_incomplete_and_flagged_tournaments_are_provisional(built: Built) -> None:
    con, _, _ = built
    rows = con.execute(
        "select distinct tournament_id, n_rounds_played, is_complete, n_problem_games, "
        "is_provisional from mart_tournament_standings"
    ).fetchall()
    got = {t: (r, c, n, p) for t, r, c, n, p in rows}
    assert got["ko-full"] == (5, True, 0, False)
    assert got["pts-1"] == (5, True, 0, False)
    assert got["ko-short"] == (2, False, 0, True)  # stopped after round 2
    assert got["ko-skip"] == (2, False, 1, True)
    assert got["ko-six"] == (6, True, 1, True)  # complete, but a sixth round is flagged
    assert got["pts-late"] == (2, False, 1, True)
    assert got["pts-six"][1:] == (True, 1, True)
    assert got["ko-kind"] == (3, False, 1, True)
    assert got["ko-wide"] == (2, False, 0, True)
    kinds = con.execute(
        "select distinct tournament_kind from mart_tournament_standings "
        "where tournament_id = 'ko-kind'"
    ).fetchall()
    assert kinds == [("knockout",)]  # one kind per tournament: its first game's


def test_sql_invariants_hold(built: Built) -> None:
    con, _, _ = built
    names = [
        "score_tournament_problems_valid",
        "score_tournament_standings_valid",
        "score_tournament_prizes_consistent",
    ]
    assert sqlbuild.run_tests(con, names) == dict.fromkeys(names, 0)
