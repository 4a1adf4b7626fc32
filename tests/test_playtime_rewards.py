"""Play-time rewards (spec 1.8, seed 002; docs/scoring.md, ``mart_playtime_rewards``): hand-made
games around the 08:00 refresh (Asia/Hong_Kong by default) land in the right reward day, a game
across it is split, claims stop at the daily maximum, thresholds and the day come from each
game's ruleset, and games without action times earn nothing and are counted as untimed."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pytest

from pipeline.big2.rules import load_ruleset
from pipeline.errors import RulesetError
from tests.marts_helpers import golden_game, marts, rows, sql_test_failures, warehouse_of

HK = ZoneInfo("Asia/Hong_Kong")
UTC = ZoneInfo("UTC")


def _epoch(text: str, zone: ZoneInfo = HK) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=zone).timestamp()


def timed_game(
    game_id: str,
    start: str,
    minutes: float,
    players: str,
    *,
    zone: ZoneInfo = HK,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The golden game (legal, 22 actions) played by ``{players}0..3`` from ``start`` (local
    time in ``zone``), its actions spread evenly over ``minutes``."""
    t0 = _epoch(start, zone)
    game = golden_game(
        game_id,
        match_id=game_id,
        seats=[{"seat": s, "player_id": f"{players}{s}"} for s in range(4)],
        started_at=datetime.fromtimestamp(t0, UTC).isoformat(),
        ruleset={"preset": "hk", "overrides": overrides or {}},
    )
    n = len(game["actions"])
    for i, action in enumerate(game["actions"]):
        action["ts"] = t0 + minutes * 60 * i / (n - 1)
    return game


def untimed_game(game_id: str, players: str, started_at: str | None) -> dict[str, Any]:
    game = golden_game(
        game_id,
        match_id=game_id,
        seats=[{"seat": s, "player_id": f"{players}{s}"} for s in range(4)],
        started_at=started_at,
    )
    for action in game["actions"]:
        del action["ts"]
    return game


GAMES = [
    # g: 07:40-07:55 (the day of 31 Oct), 07:50-08:10 (split 10 + 10), 08:00-08:30 (1 Nov)
    timed_game("a-before", "2026-11-01T07:40:00", 15, "g"),
    timed_game("b-across", "2026-11-01T07:50:00", 20, "g"),
    timed_game("c-after", "2026-11-01T08:00:00", 30, "g"),
    # p: 100 minutes in one reward day: 10 claims reached at one per 10 minutes, 8 paid
    timed_game("d-long", "2026-11-02T09:00:00", 50, "p"),
    timed_game("e-long", "2026-11-02T10:00:00", 50, "p"),
    # w: a table with its own thresholds, cap and a UTC day: 40 minutes from 07:30 UTC
    timed_game(
        "f-own",
        "2026-11-03T07:30:00",
        40,
        "w",
        zone=UTC,
        overrides={
            "reward_minutes": [5, 15, 30],
            "reward_timezone": "UTC",
            "reward_claims_per_day": 2,
        },
    ),
    # e: 07:30-08:00 exactly: all 30 minutes on 3 Nov, no 0-minute game on 4 Nov
    timed_game("i-to-refresh", "2026-11-04T07:30:00", 30, "e"),
    # u: no action times: untimed on the day of started_at (07:00 HK: 31 Oct), or not at all
    untimed_game("g-untimed", "u", "2026-11-01T07:00:00+08:00"),
    untimed_game("h-untimed-no-start", "v", None),
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    return marts(warehouse_of(tmp_path_factory.mktemp("rewards"), GAMES))


def _days(con: duckdb.DuckDBPyConnection, player: str) -> list[dict[str, Any]]:
    return rows(
        con,
        "select reward_day::varchar as day, n_games, n_games_untimed, minutes_played,"
        " n_claims_reached, claims_per_day, n_claims"
        " from mart_playtime_rewards where player_id = $p order by reward_day",
        p=player,
    )


def test_games_around_the_refresh_land_in_their_reward_day(con: duckdb.DuckDBPyConnection) -> None:
    """08:00 Hong Kong time refreshes the day: 15 + 10 minutes before it (31 Oct, two games),
    10 + 30 after (1 Nov, two games); one claim per 10 minutes by default."""
    assert _days(con, "g0") == [
        {
            "day": "2026-10-31",
            "n_games": 2,
            "n_games_untimed": 0,
            "minutes_played": 25.0,
            "n_claims_reached": 2,
            "claims_per_day": 8,
            "n_claims": 2,
        },
        {
            "day": "2026-11-01",
            "n_games": 2,
            "n_games_untimed": 0,
            "minutes_played": 40.0,
            "n_claims_reached": 4,
            "claims_per_day": 8,
            "n_claims": 4,
        },
    ]
    # every seat of a game plays for its whole time
    assert _days(con, "g3") == _days(con, "g0")


def test_a_game_ending_at_the_refresh_stays_in_its_day(con: duckdb.DuckDBPyConnection) -> None:
    assert [(d["day"], d["n_games"], d["minutes_played"]) for d in _days(con, "e0")] == [
        ("2026-11-03", 1, 30.0)
    ]


def test_claims_stop_at_eight_a_day(con: duckdb.DuckDBPyConnection) -> None:
    (day,) = _days(con, "p1")
    assert (day["day"], day["minutes_played"], day["n_games"]) == ("2026-11-02", 100.0, 2)
    assert (day["n_claims_reached"], day["n_claims"]) == (10, 8)


def test_thresholds_cap_and_zone_come_from_the_games_ruleset(
    con: duckdb.DuckDBPyConnection,
) -> None:
    """[5, 15, 30] then every 15 minutes: 40 minutes reach 3 claims, the table pays 2; the day
    is UTC's, so 07:30-08:10 UTC is split 30 (2 Nov) + 10 (3 Nov)."""
    assert [
        (d["day"], d["minutes_played"], d["n_claims_reached"], d["n_claims"])
        for d in _days(con, "w2")
    ] == [
        ("2026-11-02", 30.0, 3, 2),
        ("2026-11-03", 10.0, 1, 1),
    ]


def test_games_without_times_earn_nothing_and_are_counted(con: duckdb.DuckDBPyConnection) -> None:
    assert _days(con, "u0") == [
        {
            "day": "2026-10-31",
            "n_games": 0,
            "n_games_untimed": 1,
            "minutes_played": 0.0,
            "n_claims_reached": 0,
            "claims_per_day": 8,
            "n_claims": 0,
        }
    ]
    assert _days(con, "v0") == []  # no action time and no started_at: no reward day


def test_sql_invariants_hold(con: duckdb.DuckDBPyConnection) -> None:
    assert sql_test_failures(con, ["rewards_"]) == {}
    (n,) = con.execute("select count(*) from mart_playtime_rewards").fetchone() or (0,)
    assert n == 4 * 7  # g: 2 days, p: 1, w: 2, e: 1, u: 1; four players each


def test_columns_are_documented(con: duckdb.DuckDBPyConnection) -> None:
    missing = con.execute(
        "select column_name from duckdb_columns()"
        " where table_name = 'mart_playtime_rewards' and comment is null"
    ).fetchall()
    assert missing == []


def test_reward_parameters_are_validated() -> None:
    rs = load_ruleset("hk")
    assert (rs.reward_minutes, rs.reward_claims_per_day) == ((10,), 8)
    assert (rs.reward_day_starts, rs.reward_timezone) == ("08:00", "Asia/Hong_Kong")
    for key, value in (
        ("reward_minutes", [15, 10]),
        ("reward_minutes", [0]),
        ("reward_day_starts", "25:00"),
        ("reward_timezone", "Hong Kong"),
        ("reward_claims_per_day", -1),
    ):
        with pytest.raises(RulesetError) as err:
            load_ruleset("hk", {key: value})
        assert err.value.code == "E_RULESET_VALUE" and key in err.value.message
