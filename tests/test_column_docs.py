"""The column descriptions: one data file (``sql/columns.toml``, shipped with the SQL and read
by ``big2 build``), and the docs' column tables held to the same words, both ways."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pipeline.sqlbuild import COLUMNS_FILE, SQL_DIR, column_docs
from pipeline.warehouse import SCHEMAS

ROOT = Path(__file__).resolve().parent.parent
#: The docs whose column tables (``## <table>`` then ``| `column` | TYPE | text |`` rows)
#: describe warehouse tables and marts.
DOCS = ("warehouse.md", "scoring.md", "stats.md")


def docs_columns(name: str) -> dict[tuple[str, str], str]:
    """``{(table, column): text}`` of one doc's column tables: a row ``| `column` | text |``
    (or with a TYPE cell between) under a heading that names a table, up to the next
    heading."""
    out: dict[tuple[str, str], str] = {}
    table = ""
    for line in (ROOT / "docs" / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):  # a heading that names no table ends the table's section
            head = re.match(r"^#+ `?([a-z_]+)`?\s*$", line)
            table = head.group(1) if head else ""
            continue
        cell = re.match(r"^\| `([a-z0-9_]+)` \|(?: [A-Z][A-Z ]*\[?\]? \|)? (.+) \|$", line)
        if table and cell:
            out[(table, cell.group(1))] = cell.group(2)
    return out


def test_the_docs_and_the_data_file_say_the_same() -> None:
    data = column_docs()
    documented: dict[tuple[str, str], str] = {}
    for name in DOCS:
        for key, text in docs_columns(name).items():
            assert key not in documented, f"{key} is described twice in the docs"
            documented[key] = text
    different = {k: (v, data.get(k)) for k, v in documented.items() if data.get(k) != v}
    assert not different, f"docs vs {COLUMNS_FILE} (docs text, file text): {different}"
    extra = sorted(k for k in set(data) - set(documented) if k[1] != "*")
    assert not extra, f"{COLUMNS_FILE} describes columns no doc describes: {extra}"


def test_the_base_tables_grains_are_the_docs() -> None:
    """Each warehouse table's grain (``"*"``, the table's comment) is its docs/warehouse.md
    section's ``Grain:`` paragraph without the markdown."""
    text = (ROOT / "docs" / "warehouse.md").read_text(encoding="utf-8")
    data = column_docs()
    for table in SCHEMAS:
        section = text.split(f"\n## {table.value}\n", 1)[1]
        paragraph = section.strip().split("\n\n", 1)[0]
        assert paragraph.startswith("Grain:"), table
        plain = " ".join(re.sub(r"\*\*|`", "", paragraph).split())
        assert data[(table.value, "*")] == plain


def test_every_table_users_query_has_a_grain(tmp_path: Path) -> None:
    """``big2 sql --tables`` gives every table and view a grain line (column ``*``)."""
    from pipeline.ingest import ingest
    from pipeline.sqlbuild import build, catalogue
    from pipeline.warehouse import Warehouse

    wh = Warehouse(tmp_path / "wh")
    ingest([str(ROOT / "data" / "samples" / "games.jsonl")], wh)
    build(wh)
    con = wh.connect()
    try:
        rows = catalogue(con)
    finally:
        con.close()
    bare = sorted(table for table, _, column, text in rows if column == "*" and not text)
    assert bare == []


#: Tables every column of which ``big2 sql --tables`` describes (the warehouse's own, by
#: test_every_warehouse_column_has_a_description, and these: every mart, seed and table the
#: build writes; a new mart's columns go into sql/columns.toml and a docs column table).
FULLY_DESCRIBED = (
    "audit_obligations",
    "audit_players",
    "batches",
    "collusion_evidence",
    "collusion_ranking",
    "collusion_seat_games",
    "ddz_bidding",
    "ddz_bombs",
    "ddz_coop_actions",
    "ddz_coop_players",
    "ddz_game_scores",
    "ddz_match_standings",
    "ddz_player_standings",
    "ddz_rulesets",
    "ddz_springs",
    "ddz_stats_player_games",
    "ddz_stats_players",
    "ddz_win_rates",
    "luck_fits",
    "luck_hands",
    "luck_outcomes",
    "luck_players",
    "luck_seats",
    "mart_bankroll",
    "mart_game_playtime",
    "mart_game_scores",
    "mart_match_results",
    "mart_match_standings",
    "mart_payments",
    "mart_player_standings",
    "mart_playtime_rewards",
    "mart_tournament_games",
    "mart_tournament_problems",
    "mart_tournament_standings",
    "rank_ladder",
    "rollup_ddz_games",
    "rollup_ddz_player_days",
    "rollup_games",
    "rollup_leak_winners",
    "rollup_player_days",
    "rollup_player_gaps",
    "rollup_player_rulesets",
    "rollup_stats_player_days",
    "rulesets",
    "stats_player_games",
    "stats_players",
    "stats_seat_positions",
    "tournament_fees",
    "tournament_prizes",
)


def test_the_fully_described_marts_stay_so(tmp_path: Path) -> None:
    """Each column of these marts, as built, has its description (the 頂大 audit's had none)."""
    from pipeline.ingest import ingest
    from pipeline.sqlbuild import build
    from pipeline.warehouse import Warehouse

    wh = Warehouse(tmp_path / "wh")
    ingest([str(ROOT / "data" / "samples" / "games.jsonl")], wh)
    build(wh)
    con = wh.connect()
    try:
        bare = con.execute(
            "select table_name || '.' || column_name from duckdb_columns() "
            "where list_contains(?, table_name) and coalesce(comment, '') = '' order by 1",
            [list(FULLY_DESCRIBED)],
        ).fetchall()
        n = con.execute(
            "select count(distinct table_name) from duckdb_columns() where list_contains(?, table_name)",
            [list(FULLY_DESCRIBED)],
        ).fetchone()
    finally:
        con.close()
    assert bare == []
    assert n == (len(FULLY_DESCRIBED),)


def test_every_warehouse_column_has_a_description() -> None:
    data = column_docs()
    missing = [
        f"{table.value}.{name}"
        for table, schema in SCHEMAS.items()
        for name in schema.names
        if (table.value, name) not in data
    ]
    assert not missing, f"undescribed in {COLUMNS_FILE}: {missing}"


def test_the_data_file_is_the_checkouts_and_plain_toml() -> None:
    assert SQL_DIR == ROOT / "sql"  # a checkout reads its own sql/, not an installed copy
    data = tomllib.loads((SQL_DIR / COLUMNS_FILE).read_text(encoding="utf-8"))
    assert all(isinstance(t, str) for cols in data.values() for t in cols.values())
