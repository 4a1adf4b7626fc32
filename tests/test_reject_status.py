"""Rejects a later import has resolved (``sql/marts/mart_reject_status.sql``): a club mends its
logs (in place, or converts a GBK sheet to the UTF-8 copy ``big2 ingest`` tells it to write)
and imports them again. The warehouse keeps every reject; the view tells the open ones from
those whose game a later import stored, and which import and file did. Real imports into a
real warehouse, read back through its connection."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.ingest import ingest
from pipeline.logs.encodings import converted_path
from pipeline.sim.sample import dumps, sample_game
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

SHEET = "date,match,players,cards_left,bao_seat,notes,redeal\r\n"
SHEET_ROW = "2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,,没叫最后一张,\r\n"


def status(wh: Warehouse) -> dict[tuple[str, int, str], tuple]:
    """(file name, line, code) → (is_resolved, resolved_by, resolved_game_id, resolved file
    name, resolved_line, resolved_batch_id) of every reject."""
    rows = (
        wh.connect()
        .execute(
            "select file, line, code, is_resolved, resolved_by, resolved_game_id, "
            "resolved_file, resolved_line, resolved_batch_id from mart_reject_status"
        )
        .fetchall()
    )
    out = {}
    for file, line, code, *rest in rows:
        key = (str(Path(file).relative_to(wh.root.parent)), line, code)
        assert key not in out, key
        resolved_file = rest[3] and str(Path(rest[3]).relative_to(wh.root.parent))
        out[key] = (rest[0], rest[1], rest[2], resolved_file, rest[4], rest[5])
    return out


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, str, str]:
    """A first import with rejects (and a build), then a second of the mended files, with no
    build after it (the view reads the committed files as they are); the two batch ids."""
    root = tmp_path_factory.mktemp("club")
    g1, g2, g3 = (dumps(sample_game(seed=s, game_id=f"g{s}")) for s in (1, 2, 3))
    other_g3 = dumps(sample_game(seed=4, game_id="g3"))
    log = root / "a.jsonl"  # g1 cut short (its id read), a line of no JSON, g3
    log.write_text(f"{g1[:200]}\n{{not json\n{g3}\n", encoding="utf-8")
    (root / "mainland.csv").write_bytes((SHEET + SHEET_ROW).encode("gbk"))
    wh = Warehouse(root / "wh")
    first = ingest([str(log), str(root / "mainland.csv")], wh).batch_id
    build(wh)
    # mended: in place (g1 whole, g2 where the bad line was), the sheet's UTF-8 copy where the
    # encoding hint writes it; and g3 again as another game (E_CONFLICT), g3 cut (an earlier
    # import stored g3: this record stays open)
    log.write_text(f"{g1}\n{g2}\n{g3}\n", encoding="utf-8")
    copy = converted_path(root / "mainland.csv")
    copy.parent.mkdir()
    copy.write_text(SHEET + SHEET_ROW, encoding="utf-8")
    (root / "c.jsonl").write_text(other_g3 + "\n", encoding="utf-8")
    (root / "d.jsonl").write_text(g3[:200] + "\n", encoding="utf-8")
    paths = [log, copy, root / "c.jsonl", root / "d.jsonl"]
    second = ingest([str(p) for p in paths], wh).batch_id
    return wh, first, second


def test_open_before_the_mended_files_are_imported(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="g1"))[:200] + "\n", encoding="utf-8")
    wh = Warehouse(tmp_path / "wh")
    ingest([str(log)], wh)
    build(wh)
    assert status(wh) == {("a.jsonl", 1, "E_JSON"): (False, None, None, None, None, None)}


def test_a_later_import_resolves_by_game_id_line_and_utf8_copy(
    club: tuple[Warehouse, str, str],
) -> None:
    wh, _, second = club
    got = status(wh)
    assert got[("a.jsonl", 1, "E_JSON")] == (True, "game_id", "g1", "a.jsonl", 1, second)
    assert got[("a.jsonl", 2, "E_JSON")] == (True, "line", "g2", "a.jsonl", 2, second)
    assert got[("mainland.csv", 2, "E_ENCODING")] == (
        True, "line", "m1#1", "utf8/mainland.csv", 2, second
    )  # fmt: skip


def test_conflicts_and_records_of_games_stored_before_stay_open(
    club: tuple[Warehouse, str, str],
) -> None:
    """E_CONFLICT's game id is stored (another game under it): never resolved by it; nor a
    record rejected after its id was stored (another copy, or another game)."""
    wh = club[0]
    got = status(wh)
    assert got[("c.jsonl", 1, "E_CONFLICT")] == (False, None, None, None, None, None)
    assert got[("d.jsonl", 1, "E_JSON")] == (False, None, None, None, None, None)
    assert len(got) == 5


def test_rejects_are_kept_and_the_warehouse_stays_sound(club: tuple[Warehouse, str, str]) -> None:
    """Nothing is deleted; a third import of the same files stores nothing and changes no
    status; verify finds no problem once built."""
    wh, first, second = club
    con = wh.connect()
    by_batch = dict(con.execute("select batch_id, count(*) from rejects group by 1").fetchall())
    assert by_batch == {first: 3, second: 2}
    before = status(wh)
    root = wh.root.parent
    names = ["a.jsonl", "utf8/mainland.csv", "c.jsonl", "d.jsonl"]
    again = ingest([str(root / n) for n in names], wh)
    assert again.total().stored == 0
    assert status(wh) == before
    build(wh)
    assert wh.verify() == []
    assert status(wh) == before
