"""頂大 audit marts (issue 7): the hand-built golden game in three versions, checked by hand,
and the invariants of sql/tests/audit_*.sql on golden and simulated data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.sim.sample import to_partial
from tests.marts_helpers import (
    MY_PREFIXES,
    ROOT,
    golden_game,
    marts,
    rows,
    simulated,
    sql_test_failures,
    warehouse_of,
)


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    game = golden_game()
    wh = warehouse_of(
        tmp_path_factory.mktemp("golden-audit"),
        [game, golden_game("golden-mainland", "mainland"), to_partial(game)],
    )
    return marts(wh)


def _audit(con: duckdb.DuckDBPyConnection, game_id: str) -> list[dict[str, Any]]:
    return rows(
        con,
        "select action_index, trick, seat, player_id, next_seat, next_player_id, obligation,"
        " required, played, block, block_reason, is_next_out, is_bao, is_bao_possible"
        " from audit_obligations where game_id = $g order by action_index",
        g=game_id,
    )


MET = {
    "action_index": 16,
    "trick": 4,
    "seat": 0,
    "player_id": "g0",
    "next_seat": 1,
    "next_player_id": "g1",
    "obligation": "follow_with_highest_single",
    "required": "highest single (2♠)",
    "played": "single 2♠",
    "block": "met",
    "block_reason": None,
    "is_next_out": False,
    "is_bao": False,
    "is_bao_possible": False,
}
VIOLATED = {
    "action_index": 20,
    "trick": 5,
    "seat": 0,
    "player_id": "g0",
    "next_seat": 1,
    "next_player_id": "g1",
    "obligation": "lead_non_single_or_highest_single",
    "required": "non-single or highest single (A♠)",
    "played": "single 4♠",
    "block": "violated",
    "block_reason": "led a single lower than A♠",
    "is_next_out": True,
    "is_bao": True,
    "is_bao_possible": False,
}


def test_golden_liability(golden: duckdb.DuckDBPyConnection) -> None:
    """hk: 2♠ on 6♦ meets; following the pair 2♣2♥ is no obligation; 4♠ led holding A♠ lets
    seat 1 out on K♦ → 包牌 on seat 0."""
    assert _audit(golden, "golden-1") == [MET, VIOLATED]


def test_golden_must_block_off(golden: duckdb.DuckDBPyConnection) -> None:
    """mainland (must_block = off): the same audit as information, but no 包牌."""
    assert _audit(golden, "golden-mainland") == [MET, {**VIOLATED, "is_bao": False}]


def test_golden_partial_information(golden: duckdb.DuckDBPyConnection) -> None:
    """Without the deal: 2♠ (the highest card out) is known to meet; the 4♠ lead is unknown,
    and 包牌 only possible."""
    unknown = {
        **VIOLATED,
        "required": "non-single or highest single (hand not in the log)",
        "block": "unknown",
        "block_reason": "hand not in the log",
        "is_bao": False,
        "is_bao_possible": True,
    }
    assert _audit(golden, "golden-1-partial") == [
        {**MET, "required": "highest single (hand not in the log)"},
        unknown,
    ]


def test_golden_players(golden: duckdb.DuckDBPyConnection) -> None:
    got = rows(
        golden,
        "select ruleset, n_obligations, n_met, n_violations, n_unknown, n_known, violation_rate,"
        " n_bao, n_bao_possible, bao_paid from audit_players where player_id = 'g0'"
        " order by ruleset",
    )
    assert got == [
        {
            "ruleset": "hk",
            "n_obligations": 4,
            "n_met": 2,
            "n_violations": 1,
            "n_unknown": 1,
            "n_known": 3,
            "violation_rate": pytest.approx(1 / 3),
            "n_bao": 1,
            "n_bao_possible": 1,
            # hk: penalties 6 (×1), 30 (10 cards ×3), 36 (12 ×3); place nets of the other
            # losers −48 and −72 are moved onto seat 0 (spec 1.6)
            "bao_paid": 120.0,
        },
        {
            "ruleset": "mainland",
            "n_obligations": 2,
            "n_met": 1,
            "n_violations": 1,
            "n_unknown": 0,
            "n_known": 2,
            "violation_rate": 0.5,
            "n_bao": 0,
            "n_bao_possible": 0,
            "bao_paid": 0.0,
        },
    ]
    assert rows(golden, "select count(*) as n from audit_players where player_id <> 'g0'") == [
        {"n": 0}
    ]


def test_sql_invariants_golden(golden: duckdb.DuckDBPyConnection) -> None:
    assert sql_test_failures(golden, ["audit_"]) == {}


def test_simulated_audit_matches_truth(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every deliberate non-block the simulator planted is a violated row, and nothing else is."""
    wh, logs = simulated(tmp_path_factory.getbasetemp(), games=600, seed=71, colluders=True)
    con = marts(wh)
    assert sql_test_failures(con, ["audit_"]) == {}
    planted = {
        (f"sim-71-{i:08d}", nb["action_index"])
        for i, log in enumerate(logs)
        for nb in log["truth"]["deliberate_non_blocks"]
    }
    found = {
        (r["game_id"], r["action_index"])
        for r in rows(con, "select game_id, action_index from audit_obligations where is_violated")
    }
    assert planted and found == planted


def test_sample_logs_all_invariants(tmp_path: Path) -> None:
    """The shipped samples (every preset, 2 and 3 players, a stock, partial information, a
    redeal) build every issue-7 mart and pass every invariant."""
    samples = ROOT / "data" / "samples"
    wh = warehouse_of(tmp_path, files=[samples / "games.jsonl", samples / "partial.jsonl"])
    con = marts(wh)
    assert sql_test_failures(con, MY_PREFIXES) == {}
    for mart in ("audit_players", "collusion_ranking", "stats_players", "luck_players"):
        assert rows(con, f"select count(*) as n from {mart}")[0]["n"] > 0, mart
