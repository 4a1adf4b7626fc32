"""Strategy-stat and luck marts (issue 7): hand-checked figures on the golden game, the
invariants of sql/tests/stats_*.sql and luck_*.sql, and luck-adjusted results on simulated
bots (heuristic above expectation, random below)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.marts_helpers import (
    SIM_BOTS,
    golden_game,
    marts,
    rows,
    simulated,
    sql_test_failures,
    warehouse_of,
)


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    return marts(warehouse_of(tmp_path_factory.mktemp("golden-stats"), [golden_game()]))


def _seat(con: duckdb.DuckDBPyConnection, seat: int) -> dict[str, object]:
    return rows(con, "select * from stats_player_games where seat = $s", s=seat)[0]


def test_golden_seat_0(golden: duckdb.DuckDBPyConnection) -> None:
    """Seat 0 led a straight and 4♠, passed three times without a beating play, blocked with
    2♠ (a 頂大 obligation: not a wasted 2), took trick 4, lost with 6 cards."""
    got = _seat(golden, 0)
    want = {
        "player_id": "g0",
        "position": 0,
        "n_games": 1,
        "n_wins": 0,
        "n_losses": 1,
        "cards_left_when_losing": 6,
        "n_leads": 2,
        "n_lead_single": 1,
        "n_lead_five": 1,
        "n_five_card_plays": 1,
        "n_follow_turns": 4,
        "n_passes": 3,
        "n_voluntary_passes": 0,
        "n_forced_passes": 3,
        "n_could_beat": 1,
        "n_two_single_follows": 0,
        "n_two_wasted": 0,
        "n_tricks": 5,
        "n_tricks_won": 1,
        "n_tricks_led_by_others": 3,
        "n_control_regained": 1,
        "n_twos_dealt": 1,
        "n_twos_left": 0,
        "n_timed_decisions": 5,
        "sum_decision_seconds": 5.0,
        "n_chao_2": 0,
        "score": -72.0,  # place: +48 before 包牌, then the others' 48 + 72
    }
    assert {k: got[k] for k in want} == want


def test_golden_other_seats(golden: duckdb.DuckDBPyConnection) -> None:
    s1, s2, s3 = (_seat(golden, s) for s in (1, 2, 3))
    # seat 1: won from position 1 with two five-card plays; took tricks 1, 2 and 5 (1 and 5
    # led by seat 0), led the flush and the pair A♣A♦
    assert (s1["n_wins"], s1["position"], s1["n_five_card_plays"]) == (1, 1, 2)
    assert (s1["n_tricks_won"], s1["n_control_regained"]) == (3, 2)
    assert (s1["n_lead_five"], s1["n_lead_pair"]) == (1, 1)
    # seat 2: lost with 10 cards (炒 band 10-12), its 2♣2♥ played as a pair
    assert (s2["cards_left_when_losing"], s2["n_left_10_12"], s2["n_twos_left"]) == (10, 1, 0)
    assert (s2["n_chao_3"], s3["n_chao_3"], s2["score"], s3["score"]) == (1, 1, 0.0, 0.0)
    # seat 3: never led, still holds 2♦ with 12 cards
    got = (s3["n_leads"], s3["n_twos_dealt"], s3["n_twos_left"], s3["n_left_10_12"])
    assert got == (0, 1, 1, 1)


def test_golden_luck(golden: duckdb.DuckDBPyConnection) -> None:
    """Seat 0: 3♦4♣5♣6♣7♣2♠A♠4♠3♣8♦9♦J♣Q♣ → 11 ranks, 2 paired cards, a run 3..9, seven ♣:
    2·1 + 1 + 1 + 0.5·2 + 2 + 1 - 0.25·11 = 5.25."""
    got = rows(golden, "select * from luck_hands where seat = 0")[0]
    want = {
        "n_twos": 1,
        "n_aces": 1,
        "has_spade_two": 1,
        "n_ranks": 11,
        "n_paired_cards": 2,
        "longest_run": 7,
        "max_suit": 7,
        "strength": 5.25,
    }
    assert {k: got[k] for k in want} == want


def _stats(wh: Warehouse) -> list[tuple[object, ...]]:
    build(wh)
    con = wh.connect()
    try:
        return con.execute("select * from stats_player_games order by game_id, seat").fetchall()
    finally:
        con.close()


def _as_written_before_think_seconds(wh: Warehouse) -> None:
    """Rewrite every actions file without ``think_seconds`` and restate its manifest entry
    (sha256, bytes), as a batch that was committed before the column existed."""
    for path in wh.files("actions"):
        pq.write_table(pq.read_table(path).drop_columns(["think_seconds"]), path)
    lines = []
    for line in wh.manifest_path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        for f in entry["files"]:
            if f["table"] == "actions":
                data = (wh.root / f["path"]).read_bytes()
                f["sha256"], f["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
                f.pop("schema", None)  # committed before the schema tags too
        lines.append(json.dumps(entry) + "\n")
    wh.manifest_path.write_text("".join(lines), encoding="utf-8")


def _two_batches(root: Path, *, strip_first: bool) -> Warehouse:
    """Two golden games in two import batches; with ``strip_first`` the first batch's actions
    file is rewritten without ``think_seconds``, as a batch written before that column."""
    wh = warehouse_of(root, [golden_game("golden-old")])
    if strip_first:
        _as_written_before_think_seconds(wh)
    log = root / "second.jsonl"
    log.write_text(json.dumps(golden_game("golden-new"), ensure_ascii=False) + "\n")
    ingest([str(log)], wh, workers=1)
    return wh


def test_think_time_of_batches_written_before_think_seconds(tmp_path: Path) -> None:
    """A batch without actions.think_seconds (written before it) gets the same think time,
    computed from ts, whether or not the other batches store it."""
    stored = _stats(_two_batches(tmp_path / "stored", strip_first=False))
    mixed = _stats(_two_batches(tmp_path / "mixed", strip_first=True))
    assert mixed == stored
    by_seat = {(r[0], r[6]): r for r in stored}
    assert len(by_seat) == 8
    wh = _two_batches(tmp_path / "old", strip_first=False)
    _as_written_before_think_seconds(wh)
    assert _stats(wh) == stored
    assert wh.verify() == []


def test_golden_think_time(golden: duckdb.DuckDBPyConnection) -> None:
    """actions.think_seconds: the gap to the previous action of the game (NULL for the first)."""
    got = rows(
        golden,
        "select count(*) filter (where think_seconds is distinct from epoch(ts) - epoch(prev)) "
        "as n_off, count(think_seconds) as n "
        "from (select *, lag(ts) over (partition by game_id order by action_index) as prev "
        "from stg_actions)",
    )
    assert got[0]["n_off"] == 0 and got[0]["n"] > 0


def test_sql_invariants_golden(golden: duckdb.DuckDBPyConnection) -> None:
    assert sql_test_failures(golden, ["stats_", "luck_"]) == {}


def test_simulated_stats_and_luck(tmp_path_factory: pytest.TempPathFactory) -> None:
    """On 600 honest simulated games: invariants hold, and against the hand-strength
    expectation the heuristic bots leave fewer cards than expected, the random bot more."""
    wh, logs = simulated(tmp_path_factory.getbasetemp(), games=600, seed=72, colluders=False)
    con = marts(wh)
    assert sql_test_failures(con, ["stats_", "luck_"]) == {}
    bot_of = {pid: bot for log in logs[:1] for pid, bot in zip(log["seats"], SIM_BOTS, strict=True)}
    luck = {r["player_id"]: r for r in rows(con, "select * from luck_players")}
    assert set(luck) == set(bot_of)
    for pid, r in luck.items():
        margin = 3 * r["se_cards_vs_expected"]
        if bot_of[pid] == "heuristic":
            assert r["cards_vs_expected"] > margin, r
        elif bot_of[pid] == "random":
            assert r["cards_vs_expected"] < -margin, r
    # the strength index carries information: better hands leave fewer cards
    (fit,) = rows(con, "select distinct fit_slope, fit_r2 from luck_outcomes")
    assert fit["fit_slope"] < 0 and fit["fit_r2"] > 0.02
    # every stat is filterable by ruleset, period and match
    cols = {r["column_name"] for r in rows(con, "describe stats_player_games")}
    assert {"ruleset", "period", "match_id", "player_id"} <= cols
    (per_player,) = rows(
        con,
        "select count(distinct player_id) as n, sum(n_games) as games from stats_players",
    )
    assert per_player == {"n": 4, "games": 2400}


def test_simulated_luck_in_money(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The luck line in the game's unit (hk: place money, stake 1) on the same 600 games: better
    cards score more, the heuristic bots win more money than their cards promised and the random
    bot less; a what-if under the games' own ruleset gives back the own line, and one under
    winner-takes-all at stake 10 is its own line in that unit (docs/stats.md)."""
    from pipeline import sqlbuild

    wh, logs = simulated(tmp_path_factory.getbasetemp(), games=600, seed=72, colluders=False)
    con = marts(wh)
    bot_of = {pid: bot for log in logs[:1] for pid, bot in zip(log["seats"], SIM_BOTS, strict=True)}
    (fit,) = rows(
        con, "select distinct ruleset_id, score_fit_slope, score_fit_r2 from luck_outcomes"
    )
    assert fit["score_fit_slope"] > 0 and fit["score_fit_r2"] > 0.02
    for r in rows(con, "select * from luck_players"):
        margin = 3 * r["se_score_vs_expected"]
        if bot_of[r["player_id"]] == "heuristic":
            assert r["score_vs_expected"] > margin, r
        elif bot_of[r["player_id"]] == "random":
            assert r["score_vs_expected"] < -margin, r
    # a least-squares line with an intercept: the residuals sum to zero, and score is the result
    (check,) = rows(
        con,
        "select abs(sum(o.score_vs_expected)) as residual, "
        "count(*) filter (where o.score is distinct from m.result) as n_off "
        "from luck_outcomes as o join mart_match_standings as m using (game_id, seat)",
    )
    assert check["residual"] < 1e-6 and check["n_off"] == 0
    own = sqlbuild.ruleset_json("hk")
    (same,) = rows(
        con,
        "select count(*) as n, count(*) filter (where abs(w.score_vs_expected - "
        "o.score_vs_expected) > 1e-9) as n_off "
        "from luck_whatif($j) as w join luck_outcomes as o using (game_id, seat)",
        j=own,
    )
    assert same == {"n": 2400, "n_off": 0}
    wta = sqlbuild.ruleset_json("hk", {"settlement": "winner_takes_all", "stake": 10})
    by_player = {
        r["player_id"]: r
        for r in rows(
            con,
            "select player_id, avg(score_vs_expected) as s, avg(score) as score, "
            "avg(cards_vs_expected) as c from luck_whatif($j) group by player_id",
            j=wta,
        )
    }
    cards = {
        r["player_id"]: r["cards_vs_expected"] for r in rows(con, "select * from luck_players")
    }
    for pid, r in by_player.items():
        assert r["c"] == pytest.approx(cards[pid])  # the cards line does not depend on scoring
        if bot_of[pid] == "random":
            assert r["s"] < 0 and r["score"] < 0


def test_period_is_the_utc_month_whatever_the_build_machines_zone(tmp_path: Path) -> None:
    """``stats_player_games.period`` is the month of the game's start in UTC, whatever the
    zone of the machine that builds: ``date_trunc`` of a timestamptz truncates in DuckDB's
    TimeZone, the process's local zone, so a build in Hong Kong put a game of 31 January
    20:00 UTC in February."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "TZ": "Asia/Hong_Kong"}
    log = tmp_path / "g.jsonl"
    sim = ["simulate", "-n", "2", "--seed", "3", "-o", log, "--workers", "1"]
    subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, sim)], check=True, cwd=root)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    lines[0]["started_at"] = "2026-01-31T20:00:00+00:00"
    lines[1]["started_at"] = "2026-02-28T15:59:59+00:00"
    log.write_text("".join(json.dumps(g) + "\n" for g in lines), encoding="utf-8")
    wh = tmp_path / "wh"
    ingest_args = ["ingest", log, "-w", wh, "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, ingest_args)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    con = Warehouse(wh).connect()
    try:
        got = con.execute(
            "select distinct game_id, strftime(timezone('UTC', period), '%Y-%m-%d %H:%M') "
            "from stats_player_games order by 1"
        ).fetchall()
    finally:
        con.close()
    assert [month for _, month in got] == ["2026-01-01 00:00", "2026-02-01 00:00"]
