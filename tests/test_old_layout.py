"""Batches written before the card texts were derived read as before, beside new ones.

``tests/data/old_layout/`` is a warehouse the code of main 7e42125 wrote (``big2 ingest
--no-build --workers 1`` of its ``games.jsonl``: 12 Big Two games, 12 Dou Dizhu games, 6
three-player stock games, three of them again without their deal): its ``seats`` and
``actions`` files store every ``*_text`` column and have no ``game_kind``. The views must give
the same rows for those files as for the same games written now, and read a warehouse holding
both (each file's footer tells its layout: ``Warehouse._view_select``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from pipeline import sqlbuild
from pipeline.cards import format_cards as big2_text
from pipeline.doudizhu.cards import format_cards as ddz_text
from pipeline.ingest import ingest
from pipeline.warehouse import SCHEMAS, Table, Warehouse
from pipeline.warehouse.tables import CARD_TEXTS, DERIVED, VIEW_NAMES, card_texts_table
from tests.test_card_text_sql import simulate

FIXTURE = Path(__file__).resolve().parent / "data" / "old_layout"
#: Each table's key, and the columns an old and a new import of one log differ in (the batch,
#: the file's path, and the game_kind the old layout did not store in actions and seats).
KEYS = {
    Table.GAMES: "game_id",
    Table.SEATS: "game_id, seat",
    Table.ACTIONS: "game_id, action_index",
    Table.TRICKS: "game_id, trick",
}
DIFFER = {
    Table.GAMES: ("batch_id", "source_file"),
    Table.SEATS: ("game_kind",),
    Table.ACTIONS: ("game_kind",),
    Table.TRICKS: (),
}
PRINTERS = {"big2": big2_text, "doudizhu": ddz_text}


def old_warehouse(tmp_path: Path) -> Warehouse:
    root = tmp_path / "old"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("games.jsonl"))
    return Warehouse(root)


def rows(wh: Warehouse, table: Table, where: str = "true") -> list[tuple[Any, ...]]:
    differ = DIFFER[table]
    exclude = f" exclude ({', '.join(differ)})" if differ else ""
    with wh.connect() as con:
        return con.execute(
            f"select *{exclude} from {table.value} where {where} order by {KEYS[table]}"
        ).fetchall()


def test_the_fixture_is_the_old_layout(tmp_path: Path) -> None:
    wh = old_warehouse(tmp_path)
    assert wh.verify() == []
    for table in (Table.SEATS, Table.ACTIONS):
        (path,) = wh.files(table)
        names = set(pq.read_schema(path).names)
        assert names - set(SCHEMAS[table].names) == {d.name for d in DERIVED[table]}
        assert set(SCHEMAS[table].names) - names == {"game_kind"}


def test_an_old_batch_reads_like_the_same_games_written_now(tmp_path: Path) -> None:
    old = old_warehouse(tmp_path)
    new = Warehouse(tmp_path / "new")
    shutil.copy(FIXTURE / "games.jsonl", tmp_path / "games.jsonl")
    assert ingest([str(tmp_path / "games.jsonl")], new).total().stored == 33
    for table in KEYS:
        (path,) = new.files(table)
        assert pq.read_schema(path).names == SCHEMAS[table].names  # no text stored
        got_old, got_new = rows(old, table), rows(new, table)
        assert len(got_old) > 30 and got_old == got_new, table
    with old.connect() as con:  # the columns, in the order of select *, for both layouts
        for table in (Table.GAMES, Table.SEATS, Table.ACTIONS):
            names = [d[0] for d in con.execute(f"select * from {table.value} limit 0").description]
            assert tuple(names) == VIEW_NAMES[table]
        for table in (Table.SEATS, Table.ACTIONS):  # not stored in the old layout
            assert con.execute(
                f"select count(*) from {table.value} where game_kind is not null"
            ).fetchone() == (0,)


def test_a_warehouse_of_old_and_new_batches(tmp_path: Path) -> None:
    """Old and new batches in one warehouse: each game's rows as in a warehouse of its layout
    alone, every text the printer's, and the marts build and pass their SQL tests."""
    old = old_warehouse(tmp_path)
    before = {table: rows(old, table) for table in KEYS}
    logs = [
        simulate(tmp_path / "b.jsonl", 8, "--seed", "21"),
        simulate(tmp_path / "d.jsonl", 8, "--ruleset", "ddz", "--seed", "22"),
    ]
    assert ingest([str(p) for p in logs], old).total().stored == 16
    alone = Warehouse(tmp_path / "alone")
    ingest([str(p) for p in logs], alone)
    assert old.verify() == []
    old_ids = "game_id not like 'sim-2%'"  # the fixture's games: seeds 7 and 3
    for table in KEYS:
        assert rows(old, table, old_ids) == before[table], table
        assert rows(old, table, f"not ({old_ids})") == rows(alone, table), table
    with old.connect() as con:
        for table in (Table.SEATS, Table.ACTIONS):
            for d in DERIVED[table]:
                got = con.execute(
                    f"select g.game_kind, t.{d.source}, t.{d.name} from {table.value} as t "
                    "join games as g using (game_id)"
                ).fetchall()
                assert {kind for kind, _, _ in got} == {"big2", "doudizhu"}
                for kind, value, text in got:
                    want = (
                        None if value is None else PRINTERS[kind](1 << value if d.card else value)
                    )
                    assert text == want, (table, d.name, kind, value)
    sqlbuild.build(old)  # the views written into warehouse.duckdb, then the marts over them
    with old.connect() as con:
        failing = {name: n for name, n in sqlbuild.run_tests(con).items() if n}
        assert failing == {}
        (n_big2,) = con.execute(
            "select count(distinct game_id) from mart_game_scores"
        ).fetchone() or (0,)
        assert n_big2 == 12 + 6 + 2 + 8  # Big Two: the fixture's (two partial) and the new
        assert rows(old, Table.ACTIONS, old_ids) == before[Table.ACTIONS]


@pytest.mark.parametrize("table", [Table.SEATS, Table.ACTIONS])
def test_the_old_files_texts_are_what_the_views_compute(table: Table) -> None:
    """The stored texts of the old files equal what the views compute from their masks (the
    views read the stored ones there)."""
    fixture = Warehouse(FIXTURE)
    (path,) = fixture.files(table)
    (games,) = fixture.files(Table.GAMES)
    with duckdb.connect() as con:
        con.register(CARD_TEXTS, card_texts_table())
        texts = 0
        for d in DERIVED[table]:
            sql = d.sql("t").replace("t.game_kind", "g.game_kind")  # no game_kind stored
            (n, same) = con.execute(
                f"select count(t.{d.name}), count(*) filter (t.{d.name} is not distinct from {sql}) "
                f"from read_parquet('{path}') as t join read_parquet('{games}') as g "
                f"using (game_id) cross join {CARD_TEXTS} as _ct"
            ).fetchone() or (0, 0)
            assert same == pq.read_metadata(path).num_rows, d.name
            texts += n
    assert texts > 0
