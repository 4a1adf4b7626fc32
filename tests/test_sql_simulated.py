"""Every SQL invariant (``sql/tests/*.sql``) over SIMULATED games: a few hundred games of each
preset (plus a bankroll and a 3-player variant), played by the simulator's bots with imperfect
頂大 discipline, ingested through the real pipeline into a tmp warehouse and built."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.sim.simulate import SimConfig, simulate
from pipeline.warehouse import Warehouse

BOTS4 = ("random", "greedy", "heuristic", "random")
#: (preset, overrides, bots, games)
RUNS: list[tuple[str, dict[str, Any], tuple[str, ...], int]] = [
    ("hk", {}, BOTS4, 200),
    ("hk-classic", {}, BOTS4, 200),
    ("mainland", {}, BOTS4, 200),
    ("taiwan", {}, BOTS4, 200),
    ("hk", {"bankroll": True, "bankroll_start": 60, "winner_bonus": 2}, BOTS4, 120),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}, BOTS4[:3], 80),
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    root = tmp_path_factory.mktemp("simulated")
    log = root / "sim.jsonl"
    with log.open("w", encoding="utf-8") as out:
        for i, (preset, overrides, bots, games) in enumerate(RUNS):
            cfg = SimConfig(
                games=games,
                seed=60 + i,
                bots=bots,
                preset=preset,
                overrides=overrides,
                must_block_discipline=0.6,
                match_games=8,
                id_prefix=f"s{i}",
            )
            for game in simulate(cfg):
                out.write(json.dumps(game, ensure_ascii=False) + "\n")
    wh = Warehouse(root / "wh")
    summary = ingest([str(log)], wh, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(wh)
    return wh.connect()


SQL_TESTS = sorted(p.stem for p in (sqlbuild.SQL_DIR / "tests").glob("*.sql"))


@pytest.mark.parametrize("name", SQL_TESTS)
def test_sql_invariant_on_simulated_games(con: duckdb.DuckDBPyConnection, name: str) -> None:
    text = (sqlbuild.SQL_DIR / "tests" / f"{name}.sql").read_text(encoding="utf-8")
    assert con.execute(text).fetchall() == []


def test_simulated_games_exercise_the_rules(con: duckdb.DuckDBPyConnection) -> None:
    games, bao, busted, points, presets = con.execute(
        """
        select
            (select count(distinct game_id) from mart_game_scores),
            (select count(*) from mart_game_scores where is_bao_payer),
            (select count(*) from mart_bankroll where is_busted),
            (select count(*) from mart_game_scores where settlement = 'penalty_points'),
            (select count(distinct ruleset) from stg_games)
        """
    ).fetchone() or (0, 0, 0, 0, 0)
    assert games == sum(r[3] for r in RUNS)
    assert bao > 0 and busted > 0 and points > 0 and presets == 4
