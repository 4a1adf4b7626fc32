"""The winnings chart's points (``sql/macros/dash_winnings_line.sql``) against a brute-force
numbering of every game in Python: each point is a game's own (its number in start order,
start, match and the totals after it), each player's first and last game are points, a player
with at most ``max_points`` games has every game a point and one with more about that many."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import sqlbuild

BASE = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
#: Offsets a log may write its start times with: the text order is not the time order.
ZONES = [dt.timezone(dt.timedelta(hours=h)) for h in (-5, 0, 8)]
#: (player_id, started_at, match_key, game_id, result, luck): a row of the macro's input.
Row = tuple[str, str | None, str, str, float, float]


@st.composite
def games(draw: st.DrawFn) -> list[Row]:
    """(player_id, started_at, match_key, game_id, result, luck) rows: a few players, starts
    often tied or missing, results and luck exact in binary (their sums in any order agree)."""
    n = draw(st.integers(min_value=0, max_value=60))
    rows = []
    for i in range(n):
        minute = draw(st.one_of(st.none(), st.integers(min_value=0, max_value=30)))
        started = None
        if minute is not None:
            zone = draw(st.sampled_from(ZONES))
            started = (BASE + dt.timedelta(minutes=minute)).astimezone(zone).isoformat()
        rows.append(
            (
                draw(st.sampled_from(["a", "b", "c"])),
                started,
                f"m{draw(st.integers(min_value=0, max_value=3))}",
                f"g{i:03d}",
                float(draw(st.integers(min_value=-50, max_value=50))),
                draw(st.integers(min_value=-8, max_value=8)) / 4,
            )
        )
    return rows


def every_game(rows: Sequence[Row]) -> dict[str, list[Any]]:
    """Per player, every game in start order (no start time last, then the id) with its
    number and the totals after it: the line unthinned."""
    out: dict[str, list[Any]] = {}
    for player in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == player]
        mine.sort(
            key=lambda r: (r[1] is None, dt.datetime.fromisoformat(r[1]) if r[1] else BASE, r[3])
        )
        score = luck = 0.0
        line = []
        for k, (_, started, match, _, result, lk) in enumerate(mine, start=1):
            score += result
            luck += lk
            line.append((player, k, started, match, score, round(luck, 2)))
        out[player] = line
    return out


def points(rows: Sequence[Row], max_points: int) -> list[Any]:
    con = duckdb.connect()
    try:
        con.execute(sqlbuild.sql_files("macros")["dash_winnings_line"])
        con.execute(
            "create table logged (player_id varchar, started_at varchar, match_key varchar, "
            "game_id varchar, result double, luck double)"
        )
        if rows:
            con.executemany("insert into logged values (?, ?, ?, ?, ?, ?)", rows)
        # the start as a time beside it, as the callers' filtered games carry it (started_ts)
        con.execute(
            "create view per_game as "
            "select *, try_cast(started_at as timestamptz) as ts from logged"
        )
        return con.execute(
            "select player, game_no, started_at, match, cumulative_score, "
            "cumulative_cards_vs_expected from dash_winnings_line(per_game, ?) "
            "order by player, game_no",
            [max_points],
        ).fetchall()
    finally:
        con.close()


@settings(max_examples=120, deadline=None)
@given(rows=games(), max_points=st.integers(min_value=1, max_value=12))
def test_points_are_games_of_the_unthinned_line(rows: Sequence[Row], max_points: int) -> None:
    full = every_game(rows)
    got = points(rows, max_points)
    assert {p for p, *_ in got} == set(full)
    for player, line in full.items():
        mine = [tuple(r) for r in got if r[0] == player]
        assert all(r == line[r[1] - 1] for r in mine), (player, mine)
        assert len({r[1] for r in mine}) == len(mine)  # no game twice
        if len(line) <= max_points:
            assert mine == line  # every game a point
        else:
            assert mine[0] == line[0] and mine[-1] == line[-1]  # the first and the last
            # a point per slice of time (max_points + 1 of them, the last start its own), per
            # slice of the games without a start (max_points), and the first game
            assert len(mine) <= 2 * max_points + 2


def test_a_thousand_games_thinned_to_about_max_points() -> None:
    rows = [
        ("a", (BASE + dt.timedelta(minutes=i)).isoformat(), f"m{i // 8}", f"g{i:04d}", 1.0, 0.25)
        for i in range(1000)
    ]
    got = points(rows, 40)
    assert 40 <= len(got) <= 42
    assert got[-1] == ("a", 1000, rows[-1][1], "m124", 1000.0, 250.0)


def test_games_without_a_start_thinned_too() -> None:
    rows: list[Row] = [("a", None, f"m{i // 8}", f"g{i:04d}", 1.0, 0.25) for i in range(1000)]
    got = points(rows, 40)
    assert 40 <= len(got) <= 42
    assert got[0] == ("a", 1, None, "m0", 1.0, 0.25)
    assert got[-1] == ("a", 1000, None, "m124", 1000.0, 250.0)
