"""The CSV reader: actions CSV + games CSV, streamed per game, bad rows become rejects."""

from __future__ import annotations

import csv
import gzip
import io
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.ingest import ingest
from pipeline.logs import read_log
from pipeline.logs.csv_logs import games_csv_for, is_games_csv, read_csv
from pipeline.logs.model import GameRecord
from pipeline.logs.reader import log_shape
from pipeline.logs.records import content_hash
from pipeline.sim.sample import _csv_rows, sample_game, to_partial
from pipeline.warehouse import Warehouse
from tests.test_logs_jsonl import outcomes

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def to_text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@pytest.fixture(scope="module")
def games() -> list[dict[str, Any]]:
    full = [sample_game(seed=700 + k, game_id=f"c{k}") for k in range(3)]
    partial = to_partial(sample_game(seed=710, game_id="c3"))
    partial["game_id"] = "c3"
    return [*full, partial]


@pytest.fixture
def pair(
    tmp_path: Path, games: list[dict[str, Any]]
) -> tuple[Path, list[list[str]], list[list[str]]]:
    game_rows, action_rows = _csv_rows(games)
    return tmp_path / "day.csv", game_rows, action_rows


def write_pair(path: Path, game_rows: list[list[str]], action_rows: list[list[str]]) -> Path:
    path.with_name(path.name.removesuffix(".csv") + ".games.csv").write_text(
        to_text(game_rows), encoding="utf-8"
    )
    path.write_text(to_text(action_rows), encoding="utf-8")
    return path


def first_row(action_rows: list[list[str]], game_id: str) -> int:
    """The 1-based file line of a game's first action row."""
    return next(i for i, row in enumerate(action_rows) if row[0] == game_id) + 1


def test_sample_csv_pair_replays() -> None:
    good, rejects = outcomes(list(read_log(SAMPLES / "actions.csv")))
    assert (good, rejects) == (["csv-1", "csv-2-partial"], [])


def test_a_match_written_as_csv_keeps_who_leads(tmp_path: Path) -> None:
    """A match's later games are led by the previous winner (hk): the pair written by
    ``_csv_rows`` carries ``previous_winner``, so each game reads back as its JSON object and
    replays (without the column each later game was ``E_OUT_OF_TURN``)."""
    from pipeline.sim.sample import sample_match

    match = sample_match(seed=5, match_id="m5", n_games=4)
    assert [g["previous_winner"] is None for g in match] == [True, False, False, False]
    for game in match:
        game.pop("truth")
    path = write_pair(tmp_path / "match.csv", *_csv_rows(match))
    good, rejects = outcomes(list(read_log(path)))
    assert (good, rejects) == ([g["game_id"] for g in match], [])
    got = [r for r in read_csv(path) if isinstance(r, GameRecord)]
    assert [r.previous_winner for r in got] == [g["previous_winner"] for g in match]


def test_names_and_shapes() -> None:
    assert is_games_csv(Path("games.csv")) and is_games_csv(Path("a.games.csv.gz"))
    assert not is_games_csv(Path("actions.csv"))
    assert log_shape(SAMPLES / "actions.games.csv") is None
    assert games_csv_for(SAMPLES / "actions.csv") == SAMPLES / "actions.games.csv"


def test_a_gzipped_games_csv_is_found_the_plain_one_first(tmp_path: Path) -> None:
    own, shared = tmp_path / "d1.games.csv", tmp_path / "games.csv"
    for name in ("games.csv.gz", "games.csv", "d1.games.csv.gz", "d1.games.csv"):
        (tmp_path / name).touch()  # each before those touched already
        assert games_csv_for(tmp_path / "d1.csv.gz") == tmp_path / name
        assert games_csv_for(tmp_path / "d1.csv") == tmp_path / name
    assert games_csv_for(tmp_path / "d2.csv.gz") == shared
    for f in (own, shared):
        f.unlink()
    assert games_csv_for(tmp_path / "d2.csv") == shared.with_name("games.csv.gz")


def on_path(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure Python path (BIG2_PURE_PYTHON=1's) when ``pure``, else the native core's (the
    test skipped when the core is not built)."""
    if pure:
        monkeypatch.setattr(native, "_MODULE", None)
        monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    elif not native.available():
        pytest.skip("the native core is not built (make native)")


@pytest.mark.parametrize("pure", [False, True])
def test_gzipped_pairs_import_on_both_paths(
    pair: Any, monkeypatch: pytest.MonkeyPatch, pure: bool
) -> None:
    """A ``day.csv.gz`` with its ``day.games.csv.gz``, and two gzipped actions CSVs sharing a
    folder's ``games.csv.gz``, import whole (the gzipped games CSV was never looked for: every
    game ``E_CSV_NO_GAME`` after an ``E_CSV_GAMES_FILE`` naming ``day.games.csv``)."""
    on_path(pure, monkeypatch)
    path, game_rows, action_rows = pair
    own, folder = path.parent / "own", path.parent / "shared"
    own.mkdir()
    folder.mkdir()
    write_pair(own / "day.csv", game_rows, action_rows)
    (folder / "games.csv").write_text(to_text(game_rows), encoding="utf-8")
    half = first_row(action_rows, "c2") - 1
    for name, rows in (("a.csv", action_rows[:half]), ("b.csv", action_rows[half:])):
        (folder / name).write_text(
            to_text([action_rows[0], *rows[name == "a.csv" :]]), encoding="utf-8"
        )
    for f in [*own.iterdir(), *folder.iterdir()]:
        f.with_name(f.name + ".gz").write_bytes(gzip.compress(f.read_bytes()))
        f.unlink()
    for logs in ([own / "day.csv.gz"], [folder / "a.csv.gz", folder / "b.csv.gz"]):
        wh = Warehouse(logs[0].parent / "wh")
        ingest([str(f) for f in logs], wh, workers=1)
        with wh.connect() as con:
            games = con.execute("select game_id from games order by 1").fetchall()
            rejects = con.execute("select code from rejects").fetchall()
        assert ([g for (g,) in games], rejects) == (["c0", "c1", "c2", "c3"], [])


def test_good_pair_with_sources(pair: Any) -> None:
    path, game_rows, action_rows = pair
    write_pair(path, game_rows, action_rows)
    items = list(read_csv(path))
    assert [(i.game_id, i.source.line) for i in items] == [  # type: ignore[union-attr]
        (f"c{k}", first_row(action_rows, f"c{k}")) for k in range(4)
    ]
    good, rejects = outcomes(items)
    assert (good, rejects) == (["c0", "c1", "c2", "c3"], [])
    record = items[0]
    assert isinstance(record, GameRecord) and record.hands is not None
    assert isinstance(items[3], GameRecord) and items[3].hands is None


def test_plain_games_csv_name_and_gzip(pair: Any) -> None:
    path, game_rows, action_rows = pair
    (path.parent / "games.csv").write_text(to_text(game_rows), encoding="utf-8")
    gz = path.with_name("day.csv.gz")
    gz.write_bytes(gzip.compress(to_text(action_rows).encode()))
    assert outcomes(list(read_log(gz)))[0] == ["c0", "c1", "c2", "c3"]


def test_hash_is_whitespace_free_and_stable(pair: Any) -> None:
    path, game_rows, action_rows = pair
    write_pair(path, game_rows, action_rows)
    first = [i.content_hash for i in read_csv(path) if isinstance(i, GameRecord)]
    spaced = [[cell if k != 4 else f" {cell} " for k, cell in enumerate(r)] for r in action_rows]
    write_pair(path, game_rows, [action_rows[0], *spaced[1:]])
    second = [i.content_hash for i in read_csv(path) if isinstance(i, GameRecord)]
    assert first == second and len(set(first)) == 4
    assert all(len(h) == 64 for h in first) and content_hash({}) not in first


def test_seq_gap_is_rejected_with_the_action_index(pair: Any) -> None:
    path, game_rows, action_rows = pair
    start = first_row(action_rows, "c1") - 1
    del action_rows[start + 4]  # c1 loses seq 5
    write_pair(path, game_rows, action_rows)
    good, rejects = outcomes(list(read_csv(path)))
    assert good == ["c0", "c2", "c3"]
    [r] = rejects
    assert (r.code, r.game_id, r.action_index, r.source.line) == ("E_CSV_SEQ", "c1", 4, start + 1)
    assert "seq 6 follows seq 4" in r.message
    assert r.raw.splitlines()[0].startswith("game_id,ruleset")  # games header, then its row
    assert any(line.startswith("c1,6,") for line in r.raw.splitlines())


def test_split_game_unknown_game_and_game_without_actions(pair: Any) -> None:
    path, game_rows, action_rows = pair
    c1 = [row for row in action_rows if row[0] == "c1"]
    others = [row for row in action_rows[1:] if row[0] not in ("c1", "c2")]
    stray = [["zz", "1", "0", "play", "3d", ""]]
    rows = [action_rows[0], *c1[:3], *others, *c1[3:], *stray]
    write_pair(path, game_rows, rows)
    good, rejects = outcomes(list(read_csv(path)))
    assert good == ["c0", "c3"]
    got = [(r.code, r.game_id) for r in rejects]
    assert got == [
        ("E_UNFINISHED", "c1"),  # its first three rows are a game that stops early
        ("E_CSV_SPLIT", "c1"),
        ("E_CSV_NO_GAME", "zz"),
        ("E_CSV_NO_ACTIONS", "c2"),
    ]
    assert rejects[-1].source.file.endswith("day.games.csv")


def test_missing_games_csv_rejects_every_game(pair: Any) -> None:
    path, _, action_rows = pair
    path.write_text(to_text(action_rows), encoding="utf-8")
    _, rejects = outcomes(list(read_csv(path)))
    assert [r.code for r in rejects] == ["E_CSV_GAMES_FILE"] + ["E_CSV_NO_GAME"] * 4


def test_bad_header(pair: Any) -> None:
    path, game_rows, action_rows = pair
    write_pair(path, game_rows, [["game_id", "seq", "seat", "action", "cards"], *action_rows[1:]])
    assert [r.code for r in read_csv(path)] == ["E_CSV_HEADER"]  # type: ignore[union-attr]


def test_bad_cell_card_and_seat(pair: Any) -> None:
    path, game_rows, action_rows = pair
    s0 = first_row(action_rows, "c0") - 1
    s2 = first_row(action_rows, "c2") - 1
    action_rows[s0 + 2][4] = "3x"
    action_rows[s0 + 2][3] = "play"
    action_rows[s2 + 1][2] = "north"
    write_pair(path, game_rows, action_rows)
    good, rejects = outcomes(list(read_csv(path)))
    assert good == ["c1", "c3"]
    assert [(r.code, r.game_id, r.action_index) for r in rejects] == [
        ("E_BAD_CARD", "c0", 2),
        ("E_SCHEMA", "c2", 1),
    ]
    assert rejects[1].message.startswith("actions[1].seat: ")


def test_non_utf8_row_and_huge_line(pair: Any) -> None:
    path, game_rows, action_rows = pair
    write_pair(path, game_rows, action_rows)
    lines = path.read_bytes().split(b"\n")
    s1 = first_row(action_rows, "c1") - 1
    lines[s1 + 2] = lines[s1 + 2].replace(b"pass", b"p\xffss").replace(b"play", b"pl\xffy")
    s2 = first_row(action_rows, "c2") - 1
    lines.insert(s2, b"c9,1,0,play," + b"x" * 5000)
    path.write_bytes(b"\n".join(lines))
    good, rejects = outcomes(list(read_csv(path, max_line_bytes=1000)))
    assert good == ["c0", "c2", "c3"]
    assert sorted((r.source.line, r.code, r.game_id) for r in rejects) == [
        (s1 + 1, "E_ENCODING", "c1"),
        (s2 + 1, "E_LINE_TOO_LONG", None),
    ]
    assert [r.action_index for r in rejects if r.code == "E_ENCODING"] == [2]


def test_empty_actions_csv(tmp_path: Path) -> None:
    path = tmp_path / "none.csv"
    path.write_bytes(b"")
    path.with_name("none.games.csv").write_text("game_id,ruleset,players\n", encoding="utf-8")
    assert list(read_csv(path)) == []


# ----- the games CSV read as far as its games (not held whole) ---------------------------

_MANY = [sample_game(seed=900 + k, game_id=f"m{k}") for k in range(12)]


def _read_holding(path: Path, *, core: bool = False) -> tuple[list[Any], int]:
    """Every item the reader hands over (a CsvGame as its record) and the most games-CSV rows
    it held at once between them."""
    from pipeline import native
    from pipeline.logs.csv_logs import CsvGame, _CsvReader
    from pipeline.logs.jsonl import open_log

    plain = native.csv_games if core else None
    reader = _CsvReader(path, games_csv_for(path), 1 << 20, as_lines=core, plain_rows=plain)
    items, most = [], 0
    for item in reader.read(open_log(path)):
        most = max(most, len(reader.games.held))
        items.append(item.record() if isinstance(item, CsvGame) else item)
    return items, most


def _summary(items: list[Any]) -> tuple[dict[str, str], list[tuple[str, str | None]]]:
    """The games that replayed (id → content hash) and the rejects' (code, game id), sorted:
    what an order of the games CSV must not change."""
    good, rejects = outcomes(items)
    hashes = {i.game_id: i.content_hash for i in items if isinstance(i, GameRecord)}
    return {g: hashes[g] for g in good}, sorted((r.code, r.game_id) for r in rejects)


@pytest.mark.parametrize("core", [False, True])
def test_games_csv_read_as_far_as_its_games(
    tmp_path: Path, core: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export lists the games in one order in both files: at most one games-CSV row is held
    at a time (on the core: those of the games whose first row is in the bytes it reads at
    once, here blocks of 2,000 bytes up to a game's end). The games CSV in the reverse order holds the
    rows read ahead of their games and gives the same games."""
    from pipeline import native
    from pipeline.logs import csv_logs

    if core and not native.available():
        pytest.skip("the native core is not built (make native)")
    monkeypatch.setattr(csv_logs, "_PLAIN_BLOCK", 2000)
    many = _MANY
    game_rows, action_rows = _csv_rows(many)
    path = write_pair(tmp_path / "day.csv", game_rows, action_rows)
    in_order, most = _read_holding(path, core=core)
    assert most <= (2 if core else 1)  # the core's read: a game's ~6 KB and the next row
    good, rejects = _summary(in_order)
    assert (sorted(good), rejects) == (sorted(g["game_id"] for g in many), [])
    write_pair(path, [game_rows[0], *reversed(game_rows[1:])], action_rows)
    backwards, most = _read_holding(path, core=core)
    assert most == len(many) - 1  # all read to find the first game's row, last in the file
    assert _summary(backwards) == _summary(in_order)


def test_games_csv_duplicate_rows_before_and_after_their_game(pair: Any) -> None:
    """A game's second row is rejected (the first kept) whether it comes before the game's
    actions are read or after: the reader remembers each row's line, not the row."""
    path, game_rows, action_rows = pair
    c0, c2 = game_rows[1], game_rows[3]
    rows = [game_rows[0], c0, c0, *game_rows[2:], c2]  # lines 2 and 3; c2 at 4 and 7
    write_pair(path, rows, action_rows)
    items, _ = _read_holding(path)
    good, rejects = outcomes(items)
    assert good == ["c0", "c1", "c2", "c3"]
    assert [(r.code, r.game_id, r.source.line) for r in rejects] == [
        ("E_CSV_DUPLICATE_GAME", "c0", 3),
        ("E_CSV_DUPLICATE_GAME", "c2", 7),
    ]
    assert rejects[1].message == "game 'c2' has two rows in the games CSV (first at line 5)"
    assert all(r.source.file.endswith("day.games.csv") for r in rejects)


def test_games_csv_rejects_kept_when_the_actions_header_fails(pair: Any) -> None:
    """The actions file unreadable from its header: the games CSV is still read to its end
    for its own rejects (no game is imported, none is called a game without actions)."""
    path, game_rows, action_rows = pair
    write_pair(
        path,
        [*game_rows, game_rows[2]],
        [["game_id", "seq", "seat", "action", "cards"], *action_rows[1:]],
    )
    items, _ = _read_holding(path)
    assert [(r.code, r.game_id) for r in items] == [
        ("E_CSV_HEADER", None),
        ("E_CSV_DUPLICATE_GAME", "c1"),
    ]


@settings(max_examples=40, deadline=None)
@given(
    order=st.permutations(range(12)),
    dropped=st.sets(st.integers(0, 11), max_size=3),
    doubled=st.lists(st.integers(0, 11), max_size=3),
    core=st.booleans(),
)
def test_games_csv_any_order_same_games(
    order: list[int], dropped: set[int], doubled: list[int], core: bool
) -> None:
    """Any order of the games CSV, rows missing, rows repeated (copies): the same games
    replay and the same rejects come, on the core's reading as in Python's."""
    from pipeline import native

    core = core and native.available()
    game_rows, action_rows = _csv_rows(_MANY)
    body = [game_rows[1 + k] for k in order if k not in dropped]
    body += [game_rows[1 + k] for k in doubled if k not in dropped]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_pair(Path(tmp) / "day.csv", [game_rows[0], *body], action_rows)
        got = _summary(_read_holding(path, core=core)[0])
        write_pair(path, game_rows, action_rows)
        whole = _summary(_read_holding(path)[0])
    missing = sorted(("E_CSV_NO_GAME", f"m{k}") for k in dropped)
    twice = sorted(("E_CSV_DUPLICATE_GAME", f"m{k}") for k in doubled if k not in dropped)
    kept = {g: h for g, h in whole[0].items() if int(g[1:]) not in dropped}
    assert got == (kept, sorted(missing + twice))


@pytest.mark.parametrize("block", [2000, 1 << 20])
def test_a_split_game_on_the_core_across_its_reads_and_within_one(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's row again after other games is ``E_CSV_SPLIT`` on the core as in Python,
    whether the core read the game in the same call (a 1 MiB block) or in an earlier one
    (2,000-byte blocks: the reader, not the core, remembers the games of earlier calls)."""
    from pipeline import native
    from pipeline.logs import csv_logs

    if not native.available():
        pytest.skip("the native core is not built (make native)")
    monkeypatch.setattr(csv_logs, "_PLAIN_BLOCK", block)
    game_rows, action_rows = _csv_rows(_MANY)
    path = write_pair(tmp_path / "day.csv", game_rows, [*action_rows, action_rows[1]])
    got = [_summary(_read_holding(path, core=core)[0]) for core in (True, False)]
    assert got[0] == got[1]
    assert len(got[0][0]) == len(_MANY) and got[0][1] == [("E_CSV_SPLIT", "m0")]


def test_a_gzip_actions_csv_cut_short_keeps_its_games_on_both_paths(
    pair: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the reader let the gzip module's EOFError through: the whole import stopped, and the
    # CLI (click takes an EOFError for an abort) printed "Aborted." and exited 1; on the core
    # the games before the cut were lost too (a block read at once loses what it had read)
    path, game_rows, action_rows = pair
    write_pair(path, game_rows, action_rows)
    data = gzip.compress(path.read_bytes())
    path.unlink()
    gz = path.with_name("day.csv.gz")
    gz.write_bytes(data[: len(data) * 3 // 4])
    got = []
    for core in (True, False):
        if not core:  # the pure Python path from here on
            on_path(True, monkeypatch)
        wh = Warehouse(gz.parent / f"wh-{core}")
        ingest([str(gz)], wh, workers=1)
        with wh.connect() as con:
            games = [g for (g,) in con.execute("select game_id from games order by 1").fetchall()]
            rejects = con.execute("select line, code, message from rejects").fetchall()
        got.append((games, rejects))
    (games, rejects), python = got
    assert python == got[0]
    assert games and games == ["c0", "c1", "c2", "c3"][: len(games)] != ["c0", "c1", "c2", "c3"]
    [(line, code, message)] = rejects
    assert code == "E_GZIP_TRUNCATED"
    assert message.startswith(f"the compressed file ends early after line {line - 1} (")
    assert line > first_row(action_rows, games[-1])


@pytest.mark.parametrize("pure", [False, True])
def test_excel_s_trailing_empty_columns_are_ignored_a_value_in_one_is_a_reject(
    pair: Any, monkeypatch: pytest.MonkeyPatch, pure: bool
) -> None:
    """Excel writes a pair's empty columns as ``,,,`` (the header's too): they were an
    ``E_CSV_COLUMN`` reject per file (unknown columns '', '', ''), so ``--strict`` failed. A
    column with no name and nothing in it is now ignored without a word; one holding a value
    is ``E_CSV_COLUMN`` once a file, at its first such row, and the games are imported."""
    on_path(pure, monkeypatch)
    path, game_rows, action_rows = pair

    def imported(actions: list[list[str]], games: list[list[str]], name: str) -> Any:
        wh = Warehouse(path.parent / name)
        ingest([str(write_pair(path, games, actions))], wh, workers=1)
        with wh.connect() as con:
            stored = con.execute("select game_id from games order by 1").fetchall()
            rejects = con.execute("select file, line, code, message from rejects order by all")
            return [g for (g,) in stored], rejects.fetchall()

    excel_actions = [[*row, "", " ", ""] for row in action_rows]
    excel_games = [[*row, "", ""] for row in game_rows]
    assert imported(excel_actions, excel_games, "wh") == (["c0", "c1", "c2", "c3"], [])
    at = first_row(action_rows, "c1") + 2  # a row of c1, its second unnamed column filled
    excel_actions[at - 1][-2] = "17"
    excel_actions[at + 3][-1] = "x"  # a second value: the file told already
    excel_games[2][-1] = "the big table"
    stored, rejects = imported(excel_actions, excel_games, "wh2")
    assert stored == ["c0", "c1", "c2", "c3"]
    games_file = str(path.with_name("day.games.csv"))
    assert [(f, line, code) for f, line, code, _ in rejects] == [
        (str(path), at, "E_CSV_COLUMN"),
        (games_file, 3, "E_CSV_COLUMN"),
    ]
    len_a, len_g = len(action_rows[0]), len(game_rows[0])
    assert rejects[0][3].startswith(
        f"actions CSV line {at}: column {len_a + 2} has no name in the header but holds '17':"
    )
    assert rejects[1][3].startswith(f"games CSV line 3: column {len_g + 2} has no name")


@pytest.mark.parametrize("pure", [False, True])
def test_a_tab_separated_pair_reads_as_the_comma_one(
    pair: Any, monkeypatch: pytest.MonkeyPatch, pure: bool
) -> None:
    """Excel's "Unicode text" converted to UTF-8 is tab-separated: a pair so written was an
    ``E_CSV_HEADER`` per file (one column, 'game_id\\tseq\\t…'), every game lost. A file whose
    header has tabs and no comma now reads as the comma one, each file by its own header:
    the same games and rejects (the raw tab-separated), on the core (which reads commas: it
    leaves such a file to the Python reader) and in Python."""
    on_path(pure, monkeypatch)
    path, game_rows, action_rows = pair
    action_rows[first_row(action_rows, "c1") + 2][1] = "99"  # a seq out of order: E_CSV_SEQ

    def tabbed(rows: list[list[str]]) -> str:
        out = io.StringIO()
        csv.writer(out, delimiter="\t", lineterminator="\r\n").writerows(rows)
        return out.getvalue()

    def imported(folder: str, games_text: str, actions_text: str) -> Any:
        (path.parent / folder).mkdir()
        actions = path.parent / folder / "day.csv"
        actions.with_name("day.games.csv").write_text(games_text, encoding="utf-8")
        actions.write_text(actions_text, encoding="utf-8-sig")
        wh = Warehouse(path.parent / folder / "wh")
        ingest([str(actions)], wh, workers=1)
        with wh.connect() as con:
            games = con.execute("select game_id, content_hash from games order by 1").fetchall()
            rejects = con.execute("select line, game_id, code, message, raw from rejects")
            return games, rejects.fetchall()

    want = imported("comma", to_text(game_rows), to_text(action_rows))
    assert len(want[0]) == 3 and [r[1:3] for r in want[1]] == [("c1", "E_CSV_SEQ")]
    for folder, games_text in (("tabs", tabbed(game_rows)), ("mixed", to_text(game_rows))):
        games, rejects = imported(folder, games_text, tabbed(action_rows))
        assert games == want[0], folder
        assert [r[:4] for r in rejects] == [r[:4] for r in want[1]], folder
        bad_row = "\t".join(action_rows[first_row(action_rows, "c1") + 2])
        assert bad_row in rejects[0][4].split("\n"), rejects[0][4]
