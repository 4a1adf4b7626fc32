"""Tournament standings and prizes (spec 1.8, seed 002) through the real pipeline: the fixture
logs ``tests/data/scoring/tournaments.jsonl`` (``tests/scoring_fixtures.tournament_games``) are
ingested and built, and ``mart_tournament_standings`` is checked against the seed's prize
table by hand and against a small Python reference."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

LOG = Path(__file__).resolve().parent / "data" / "scoring" / "tournaments.jsonl"

#: Seed 002's 晉級賽 prize table: KNOCKOUT[round][place - 1].
KNOCKOUT = {
    1: [10_000, 5_000, 0, 0],
    2: [30_000, 15_000, 0, 0],
    3: [100_000, 50_000, 25_000, 0],
    4: [500_000, 250_000, 125_000, 0],
    5: [1_500_000, 750_000, 375_000, 187_500],
}


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    wh = Warehouse(tmp_path_factory.mktemp("tournaments") / "wh")
    summary = ingest([str(LOG)], wh, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(wh)
    return wh.connect()


def standings(con: duckdb.DuckDBPyConnection, tid: str, col: str) -> dict[str, float]:
    rows = con.execute(
        f"select player_id, {col} from mart_tournament_standings where tournament_id = ?", [tid]
    ).fetchall()
    return {p: v for p, v in rows}


def test_knockout_prizes_by_hand(con: duckdb.DuckDBPyConnection) -> None:
    prize = standings(con, "ko-full", "prize")
    assert len(prize) == 16
    assert prize["ka14"] == 1_500_000  # won round 5
    # round 5: ka13 and ka16 both kept 1 card: they share 2nd and 3rd
    assert prize["ka13"] == prize["ka16"] == (750_000 + 375_000) / 2
    assert prize["ka15"] == 187_500
    assert prize["ka01"] == 50_000  # won rounds 1-2, second in round 3
    assert prize["ka02"] == 0 and prize["ka03"] == 5_000
    short = standings(con, "ko-short", "prize")
    assert short["kb07"] == 30_000  # won round 2, the log stops: cashes out round 2's first
    assert short["kb01"] == short["kb02"] == 2_500  # tied 2nd/3rd of round 1
    ranks = standings(con, "ko-full", "standing")
    assert ranks["ka14"] == 1 and ranks["ka13"] == 2 and ranks["ka02"] == 16


def test_knockout_matches_a_python_reference(con: duckdb.DuckDBPyConnection) -> None:
    games = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    last: dict[tuple[str, str], tuple[int, float]] = {}
    for g in games:
        if g["tournament_kind"] != "knockout":
            continue
        left = g["result"]["cards_left"]
        order = sorted(range(len(left)), key=lambda s: (left[s] != 0, left[s]))
        table = KNOCKOUT[g["tournament_round"]]
        for s in range(len(left)):
            tied = [i for i, o in enumerate(order) if left[o] == left[s]]
            value = sum(table[i] for i in tied) / len(tied)
            key = (g["tournament_id"], g["seats"][s]["player_id"])
            if key not in last or last[key][0] < g["tournament_round"]:
                last[key] = (g["tournament_round"], value)
    rows = con.execute(
        "select tournament_id, player_id, prize from mart_tournament_standings "
        "where tournament_kind = 'knockout'"
    ).fetchall()
    assert {(t, p): v for t, p, v in rows} == {k: v for k, (_, v) in last.items()}


def test_points_tournament(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "select player_id, n_games, total_score, standing, prize_share "
        "from mart_tournament_standings where tournament_id = 'pts-1' order by standing"
    ).fetchall()
    totals: dict[str, float] = defaultdict(float)
    for player, score in con.execute(
        "select player_id, score from mart_game_scores where tournament_id = 'pts-1'"
    ).fetchall():
        totals[player] += score
    assert [r[1] for r in rows] == [5, 5, 5, 5]
    assert [r[0] for r in rows] == sorted(totals, key=lambda p: -totals[p])
    assert [r[4] for r in rows] == [0.7, 0.3, 0.0, 0.0]
    assert all(r[2] == totals[r[0]] for r in rows)


def test_points_ties_share_the_pot() -> None:
    """Two players tied first in a 積分賽 each get (70 % + 30 %) / 2 (the mart's SQL over
    hand-typed scores; the fixtures above go through the real pipeline)."""
    mem = duckdb.connect()
    for name, text in sqlbuild.sql_files("seeds").items():
        mem.execute(f"create table {name} as {text}")
    mem.execute(
        """
        create table mart_game_scores as
        select 't' as tournament_id, 'points' as tournament_kind, 1 as tournament_round,
               'g1' as game_id, 1 as game_number, true as is_scored, *
        from (values ('a', 0, 0, true, 10.0), ('b', 1, 1, false, 10.0),
                     ('c', 2, 5, false, -20.0)) as v(player_id, seat, cards_left, is_winner, score)
        """
    )
    mem.execute("create table stg_games as select 'g1' as game_id, null::varchar as started_at")
    marts = sqlbuild.sql_files("marts")
    for name in ("mart_tournament_games", "mart_tournament_problems"):
        mem.execute(f"create table {name} as {marts[name]}")
    mart = marts["mart_tournament_standings"]
    rows = mem.execute(
        f"select player_id, standing, prize_share, is_complete, is_provisional from ({mart}) "
        "order by 1"
    )
    # one game of five: the shares stand, marked provisional
    assert rows.fetchall() == [
        ("a", 1, 0.5, False, True),
        ("b", 1, 0.5, False, True),
        ("c", 3, 0.0, False, True),
    ]


def test_prize_tables_are_consistent(con: duckdb.DuckDBPyConnection) -> None:
    for name in ("score_tournament_prizes_consistent", "score_tournament_standings_valid"):
        assert sqlbuild.run_tests(con, [name]) == {name: 0}
    fees = con.execute(
        "select room, entry_fee, pot from tournament_fees where tournament_kind = 'points' "
        "order by entry_fee"
    ).fetchall()
    assert [(r, f * 4 * 0.9 == p) for r, f, p in fees] == [
        ("初級場", True),
        ("中級場", True),
        ("高級場", True),
    ]
