"""Spec 1.10's six worked examples, reproduced through the real pipeline.

The fixture logs in ``tests/data/scoring/`` are legal full-information games found with the
engine (``tests/scoring_fixtures.py``) whose final cards left are the examples'. They are
ingested with :func:`pipeline.ingest.ingest` into a fresh warehouse, ``big2 build``'s
:func:`pipeline.sqlbuild.build` runs, and the marts are queried.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

DATA = Path(__file__).resolve().parent / "data" / "scoring"


@pytest.fixture(scope="module")
def wh_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("examples") / "wh"
    wh = Warehouse(root)
    summary = ingest([str(DATA)], wh, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(wh)
    return root


@pytest.fixture(scope="module")
def con(wh_root: Path) -> duckdb.DuckDBPyConnection:
    return Warehouse(wh_root).connect()


def column(con: duckdb.DuckDBPyConnection, game_id: str, name: str) -> list[Any]:
    rows = con.execute(
        f"select {name} from mart_game_scores where game_id = ? order by seat", [game_id]
    ).fetchall()
    return [r[0] for r in rows]


def test_example_1_place_and_winner_takes_all(con: duckdb.DuckDBPyConnection) -> None:
    assert column(con, "ex1", "cards_left") == [0, 1, 8, 12]
    assert column(con, "ex1", "penalty") == [0, 1, 16, 36]
    assert column(con, "ex1", "tier_name") == ["", "", "雙炒", "三炒"]
    assert column(con, "ex1", "net") == [530, 490, -110, -910]
    assert column(con, "ex1-wta", "net")[1:] == [-10, -160, -360]


def test_example_2_mainland_place(con: duckdb.DuckDBPyConnection) -> None:
    assert column(con, "ex2", "cards_left") == [5, 8, 0, 12]
    assert column(con, "ex2", "penalty") == [5, 16, 0, 36]
    assert column(con, "ex2", "is_spade_two_doubled") == [False, False, False, False]
    assert column(con, "ex2", "net") == [37, -7, 57, -87]


def test_example_3_funtown_tiers(con: duckdb.DuckDBPyConnection) -> None:
    assert column(con, "ex3", "penalty") == [0, 5, 20, 52]
    assert column(con, "ex3", "net") == [1540, 1140, -60, -2620]
    assert [n / 20 for n in column(con, "ex3", "net")] == [77, 57, -3, -131]
    assert column(con, "ex3-wta", "net") == [770, -50, -200, -520]


def test_example_4_bao(con: duckdb.DuckDBPyConnection) -> None:
    assert column(con, "ex4", "bao_seat") == [0, 0, 0, 0]
    assert column(con, "ex4", "result_before_bao") == [-3, 8, -1, -4]
    assert column(con, "ex4", "net") == [-8, 8, 0, 0]
    # place: every other loser's net loss moves onto the violator (spec 1.6, 002)
    assert column(con, "ex4-place", "result_before_bao") == [-4, 8, 4, -8]
    assert column(con, "ex4-place", "net") == [-12, 8, 4, 0]


def test_example_5_penalty_points_running_totals(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute(
        "select game_number, list(running_points order by seat) from mart_match_standings "
        "where match_key = 'ex5' group by game_number order by game_number"
    ).fetchall()
    assert [r[1] for r in rows] == [[7, 0, 3, 7], [27, 9, 6, 7], [27, 31, 45, 15], [28, 32, 45, 17]]
    final = con.execute(
        "select player_id, standing from mart_match_results where match_key = 'ex5' "
        "order by standing"
    ).fetchall()
    assert final[0] == ("north", 1)  # lowest total wins the match


def test_example_6_bankroll(con: duckdb.DuckDBPyConnection) -> None:
    assert column(con, "ex6", "penalty") == [0, 52, 16, 33]
    assert column(con, "ex6", "net") == [2020, -2140, 740, -620]
    assert column(con, "ex6-wta", "net") == [2020, -1040, -320, -660]
    capped = con.execute(
        "select list(net_capped order by seat), list(balance_after order by seat) "
        "from mart_bankroll where game_id = 'ex6'"
    ).fetchone()
    assert capped is not None
    # B pays only its 2100: 1040 to the winner A, 720 to C (8 cards), 340 of 380 to D (11 cards)
    assert capped[0] == [2020, -2100, 740, -660]
    assert capped[1] == [12020, 0, 5740, 1840]
    busted = con.execute(
        "select player_id from mart_match_results where match_key = 'ex6' and has_left_at_zero"
    ).fetchall()
    assert busted == [("south",)]


def test_options_instant_win_redeal_huanle_seven(con: duckdb.DuckDBPyConnection) -> None:
    # 一條龍 (hk-classic, hk_10_13): every loser as if ×3 "三炒" with 13 cards → 39 points each
    assert column(con, "dragon", "penalty") == [39, 39, 0, 39]
    assert column(con, "dragon", "tier_name") == ["三炒", "三炒", "", "三炒"]
    assert column(con, "dragon", "points")[2] == 0
    # a redeal scores nothing
    assert column(con, "redeal", "is_scored") == [False] * 4
    assert set(column(con, "redeal", "net")) == {0}
    # 歡樂炸藥: three straights or more doubled the stake
    assert set(column(con, "huanle", "huanle_multiplier")) >= {2}
    assert column(con, "huanle", "net")[1] > 0
    # first_leader_seven_doubles: the first leader left with 7 counts 14
    seven = con.execute(
        "select penalty from mart_game_scores where game_id = 'seven' and is_seven_doubled"
    ).fetchall()
    assert seven == [(14,)]
    # ♠2 kept with 9 cards (mainland): 9 × 2 (雙炒) × 2 = 36
    assert column(con, "spade2", "penalty") == [0, 36, 3, 36]
    assert column(con, "spade2", "is_spade_two_doubled") == [False, True, False, False]


def test_six_players_under_each_settlement(con: duckdb.DuckDBPyConnection) -> None:
    # spec 1.3 and 1.7 at 6 seats: hk tiers (8 cards → 雙炒), stake 10, cards left
    # 2 / 0 / 8 / 5 / 1 / 7 → penalties 2 / 0 / 16 / 5 / 1 / 7 (Σ 31). The seat that held ♦3
    # was dealt 8 and got the 4 leftover cards (12).
    assert column(con, "six", "cards_left") == [2, 0, 8, 5, 1, 7]
    assert column(con, "six", "penalty") == [2, 0, 16, 5, 1, 7]
    assert column(con, "six", "tier_name") == ["", "", "雙炒", "", "", ""]
    # place: i receives Σ_j (p_j − p_i) × stake = (31 − 6 p_i) × 10
    assert column(con, "six", "net") == [190, 310, -650, 10, 250, -110]
    # winner takes all: each loser pays p × stake to the winner
    assert column(con, "six-wta", "net") == [-20, 310, -160, -50, -10, -70]
    # penalty points: each p added to the running total
    assert column(con, "six-points", "points") == [2, 0, 16, 5, 1, 7]
    dealt = con.execute(
        "select list(bit_count(deal_mask) order by seat) from stg_seats where game_id = 'six'"
    ).fetchone()
    assert dealt == ([8] * 6,)


def test_six_players_bankroll_cap(con: duckdb.DuckDBPyConnection) -> None:
    # spec 1.8 Decision at 6 seats: seat 2 owes 650 (160 to the winner, then 150 / 140 / 110 /
    # 90 by fewest cards left) with a balance of 300: it pays the winner 160 and seat 4 (1 card)
    # 140 of its 150; seats 0, 3 and 5 get nothing from it.
    assert column(con, "six-bank", "net") == [190, 310, -650, 10, 250, -110]
    capped = con.execute(
        "select list(net_capped order by seat), list(balance_after order by seat) "
        "from mart_bankroll where game_id = 'six-bank'"
    ).fetchone()
    assert capped is not None
    assert capped[0] == [50, 310, -300, -100, 240, -200]
    assert capped[1] == [1050, 1310, 0, 900, 1240, 800]


def rescore(wh_root: Path, *args: str) -> dict[str, list[float]]:
    """`big2 rescore --by match --format json` → match_key → what-if scores by seat order."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    argv = ["rescore", *args, "--by", "match", "--format", "json", "--limit", "1000"]
    result = CliRunner().invoke(app, [*argv, "--warehouse", str(wh_root)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    seats = {"east": 0, "south": 1, "west": 2, "north": 3}
    out: dict[str, list[float]] = {}
    for row in sorted(rows, key=lambda r: seats.get(r["player_id"], 9)):
        out.setdefault(row["match_key"], []).append(row["whatif_score"])
    return out


FUNTOWN_SET = ["--set", "multiplier_tiers=[[8,2],[11,3],[13,4]]", "--set", "stake=20"]


def test_example_6_through_rescore_applies_the_bankroll_cap(wh_root: Path) -> None:
    # spec 1.10 example 6 as a what-if: every game rescored under hk with Funtown tiers, 20 a
    # card and bankroll on gives ex6 the capped nets of the Decision (B pays only its 2100);
    # without bankroll the same what-if is the uncapped place nets.
    capped = rescore(wh_root, "--as", "hk", *FUNTOWN_SET, "--set", "bankroll=true")
    assert capped["ex6"] == [2020, -2100, 740, -660]
    uncapped = rescore(wh_root, "--as", "hk", *FUNTOWN_SET)
    assert uncapped["ex6"] == [2020, -2140, 740, -620]
    # winner takes all with the cap: B owes the winner only 1040, so nothing is capped
    wta = rescore(
        wh_root, "--as", "hk", *FUNTOWN_SET, "--set", "bankroll=true",
        "--set", "settlement=winner_takes_all",
    )  # fmt: skip
    assert wta["ex6"] == [2020, -1040, -320, -660]
