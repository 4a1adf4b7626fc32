"""A games-CSV row's Big Two or Dou Dizhu object made by the core (``big2_native.CsvGameHeads``,
issue 15) is the one the Python reader makes (``_game_obj`` then ``json_line``), byte for byte, or the
core leaves the row to it: never another text."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.logs.csv_logs import (
    GAME_COLUMNS,
    LogFormatError,
    _game_obj,
    _GameRow,
    _GamesHeader,
    json_line,
    optional_game_columns,
)
from tests.native import NEEDS_CORE

pytestmark = NEEDS_CORE

#: Every games column either game reads, and one neither does.
COLUMNS = (*GAME_COLUMNS, *optional_game_columns(), "server_region")

#: Cells as exports write them, and the ways a cell leaves doubt: spaces inside and around,
#: signs, underscores and other digits Python's int reads, quotes, escapes, control
#: characters, Unicode spaces, other games' kinds, overrides that are not {}.
ODD_CELLS = [
    "", "hk", "big2", "doudizhu", "{}", " {} ", '{"a": 1}', "0", "1", "3", "-0", "007", "+2", "1_0",
    "١", "2|3", "1|3|0|1", "13|13|13|13", " 1|2", "p0|p1|p2|p3", "p0| p1 |p2", "Ann|Bo|Cy|Di",
    "Ann||Cy|", "3d 3c|4d|5h|6s", "T-1", "2026-11-01T12:00:00+00:00", " g7 ", "\u00a0g7", "a\tb",
    'say "hi"', "back\\slash", "é♦", "x\x00y", "\x1f", "99999999999999999999", "landlord",
]  # fmt: skip
CELLS = st.one_of(
    st.sampled_from(ODD_CELLS),
    st.text(st.sampled_from('ab 0123456789|-+_{}":\\\t\u00a0\u3000é♦\x7f'), max_size=12),
)


def _heads(header: _GamesHeader) -> object:
    return native.csv_games.game_heads(*header.layout())


def _python(row: _GameRow) -> str | None:
    """The Python reader's object text, without its closing brace (None: no such text)."""
    try:
        text = json_line(_game_obj(row))
    except (LogFormatError, ValueError):  # a row's error, or cells the header has not
        return None
    return None if text is None else text[:-1].decode()


def _line(cells: list[str], quoting: int = csv.QUOTE_MINIMAL) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n", quoting=quoting).writerow(cells)
    return out.getvalue().rstrip("\n")


#: How a row's line is written: its cells joined by commas, as ``csv.writer`` quotes them, or
#: every cell in quotes (as R's ``write.csv`` and database exports write text).
WRITTEN = st.sampled_from(["joined", "minimal", "all"])


#: Each column's cells as an export writes them (most rows are so; other games' columns and
#: unknown ones blank), some with spaces the reader strips.
PLAUSIBLE: dict[str, list[str]] = {
    "game_id": ["g1", " g1 "],
    "ruleset": ["hk", "taiwan"],
    "players": ["p0|p1|p2|p3", " p0 | p1 |p2", "p0"],
    "names": ["Ann|Bo|Cy|Di", "Ann||Cy", " A | B "],
    "game_kind": ["", "big2", "doudizhu"],
    "overrides": ["", "{}"],
    "match_id": ["m1", ""],
    "table_id": ["t-1", ""],
    "tournament_id": ["cup", ""],
    "tournament_kind": ["knockout", ""],
    "tournament_round": ["2", ""],
    "game_number": ["1", "12", ""],
    "started_at": ["2026-11-01T12:00:00+00:00", ""],
    "hands": ["3d 3c 4d|5h 5s|3s|3h 6c", "3d|4d"],
    "stock": ["", "2d"],
    "winner": ["2", "0", ""],
    "start_counts": ["13|13|13|13", ""],
    "previous_winner": ["1", ""],
    "first_leader": ["0", ""],
    "cards_left": ["1|3|0|1", "0|2", ""],
    "kitty": ["5♥ 8♣ 8♥", ""],
    "set_aside": ["3d 4d", ""],
    "face_up_card": ["7♠", ""],
    "first_bidder": ["0", "2", ""],
    "outcome": ["played_out", "all_pass", ""],
    "landlord": ["0", "1", ""],
    "base": ["3", ""],
    "landlord_won": ["true", "false", "True", ""],
    "bombs": ["0", "2", ""],
    "rockets": ["1", ""],
    "spring": ["spring", ""],
    "multiplier": ["1", "8", ""],
    "amount": ["6", "-12", "1.5", ""],
    "scores": ["6|-3|-3", "1.5|-1.5", ""],
}


def _drawn(names: list[str], data: st.DataObject, odd: Callable[[int], bool]) -> list[str]:
    """A cell for each column: as an export writes it, or (the ``k``-th where ``odd(k)``)
    that or anything."""
    plausible = [st.sampled_from(PLAUSIBLE.get(name, [""])) for name in names]
    return [data.draw(st.one_of(p, CELLS) if odd(k) else p) for k, p in enumerate(plausible)]


@settings(max_examples=500, deadline=None)
@given(
    names=st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=14),
    data=st.data(),
    written=WRITTEN,
)
def test_core_head_is_pythons_or_none(names: list[str], data: st.DataObject, written: str) -> None:
    """Any header (columns repeated, other games' and unknown ones), each cell as an export
    writes it or anything: the core's text is the Python reader's, or None. ``written``: the
    row's line as its cells joined by commas, as ``csv.writer`` quotes them, or all quoted."""
    cells = _drawn(names, data, lambda k: k % 3 != 0)
    _same_or_none(names, cells, written)


#: A Dou Dizhu games CSV's columns (those `pipeline.sim.sample.ddz_csv_text` writes and more).
DDZ_COLUMNS = (
    "game_id", "ruleset", "overrides", "players", "names", "match_id", "game_number", "hands",
    "kitty", "set_aside", "face_up_card", "first_bidder", "outcome", "landlord", "base", "winner",
    "landlord_won", "bombs", "rockets", "spring", "multiplier", "amount", "scores", "stock",
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(st.sampled_from(DDZ_COLUMNS), min_size=1, max_size=24),
    data=st.data(),
    written=WRITTEN,
)
def test_core_dou_dizhu_head_is_pythons_or_none(
    names: list[str], data: st.DataObject, written: str
) -> None:
    """The same on Dou Dizhu rows (``game_kind`` doudizhu, the other columns Dou Dizhu's and
    the common ones, Big Two's ``stock`` among them), so that the core makes many of them."""
    cells = ["doudizhu", *_drawn(names, data, lambda k: k % 4 == 0)]
    _same_or_none(["game_kind", *names], cells, written)


@pytest.mark.parametrize(
    "names, cells",
    [
        (["game_id", "ruleset", "players", "names", "hands", "winner", "cards_left"],
         ["g1", "hk", " p0 | p1", "A|", "3d|4d", "1", "0|2"]),
        (["game_id", "kitty"], ["g1", "3d"]),
        (["game_id", "game_id", "players"], ["g1", " g2", "p0"]),
        (["game_id", "players", "start_counts", "stock", "hands"], ["g", "p", "1| 2", "x", "a"]),
    ],
)  # fmt: skip
def test_core_head_examples(names: list[str], cells: list[str]) -> None:
    """Rows the property above may miss: spaces around player ids, a repeated column, a
    number list with a space, another game's column filled; each the same to the core
    whether its cells are in quotes or not."""
    got = {written: _same_or_none(names, cells, written) for written in ("joined", "all")}
    assert got["joined"] == got["all"]


def _same_or_none(names: list[str], cells: list[str], written: str) -> str | None:
    """The core's text of the row written so (``WRITTEN``), held to the Python reader's when
    it makes one."""
    header = _GamesHeader(names, "")
    quoting = csv.QUOTE_ALL if written == "all" else csv.QUOTE_MINIMAL
    line = ",".join(cells) if written == "joined" else _line(cells, quoting)
    row = _GameRow("", 2, header, line)
    got: str | None = _heads(header).head(line)  # type: ignore[attr-defined]
    if got is not None:
        assert got == _python(row)
    return got


def test_core_makes_common_rows(tmp_path: Path) -> None:
    """Rows as the sample writer and the bench's streamed pair write them are all the core's
    (so the fast path is taken), each the Python reader's text."""
    from bench.aims import write_csv_games

    write_csv_games(tmp_path / "day.csv", 300)
    lines = (tmp_path / "day.games.csv").read_text(encoding="utf-8").splitlines()
    header = _GamesHeader([h.strip() for h in next(csv.reader([lines[0]]))], "")
    heads = _heads(header)
    for k, line in enumerate(lines[1:]):
        row = _GameRow(f"b{k}", k + 2, header, line)
        assert heads.head(line) == _python(row) is not None  # type: ignore[attr-defined]


def test_core_leaves_what_python_rejects_or_reads_otherwise() -> None:
    """The rows whose object the Python reader makes otherwise, or rejects, are left to it."""
    names = ["game_id", "ruleset", "players", "game_number", "overrides", "game_kind", "kitty"]
    header = _GamesHeader(names, "")
    heads = _heads(header)
    base = ["g1", "hk", "p0|p1|p2|p3", "3", "", "", ""]
    assert heads.head(",".join(base)) == _python(_GameRow("g1", 2, header, ",".join(base)))  # type: ignore[attr-defined]
    for column, cell in [
        ("game_number", "+3"),  # int() reads it; the core does not
        ("game_number", "x"),  # E_SCHEMA
        ("overrides", '{"bomb_beats_all": true}'),  # parsed and checked by Python
        ("game_kind", "tichu"),  # a game with no object of the core's: Python names it
        ("game_kind", "Doudizhu"),
        ("kitty", "3d"),  # another game's column: E_SCHEMA
        ("players", "p0|p\x01"),  # a text JSON escapes
    ]:
        cells = list(base)
        cells[names.index(column)] = cell
        assert heads.head(",".join(cells)) is None  # type: ignore[attr-defined]
    ddz = ",".join([*base[:-2], "doudizhu", ""])  # Dou Dizhu's object: the core's too
    assert heads.head(ddz) == _python(_GameRow("g1", 2, header, ddz)) is not None  # type: ignore[attr-defined]
    ddz_kitty = ",".join([*base[:-2], "doudizhu", "3d"])  # a kitty without the hands: E_SCHEMA
    assert heads.head(ddz_kitty) is None is _python(_GameRow("g1", 2, header, ddz_kitty))  # type: ignore[attr-defined]
    assert heads.head(",".join(base[:-1])) is None  # a cell short of the header  # type: ignore[attr-defined]
    quoted = 'g1,"hk","p0",3,"",,'  # cells wholly in quotes: read as csv.reader reads them
    assert heads.head(quoted) == _python(_GameRow("g1", 2, header, quoted)) is not None  # type: ignore[attr-defined]
    for row in ['g1,"h""k",p0,3,,,', 'g1,"hk"x,p0,3,,,', 'g1,h"k,p0,3,,,', 'g1,"hk,p0,3,,,']:
        assert heads.head(row) is None  # a quote doubled, after a cell, inside, not closed  # type: ignore[attr-defined]


def test_core_makes_common_dou_dizhu_rows(tmp_path: Path) -> None:
    """Simulated Dou Dizhu games of both presets (3 players; 2 with cards set aside), void
    deals among them, as an export writes their games CSV: every row the core's, each the
    Python reader's text."""
    from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_lines
    from pipeline.sim.sample import ddz_csv_text

    lines: list[dict[str, object]] = []
    for preset, n in (("ddz", 3), ("ddz-2p", 2)):
        config = DdzSimConfig(games=30, seed=5, bots=("random",) * n, preset=preset)
        lines += [line for match in simulate_lines(config) for line in match]
    games_text, _actions = ddz_csv_text(lines)
    rows = games_text.splitlines()
    header = _GamesHeader([h.strip() for h in next(csv.reader([rows[0]]))], "")
    heads = _heads(header)
    for k, line in enumerate(rows[1:]):
        row = _GameRow(f"d{k}", k + 2, header, line)
        assert heads.head(line) == _python(row) is not None  # type: ignore[attr-defined]
