"""The scoring marts over many sample games: SQL invariants, a Python cross-check of the
penalties, what-if rescoring, and the ``big2 build / sql / rescore`` commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline import sqlbuild
from pipeline.big2.rules import HUANLE_MIN_PLAYS, HUANLE_TABLE, KEYS, load_ruleset
from pipeline.cards import cards_of, parse_cards
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.sim.sample import sample_match, to_partial
from pipeline.warehouse import Warehouse
from tests.marts_helpers import assert_whatif_reads_only_scoring_keys

DATA = Path(__file__).resolve().parent / "data" / "scoring"

#: (preset, overrides, balances) of the sample matches: every scoring option at least once.
MATCHES: list[tuple[str, dict[str, Any], float | None]] = [
    ("hk", {}, None),
    ("hk", {"winner_bonus": 5, "stake": 2}, None),
    ("hk", {"bonus_multipliers": "huanle"}, None),
    ("hk", {"card_points": True, "settlement": "winner_takes_all"}, None),
    ("hk", {"first_leader_seven_doubles": True}, None),
    ("hk-classic", {"winner_bonus": 10}, None),
    ("mainland", {}, None),
    ("mainland", {"stake": 2}, None),
    ("mainland", {"winner_bonus": 1}, None),
    ("taiwan", {}, None),
    ("hk", {"bankroll": True}, 40.0),
    ("taiwan", {"bankroll": True, "stake": 3}, 60.0),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}, None),
]


def sample_logs() -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = []
    for i, (preset, overrides, balance) in enumerate(MATCHES):
        match = sample_match(
            seed=500 + i,
            match_id=f"m{i}-{preset}",
            n_games=6,
            preset=preset,
            overrides=overrides,
        )
        for game in match:
            for seat in game["seats"]:
                seat["player_id"] = f"m{i}-p{seat['seat']}"
                if balance is not None:
                    seat["balance"] = balance
            if i == 0:
                game["tournament_id"] = "cup-1"
                game["tournament_kind"] = "points"
        games.extend(match)
    games.append(to_partial(games[0]))
    return games


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("sql")
    log = root / "games.jsonl"
    log.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in sample_logs()))
    warehouse = Warehouse(root / "wh")
    summary = ingest([str(log), str(DATA)], warehouse, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(warehouse)
    return warehouse


@pytest.fixture(scope="module")
def con(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    return wh.connect()


SCORE_TESTS = sorted(p.stem for p in (sqlbuild.SQL_DIR / "tests").glob("score_*.sql"))


@pytest.mark.parametrize("name", SCORE_TESTS)
def test_sql_invariant_returns_no_rows(con: duckdb.DuckDBPyConnection, name: str) -> None:
    text = (sqlbuild.SQL_DIR / "tests" / f"{name}.sql").read_text()
    assert con.execute(text).fetchall() == []


def copy_of(wh: Warehouse, tmp_path: Path) -> Warehouse:
    """A copy (a writable build needs no other connection open in this process)."""
    shutil.copytree(wh.root, tmp_path / "copy")
    return Warehouse(tmp_path / "copy")


def test_build_is_idempotent(wh: Warehouse, tmp_path: Path) -> None:
    copy = copy_of(wh, tmp_path)
    sqlbuild.build(copy)
    first = copy.connect().execute("select sum(net), count(*) from mart_game_scores").fetchone()
    sqlbuild.build(copy)
    second = copy.connect().execute("select sum(net), count(*) from mart_game_scores").fetchone()
    assert first == second and first is not None and first[1] > 250


def python_penalty(row: dict[str, Any], kinds: dict[str, int]) -> tuple[int, int]:
    """Reference penalty and 歡樂 multiplier of one seat, straight from the Ruleset."""
    rs = load_ruleset(row["ruleset"], json.loads(row["overrides"]))
    huanle = 1
    if rs.bonus_multipliers.value == "huanle":
        for kind, mult in HUANLE_TABLE.items():
            if kinds.get(kind, 0) >= HUANLE_MIN_PLAYS:
                huanle *= mult
    if row["outcome"] == "redeal" or row["is_winner"]:
        return 0, huanle
    n = row["cards_left"]
    hand = row["final_hand_mask"]
    if row["outcome"] == "instant_win":
        return n * 3, huanle
    p = sum(c // 4 + 3 for c in cards_of(hand)) if rs.card_points else n * rs.tier(n)
    spade_two = parse_cards("2s")[0]
    if rs.spade_two_doubles and n >= 8 and hand is not None and hand >> spade_two & 1:
        p *= 2
    if rs.first_leader_seven_doubles and row["seat"] == row["first_leader"] and n == 7:
        p *= 2
    return p, huanle


def test_penalties_match_a_python_reference(con: duckdb.DuckDBPyConnection) -> None:
    rel = con.execute(
        """
        select m.game_id, m.seat, m.penalty, m.huanle_multiplier, g.ruleset, g.overrides,
               g.outcome, g.first_leader, s.cards_left, s.final_hand_mask, s.is_winner
        from mart_game_scores as m
        join games as g using (game_id)
        join seats as s on s.game_id = m.game_id and s.seat = m.seat
        """
    )
    names = [d[0] for d in rel.description]
    rows = [dict(zip(names, r, strict=True)) for r in rel.fetchall()]
    kinds: dict[str, dict[str, int]] = {}
    for game_id, kind, n in con.execute(
        "select game_id, kind, count(*) from actions where kind is not null group by all"
    ).fetchall():
        kinds.setdefault(game_id, {})[kind] = n
    assert len(rows) > 250
    for row in rows:
        expected = python_penalty(row, kinds.get(row["game_id"], {}))
        assert (row["penalty"], row["huanle_multiplier"]) == expected, row


def test_options_are_exercised(con: duckdb.DuckDBPyConnection) -> None:
    (doubled, bonus, busted, points, tournaments) = con.execute(
        """
        select
            (select count(*) from mart_game_scores where is_spade_two_doubled),
            (select count(*) from mart_game_scores where winner_bonus_paid > 0),
            (select count(*) from mart_bankroll where is_busted),
            (select count(*) from mart_game_scores where settlement = 'penalty_points'),
            (select count(*) from mart_tournament_standings where prize_share > 0)
        """
    ).fetchone() or (0, 0, 0, 0, 0)
    assert doubled > 0 and bonus > 0 and points > 0
    assert busted > 0
    assert tournaments == 4  # cup-1 and tests/data/scoring/tournaments.jsonl pts-1


def test_no_column_is_a_hugeint(con: duckdb.DuckDBPyConnection) -> None:
    """Counts and penalties are BIGINT: a sum or list_sum of integers is DuckDB's HUGEINT,
    which Parquet writes as DECIMAL(38, 0) (pandas: Python Decimal objects); penalty,
    penalty_charged and card_points_sum of mart_game_scores, and rollup_leak_winners' counts
    were."""
    hugeints = con.execute(
        "select table_name || '.' || column_name from duckdb_columns() "
        "where data_type = 'HUGEINT' order by 1"
    ).fetchall()
    assert hugeints == []
    card_points = con.execute(
        "select count(*) from mart_game_scores where card_points_sum > 0"
    ).fetchone()
    assert card_points is not None and card_points[0] > 0  # the card_points ruleset is here


def test_ladder_titles(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.execute("select title, total_score from mart_player_standings").fetchall()
    east = con.execute(
        "select title from mart_player_standings where player_id = 'east'"
    ).fetchone()
    assert east is not None and east[0] == "处长助理"  # 7,000 ≤ score < 9,000
    assert all(t == "待业" for t, s in rows if s < 1000)


def test_whatif_under_own_rules_equals_the_mart(con: duckdb.DuckDBPyConnection) -> None:
    whatif = sqlbuild.ruleset_json("hk")
    (diff,) = con.execute(
        """
        select count(*)
        from score_seats(whatif := ?) as w
        join mart_game_scores as m using (game_id, seat)
        where m.ruleset_id = 'hk {}' and w.net is distinct from m.net
        """,
        [whatif],
    ).fetchone() or (1,)
    assert diff == 0


def scored_alone_and_of_all(macro: str, chosen: str, also: str = "count(*)") -> str:
    """A query comparing ``macro(whatif := $w, games := 'chosen')`` (the games of the select
    ``chosen``, scored alone) with ``macro(whatif := $w)``'s rows of those games: the rows only
    one side has (both ways), the rows scored alone, the aggregate ``also`` over them, and all
    the rows."""
    return f"""
        with chosen as ({chosen}),
        alone as (select * from {macro}(whatif := $w, games := 'chosen')),
        of_all as (select * from {macro}(whatif := $w) semi join chosen using (game_id))
        select
            (select count(*) from (from alone except all from of_all)),
            (select count(*) from (from of_all except all from alone)),
            (select count(*) from alone),
            (select {also} from alone),
            (select count(*) from {macro}(whatif := $w))
    """


SOME_GAMES = scored_alone_and_of_all(
    "score_seats",
    "select * from stg_games where hash(game_id) % 3 = 0 "
    "or game_id in (select game_id from mart_game_scores where huanle_multiplier > 1)",
    also="count(*) filter (where huanle_multiplier > 1)",
)


@pytest.mark.parametrize(
    "whatif",
    [
        None,
        {"preset": "hk", "bonus_multipliers": "huanle"},
        {"preset": "mainland", "settlement": "winner_takes_all"},
    ],
    ids=["own-rules", "hk-huanle", "mainland-wta"],
)
def test_score_seats_of_some_games_scores_them_as_scoring_all_does(
    con: duckdb.DuckDBPyConnection, whatif: dict[str, str] | None
) -> None:
    # score_seats(games := …), the dashboards' filtered what-ifs: each game of the subset gets
    # the very rows that scoring every game gives it (a game's score reads no other game's
    # rows), a third of the games and those with a 歡樂 multiplier
    w = None
    if whatif is not None:
        w = sqlbuild.ruleset_json(
            whatif["preset"], {k: v for k, v in whatif.items() if k != "preset"}
        )
    row = con.execute(SOME_GAMES, {"w": w}).fetchone()
    assert row is not None
    only_alone, only_of_all, n_some, n_huanle, n_all = row
    assert (only_alone, only_of_all) == (0, 0)
    assert 0 < n_some < n_all
    assert (n_huanle > 0) == (
        whatif is None or "bonus_multipliers" in whatif
    )  # 歡樂炸藥 (m2's own)


def test_rescore_winner_takes_all_sums_to_zero(con: duckdb.DuckDBPyConnection) -> None:
    whatif = sqlbuild.ruleset_json("mainland", {"settlement": "winner_takes_all"})
    rows = con.execute(
        "select game_id, sum(net) from score_seats(whatif := ?) group by 1 having abs(sum(net)) > 1e-6",
        [whatif],
    ).fetchall()
    assert rows == []
    ranks = con.execute("select count(*) from rescore_players(?)", [whatif]).fetchone()
    assert ranks is not None and ranks[0] > 10


runner = CliRunner()


def test_cli_build_and_test(wh: Warehouse, tmp_path: Path) -> None:
    copy = copy_of(wh, tmp_path)
    result = runner.invoke(app, ["build", "-w", str(copy.root), "--test", "--timings"])
    assert result.exit_code == 0, result.output
    assert "all pass" in result.output


def test_cli_rescore(wh: Warehouse) -> None:
    args = ["rescore", "--as", "mainland", "--set", "settlement=winner_takes_all"]
    result = runner.invoke(app, [*args, "-w", str(wh.root), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("player_id,n_games,own_score")
    result = runner.invoke(app, [*args, "-w", str(wh.root), "--by", "match", "--limit", "3"])
    assert result.exit_code == 0, result.output
    # a rule of the play that a scoring value needs beside it is taken (alone it is refused,
    # tests/test_cli.py)
    needs = ["-s", "missed_call_penalty=takes_all_losses", "-s", "last_card_call=required"]
    result = runner.invoke(app, ["rescore", "--as", "hk", *needs, "-w", str(wh.root)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "overrides", [{}, {"settlement": "winner_takes_all", "bankroll": True, "winner_bonus": 2}]
)
def test_the_whatif_reads_no_ruleset_key_but_the_scoring_ones(
    con: duckdb.DuckDBPyConnection, overrides: dict[str, Any]
) -> None:
    # `big2 rescore` refuses an override of any other key (E_RESCORE_KEY, a rule of the play):
    # the what-if JSON without those keys (the engine's tables kept) gives every player's and
    # match's what-if as the whole JSON does; and each scoring key is one the SQL types
    whole = json.loads(sqlbuild.ruleset_json("taiwan", overrides))
    macros = ("rescore_players", "rescore_matches")
    left = assert_whatif_reads_only_scoring_keys(con, "big2", whole, KEYS, macros, "ruleset_fields")
    assert {"suit_order", "bombs", "players", "dragon_instant_win"} <= left


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_cli_sql_formats(wh: Warehouse, fmt: str) -> None:
    query = "select game_id, seat, net from mart_game_scores where game_id = 'ex1' order by seat"
    result = runner.invoke(app, ["sql", query, "-w", str(wh.root), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert "530" in result.output
    if fmt == "json":
        assert json.loads(result.output)[3]["net"] == -910


def test_cli_sql_parquet_and_file(wh: Warehouse, tmp_path: Path) -> None:
    query = tmp_path / "q.sql"
    query.write_text("select player_id, title from mart_player_standings")
    out = tmp_path / "out.parquet"
    result = runner.invoke(
        app, ["sql", "--file", str(query), "-w", str(wh.root), "--format", "parquet"]
    )
    assert result.exit_code == 2 and "--out" in result.output
    args = ["sql", "--file", str(query), "-w", str(wh.root), "--format", "parquet", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (n,) = duckdb.connect().execute(f"select count(*) from '{out}'").fetchone() or (0,)
    assert n > 10


def test_cli_sql_is_read_only_and_sandboxed(wh: Warehouse) -> None:
    for query in (
        "select * from read_csv('/etc/passwd')",
        "create table x as select 1",
        "set enable_external_access = true",
        "copy (select 1) to '/tmp/big2-escape.csv'",
    ):
        result = runner.invoke(app, ["sql", query, "-w", str(wh.root)])
        assert result.exit_code == 2, (query, result.output)
        assert "E_SQL_QUERY" in result.output


def test_cli_sql_tables_catalogue(wh: Warehouse) -> None:
    result = runner.invoke(app, ["sql", "--tables", "-w", str(wh.root), "--format", "csv"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    described = [line for line in lines if line.startswith("mart_game_scores,") and "炒" in line]
    assert described, "mart columns carry their docs/scoring.md description"
    grains = [
        line for line in lines if line.startswith("mart_bankroll,table,*,") and "Grain:" in line
    ]
    assert grains, "each mart's header comment is its table comment"


def test_cli_sql_tables_on_the_screen_a_row_a_table_and_columns_of_one(wh: Warehouse) -> None:
    """On the screen ``--tables`` lists a row a table (every column of ~100 tables was ~6,000
    lines); ``--columns TABLE`` one table's columns; a name no table has names those close."""
    result = runner.invoke(app, ["sql", "--tables", "-w", str(wh.root)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    rows = {
        line.split()[0]: line.split() for line in result.stdout.splitlines() if line[:1].strip()
    }
    with wh.connect() as con:
        (n_columns,) = con.execute(
            "select count(*) from duckdb_columns() where table_name = 'mart_bankroll'"
        ).fetchone() or (0,)
    assert rows["mart_bankroll"][:3] == ["mart_bankroll", "table", str(n_columns)]
    assert "Grain:" in " ".join(rows["mart_bankroll"])
    assert "bao_seat" not in result.stdout  # no column listed
    assert result.stdout.rstrip().endswith("every column of every one")
    result = runner.invoke(app, ["sql", "--columns", "mart_bankroll", "-w", str(wh.root)])
    assert result.exit_code == 0, result.output
    about, table = result.stdout.split("\n\n", 1)
    assert about.startswith("mart_bankroll: Grain:")  # its whole description first
    listed = [line.split()[0] for line in table.splitlines()[2:] if line[:1].strip()]
    assert len(listed) == n_columns and "player_id" in listed
    result = runner.invoke(app, ["sql", "--columns", "mart_bankrol", "-w", str(wh.root)])
    assert result.exit_code == 2
    assert result.stderr == (
        "big2: error: E_SQL_USAGE: --columns mart_bankrol: no such table or view; "
        "did you mean mart_bankroll?\n"
    )


def test_build_writes_catalog_comments(con: duckdb.DuckDBPyConnection) -> None:
    (n, games) = con.execute(
        """
        select
            (select count(*) from duckdb_columns()
             where table_name = 'mart_game_scores' and comment is not null),
            (select comment from duckdb_columns()
             where table_name = 'stg_games' and column_name = 'bao_seat')
        """
    ).fetchone() or (0, None)
    assert n >= 20 and games is not None and "包牌" in games


DOC_QUERIES = (sqlbuild.SQL_DIR.parent / "docs" / "sql.md").read_text().split("```sql\n")[1:]


@pytest.mark.parametrize("query", [q.split("```", 1)[0] for q in DOC_QUERIES])
def test_docs_sql_examples_run(wh: Warehouse, query: str) -> None:
    """Each example runs as the docs offer it, through `big2 sql` (one statement, no SET)."""
    result = runner.invoke(app, ["sql", query, "--format", "csv", "-w", str(wh.root)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip(), "no header"


def test_docs_sql_has_a_dozen_examples() -> None:
    assert len(DOC_QUERIES) >= 12


def test_cli_ingest_builds_the_marts(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(DATA / "ex1.jsonl"), "-w", str(tmp_path / "wh")])
    assert result.exit_code == 0, result.output
    assert "SQL marts built" in result.output
    con = sqlbuild.open_readonly(Warehouse(tmp_path / "wh"))
    try:
        rows = con.execute("select net from mart_game_scores where game_id = 'ex1' order by seat")
        assert [r[0] for r in rows.fetchall()] == [530, 490, -110, -910]
    finally:
        con.close()
