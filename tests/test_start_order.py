"""Games are ordered by their start as a time, not as the text logged: a log written with another
UTC offset (``+08:00``) sorts among the others by the instant it names (the dashboards' newest
games, a player's games, the winnings line's game order, the recent matches, from the detailed
marts and from the rollups alike), as the reports and the Dou Dizhu pages already did."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from dashboards.data import Filters
from pipeline.ingest import ingest
from pipeline.sim.sample import sample_match
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse, reading

#: (match, started_at): as text the +08:00 game is the newest, as a time the middle one.
STARTS = [
    ("m-a", "2026-01-01T02:00:00+00:00"),  # 02:00 UTC
    ("m-b", "2026-01-01T09:30:00+08:00"),  # 01:30 UTC
    ("m-c", "2026-01-01T01:00:00+00:00"),  # 01:00 UTC
]
NEWEST_FIRST = ["m-a-g1", "m-b-g1", "m-c-g1"]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    root = tmp_path_factory.mktemp("start-order")
    games = []
    for i, (match, started_at) in enumerate(STARTS):
        (game,) = sample_match(seed=900 + i, match_id=match, n_games=1)
        game["started_at"] = started_at
        for seat in game["seats"]:
            seat["player_id"] = f"p{seat['seat']}"
        games.append(game)
    log = root / "games.jsonl"
    log.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games))
    wh = Warehouse(Path(root) / "wh")
    assert ingest([str(log)], wh, workers=1).total().rejected == 0
    build(wh)
    return wh.connect()


def run(con: duckdb.DuckDBPyConnection, name: str, **params: object) -> list[dict[str, object]]:
    return reading.run_query(con, name, **(Filters().params() | params))


def test_the_text_order_is_not_the_time_order() -> None:
    # the fixture means something: sorted as text, the +08:00 game would come first
    by_text = [f"{m}-g1" for m, _ in sorted(STARTS, key=lambda s: s[1], reverse=True)]
    assert by_text != NEWEST_FIRST


def test_newest_games_and_a_players_games(con: duckdb.DuckDBPyConnection) -> None:
    assert [r["game_id"] for r in run(con, "dash_games", limit=10)] == NEWEST_FIRST
    games = run(con, "dash_player_games", player="p0", limit=10)
    assert [r["game_id"] for r in games] == NEWEST_FIRST


def test_winnings_count_the_games_in_start_order(con: duckdb.DuckDBPyConnection) -> None:
    rows = run(con, "dash_winnings_all", max_players=1, max_points=400)
    assert [(r["game_no"], r["match"]) for r in rows] == [(1, "m-c"), (2, "m-b"), (3, "m-a")]


@pytest.mark.parametrize("name", ["dash_recent_matches", "dash_recent_matches_rollup"])
def test_recent_matches_newest_first(con: duckdb.DuckDBPyConnection, name: str) -> None:
    rows = run(con, name, limit=10)
    assert [r["match"] for r in rows] == ["m-a", "m-b", "m-c"]
    assert [r["ended_at"] for r in rows] == [s for _, s in STARTS]
