"""Collusion marts (issue 7): the SQL Fisher test against exact arithmetic, and the planted
pair of the simulator's ``colluders`` found first, while an honest table flags nobody.

The 5,000-game runs the issue asks for are in tests/test_collusion_slow.py (``-m slow``)."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from tests.marts_helpers import marts, rows, simulated, sql_test_failures

FLAG = 0.01  # the level at which a pair is flagged (collusion_ranking.verdict = 'strong')


def fisher_greater(a: int, n1: int, k: int, n: int) -> float:
    """P(X >= a), X hypergeometric: ``n1`` draws from ``n`` with ``k`` successes (exact)."""
    total = comb(n, n1)
    hi = min(n1, k)
    return float(Fraction(sum(comb(k, x) * comb(n - k, n1 - x) for x in range(a, hi + 1)), total))


def test_fisher_reference() -> None:
    # the tea-tasting table: 3 of 4 right, margins 4/4 of 8 → 17/70
    assert fisher_greater(3, 4, 4, 8) == pytest.approx(17 / 70)


def planted_pair(logs: list[dict[str, Any]]) -> tuple[str, str]:
    """The colluding (A, B) player ids from the logs' ground truth."""
    pairs = {
        tuple(log["seats"][s] for s in pair) for log in logs for pair in log["truth"]["colluders"]
    }
    assert len(pairs) == 1
    a, b = pairs.pop()
    return a, b


def check_planted(root: Any, games: int, seed: int) -> dict[str, Any]:
    wh, logs = simulated(root, games=games, seed=seed, colluders=True)
    con = marts(wh)
    ranking = rows(con, "select * from collusion_ranking order by rank")
    top = ranking[0]
    assert (top["player_id"], top["partner_id"]) == planted_pair(logs)
    assert top["p_combined"] < FLAG and top["q_value"] < FLAG and top["verdict"] == "strong"
    assert all(r["verdict"] != "strong" for r in ranking[1:]), ranking
    return top


def check_honest(root: Any, games: int, seed: int) -> dict[str, Any]:
    wh, logs = simulated(root, games=games, seed=seed, colluders=False)
    assert not any(log["truth"]["colluders"] for log in logs)
    con = marts(wh)
    ranking = rows(con, "select * from collusion_ranking order by rank")
    assert len(ranking) == 4
    assert all(r["q_value"] >= FLAG and r["verdict"] != "strong" for r in ranking), ranking
    return ranking[0]


def test_planted_pair_ranks_first(tmp_path_factory: pytest.TempPathFactory) -> None:
    check_planted(tmp_path_factory.getbasetemp(), 600, 71)


def test_honest_table_flags_nobody(tmp_path_factory: pytest.TempPathFactory) -> None:
    check_honest(tmp_path_factory.getbasetemp(), 600, 72)


@pytest.mark.parametrize("colluders", [True, False])
def test_sql_p_values_are_exact(tmp_path_factory: pytest.TempPathFactory, colluders: bool) -> None:
    """Every evidence row's p value equals the exact hypergeometric tail of its own table."""
    wh, _ = simulated(
        tmp_path_factory.getbasetemp(), games=600, seed=71 if colluders else 72, colluders=colluders
    )
    con = marts(wh)
    assert sql_test_failures(con, ["collusion_"]) == {}
    evidence = rows(con, "select * from collusion_evidence")
    assert len(evidence) == 12
    for r in evidence:
        n1 = r["n_cell_opportunities"]
        n = n1 + r["n_base_opportunities"]
        k = r["n_cell_actions"] + r["n_base_actions"]
        want = fisher_greater(r["n_cell_actions"], n1, k, n)
        assert r["p_value"] == pytest.approx(want, rel=1e-6, abs=1e-12), r
