"""The warehouse: row builders, batches on real Parquet, DuckDB views, crashes and verify()."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.big2.logformat import Big2Record, LogAction
from pipeline.big2.rules import load_ruleset
from pipeline.big2.state import Action, ActionRecord, ActionType, Game
from pipeline.cards import format_cards, mask_of
from pipeline.logs.model import Reject, SeatInfo, Source
from pipeline.replay import ReplayedGame
from pipeline.warehouse import (
    SCHEMAS,
    Added,
    RowBuffer,
    Table,
    Warehouse,
    WarehouseError,
    game_tables,
)
from pipeline.warehouse.known import KnownGames
from pipeline.warehouse.store import (
    CONFLICT_CODE,
    ENV_VAR,
    MANIFEST,
    ManifestFile,
    resolve_dir,
    schema_tag,
    write_part,
)

ROOT = Path(__file__).resolve().parent.parent


# ----- games played by the engine ---------------------------------------------------------
def random_game(
    seed: int,
    *,
    game_id: str | None = None,
    preset: str = "hk",
    overrides: Mapping[str, Any] | None = None,
    partial: bool = False,
    content: str = "",
) -> ReplayedGame:
    """A complete game of random legal moves; ``partial`` replays it without the deal."""
    rng = random.Random(seed)
    rs = load_ruleset(preset, dict(overrides or {}))
    deck = list(range(52))
    rng.shuffle(deck)
    size = rs.hand_size
    hands = [mask_of(deck[s * size : (s + 1) * size]) for s in range(rs.players)]
    stock = deck[size * rs.players :]
    game = Game(rs, hands=hands, stock=stock)
    logged: list[LogAction] = []
    clock = 1_800_000_000.0
    while not game.finished:
        seat = game.turn
        assert seat is not None
        plays = list(game.legal_plays())
        if plays and (game.leading or not game.can_pass() or rng.random() < 0.6):
            want = rng.choice(sorted({p.size for p in plays}))
            play = rng.choice([p for p in plays if p.size == want])
            rec = game.do(Action.play(seat, play.mask))
        else:
            rec = game.do(Action.pass_(seat))
        logged.append(LogAction(seat, rec.type, rec.cards, drawn=rec.drawn, ts=clock))
        clock += 2.5
    if partial:
        game = Game(rs)
        for la in logged:
            game.do(Action(la.seat, la.type, la.cards))
    assert game.result is not None
    gid = game_id or f"g{seed}"
    record = Big2Record(
        game_id=gid,
        content_hash=hashlib.sha256(
            f"{gid}|{seed}|{preset}|{partial}|{content}".encode()
        ).hexdigest(),
        game_kind="big2",
        ruleset=preset,
        overrides=tuple(sorted(dict(overrides or {}).items())),
        seats=tuple(SeatInfo(s, f"p{s}", f"Player {s}", 100.0) for s in range(rs.players)),
        actions=tuple(logged),
        match_id="m1",
        started_at="2027-01-15T08:00:00+00:00",
        hands=None if partial else tuple(hands),
        stock=() if partial else tuple(stock),
        source=Source("games.jsonl", seed + 1),
        raw=f'{{"game_id": "{gid}"}}',
    )
    return ReplayedGame(record=record, ruleset=rs, actions=tuple(game.history), result=game.result)


def bad(line: int, code: str = "E_BAD_JSON", raw: str = "{oops") -> Reject:
    return Reject(Source("games.jsonl", line), None, None, code, f"line {line}: broken", raw)


@pytest.fixture(scope="module")
def games() -> list[ReplayedGame]:
    return [random_game(seed) for seed in range(6)]


# ----- row builders -----------------------------------------------------------------------
def test_rows_of_a_full_game(games: list[ReplayedGame]) -> None:
    g = games[0]
    tables = game_tables([g], batch_id="b1")
    game = tables[Table.GAMES].to_pylist()[0]
    seats = tables[Table.SEATS].to_pylist()
    actions = tables[Table.ACTIONS].to_pylist()
    tricks = tables[Table.TRICKS].to_pylist()
    assert game["batch_id"] == "b1" and game["game_id"] == "g0" and game["full_info"]
    assert game["n_actions"] == len(actions) == len(g.actions)
    assert game["n_tricks"] == len(tricks) == g.result.n_tricks
    assert game["winner"] == g.result.winner and game["players"] == len(seats) == 4
    assert game["ruleset"] == "hk" and json.loads(game["overrides"]) == {}
    assert [s["is_winner"] for s in seats].count(True) == 1
    assert all(s["deal_mask"].bit_count() == 13 for s in seats)
    assert [s["deal_text"] for s in seats] == [format_cards(h) for h in g.record.hands or ()]
    assert [s["cards_left"] for s in seats] == list(g.result.cards_left)
    winner = seats[g.result.winner or 0]
    assert winner["final_hand_mask"] == 0 and winner["final_hand_text"] == ""
    for row, rec in zip(actions, g.actions, strict=True):
        assert row["cards_mask"] == rec.cards and row["cards_text"] == format_cards(rec.cards)
        assert row["cards_left"] == list(rec.cards_left)
        assert row["hand_before_mask"] == rec.hand_before
        assert row["action_type"] == rec.type.value
        assert (row["kind"] is None) == (rec.type == ActionType.PASS)
    assert actions[0]["ts"] is not None and actions[0]["ts"].year == 2027
    assert actions[-1]["wins_game"] and tricks[-1]["ends_game"]
    assert tricks[0]["leader"] == game["first_leader"] == actions[0]["seat"]
    assert sum(t["n_actions"] for t in tricks) == len(actions)
    assert tricks[-1]["winner"] == game["winner"]


def test_rows_of_a_partial_game() -> None:
    g = random_game(3, partial=True)
    tables = game_tables([g])
    game = tables[Table.GAMES].to_pylist()[0]
    assert not game["full_info"]
    seats = tables[Table.SEATS].to_pylist()
    assert {s["deal_mask"] for s in seats} == {None}
    assert {s["final_hand_text"] for s in seats} == {None}
    actions = tables[Table.ACTIONS].to_pylist()
    assert all(a["hand_before_mask"] is None and "hand" in a["unchecked"] for a in actions)


def test_rows_of_a_three_player_stock_game() -> None:
    g = random_game(11, overrides={"players": 3, "three_player_mode": "stock_13"})
    tables = game_tables([g])
    game = tables[Table.GAMES].to_pylist()[0]
    assert game["players"] == 3 and json.loads(game["overrides"])["players"] == 3
    assert tables[Table.SEATS].num_rows == 3
    drawn = [a for a in tables[Table.ACTIONS].to_pylist() if a["drawn"] is not None]
    assert all(a["drawn_text"] == format_cards(1 << a["drawn"]) for a in drawn)


def test_rows_of_records_that_are_not_named_tuples(
    games: list[ReplayedGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.warehouse.rows_big2 as rows_big2

    expected = game_tables(games[:2])
    monkeypatch.setattr(rows_big2, "_RECORDS_ARE_ROWS", False)
    assert game_tables(games[:2]) == expected


# ----- batches, DuckDB --------------------------------------------------------------------
def test_write_a_batch_and_read_it_through_duckdb(
    tmp_path: Path, games: list[ReplayedGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    with wh.batch(meta={"files": ["games.jsonl"]}) as batch:
        assert [batch.add_game(g) for g in games] == [Added.STORED] * len(games)
        assert batch.add_reject(bad(99)) == Added.STORED
    assert wh.verify(marts=False) == []
    (entry,) = wh.entries()
    assert entry.meta == {"files": ["games.jsonl"]} and entry.counts["stored"] == len(games)
    assert {f.table for f in entry.files} == {t.value for t in Table}
    n_actions = sum(len(g.actions) for g in games)
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (len(games),)
        assert con.execute("select sum(n_actions) from games").fetchone() == (n_actions,)
        assert con.execute("select count(*) from actions").fetchone() == (n_actions,)
        row = con.execute(
            "select s.player_id, g.winner from games g join seats s "
            "on s.game_id = g.game_id and s.is_winner where g.game_id = 'g1'"
        ).fetchone()
        assert row == (f"p{games[1].result.winner}", games[1].result.winner)
        assert con.execute("select code, line from rejects").fetchall() == [("E_BAD_JSON", 99)]
        assert con.execute("select count(*) from batches").fetchone() == (1,)
    # what `duckdb data/warehouse/warehouse.duckdb` sees, from another working directory
    monkeypatch.chdir(tmp_path)
    with duckdb.connect(str(wh.db_path), read_only=True) as con:
        assert con.execute("select count(*) from seats").fetchone() == (4 * len(games),)


def test_partial_information_reads_as_nulls(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(random_game(4, partial=True))
        batch.add_game(random_game(5, overrides={"players": 3, "three_player_mode": "stock_13"}))
    assert wh.verify(marts=False) == []
    with wh.connect() as con:
        rows = con.execute(
            "select g.game_id, g.players, count(s.deal_mask), count(s.final_hand_text) "
            "from games g join seats s using (game_id) group by all order by 1"
        ).fetchall()
        assert rows == [("g4", 4, 0, 0), ("g5", 3, 3, 3)]
        (unchecked,) = con.execute(
            "select list_distinct(flatten(list(unchecked))) from actions where game_id = 'g4'"
        ).fetchone() or (None,)
        assert "hand" in unchecked


def test_views_read_one_schema_without_opening_every_footer(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    """Files tagged with the schema they were written with are read as one ``read_parquet``
    (DuckDB binds it from one footer, not every file's: 44 s and 170 MB for 8,000 part files
    with ``union_by_name``); untagged files, as committed before the tags, still read by name,
    a column they lack NULL."""
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
    (old,) = wh.entries()  # made into a batch of an older version: no winner column, no tags
    files = []
    for f in old.files:
        path = wh.root / f.path
        if f.table == "games":
            pq.write_table(pq.read_table(path).drop_columns(["winner"]), path)
        data = path.read_bytes()
        files.append(
            ManifestFile(f.table, f.path, hashlib.sha256(data).hexdigest(), f.rows, len(data))
        )
    line = json.loads(replace(old, files=tuple(files)).to_json())
    assert all(f["schema"] == "" for f in line["files"])
    for f in line["files"]:
        del f["schema"]
    (wh.root / MANIFEST).write_text(json.dumps(line) + "\n", encoding="utf-8")
    with wh.batch() as batch:
        batch.add_game(games[1])
        batch.add_game(games[2])
    new = wh.entries()[1]
    assert {f.schema for f in new.files} == {schema_tag(f.table) for f in new.files}
    assert wh.verify(marts=False) == []
    with wh.connect() as con:
        rows = con.execute("select game_id, winner from games order by 1").fetchall()
        assert rows == [("g0", None)] + [(g.record.game_id, g.result.winner) for g in games[1:3]]
        assert con.execute("select count(*) from seats").fetchone() == (12,)
    with duckdb.connect(str(wh.db_path), read_only=True) as con:
        views = dict(con.execute("select view_name, sql from duckdb_views()").fetchall())
    assert views["games"].count("union_by_name") == 1  # the old batch's file only
    wh2 = Warehouse(tmp_path / "fresh")  # a warehouse of tagged files only
    with wh2.batch() as batch:
        batch.add_game(games[4])
    with wh2.batch() as batch:
        batch.add_game(games[5])
    with duckdb.connect(str(wh2.db_path), read_only=True) as con:
        views = dict(con.execute("select view_name, sql from duckdb_views()").fetchall())
    assert all("union_by_name" not in views[t.value] for t in Table), views["games"]
    with wh2.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (2,)


def test_part_files_keep_dictionaries_and_statistics_where_they_pay(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    """No dictionary on a column of one value a row (a game's id in games, a hand before an
    action), no min/max statistics on masks and texts; game ids keep both in actions (a game's
    rows are found by them)."""
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        for g in games:
            batch.add_game(g)

    def column(table: Table, name: str) -> Any:
        meta = pq.read_metadata(wh.files(table)[0]).row_group(0)
        (i,) = [i for i in range(meta.num_columns) if meta.column(i).path_in_schema == name]
        return meta.column(i)

    def has_dictionary(col: Any) -> bool:
        return "RLE_DICTIONARY" in col.encodings or "PLAIN_DICTIONARY" in col.encodings

    assert not has_dictionary(column(Table.GAMES, "game_id"))
    assert has_dictionary(column(Table.ACTIONS, "game_id"))
    assert column(Table.ACTIONS, "game_id").statistics.has_min_max
    assert not has_dictionary(column(Table.ACTIONS, "hand_before_text"))
    for name in ("hand_before_text", "cards_mask"):
        stats = column(Table.ACTIONS, name).statistics
        assert stats is None or not stats.has_min_max
    with wh.connect() as con:
        row = con.execute("select count(*) from actions where game_id = 'g3'").fetchone()
    assert row == (len(games[3].actions),)


def test_empty_warehouse_has_typed_empty_views(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with wh.connect() as con:
        for table in Table:
            assert con.execute(f"select count(*) from {table.value}").fetchone() == (0,)
        cols = con.execute("describe actions").fetchall()
        assert ("cards_left", "TINYINT[]") in [(c[0], c[1]) for c in cols]


def test_row_groups_flush_and_batches_add_up(tmp_path: Path, games: list[ReplayedGame]) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch(flush_every=2) as batch:
        for g in games[:5]:
            batch.add_game(g)
    with wh.batch() as batch:
        batch.add_game(games[5])
    (games_file,) = wh.files(Table.GAMES)[:1]
    assert pq.ParquetFile(games_file).num_row_groups == 3
    assert len(wh.known_index()) == 6 and wh.verify(marts=False) == []
    with wh.connect() as con:
        assert con.execute("select count(distinct batch_id) from games").fetchone() == (2,)


def test_reimport_stores_nothing_new_and_conflicts_are_rejects(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        for g in games[:3]:
            batch.add_game(g)
        batch.add_reject(bad(7))
    with wh.batch() as batch:
        assert [batch.add_game(g) for g in games[:3]] == [Added.DUPLICATE] * 3
        assert batch.add_reject(bad(7)) == Added.DUPLICATE
        changed = random_game(0, content="edited")
        assert batch.add_game(changed) == Added.CONFLICT
        assert batch.add_game(games[3]) == Added.STORED
        assert batch.add_game(games[3]) == Added.DUPLICATE  # twice in one batch
        summary = batch.commit()
    assert (summary.stored, summary.duplicates, summary.conflicts, summary.rejects) == (1, 4, 1, 1)
    assert summary.duplicate_rejects == 1 and summary.views_error is None
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (4,)
        rows = con.execute(
            "select file, line, game_id, raw from rejects where code = ?", [CONFLICT_CODE]
        )
        assert rows.fetchall() == [("games.jsonl", 1, "g0", '{"game_id": "g0"}')]
    assert wh.verify(marts=False) == []


def test_rows_built_elsewhere_are_deduplicated(tmp_path: Path, games: list[ReplayedGame]) -> None:
    """The parallel path: workers fill RowBuffers, the importer adds their tables."""
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
        batch.add_game(games[2])
    worker = RowBuffer("ignored")
    assert worker.add_game(games[0]) and worker.add_game(games[1])
    assert not worker.add_game(games[1])  # a buffer never holds a game twice
    assert worker.add_game(random_game(2, content="other"))  # g2 with other content
    worker.add_reject(bad(8))
    with pytest.raises(WarehouseError, match="E_BATCH_ROWS"), wh.batch() as batch:
        batch.add_rows({Table.GAMES: pa.concat_tables([game_tables(games[:1])[Table.GAMES]] * 2)})
    with wh.batch() as batch:
        counts = batch.add_rows(worker.take())
        summary = batch.commit()
    assert counts == {Added.STORED: 1, Added.DUPLICATE: 1, Added.CONFLICT: 1}
    assert (summary.stored, summary.duplicates, summary.conflicts, summary.rejects) == (1, 1, 1, 2)
    assert wh.verify(marts=False) == []
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (3,)
        n_actions = sum(len(g.actions) for g in games[:3])
        assert con.execute("select count(*) from actions").fetchone() == (n_actions,)
        conflict = con.execute(
            "select file, line, game_id from rejects where code = ?", [CONFLICT_CODE]
        ).fetchall()
        assert conflict == [("games.jsonl", 3, "g2")]


def test_part_files_a_worker_wrote_are_deduplicated_then_committed(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    """The import's path: each chunk writes its part files (leaving out the stored games);
    the batch judges the rest against its own games and rewrites a part holding a repeat."""
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
    with wh.batch() as batch:
        spec = batch.part_spec()
        assert Path(spec.known).is_file()  # the stored games, for the workers to read
        first = write_part(
            spec, batch.new_part(), game_tables([games[0], games[1]], batch_id=spec.batch_id)
        )
        assert [g.game_id for g in first.stored] == ["g0"] and len(first.keys) == 1
        assert batch.add_part(first) == {Added.STORED: 1, Added.DUPLICATE: 1, Added.CONFLICT: 0}
        other = random_game(1, content="other")  # g1 again, other content, and g3 new
        second = write_part(
            spec, batch.new_part(), game_tables([other, games[3]], batch_id=spec.batch_id)
        )
        assert len(second.keys) == 2  # not stored before the batch: the batch decides
        assert batch.add_part(second) == {Added.STORED: 1, Added.DUPLICATE: 0, Added.CONFLICT: 1}
        third = write_part(
            spec, batch.new_part(), game_tables([games[1]], batch_id=spec.batch_id)
        )  # g1 a third time
        assert batch.add_part(third) == {Added.STORED: 0, Added.DUPLICATE: 1, Added.CONFLICT: 0}
        assert not list(tmp_path.glob("*/*.part-00003.*"))  # nothing left of that part
        summary = batch.commit()
    assert (summary.stored, summary.duplicates, summary.conflicts) == (2, 2, 1)
    names = sorted(f.path for f in summary.files)
    assert "games/batch-" + summary.batch_id + ".part-00002.parquet" in names
    assert not list(tmp_path.glob("*/*.tmp")) and wh.verify(marts=False) == []
    with wh.connect() as con:
        assert con.execute("select game_id from games order by 1").fetchall() == [
            ("g0",),
            ("g1",),
            ("g3",),
        ]
        n_actions = sum(len(g.actions) for g in (games[0], games[1], games[3]))
        assert con.execute("select count(*) from actions").fetchone() == (n_actions,)
        conflict = con.execute("select game_id from rejects where code = ?", [CONFLICT_CODE])
        assert conflict.fetchall() == [("g1",)]


def test_an_aborted_batch_deletes_its_part_files(tmp_path: Path, games: list[ReplayedGame]) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(RuntimeError), wh.batch() as batch:
        spec = batch.part_spec()
        batch.add_part(write_part(spec, batch.new_part(), game_tables(games[:2])))
        write_part(spec, batch.new_part(), game_tables(games[2:4]))  # never handed in
        raise RuntimeError("stop")
    assert sorted(p for p in tmp_path.rglob("*") if p.is_file() and p.name != ".lock") == []
    assert wh.entries() == []


def test_exception_inside_a_batch_aborts_it(tmp_path: Path, games: list[ReplayedGame]) -> None:
    wh = Warehouse(tmp_path)
    with pytest.raises(RuntimeError), wh.batch(flush_every=1) as batch:
        batch.add_game(games[0])
        raise RuntimeError("parser blew up")
    assert wh.entries() == [] and wh.orphans() == [] and wh.verify(marts=False) == []
    with pytest.raises(WarehouseError, match="E_BATCH_CLOSED"):
        batch.add_game(games[0])


def test_crash_before_the_manifest_commit_leaves_the_previous_batches(
    tmp_path: Path, games: list[ReplayedGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])

    def crash(self: Warehouse, entry: object) -> None:
        raise OSError("disk unplugged")

    with monkeypatch.context() as m:
        m.setattr(Warehouse, "_commit_manifest", crash)
        with pytest.raises(OSError, match="unplugged"), wh.batch() as batch:
            batch.add_game(games[1])
            batch.add_reject(bad(3))
    assert len(wh.entries()) == 1
    orphans = {p.parent.name for p in wh.orphans()}
    assert orphans == {"games", "seats", "actions", "tricks", "rejects"}
    with wh.connect() as con:
        assert con.execute("select game_id from games").fetchall() == [("g0",)]
        assert con.execute("select count(*) from rejects").fetchone() == (0,)
    assert {p.code for p in wh.verify(marts=False)} == {"E_ORPHAN_FILE"}
    with wh.batch() as batch:  # the next import deletes the orphans and completes
        assert batch.add_game(games[1]) == Added.STORED
    assert wh.orphans() == [] and wh.verify(marts=False) == []
    known = wh.known_index()
    assert len(known) == 2 and None not in known.lookup(["g0", "g1"])


def test_process_killed_mid_commit(tmp_path: Path, games: list[ReplayedGame]) -> None:
    """A real kill (os._exit, no cleanup) after the files are renamed, before the manifest."""
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
    script = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_warehouse import random_game
from pipeline.warehouse import Warehouse
Warehouse._commit_manifest = lambda self, entry: os._exit(9)
with Warehouse({str(tmp_path)!r}).batch() as batch:
    batch.add_game(random_game(1))
"""
    proc = subprocess.run([sys.executable, "-c", script], check=False, timeout=120)
    assert proc.returncode == 9
    assert len(wh.entries()) == 1 and len(wh.orphans()) == 4  # no rejects file
    with wh.batch() as batch:  # the lock died with the process
        batch.add_game(games[1])
    assert wh.verify(marts=False) == [] and len(wh.entries()) == 2


def test_torn_manifest_line_is_ignored_then_repaired(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
    with (tmp_path / MANIFEST).open("ab") as f:
        f.write(b'{"batch_id": "torn", "files": [')
    assert len(wh.entries()) == 1 and wh.verify(marts=False) == []
    with wh.batch() as batch:
        batch.add_game(games[1])
    lines = (tmp_path / MANIFEST).read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["batch_id"] != "torn" for line in lines)


def test_one_import_at_a_time(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch(), pytest.raises(WarehouseError, match="E_WAREHOUSE_BUSY"):
        wh.batch()
    with wh.batch():  # released
        pass


def test_a_reader_holding_the_database_does_not_stop_a_commit(
    tmp_path: Path, games: list[ReplayedGame]
) -> None:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
    reader = wh.connect()  # a dashboard holding the database
    with wh.batch() as batch:
        batch.add_game(games[1])
        summary = batch.commit()
    assert summary.views_error is None  # the new views go to a new file (os.replace)
    assert reader.execute("select count(*) from games").fetchone() == (1,)  # old snapshot
    reader.close()
    with wh.connect() as con:
        assert con.execute("select count(*) from games").fetchone() == (2,)


def test_unusable_warehouse_is_a_named_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    wh = Warehouse(tmp_path / "file" / "wh")
    with pytest.raises(WarehouseError, match="E_WAREHOUSE: cannot write to"):
        wh.batch()
    with pytest.raises(WarehouseError, match="E_WAREHOUSE: cannot read"):
        wh.connect()


def test_warehouse_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    assert Warehouse().root == (tmp_path / "env").resolve()
    assert Warehouse(tmp_path / "arg").root == (tmp_path / "arg").resolve()
    monkeypatch.delenv(ENV_VAR)
    assert resolve_dir() == Path("data/warehouse")


# ----- verify -----------------------------------------------------------------------------
@pytest.fixture
def two_batches(tmp_path: Path, games: list[ReplayedGame]) -> Warehouse:
    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        batch.add_game(games[0])
        batch.add_game(games[1])
    with wh.batch() as batch:
        batch.add_game(games[2])
        batch.add_reject(bad(5))
    assert wh.verify(marts=False) == []
    return wh


def test_verify_finds_a_deleted_file(two_batches: Warehouse) -> None:
    wh = two_batches
    wh.files(Table.ACTIONS)[1].unlink()
    problems = wh.verify(marts=False)
    assert [p.code for p in problems] == ["E_FILE_MISSING", "E_ACTION_ROWS"]
    assert "actions/batch-" in str(problems[0]) and "'g2'" in problems[1].message


def test_verify_finds_rows_of_no_game(two_batches: Warehouse) -> None:
    # the second batch's games file lost: its game's seats, actions and tricks rows are orphans
    # (counted per game), and no count check speaks of a game it cannot see
    wh = two_batches
    with wh.connect() as con:
        n = dict(con.execute("select 'seats', count(*) from seats where game_id = 'g2' union all "
                             "select 'actions', count(*) from actions where game_id = 'g2' union all "
                             "select 'tricks', count(*) from tricks where game_id = 'g2'").fetchall())  # fmt: skip
    assert min(n.values()) > 0
    wh.files(Table.GAMES)[1].unlink()
    problems = wh.verify(marts=False)
    assert [p.code for p in problems] == ["E_FILE_MISSING"] + ["E_ORPHAN_ROWS"] * 3
    assert [p.message for p in problems[1:]] == [
        f"game 'g2' has {n[child]} {child} rows but no games row"
        for child in ("seats", "actions", "tricks")
    ]


def test_verify_finds_a_corrupted_file(two_batches: Warehouse) -> None:
    path = two_batches.files(Table.SEATS)[0]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    codes = [p.code for p in two_batches.verify(marts=False)]
    assert codes == ["E_CHECKSUM", "E_SEAT_ROWS", "E_SEAT_ROWS"]


def test_verify_finds_a_game_stored_twice(
    two_batches: Warehouse, games: list[ReplayedGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = two_batches
    # no duplicate detection: no index saved, none read
    monkeypatch.setattr(Warehouse, "saved_known", lambda self: None)
    monkeypatch.setattr(Warehouse, "read_known", lambda self: KnownGames())
    with wh.batch() as batch:
        batch.add_game(games[1])
    problems = wh.verify(marts=False)
    assert [p.code for p in problems] == ["E_DUPLICATE_GAME"]
    assert problems[0].message == "game 'g1' is stored 2 times"


def test_verify_finds_an_orphan_and_a_bad_manifest_line(two_batches: Warehouse) -> None:
    wh = two_batches
    (wh.root / "games" / "batch-x.parquet.tmp").write_bytes(b"half")
    with wh.manifest_path.open("a") as f:
        f.write("not json\n")
    assert sorted(p.code for p in wh.verify(marts=False)) == ["E_MANIFEST", "E_ORPHAN_FILE"]
    with pytest.raises(WarehouseError, match="E_MANIFEST"):
        wh.batch()


# ----- with the real log reader and replay ------------------------------------------------
def test_sample_games_through_replay_into_the_warehouse(tmp_path: Path) -> None:
    from pipeline.big2.logformat import record_from_obj
    from pipeline.logs.records import content_hash
    from pipeline.replay import replay
    from pipeline.sim.sample import sample_game

    wh = Warehouse(tmp_path)
    with wh.batch() as batch:
        for seed in range(3):
            obj = sample_game(seed=seed, game_id=f"s{seed}")
            record = record_from_obj(
                obj, source=Source("s.jsonl", seed + 1), raw="", content_hash=content_hash(obj)
            )
            done = replay(record)
            assert isinstance(done, ReplayedGame)
            batch.add_game(done)
    assert wh.verify(marts=False) == []
    with wh.connect() as con:
        assert con.execute("select count(*) from games where full_info").fetchone() == (3,)
        assert con.execute("select count(*) from actions where ts is null").fetchone() == (0,)


# ----- the docs ---------------------------------------------------------------------------
def test_docs_describe_every_column() -> None:
    from pipeline.warehouse import SCHEMAS

    text = (ROOT / "docs" / "warehouse.md").read_text(encoding="utf-8")
    sections = {s.split("\n", 1)[0].strip("` "): s for s in text.split("\n## ")[1:]}
    for table, schema in SCHEMAS.items():
        section = sections[table.value]
        missing = [n for n in schema.names if f"`{n}`" not in section]
        assert not missing, f"{table.value}: undocumented columns {missing}"


def test_default_location_is_ignored_by_git() -> None:
    assert "data/warehouse/" in (ROOT / ".gitignore").read_text().splitlines()
    assert os.sep == "/"  # fcntl locks: POSIX only


def test_known_games_index_agrees_with_a_dict_across_merges(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The compact index (two sorted levels of arrays, the large one in buckets) answers like a
    plain dict, before and after merges and once saved, for ids known, unknown, on the edges
    of buckets, and sharing a high word with another id."""
    import random

    import numpy as np

    from pipeline.warehouse import known as known_module

    monkeypatch.setattr(known_module, "MERGE_AT", 7)  # merge often
    rng = random.Random(1)
    stored = {f"id-{rng.random()}": f"{rng.getrandbits(256):064x}" for _ in range(300)}
    items = list(stored.items())
    index = KnownGames([g for g, _ in items[:25]], [h for _, h in items[:25]])
    for start in range(25, len(items), 11):  # chunks, like an import
        chunk = items[start : start + 11]
        assert index.lookup([g for g, _ in chunk]) == [None] * len(chunk)
        index.add([g for g, _ in chunk], [h for _, h in chunk])
    assert len(index) == len(stored)
    assert index.lookup(list(stored)) == [h[:16] for h in stored.values()]
    assert index.lookup([f"never-{i}" for i in range(100)]) == [None] * 100

    # a forced high-word collision: two ids with one high word, both found by their low word
    real_keys = known_module._id_keys

    def colliding(ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        hi, lo = real_keys(ids)
        return np.zeros_like(hi), lo

    # keys on each side of every bucket's edge, merged into the buckets in several steps
    # and not, saved and mapped back: each found with its own content prefix
    edges = known_module._EDGES.astype(object).tolist()
    highs = sorted({0, 2**64 - 1, *edges, *(e - 1 for e in edges), *(e + 1 for e in edges)})
    keys = np.array([[h, i, 1000 + i] for i, h in enumerate(highs)], dtype=np.uint64)
    order = list(range(len(keys)))
    rng.shuffle(order)
    for merged_at in (7, 10**6):  # merged in steps, or all in the small level
        monkeypatch.setattr(known_module, "MERGE_AT", merged_at)
        edge_index = KnownGames()
        for start in range(0, len(order), 40):
            edge_index.add_keys(keys[order[start : start + 40]])
        other = keys.copy()
        other[:, 1] += np.uint64(1)  # the same high words, other ids
        path = tmp_path / f"known-{merged_at}.npy"
        edge_index.save(path)
        for idx in (edge_index, KnownGames.load(path)):
            verdicts, prefixes = idx.judge(keys)
            assert verdicts.tolist() == [known_module.SAME] * len(keys)
            assert prefixes.tolist() == keys[:, 2].tolist()
            assert idx.judge(other)[0].tolist() == [known_module.NEW] * len(keys)
        assert np.load(path).tolist() == keys[np.argsort(keys[:, 0])].T.tolist()

    monkeypatch.setattr(known_module, "_id_keys", colliding)
    clash = KnownGames(["a", "b", "c"], ["1" * 64, "2" * 64, "3" * 64])
    assert clash.lookup(["c", "a", "b", "d"]) == [
        "3" * 16,
        "1" * 16,
        "2" * 16,
        None,
    ]


# ----- one column definition, one door ----------------------------------------------------
def test_schemas_and_row_builder_read_one_column_definition(games: list[ReplayedGame]) -> None:
    """COLUMNS is the one list: the schemas are made from it, every ActionRecord field of
    each stored game is an actions input, and the built tables have exactly its columns."""
    from pipeline.warehouse import rows_big2, tables

    for table, columns in tables.COLUMNS.items():
        assert SCHEMAS[table].names == [c.name for c in columns]
    assert tables.check_columns() == []
    assert set(rows_big2.ACTION_FIELDS) == set(ActionRecord._fields)
    assert set(rows_big2.ACTION_FIELDS) <= set(tables.ACTION_INPUTS)
    built = game_tables(games[:2])
    for table, arrow in built.items():
        assert arrow.schema == SCHEMAS[table]


def test_add_game_and_add_rows_decide_alike(tmp_path: Path, games: list[ReplayedGame]) -> None:
    """The same records through add_game or through add_rows: the same verdicts and counts,
    and the same rejects (add_rows has no raw text); rejects rows stored as given."""
    seen: list[tuple[object, ...]] = []
    for way in ("game", "rows"):
        wh = Warehouse(tmp_path / way)
        with wh.batch() as batch:
            batch.add_game(games[0])
            batch.add_game(games[1])
        later = [games[0], random_game(1, content="other"), games[2]]
        with wh.batch() as batch:
            if way == "game":
                verdicts = [batch.add_game(g) for g in later]
                batch.add_reject(bad(4))
            else:
                buf = RowBuffer(batch.batch_id)
                for g in later:
                    buf.add_game(g)
                buf.add_reject(bad(4))
                counts = batch.add_rows(buf.take())
                verdicts = [v for v in Added for _ in range(counts[v])]
            summary = batch.commit()
        with wh.connect() as con:
            rejects = con.execute(
                "select file, line, game_id, code, message from rejects order by all"
            ).fetchall()
            (batch_ids,) = con.execute("select list(distinct batch_id) from rejects").fetchone()
        assert batch_ids == [summary.batch_id]
        seen.append((sorted(verdicts), summary.stored, summary.conflicts, rejects))
    assert seen[0] == seen[1]
    assert seen[0][0] == sorted([Added.DUPLICATE, Added.CONFLICT, Added.STORED])
