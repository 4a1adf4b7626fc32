"""Every SQL invariant (``sql/tests/*.sql``) over SIMULATED games: a few hundred games of each
preset (plus a bankroll and a 3-player variant, and 5 to 8 players), played by the simulator's bots with imperfect
頂大 discipline, ingested through the real pipeline into a tmp warehouse and built."""

from __future__ import annotations

import duckdb
import pytest
from marts_helpers import Run, write_runs

from pipeline import sqlbuild
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

BOTS4 = ("random", "greedy", "heuristic", "random")
#: (preset, overrides, bots, games)
RUNS: list[Run] = [
    ("hk", {}, BOTS4, 200),
    ("hk-classic", {}, BOTS4, 200),
    ("mainland", {}, BOTS4, 200),
    ("taiwan", {}, BOTS4, 200),
    ("hk", {"bankroll": True, "bankroll_start": 60, "winner_bonus": 2}, BOTS4, 120),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}, BOTS4[:3], 80),
    # 5 to 8 players (spec 1.3): each settlement, and the bankroll cap on 8 seats
    ("hk", {"players": 5}, (*BOTS4, "heuristic"), 40),
    ("taiwan", {"players": 6}, BOTS4 + BOTS4[:2], 40),
    ("hk-classic", {"players": 7}, BOTS4 + BOTS4[:3], 40),
    ("mainland", {"players": 8, "bankroll": True, "bankroll_start": 30}, BOTS4 + BOTS4, 40),
]


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    root = tmp_path_factory.mktemp("simulated")
    log = root / "sim.jsonl"
    with log.open("w", encoding="utf-8") as out:
        write_runs(out, RUNS, seed=60, prefix="s")
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


def test_five_to_eight_players_are_stored_and_scored(con: duckdb.DuckDBPyConnection) -> None:
    # spec 1.3: 5-8 seats a game reach the warehouse and every settlement; the seat holding
    # the leftover started with more cards (52 // n + 52 mod n).
    rows = con.execute(
        """
        select g.players, any_value(s.settlement), count(distinct g.game_id),
               count(*) filter (where s.cards_left > 52 // g.players)
        from stg_games as g
        join mart_game_scores as s using (game_id)
        where g.players >= 5
        group by g.players
        order by g.players
        """
    ).fetchall()
    assert [r[:3] for r in rows] == [
        (5, "place", 40),
        (6, "winner_takes_all", 40),
        (7, "penalty_points", 40),
        (8, "place", 40),
    ]
    assert all(r[3] > 0 for r in rows)  # some loser kept more than an even share
    busted = con.execute(
        "select count(*) from mart_bankroll as b join stg_games as g using (game_id) "
        "where g.players = 8 and b.is_busted"
    ).fetchone()
    assert busted is not None and busted[0] > 0


def test_trick_counts_cover_every_seat_of_wide_tables(con: duckdb.DuckDBPyConnection) -> None:
    # stats_player_games counts tricks won / led per seat; at 5-8 seats the seats past 3 count
    # too: per game, the seats' tricks won add up to the tricks that have a winner.
    rows = con.execute(
        """
        with won as (
            select game_id, sum(n_tricks_won) as n_won, sum(n_control_regained) as n_regained
            from stats_player_games group by game_id
        ),
        tricks as (
            select game_id, count(winner) as n_won,
                   count(*) filter (where winner <> leader) as n_regained
            from stg_tricks group by game_id
        )
        select g.players, count(*) filter (where w.n_won <> t.n_won or w.n_regained <> t.n_regained),
               count(*)
        from won as w join tricks as t using (game_id) join stg_games as g using (game_id)
        group by g.players order by g.players
        """
    ).fetchall()
    assert [r[0] for r in rows] == [3, 4, 5, 6, 7, 8]
    assert all(r[1] == 0 for r in rows), rows


def test_rescoring_a_bankroll_run_as_its_own_rules_changes_nothing(
    con: duckdb.DuckDBPyConnection,
) -> None:
    # spec 1.8 bankroll cap in a what-if: rescoring the bankroll matches (busts included) under
    # their own ruleset walks the cap game by game in match order as scoring does, so every
    # player's match total is the capped one; the same what-if without bankroll is not.
    preset, overrides, _, _ = RUNS[4]
    assert overrides["bankroll"]
    own = sqlbuild.ruleset_json(preset, overrides)
    rows = con.execute(
        "select own_score, whatif_score from rescore_matches(?) where match_key like '%s4-%'",
        [own],
    ).fetchall()
    assert len(rows) == 4 * 15
    assert all(o == w for o, w in rows), [r for r in rows if r[0] != r[1]][:5]
    uncapped = {**overrides, "bankroll": False}
    rows = con.execute(
        "select count(*) filter (where own_score <> whatif_score) from rescore_matches(?) "
        "where match_key like '%s4-%'",
        [sqlbuild.ruleset_json(preset, uncapped)],
    ).fetchone()
    assert rows is not None and rows[0] > 0
