"""CSV logs on the native core (issue 15): the reader hands a game in good shape over as the
JSON line it equals (``CsvGame``), the core reads and replays it as a JSON Lines game, and
whatever the core leaves goes to the Python path with the game's CSV rows as its raw. The
warehouse is the same as the pure Python import's, rejects included."""

from __future__ import annotations

import csv
import gzip
import io
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from pipeline import native
from pipeline.logs.csv_logs import CsvGame, read_csv, read_csv_lines
from pipeline.logs.model import GameRecord, Reject
from pipeline.sim.ddz_simulate import DdzSimConfig, simulate_lines
from pipeline.sim.sample import _csv_rows
from tests.doudizhu.test_log_csv import as_csv
from tests.native.test_differential import MUTATIONS, OPTIONS, _game, _mutate
from tests.native.test_ingest import _ingest, _rows

MODULE = native.load_module()
pytestmark = pytest.mark.skipif(MODULE is None, reason="the native core is not built (make native)")


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
    games, actions = as_csv(lines)
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
    want |= {"E_BAD_SEAT", "E_OUT_OF_TURN", "E_TS_ORDER"}
    assert want <= codes, codes
    for table in py:
        assert rs[table] == py[table], table


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
    """With the core on, a good CSV game never reaches the Python reader or engine."""
    import pipeline.logs.csv_logs
    import pipeline.replay
    from pipeline.ingest import process_chunk
    from pipeline.warehouse import Warehouse

    def no_python(*_: Any, **__: Any) -> Any:
        raise AssertionError("the Python path read a CSV game")

    items = [g for g in read_csv_lines(pairs[1]) if isinstance(g, CsvGame)]
    assert len(items) > 15
    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    monkeypatch.setattr(pipeline.logs.csv_logs, "parse_game", no_python)
    with Warehouse(tmp_path).batch() as batch:
        result = process_chunk("ddz.csv.gz", list(items), batch.part_spec(), batch.new_part())
    assert result.read == len(items) and not result.reject_codes
