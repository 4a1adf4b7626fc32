"""CSV logs on the native core (issue 15): the reader hands a game in good shape over as the
JSON line it equals (``CsvGame``), the core reads and replays it as a JSON Lines game, and
whatever the core leaves goes to the Python path with the game's CSV rows as its raw. The
warehouse is the same as the pure Python import's, rejects included."""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.logs.csv_logs import CsvGame, read_csv, read_csv_lines
from pipeline.logs.model import GameRecord, Reject
from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_lines
from pipeline.sim.sample import _csv_rows, ddz_csv_text
from tests.native import MODULE, NEEDS_CORE
from tests.native.test_differential import MUTATIONS, OPTIONS, _game, _mutate
from tests.native.test_ingest import _ingest, _rows

pytestmark = NEEDS_CORE


def _text(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


#: The Big Two games whose object has no JSON line: a NaN time, an infinite one, a seat
#: beyond 64 bits (set by _big2_pair).
NOT_LINES: list[str] = []


def _big2_pair(tmp: Path, n: int) -> Path:
    """Simulated Big Two games under every option, full and partial, mutated copies (most of
    them rejected by the engine), then rows broken the ways only a CSV can break."""
    rng = random.Random(1515)
    games = []
    for seed in range(n):
        game = _game(seed, seed % len(OPTIONS), "compact", seed % 4 == 1)
        games.append(game)
        if seed % 3 == 0:
            how = MUTATIONS[seed % len(MUTATIONS)]
            bad = _mutate(game, how, rng)
            if "actions" in bad and "result" in bad and isinstance(bad.get("seats"), list):
                bad["game_id"] = f"{game['game_id']}-{how}"
                games.append(bad)
    ok = [g for g in games if _csv_ok(g)]
    game_rows, action_rows = _csv_rows(ok)
    header = action_rows[0]
    first = {row[0]: k for k, row in reversed(list(enumerate(action_rows)))}

    def row_of(game_id: str, k: int = 0) -> list[str]:
        return action_rows[first[game_id] + k]

    ids = [g["game_id"] for g in ok]
    NOT_LINES[:] = [ids[1], ids[2], ids[4]]
    row_of(ids[1], 2)[header.index("ts")] = "nan"  # a NaN time: not a JSON line, Python's
    row_of(ids[2], 1)[header.index("ts")] = "1e999"  # an infinite one
    row_of(ids[4], 0)[header.index("seat")] = str(2**70)  # beyond 64 bits
    row_of(ids[5], 3)[header.index("seq")] = "9"  # out of order
    row_of(ids[7], 1)[header.index("seat")] = "x"  # not a number
    row_of(ids[8], 0)[header.index("ts")] = "2026-11-01T12:00:00+00:00"  # an ISO time
    row_of(ids[10], 2)[header.index("cards")] = "3d \udcff"  # a byte that is not UTF-8
    # a full game's first play made by the next seat: out of turn
    full = next(g for g in ok[12:] if g.get("deal") and g["game_id"].count("-") == 1)
    seat = header.index("seat")
    first_play = row_of(full["game_id"], 0)
    first_play[seat] = str((int(first_play[seat]) + 1) % len(full["seats"]))
    game_rows = [r for r in game_rows if r[0] != ids[11]]  # no games-CSV row
    path = tmp / "day.csv"
    (tmp / "day.games.csv").write_text(_text(game_rows), encoding="utf-8", errors="surrogateescape")
    body = [*action_rows, row_of(ids[0], 0)]  # a game's row again, after others: split
    path.write_text(_text(body), encoding="utf-8", errors="surrogateescape")
    return path


def _csv_ok(game: dict[str, Any]) -> bool:
    """Whether the sample writer can put a (mutated) game into CSV rows."""
    try:
        _csv_rows([game])
    except (KeyError, TypeError, AttributeError):
        return False
    return True


def _ddz_pair(tmp: Path) -> Path:
    cfg = DdzSimConfig(games=20, seed=3, bots=("random",) * 3, preset="ddz", feeder=1)
    lines = [line for match in simulate_lines(cfg) for line in match]
    games, actions = ddz_csv_text(lines)
    rows = list(csv.reader(io.StringIO(actions)))
    ids = list(dict.fromkeys(row[0] for row in rows[1:]))
    for row in rows[1:]:  # every fifth game's second action by the next seat: the engine's reject
        if row[1] == "2" and ids.index(row[0]) % 5 == 0:
            row[2] = str((int(row[2]) + 1) % 3)
    actions = _text(rows)
    (tmp / "ddz.games.csv").write_text(games, encoding="utf-8")
    path = tmp / "ddz.csv.gz"
    path.write_bytes(gzip.compress(actions.encode()))
    return path


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("csv")
    return [_big2_pair(tmp, 60), _ddz_pair(tmp)]


def test_csv_imports_give_the_same_rows_on_the_core_and_in_python(
    pairs: list[Path], tmp_path: Path
) -> None:
    _ingest(pairs, tmp_path / "py", pure=True)
    _ingest(pairs, tmp_path / "rs", pure=False)
    py, rs = _rows(tmp_path / "py"), _rows(tmp_path / "rs")
    assert len(py["games"]) > 50 and len(py["actions"]) > 2000
    kinds = {row for row in py["games"] if "doudizhu" in row}
    assert kinds, "no Dou Dizhu game stored"
    from pipeline.warehouse import Warehouse

    con = Warehouse(tmp_path / "py").connect()
    codes = {code for (code,) in con.execute("select code from rejects").fetchall()}
    con.close()
    want = {"E_CSV_SEQ", "E_SCHEMA", "E_ENCODING", "E_CSV_NO_GAME", "E_CSV_SPLIT", "E_TS_RANGE"}
    want |= {"E_BAD_SEAT", "E_OUT_OF_TURN", "E_TS_ORDER", "E_DDZ_OUT_OF_TURN"}
    assert want <= codes, codes
    for table in py:
        assert rs[table] == py[table], table


def test_csv_pairs_in_quotes_give_the_same_rows_on_the_core_and_in_python(
    pairs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same pairs (Big Two's broken ways, Dou Dizhu's gzipped) written anew with every text
    cell in quotes (``csv.QUOTE_NONNUMERIC``, as R's ``write.csv`` writes them): the core and
    pure Python store the same rows and rejects, and the core reads the quoted rows itself."""
    from pipeline.logs.csv_logs import games_csv_for

    def quoted(source: Path, target: Path) -> None:
        opener = gzip.open if source.name.endswith(".gz") else open
        with opener(source, "rt", encoding="utf-8", errors="surrogateescape", newline="") as f:
            data = _in_quotes(list(csv.reader(f))).encode("utf-8", "surrogateescape")
        target.write_bytes(gzip.compress(data) if target.name.endswith(".gz") else data)

    files = []
    for pair in pairs:
        target = tmp_path / pair.name
        quoted(pair, target)
        quoted(games_csv_for(pair), games_csv_for(target))
        files.append(target)
    assert '"play"' in (tmp_path / pairs[0].name).read_text(errors="replace")
    _ingest(files, tmp_path / "py", pure=True)
    _ingest(files, tmp_path / "rs", pure=False)
    py, rs = _rows(tmp_path / "py"), _rows(tmp_path / "rs")
    assert len(py["games"]) > 50 and len(py["rejects"]) > 10
    for table in py:
        assert rs[table] == py[table], table
    in_python = _games_read_in_python(monkeypatch)
    for path in files:  # most games' rows are the core's: those the Python reader reads are few
        read = list(read_csv_lines(path, plain_rows=native.csv_games))
        handed = sum(isinstance(g, CsvGame) for g in read)
        assert handed > 10 and len(in_python) < handed // 5, (path.name, len(in_python))
        in_python.clear()


def test_a_csv_game_as_a_line_reads_back_as_the_record(pairs: list[Path]) -> None:
    """Each game ``read_csv_lines`` hands over reads back (``record``) as the record or the reject
    the plain reader gives, its raw the game's CSV rows."""
    for path in pairs:
        plain = list(read_csv(path))
        lines = list(read_csv_lines(path))
        assert len(plain) == len(lines)
        handed = [g for g in lines if isinstance(g, CsvGame)]
        assert len(handed) > 15
        for got, want in zip(lines, plain, strict=True):
            if isinstance(got, CsvGame):
                read = got.record()
                assert read == want and read.raw == want.raw == got.raw
                assert orjson.loads(got.text)["game_id"] == want.game_id
            else:
                assert got == want


def test_what_is_not_a_json_line_stays_on_the_python_path(pairs: list[Path]) -> None:
    """A NaN or infinite time, an integer beyond 64 bits: the reader reads the game's object
    itself (orjson would write null, or refuse), as ``read_csv`` does; so it does a game
    the CSV rows reject."""
    plain = {g.game_id: g for g in read_csv(pairs[0])}
    lines = {g.game_id: g for g in read_csv_lines(pairs[0])}
    kept = {i for i, g in lines.items() if not isinstance(g, CsvGame)}
    csv_rejects = {
        i
        for i, g in plain.items()
        if isinstance(g, Reject) and g.code.startswith(("E_CSV", "E_ENC"))
    }
    assert len(NOT_LINES) == 3 and len(csv_rejects) >= 3
    assert kept >= set(NOT_LINES) | csv_rejects
    assert all(lines[i] == plain[i] for i in kept)
    assert isinstance(lines[NOT_LINES[2]], GameRecord)  # its seat: the engine's E_BAD_SEAT


def test_the_core_replays_the_csv_games_itself(
    monkeypatch: pytest.MonkeyPatch, pairs: list[Path], tmp_path: Path
) -> None:
    """With the core on, a CSV game's rows are read by the core, and the game never reaches
    the Python parser or engine: a good game's rows are built there, a bad game's reject is
    the core's (its code and message, the game's CSV rows kept)."""
    import pipeline.logs.csv_logs
    import pipeline.replay
    from pipeline.ingest import process_chunk
    from pipeline.warehouse import Warehouse

    def no_python(*_: Any, **__: Any) -> Any:
        raise AssertionError("the Python path read a CSV game")

    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(pipeline.logs.csv_logs, "_action_objs", no_python)  # rows: the core's
    items = [g for g in read_csv_lines(pairs[1], plain_rows=native.csv_games)]
    assert len(items) > 15 and all(isinstance(g, CsvGame) for g in items)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    monkeypatch.setattr(pipeline.logs.csv_logs, "parse_game", no_python)
    with Warehouse(tmp_path).batch() as batch:
        result = process_chunk("ddz.csv.gz", list(items), batch.part_spec(), batch.new_part())
    assert result.read == len(items)
    assert result.reject_codes == ["E_DDZ_OUT_OF_TURN"] * 4  # _ddz_pair's every fifth game
    assert result.rejects is not None
    raws = result.rejects["raw"].to_pylist()
    assert all(r.startswith("game_id,") and "\ngame_id,seq," in r for r in raws)


def _read_both(path: Path, cap: int) -> tuple[list[Any], list[Any]]:
    """The file read by the Python reader alone, and with the core reading its plain rows."""
    alone = list(read_csv_lines(path, max_line_bytes=cap))
    with_core = list(read_csv_lines(path, max_line_bytes=cap, plain_rows=native.csv_games))
    return alone, with_core


def _same(alone: list[Any], with_core: list[Any]) -> None:
    """The two readings give the same items: each game handed over with the same source, id
    and raw, reading back (``record``) as the same record or reject; the rest equal."""
    assert [type(g) for g in with_core] == [type(g) for g in alone]
    for got, want in zip(with_core, alone, strict=True):
        if isinstance(want, CsvGame):
            assert (got.source, got.game_id, got.raw) == (want.source, want.game_id, want.raw)
            assert got.record() == want.record()
        else:
            assert got == want


#: Cells the core reads as they stand or leaves to Python, and ways a row or the file breaks.
_SEATS = ["0", "1", "2", "3", "007", "-0", "+1", "1_0", "٣", " 2", "2\u3000", "x", str(2**70)]
_TIMES = ["7", "7.25", "-0", "0.50", "01.5", "1e3", "nan", "inf", "1_0", ".5", "5.", " 8 ",
          "2026-11-01T12:00:00+00:00", "yesterday", "\u00a09.5", "9\x1f", ""]  # fmt: skip
_BREAKS = ["quote", "claim", "blank", "blank_row", "crlf", "spaces", "seq", "split", "no_game", "nul",
           "not_utf8", "long", "short_row", "backslash", "foreign", "none", "quote_all",
           "quoted_comma", "quote_doubled", "quote_after", "quote_open", "quote_inside"]  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**6),
    edits=st.lists(
        st.tuples(
            st.integers(0, 10**6),
            st.sampled_from(["seat", "ts", "break"]),
            st.integers(0, 10**6),
        ),
        max_size=4,
    ),
    cap=st.sampled_from([60, 1 << 20]),
    extra=st.booleans(),
)
@example(seed=1, edits=[(40, "break", 14), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 1), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 5), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 6), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 7), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 8), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 9), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 4), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 0), (90, "ts", 4)], cap=1 << 20, extra=True)
@example(seed=1, edits=[(40, "break", 11), (90, "ts", 4)], cap=60, extra=True)
@example(seed=2, edits=[(k, "break", 16) for k in range(0, 90, 7)], cap=1 << 20, extra=True)
@example(
    seed=2, edits=[(40, "break", 17), (41, "break", 18), (60, "break", 19)], cap=60, extra=False
)
@example(
    seed=2,
    edits=[(40, "break", 20), (70, "break", 21), (71, "break", 16)],
    cap=1 << 20,
    extra=False,
)
def test_the_core_reads_plain_rows_as_the_python_reader(
    tmp_path: Path, seed: int, edits: list[tuple[int, str, int]], cap: int, extra: bool
) -> None:
    """Random games as a CSV pair, a few cells and rows changed at random (what the core
    reads, what it must leave to Python, and ways a row or a file breaks): the reader with
    the core's plain rows gives what it gives alone, wherever the core hands over."""
    games = [_game(seed + k, (seed + k) % len(OPTIONS), "compact", k == 2) for k in range(4)]
    game_rows, action_rows = _csv_rows(games)
    if extra:  # Big Two's claim column and Dou Dizhu's value column, empty
        action_rows = [[*action_rows[0], "claim", "value"]] + [
            [*r, "", ""] for r in action_rows[1:]
        ]
    header = action_rows[0]
    lines = [_text([row]) for row in action_rows]  # each with its newline
    for at, what, pick in edits:
        k = 1 + at % (len(lines) - 1)
        row = lines[k].rstrip("\n").split(",")
        if len(row) < len(header):  # shortened by an edit before: left so
            continue
        if what == "seat":
            row[header.index("seat")] = _SEATS[pick % len(_SEATS)]
        elif what == "ts":
            row[header.index("ts")] = _TIMES[pick % len(_TIMES)]
        else:
            lines[k] = _broken(lines[k], row, header, _BREAKS[pick % len(_BREAKS)], game_rows)
            continue
        lines[k] = ",".join(row) + "\n"
    (tmp_path / "t.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path = tmp_path / "t.csv"
    path.write_bytes("".join(lines).encode("utf-8", "surrogateescape"))
    _same(*_read_both(path, cap))


def _broken(
    line: str, row: list[str], header: list[str], how: str, game_rows: list[list[str]]
) -> str:
    """``line`` (its cells ``row``) broken as ``how`` says."""
    action = header.index("action")
    if how == "quote":
        row[action] = f'"{row[action]}"'
    elif how == "quote_all":  # as R's write.csv or a database export writes a row
        return ",".join(f'"{cell}"' for cell in row) + "\n"
    elif how == "quoted_comma":
        row[header.index("cards")] = f'"{row[header.index("cards")]},3d"'
    elif how == "quote_doubled":
        row[action] = f'"{row[action][:1]}""{row[action][1:]}"'
    elif how == "quote_after":  # csv.reader appends what follows a closing quote
        row[action] = f'"{row[action][:2]}"{row[action][2:]}'
    elif how == "quote_open":  # csv.reader reads on into the next line
        row[action] = f'"{row[action]}'
    elif how == "quote_inside":
        row[action] = f'{row[action][:1]}"{row[action][1:]}'
    elif how == "blank":
        return "\n" + line
    elif how == "blank_row":
        return " , ,,,,\n" + line
    elif how == "crlf":
        return line.replace("\n", "\r\n")
    elif how == "spaces":
        row[0] = f"\u3000{row[0]}\x1c"
    elif how == "claim" and "claim" in header:
        row[header.index("claim")] = "one_card"
    elif how == "seq":
        row[header.index("seq")] = "99"
    elif how == "split":
        return line + line.replace(row[0], game_rows[1][0], 1)
    elif how == "no_game":
        row[0] = "no-such-game"
    elif how == "nul":
        row[header.index("cards")] += "\x00"
    elif how == "not_utf8":
        row[header.index("cards")] += "\udcff"
    elif how == "long":
        row[header.index("cards")] += " " * 70
    elif how == "short_row":
        row.pop()
    elif how == "backslash":
        row[header.index("action")] += "\\"
    elif how == "foreign":  # Dou Dizhu's value in a Big Two game, else a cell too many
        if "value" in header:
            row[header.index("value")] = "2"
        else:
            row.append("2")
    return ",".join(row) + "\n"


#: Ways a games-CSV row or its file breaks (or stays plain): each is read alike with the core
#: reading the plain rows and by ``csv.reader`` alone.
_GAME_BREAKS = ["quote", "newline_in_quotes", "blank", "blank_row", "crlf", "spaces", "nul",
                "not_utf8", "cr_inside", "long", "short_row", "long_row", "twice", "again_later",
                "no_id", "none", "quote_all", "quoted_comma", "quote_doubled"]  # fmt: skip


def _broken_game_row(line: str, row: list[str], how: str) -> tuple[str, str]:
    """A games-CSV ``line`` (its cells ``row``) broken as ``how`` says, and what goes at the
    file's end."""
    if how == "quote":
        row[5] = f'"{row[5]}"'
    elif how == "quote_all":
        return ",".join(f'"{cell}"' for cell in row) + "\n", ""
    elif how == "quoted_comma":
        row[5] = f'"{row[5]},x"'
    elif how == "quote_doubled":
        row[5] = f'"{row[5]}"""'
    elif how == "newline_in_quotes":
        row[5] = f'"{row[5]}\nfloor 2"'
    elif how == "blank":
        return "\n" + line, ""
    elif how == "blank_row":
        return " ,,, ,,,,,,,\n" + line, ""
    elif how == "crlf":
        return line.replace("\n", "\r\n"), ""
    elif how == "spaces":
        row[0] = f"\u3000{row[0]}\x1c"
    elif how == "nul":
        row[5] += "\x00"
    elif how == "not_utf8":
        row[5] += "\udcff"
    elif how == "cr_inside":
        row[5] += "\rx"
    elif how == "long":
        row[5] += " " * 400
    elif how == "short_row":
        row.pop()
    elif how == "long_row":
        row.append("")
    elif how == "twice":
        return line + line, ""
    elif how == "again_later":
        return line, line
    elif how == "no_id":
        row[0] = " "
    return ",".join(row) + "\n", ""


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**6),
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(_GAME_BREAKS)), max_size=4),
    cap=st.sampled_from([300, 1 << 20]),
    block=st.sampled_from([64, 700, 1 << 20]),
)
@example(seed=3, edits=[(1, "quote"), (2, "newline_in_quotes")], cap=1 << 20, block=1 << 20)
@example(seed=3, edits=[(1, "long"), (3, "crlf")], cap=300, block=64)
@example(seed=3, edits=[(0, "twice"), (2, "again_later")], cap=1 << 20, block=700)
@example(seed=3, edits=[(0, "not_utf8"), (2, "nul"), (3, "cr_inside")], cap=1 << 20, block=64)
@example(
    seed=3, edits=[(0, "quote_all"), (1, "quoted_comma"), (2, "quote_doubled")], cap=300, block=64
)
def test_the_core_reads_plain_games_rows_as_csv_reader(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    seed: int,
    edits: list[tuple[int, str]],
    cap: int,
    block: int,
) -> None:
    """Random games as a CSV pair, games-CSV rows broken at random (quoted cells, a newline
    in quotes, blank lines and rows, CRLF, padding, NUL, bytes not UTF-8, a carriage return
    inside, over-long lines, rows short or long, a game's row twice, no id), the file read in
    blocks of any size: the reader with the core reading the plain games rows (and their
    objects) gives what the Python reader gives alone, rejects included and in the same
    order (the games CSV's before the game whose row was being looked for)."""
    monkeypatch.setattr("pipeline.logs.csv_logs._PLAIN_BLOCK", block)
    games = [_game(seed + k, (seed + k) % len(OPTIONS), "compact", k == 2) for k in range(5)]
    game_rows, action_rows = _csv_rows(games)
    lines = [_text([row]) for row in game_rows]  # each with its newline
    tail = ""
    for at, how in edits:
        k = 1 + at % (len(lines) - 1)
        row = lines[k].rstrip("\n").split(",")
        if len(row) != len(game_rows[0]):  # broken by an edit before: left so
            continue
        lines[k], more = _broken_game_row(lines[k], row, how)
        tail += more
    (tmp_path / "g.games.csv").write_bytes(
        ("".join(lines) + tail).encode("utf-8", "surrogateescape")
    )
    path = tmp_path / "g.csv"
    path.write_text(_text(action_rows), encoding="utf-8")
    alone, with_core = _read_both(path, cap)
    _same(alone, with_core)


def _games_read_in_python(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now on, the id of each game whose action rows the Python reader reads, in turn."""
    import pipeline.logs.csv_logs

    in_python: list[str] = []
    objs = pipeline.logs.csv_logs._action_objs

    def counted(rows: list[list[str]], at: dict[str, int], kind: str) -> Any:
        in_python.append(rows[0][0])
        return objs(rows, at, kind)

    monkeypatch.setattr(pipeline.logs.csv_logs, "_action_objs", counted)
    return in_python


def _by_the_core(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> tuple[list[Any], list[Any], list[int]]:
    """The pair read by the Python reader alone, then with the core reading its plain rows
    while the Python reader of action rows fails the test, and the lines the Python reader
    read then (of both files)."""
    import pipeline.logs.csv_logs

    alone = list(read_csv_lines(path))
    monkeypatch.setattr(
        pipeline.logs.csv_logs, "_action_objs", lambda *_: pytest.fail("Python read a row")
    )
    lines_read = []
    next_line = pipeline.logs.csv_logs._Lines.__next__

    def counted(self: Any) -> str:
        got = next_line(self)
        lines_read.append(self.line)
        return got

    monkeypatch.setattr(pipeline.logs.csv_logs._Lines, "__next__", counted)
    with_core = list(read_csv_lines(path, plain_rows=native.csv_games))
    return alone, with_core, lines_read


def _in_quotes(rows: list[list[str]]) -> str:
    """Rows as CSV text with every cell but a whole number in quotes, as the bench writes a
    pair in quotes (``bench.aims.write_rows``)."""
    from bench.aims import write_rows

    out = io.StringIO()
    write_rows(out, rows, quoted=True)
    return out.getvalue()


def test_a_clean_pair_is_read_by_the_core_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """CRLF line ends, blank lines and rows, cells padded with what ``str.strip`` strips:
    still plain rows, every game read by the core (the Python row reader never runs), and
    every games row but those with a quoted cell, the same items as the Python reader's."""
    games = [_game(seed, seed % len(OPTIONS), "compact", seed == 3) for seed in range(8)]
    game_rows, action_rows = _csv_rows(games)
    action_rows[3][0] = f"\u3000{action_rows[3][0]}\x1f"
    action_rows[5][2] = f" {action_rows[5][2]}\t"
    text = _text(action_rows).replace("\n", "\r\n", 3) + "\n , ,,,,\n"
    (tmp_path / "c.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path = tmp_path / "c.csv"
    path.write_text(text, encoding="utf-8")
    alone, with_core, lines_read = _by_the_core(monkeypatch, path)
    assert len(with_core) == 8 and all(isinstance(g, CsvGame) for g in with_core)
    _same(alone, with_core)
    # the two headers, and the games rows with a quoted cell (their overrides): every other
    # row of both files is the core's
    assert lines_read == [1, 1, 6, 7, 8, 9]


def test_a_pair_with_its_text_in_quotes_is_read_by_the_core(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pair written as R's ``write.csv`` and database exports write it, every text cell in
    quotes (``csv.QUOTE_NONNUMERIC``), a card text with a comma in quotes too: every actions
    row is read by the core (the Python row reader never runs), and so is every games row but
    those with a quote inside a cell (the overrides' JSON, its quotes doubled); the same items
    as the Python reader's, raw included."""
    games = [_game(seed, seed % len(OPTIONS), "compact", seed == 3) for seed in range(8)]
    game_rows, action_rows = _csv_rows(games)
    action_rows[4][action_rows[0].index("cards")] += ",3d"  # a comma in a cell: a reject

    games_text = _in_quotes(game_rows)
    (tmp_path / "q.games.csv").write_text(games_text, encoding="utf-8")
    path = tmp_path / "q.csv"
    path.write_text(_in_quotes(action_rows), encoding="utf-8")
    assert '"play"' in path.read_text() and ',3d",' in path.read_text()
    alone, with_core, lines_read = _by_the_core(monkeypatch, path)
    assert sum(isinstance(g, CsvGame) for g in with_core) == 8
    _same(alone, with_core)
    doubled = [k for k, line in enumerate(games_text.splitlines(), 1) if '{""' in line]
    assert doubled and lines_read == [1, 1, *doubled]


def test_the_core_takes_the_rows_back_after_a_game_it_leaves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A game the core leaves (text after a closing quote, a seq out of order) is read by the
    Python reader alone; the games after it are the core's again, and the items are the
    reader's own."""
    games = [_game(seed, seed % len(OPTIONS), "compact", False) for seed in range(10)]
    game_rows, action_rows = _csv_rows(games)
    header = action_rows[0]
    first = {row[0]: k for k, row in reversed(list(enumerate(action_rows)))}
    # read alike (csv.reader appends what follows a closing quote), not plain
    action_rows[first["d-2"] + 1][header.index("action")] = "PA-SS"
    action_rows[first["d-6"] + 3][header.index("seq")] = "99"  # E_CSV_SEQ
    (tmp_path / "b.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path = tmp_path / "b.csv"
    path.write_text(_text(action_rows).replace("PA-SS", '"pa"ss'), encoding="utf-8")
    alone = list(read_csv_lines(path))
    in_python = _games_read_in_python(monkeypatch)
    with_core = list(read_csv_lines(path, plain_rows=native.csv_games))
    _same(alone, with_core)
    assert in_python == ["d-2"]  # d-6 is a reject before its objects are made
    assert [type(g).__name__ for g in with_core].count("CsvGame") == 9


@pytest.mark.parametrize("pure", [False, True])
def test_a_csv_import_shows_its_progress_while_reading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pure: bool
) -> None:
    """The bytes of the actions file read so far are reported as it is read, on the core and
    on the Python path, not only when the file is done."""
    from pipeline.ingest import Progress, ingest
    from pipeline.warehouse import Warehouse

    monkeypatch.setattr("pipeline.ingest.PROGRESS_EVERY", 0.0)
    monkeypatch.setattr("pipeline.logs.csv_logs._PLAIN_BLOCK", 1 << 12)  # many reads
    if pure:
        monkeypatch.setattr(native, "_MODULE", None)
    base = [_game(seed, seed % len(OPTIONS), "compact", False) for seed in range(12)]
    games = [{**g, "game_id": f"{g['game_id']}-{k}"} for k in range(12) for g in base]
    game_rows, action_rows = _csv_rows(games)
    (tmp_path / "p.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path = tmp_path / "p.csv"
    path.write_text(_text(action_rows), encoding="utf-8")  # ~270 kB: reads of 64 KiB
    seen: list[Progress] = []
    summary = ingest([str(path)], Warehouse(tmp_path / "wh"), workers=1, on_progress=seen.append)
    assert summary.total().read == summary.total().stored == 144
    during = [p.bytes_done for p in seen if 0 < p.bytes_done < path.stat().st_size]
    assert len(during) >= 2, [p.bytes_done for p in seen]
    assert all(p.bytes_total == path.stat().st_size for p in seen)


def _table_rows(done: Any) -> dict[str, list[str]]:
    """A chunk's tables (``ChunkRows``), each table's rows in a set order, as texts."""
    return {
        table.value: sorted(repr(sorted(row.items())) for row in got.to_pylist())
        for table, got in done.tables.items()
    }


def test_csv_games_to_the_core_in_one_call_as_one_by_one(pairs: list[Path]) -> None:
    """``chunk_rows`` hands each run of CSV games to the core in one call (``_core_csv``: one
    block of JSON lines, each at its game's first row's line): the same tables, reject codes
    and repeats as the games added one by one (``_Rows.add``), with runs broken by the Python
    reader's items, by a file's end, and a game id the chunk holds already (the core leaves
    its repeat to Python)."""
    from pipeline.ingest import _Rows, chunk_rows
    from pipeline.logs.model import Source
    from pipeline.replay import replay

    big2 = list(read_csv_lines(pairs[0], plain_rows=native.csv_games))
    ddz = list(read_csv_lines(pairs[1], plain_rows=native.csv_games))
    twice = next(  # a game stored, then met again
        g
        for g in big2
        if isinstance(g, CsvGame) and not isinstance(replay(cast(GameRecord, g.record())), Reject)
    )
    last = max(g.source.line for g in big2 if isinstance(g, CsvGame))
    again = CsvGame(Source(twice.source.file, last + 40), twice.game_id, twice.text, twice.raw)
    items: list[Any] = [*big2, again, *ddz]
    # the reader's items (records and rejects) break the runs
    assert {CsvGame, GameRecord, Reject} == {
        next(t for t in (CsvGame, GameRecord, Reject) if isinstance(g, t)) for g in items
    }
    one_call = chunk_rows(items, "b1")
    by_one = _Rows("b1")
    one_by_one = by_one.done(by_one.add_all(items))
    assert one_call.read == one_by_one.read == len(items)
    assert sorted(one_call.reject_codes) == sorted(one_by_one.reject_codes)
    assert [g.record.game_id for g in one_call.repeats] == [twice.game_id]
    assert [g.record.game_id for g in one_by_one.repeats] == [twice.game_id]
    got, want = _table_rows(one_call), _table_rows(one_by_one)
    assert len(want["games"]) > 50 and "E_BAD_SEAT" in one_call.reject_codes
    assert got == want


def test_games_at_their_lines_fill_the_core_as_their_joined_block(pairs: list[Path]) -> None:
    """``CoreRows.fill_lines`` (a run of CSV games at their first rows' lines) gives the core
    the block the lines joined with blank lines between would (``CoreRows.fill``): the same
    answers of ``add_lines`` and the same rows; lines that do not rise are refused."""
    from pipeline.warehouse.core_rows import core_tables

    games = read_csv_lines(pairs[0], plain_rows=native.csv_games)
    run = [g for g in games if isinstance(g, CsvGame)][:40]
    lines = [(g.source.line, g.text) for g in run]
    first = lines[0][0]
    block, at = [], first
    for line, text in lines:
        block.append(b"\n" * (line - at) + text)
        at = line
    assert any(b - a > 1 for (a, _), (b, _) in itertools.pairwise(lines))

    def answers(fill: Any) -> tuple[list[Any], dict[str, list[str]]]:
        core = native.core_rows()
        assert core is not None
        fill(core)
        got, pos, line = [], 0, first
        while True:
            pos, line, built, left = core.add_lines(pos, line, "day.csv", 1 << 20)
            got.append((pos, line, built, left and left[0]))
            if left is None:
                break
        return got, _table_rows(SimpleNamespace(tables=core_tables(core.take(), "b1")))

    joined = answers(lambda core: core.fill(b"".join(block) + b"\n"))
    assert joined == answers(lambda core: core.fill_lines(first, lines))
    assert joined[0][-1][2] > 0  # the core built the games' rows
    core = native.core_rows()
    assert core is not None
    with pytest.raises(ValueError, match="do not rise"):
        core.fill_lines(first, [lines[1], lines[0]])


def test_excel_s_empty_columns_are_read_by_the_core_a_value_there_by_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pair as Excel saves it, an empty column with no name after each file's columns
    (``,,,`` on every row, the header's too): the core reads every row of both files as
    before (no reject: the columns are ignored). A value in such a column (an actions row, a
    games row): the core leaves that game and that games row to the Python reader, whose
    ``E_CSV_COLUMN`` (once a file) and items are the same either way."""
    games = [_game(seed, seed % len(OPTIONS), "compact", seed == 3) for seed in range(6)]
    game_rows, action_rows = _csv_rows(games)
    game_rows = [[*row, "", ""] for row in game_rows]
    action_rows = [[*row, "", "", ""] for row in action_rows]
    (tmp_path / "x.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path = tmp_path / "x.csv"
    path.write_text(_text(action_rows), encoding="utf-8")
    alone, with_core, lines_read = _by_the_core(monkeypatch, path)
    assert len(with_core) == 6 and all(isinstance(g, CsvGame) for g in with_core)
    _same(alone, with_core)
    quoted = [k for k, row in enumerate(game_rows[1:], 2) if any('"' in c for c in row)]
    assert lines_read == [1, 1, *quoted]  # the headers, and games rows with a quote (overrides)
    monkeypatch.undo()
    first = {row[0]: k for k, row in reversed(list(enumerate(action_rows)))}
    action_rows[first["d-2"] + 1][-2] = "17"
    action_rows[first["d-4"]][-1] = "x"
    game_rows[3][-1] = "the big table"
    (tmp_path / "x.games.csv").write_text(_text(game_rows), encoding="utf-8")
    path.write_text(_text(action_rows), encoding="utf-8")
    in_python = _games_read_in_python(monkeypatch)
    alone = list(read_csv_lines(path))
    in_python.clear()
    with_core = list(read_csv_lines(path, plain_rows=native.csv_games))
    _same(alone, with_core)
    assert in_python == ["d-2", "d-4"]
    rejects = [(r.source.file, r.source.line, r.code) for r in with_core if isinstance(r, Reject)]
    assert game_rows[3][0] == "d-2"  # its games row's reject handed over with the game
    assert rejects == [
        (str(path), first["d-2"] + 2, "E_CSV_COLUMN"),
        (str(path.with_name("x.games.csv")), 4, "E_CSV_COLUMN"),
    ]
