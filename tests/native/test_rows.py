"""The core builds the warehouse rows itself (issue 15): a chunk's games, seats, actions and
tricks rows from the core's column buffers equal, row for row, the rows the Python reader,
engine and row builder make of the same lines; the rejects too (codes and messages).

Hypothesis draws chunks of simulated games (every preset and rare option, every notation,
full and partial information), with metadata the rows carry (match, table and tournament
fields, ``started_at`` in its shapes, names, balances, ``truth`` objects and times that the
content hash and ``ts`` read), mutated copies, repeats and conflicts; each chunk goes through
:func:`pipeline.ingest.chunk_rows` on the core and in pure Python, in this process.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.ingest import chunk_rows
from pipeline.logs.model import Source
from pipeline.warehouse import Table
from tests.native import MODULE, NEEDS_CORE
from tests.native.test_differential import MUTATIONS, OPTIONS, _game, _mutate

pytestmark = NEEDS_CORE

_STARTED = [
    None,
    "2026-11-01T20:00:00",
    "2026-11-01T20:00:00+08:00",
    "2026-11-01T20:00:00Z",
    "2026-11-01T20:00:00.120",
    "2026-11-01T20:00:00.000",
    "2026-11-01T20:00:00.123456-05:30",
    "2026-11-01 20:00:00",
    "2026-11-01 20:00:00.5",
    "2026-11-01 20:00:00+0800",
    "2026-11-01T20:00:00.12345-08",
    "2026-11-01T20:00",
    "2026-11-01",
]
_TEXTS = st.one_of(st.none(), st.text(min_size=1, max_size=8))
_NUMBERS = st.one_of(
    st.integers(-(2**53), 2**53),
    st.floats(-(2.0**53), 2.0**53, allow_nan=False),
    st.sampled_from([1e16, 1.5e-7, 0.1, -0.0, 1e-5, 2.5e15, 123456789.123]),
)
_TRUTH = st.one_of(
    st.none(),
    st.dictionaries(
        st.text(max_size=4),
        st.one_of(_NUMBERS, st.text(max_size=6), st.booleans(), st.none(), st.lists(_NUMBERS)),
        max_size=4,
    ),
)


def _with_meta(game: dict[str, Any], meta: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    g = {**game}
    for key in ("match_id", "table_id", "tournament_id", "tournament_kind"):
        if meta[key] is not None:
            g[key] = meta[key]
    if meta["tournament_round"] is not None:
        g["tournament_round"] = meta["tournament_round"]
    if meta["started_at"] is not None:
        g["started_at"] = meta["started_at"]
    if meta["truth"] is not None:
        g["truth"] = meta["truth"]
    seats = []
    for s in g["seats"]:
        seat = {**s}
        if meta["name"] is not None:
            seat["name"] = meta["name"] if rng.random() < 0.7 else None
        if meta["balance"] is not None and rng.random() < 0.7:
            seat["balance"] = meta["balance"]
        seats.append(seat)
    g["seats"] = seats
    if meta["jitter"]:  # times with a fraction of a millisecond: ts_ms rounds them
        actions = [dict(a) for a in g["actions"]]
        for a in actions:
            if "ts" in a:
                a["ts"] = a["ts"] + meta["jitter"]
        g["actions"] = actions
    return g


def _as_iso(game: dict[str, Any], shape: tuple[str, int, str] | None) -> dict[str, Any]:
    """``game`` with each action's ``ts`` as an ISO time of ``shape`` (:func:`_iso`)."""
    if shape is None or not isinstance(game.get("actions"), list):
        return game
    actions = [
        {**a, "ts": _iso(a["ts"], shape)}
        if isinstance(a, dict) and isinstance(a.get("ts"), float)
        else a
        for a in game["actions"]
    ]
    return {**game, "actions": actions}


#: The precisions :func:`_iso` writes.
_ISO_SPECS = (
    "hours",
    "minutes",
    "seconds",
    "milliseconds",
    "microseconds",
    "tenths",
    "5 digits",
    "7 digits",
)


def _iso(ts: float, shape: tuple[str, int, str]) -> str:
    """``ts`` as an ISO time: ``shape`` is the precision (a ``timespec``, or ``"tenths"``,
    ``"5 digits"``, ``"7 digits"``: the microseconds cut to so many, the last one zero), a UTC
    offset in minutes and how the zone is written (``"offset"`` ``+08:00``, ``"compact"``
    ``+0800``, ``"hours"`` ``+08`` (its minutes dropped), ``"Z"``, ``"none"``: UTC without
    one, ``"space"`` and ``"space none"``: a space for the ``T``, ``"comma"``: a comma for the
    point)."""
    from datetime import UTC, datetime, timedelta, timezone

    spec, minutes, zone = shape
    if zone in ("Z", "none", "space none"):
        minutes = 0
    at = datetime.fromtimestamp(ts, UTC).astimezone(timezone(timedelta(minutes=minutes)))
    if spec.endswith("digits") or spec == "tenths":
        text = at.isoformat(timespec="microseconds")
        digits = {"tenths": 1, "5 digits": 5, "7 digits": 7}[spec]
        text = text[:20] + (text[20:26] + "0")[:digits] + text[26:]
    else:
        text = at.isoformat(timespec=spec)
    if zone == "Z":
        return text.replace("+00:00", "Z")
    if zone in ("none", "space none"):
        text = text.removesuffix("+00:00")
    if zone in ("compact", "hours"):
        text = text[:-3] + text[-2:] if zone == "compact" else text[:-3]
    if zone == "comma":
        text = text.replace(".", ",")
    return text.replace("T", " ") if zone.startswith("space") else text


_META = st.fixed_dictionaries(
    {
        "match_id": _TEXTS,
        "table_id": _TEXTS,
        "tournament_id": _TEXTS,
        "tournament_kind": _TEXTS,
        "tournament_round": st.one_of(st.none(), st.integers(1, 2**31 - 1)),
        "started_at": st.sampled_from(_STARTED),
        "name": _TEXTS,
        "balance": st.one_of(st.none(), _NUMBERS),
        "truth": _TRUTH,
        "jitter": st.sampled_from([0, 0.0005, 0.0015, 0.123456789]),
        "iso": st.one_of(
            st.none(),
            st.tuples(
                st.sampled_from(_ISO_SPECS),
                st.sampled_from([0, 480, -330, 23 * 60 + 59, -(23 * 60 + 59)]),
                st.sampled_from(
                    ["offset", "Z", "none", "space", "space none", "compact", "hours", "comma"]
                ),
            ),
        ),
    }
)


def _chunk(lines: list[str]) -> list[Any]:
    return [(Source("rows.jsonl", k + 1), line) for k, line in enumerate(lines)]


def _run(monkeypatch: pytest.MonkeyPatch, lines: list[str], *, core: bool) -> Any:
    monkeypatch.setattr(native, "_MODULE", MODULE if core else None)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    return chunk_rows(_chunk(lines), "b1")


def _sorted_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    rows = [tuple(r.values()) for r in table.to_pylist()]
    return sorted(rows, key=repr)


def _same(mine: Any, reference: Any) -> None:
    assert set(mine.tables) == set(reference.tables)
    for table, rows in reference.tables.items():
        got = mine.tables[table]
        assert got.schema == rows.schema, table
        assert _sorted_rows(got) == _sorted_rows(rows), table
    assert mine.reject_codes == reference.reject_codes
    assert [r.record.game_id for r in mine.repeats] == [r.record.game_id for r in reference.repeats]
    assert [r.record.content_hash for r in mine.repeats] == [
        r.record.content_hash for r in reference.repeats
    ]


def _both(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> tuple[Any, Any]:
    """The chunk's rows on the core and in pure Python, held equal (:func:`_same`)."""
    with monkeypatch.context() as m:
        mine = _run(m, lines, core=True)
    with monkeypatch.context() as m:
        reference = _run(m, lines, core=False)
    _same(mine, reference)
    return mine, reference


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seeds=st.lists(st.integers(0, 10**6), min_size=1, max_size=4),
    option=st.integers(0, len(OPTIONS) - 1),
    notation=st.sampled_from(["compact", "pretty", "list"]),
    partial=st.booleans(),
    meta=_META,
    how=st.sampled_from(MUTATIONS),
)
def test_a_chunk_gives_the_same_rows_on_the_core_and_in_python(
    monkeypatch: pytest.MonkeyPatch,
    seeds: list[int],
    option: int,
    notation: str,
    partial: bool,
    meta: dict[str, Any],
    how: str,
) -> None:
    rng = random.Random(seeds[0])
    lines = []
    for k, seed in enumerate(seeds):
        game = _with_meta(_game(seed, (option + k) % len(OPTIONS), notation, partial), meta, rng)
        game["game_id"] = f"g{k}-{seed}"
        bad = _mutate(game, how, rng)
        bad["game_id"] = f"{game['game_id']}-{how}"
        lines.append(orjson.dumps(_as_iso(game, meta["iso"])).decode())
        lines.append(orjson.dumps(_as_iso(bad, meta["iso"])).decode())
    first = orjson.loads(lines[0])
    lines += [
        lines[0],  # a repeat
        orjson.dumps({**first, "match_id": "other"}).decode(),  # a conflict (same id)
        orjson.dumps({**first, "game_id": "spaced"}, option=orjson.OPT_INDENT_2).decode(),
        lines[0].replace('"game_id":', '"game_id":"dup","game_id":', 1),  # a repeated key
    ]
    _both(monkeypatch, lines)


def test_the_core_builds_the_rows_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: on the core, common lines never reach the Python
    reader or row builder; their rows come whole from the core's buffers."""
    import pipeline.ingest
    import pipeline.replay

    def no_python(*args: Any) -> Any:
        raise AssertionError("Python built a game the core reads")

    games = [_game(seed, seed % len(OPTIONS), "compact", seed % 2 == 1) for seed in range(40)]
    lines = [orjson.dumps(g).decode() for g in games]
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    monkeypatch.setattr(native, "replay_game", no_python)
    monkeypatch.setattr(pipeline.ingest.RowBuffer, "add_game", no_python)
    result = _run(monkeypatch, lines, core=True)
    stored = result.tables[Table.GAMES]
    assert stored.num_rows + len(result.reject_codes) == 40 and stored.num_rows >= 30
    assert result.tables[Table.TRICKS].num_rows > 100
    hashes = stored["content_hash"].to_pylist()
    from pipeline.logs.records import content_hash

    by_id = {g["game_id"]: content_hash(g) for g in games}
    assert hashes == [by_id[gid] for gid in stored["game_id"].to_pylist()]


def _core_alone(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> Any:
    """The chunk's rows on the core with the Python reader and engine kept away (a line that
    reached them fails the test), held equal to the pure Python path's; the core's."""
    import pipeline.replay

    def no_python(*args: Any) -> Any:
        raise AssertionError("Python read a line the core reads")

    with monkeypatch.context() as m:
        m.setattr(pipeline.replay, "game_for", no_python)
        m.setattr(native, "replay_game", no_python)
        mine = _run(m, lines, core=True)
    with monkeypatch.context() as m:
        reference = _run(m, lines, core=False)
    _same(mine, reference)
    return mine


@pytest.mark.parametrize(
    "shape",
    [
        (spec, minutes, zone)
        for spec in _ISO_SPECS
        for minutes, zone in (
            (480, "offset"),
            (-330, "offset"),
            (1439, "offset"),
            (0, "Z"),
            (0, "none"),
            (480, "space"),
            (0, "space none"),
            (-330, "compact"),
            (480, "hours"),
            (480, "comma"),
        )
    ],
)
def test_the_core_reads_iso_times_itself(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[str, int, str]
) -> None:
    """Actions whose ``ts`` are ISO times (``2026-07-31T11:14:21.900+08:00``, ``…Z``, no zone,
    a space for the ``T`` as a database prints a time, ``+0800``, ``+08``, an hour alone, no
    seconds, any digits of a second (.NET's ``o`` writes seven), a comma for the point) are
    read by the core, not the Python reader, and give the ``ts`` Python gives."""
    games = [_game(seed, 0, "compact", False) for seed in range(10)]
    lines = [orjson.dumps(_as_iso(g, shape)).decode() for g in games]
    assert all('"ts":"20' in line for line in lines)
    assert _core_alone(monkeypatch, lines).tables[Table.GAMES].num_rows == 10


@pytest.mark.parametrize(
    "started_at",
    [
        "2026-11-01",
        "2026-11-01T20:00",
        "2026-11-01 20:00",
        "2026-11-01 20:00+08:00",
        "2026-11-01T20:00Z",
        "2026-11-01 20:00:00.5",
        "2026-11-01T20:00:00.1234567",
        "2026-11-01T20:00:00,5+08:00",
        "2026-07-31T03:14:21.0000000Z",
        "2026-11-01T20",
        "2026-11-01T20:00:00+08:00:30",
    ],
)
def test_the_core_reads_started_at_itself(monkeypatch: pytest.MonkeyPatch, started_at: str) -> None:
    """A ``started_at`` that is a date alone or has no seconds (as a club's sheet or a
    database writes it), an hour alone, seven digits of a second or a comma (.NET's), an
    offset with seconds is read by the core, not the Python reader, and stored as Python
    stores it (``2026-11-01T00:00:00+00:00``; without a zone, ``datetime.isoformat``'s)."""
    from pipeline.logs.records import _started_at

    games = [{**_game(seed, 0, "compact", False), "started_at": started_at} for seed in range(4)]
    lines = [orjson.dumps(g).decode() for g in games]
    stored = _core_alone(monkeypatch, lines).tables[Table.GAMES]["started_at"].to_pylist()
    assert stored == [_started_at(started_at)] * 4


@pytest.mark.parametrize("ts", ["2026-11-01T20:00:00+08:00:30", "2026-11-01T20-083015"])
def test_the_core_reads_offsets_with_seconds(monkeypatch: pytest.MonkeyPatch, ts: str) -> None:
    """Actions timed with an offset of hours, minutes and seconds (and an hour alone) are read
    by the core, not the Python reader, and give the ``ts`` Python gives."""
    games = [_game(seed, 0, "compact", False) for seed in range(3)]
    for game in games:
        game["actions"] = [{**a, "ts": ts} for a in game["actions"]]
    lines = [orjson.dumps(g).decode() for g in games]
    assert _core_alone(monkeypatch, lines).tables[Table.GAMES].num_rows == 3


#: Texts near the ISO shapes the core reads, and beyond them: each piece valid (half the time)
#: or not.
def _piece(valid: list[str], broken: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(valid), st.sampled_from(broken))


_NEAR_ISO = st.tuples(
    _piece(["2026-11-01", "2028-02-29", "1991-01-01"], ["2026-02-29", "2026-13-01", "2026-1-01"]),
    _piece(
        ["", "T20", "T20:00", " 20:00", "T23:59"], ["T2", "x20:00", "T20:0", "T24:00", "T20:60"]
    ),
    _piece(["", ":00", ":59"], [":60", ":5"]),
    _piece(["", ".5", ",5", ".1234567", ".999999999", ".12345"], [".", ","]),
    _piece(
        ["", "Z", "+08:00", "+0800", "+08", "-05:30", "-0530", "+23:59", "+08:00:30", "-083015"],
        ["z", "+8:00", "+24:00", "+08:00:60", "+08:00:30.5", "+08:0030"],
    ),
).map("".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(started=st.lists(_NEAR_ISO, min_size=1, max_size=4))
def test_any_near_iso_started_at_gives_python_s_rows(
    monkeypatch: pytest.MonkeyPatch, started: list[str]
) -> None:
    """A ``started_at`` in or near the ISO shapes the core reads (a date alone, no seconds,
    any digits of a second, a comma, every zone, and each piece broken) gives on the core the
    rows and rejects Python gives: what the core reads it reads as ``fromisoformat`` does, and
    what it does not is Python's."""
    games = [
        {**_game(seed, 0, "compact", False), "started_at": text}
        for seed, text in enumerate(started)
    ]
    _both(monkeypatch, [orjson.dumps(g).decode() for g in games])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(times=st.lists(_NEAR_ISO, min_size=1, max_size=4))
def test_any_near_iso_ts_gives_python_s_rows(
    monkeypatch: pytest.MonkeyPatch, times: list[str]
) -> None:
    """Actions timed with texts in or near the ISO shapes the core reads (each game's actions
    all at one such time) give on the core the rows and rejects Python gives."""
    games = []
    for seed, text in enumerate(times):
        game = _game(seed, 0, "compact", False)
        game["actions"] = [{**a, "ts": text} for a in game["actions"]]
        games.append(game)
    _both(monkeypatch, [orjson.dumps(g).decode() for g in games])


#: Each card-text column the core prints, and the column it prints (a mask, or a card id).
_TEXTS_OF = {
    Table.SEATS: {"deal_text": "deal_mask", "final_hand_text": "final_hand_mask"},
    Table.ACTIONS: {
        "cards_text": "cards_mask",
        "top_before_text": "top_before_mask",
        "hand_before_text": "hand_before_mask",
        "highest_single_text": "highest_single",
        "drawn_text": "drawn",
    },
}


def test_the_core_prints_the_card_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``*_text`` columns come printed from the core (no Python card printer runs), each
    ``format_cards`` of its mask or card (NULL for NULL, '' for no card), the rest NULL."""
    from pipeline.cards import format_cards
    from pipeline.warehouse.tables import COLUMNS, CardPrinter

    def no_python(*args: Any) -> Any:
        raise AssertionError("Python printed a card text of a game the core reads")

    # every preset and option, a partial deal among them (deal_text and hand_before_text NULL)
    games = [_game(seed, seed % len(OPTIONS), "compact", seed % 3 == 1) for seed in range(30)]
    lines = [orjson.dumps(g).decode() for g in games]
    monkeypatch.setattr(CardPrinter, "mask_text", no_python)
    monkeypatch.setattr(CardPrinter, "card_text", no_python)
    tables = _run(monkeypatch, lines, core=True).tables
    for table, texts in _TEXTS_OF.items():
        rows = tables[table]
        for text, source in texts.items():
            got = rows[text].to_pylist()
            values = rows[source].to_pylist()
            want = [
                None if v is None else format_cards(v if source.endswith("_mask") else 1 << v)
                for v in values
            ]
            assert got == want, text
            assert None in values or not rows[text].null_count, text
        assert {c.name for c in COLUMNS[table] if c.name.endswith("_text")} == set(texts)
    actions = tables[Table.ACTIONS]
    assert "" in actions["cards_text"].to_pylist()  # a pass
    assert any(t and "10" in t for t in actions["hand_before_text"].to_pylist())
    assert actions["hand_before_text"].null_count and actions["drawn_text"].null_count
    for name in ("kitty_text", "set_aside_text", "face_up_card_text"):  # Dou Dizhu's
        assert tables[Table.GAMES][name].null_count == tables[Table.GAMES].num_rows


def test_a_line_the_core_does_not_read_still_gives_its_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line with a number at the edge of 64 bits (in ``truth``) gives Python's rows (the
    core reads it: orjson reads an integer beyond 64 bits as a float, and so does the core's
    content hash)."""
    game = _game(3, 0, "compact", False)
    game["truth"] = {"big": 2**70, "edge": 2**63 + 1}
    lines = [orjson.dumps({k: v for k, v in game.items() if k != "truth"}).decode()]
    lines.append(__import__("json").dumps({**game, "game_id": "big"}))
    mine, _ = _both(monkeypatch, lines)
    assert mine.tables[Table.GAMES].num_rows == 2


def test_the_core_reads_long_numbers_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times to the last digit a double holds (``json.dumps(time.time())``'s
    ``1785467661.1234567``), balances of 17 digits and ``truth`` numbers of every kind (integers
    at and beyond the ends of 64 bits, exponents, a number below a double's least) are read
    by the core, not the Python reader, with the rows, ``ts`` and content hash Python gives."""
    import json
    import random

    rng = random.Random(7)
    truth = {
        "beyond": 2**70,
        "u64": 2**64 - 1,
        "u64+1": 2**64,
        "i64": -(2**63),
        "i64-1": -(2**63) - 1,
        "edge": 2**63 + 1,
        "big": 1e16,
        "small": 1.5e-7,
        "exp": 0.1e2,
        "tiny": 0.0,
    }
    lines = []
    for seed in range(8):
        game = _game(seed, seed % len(OPTIONS), "compact", False)
        game["truth"] = truth
        game["actions"] = [
            {**a, "ts": a["ts"] + rng.random() / 10} if isinstance(a.get("ts"), float) else a
            for a in game["actions"]
        ]
        game["seats"] = [{**s, "balance": 1234.5678901234567} for s in game["seats"]]
        text = json.dumps(game)  # Python's spelling of each number: 17 digits, 1e+16, 1.5e-07
        text = text.replace('"exp": 10.0', '"exp": 0.1e2').replace('"tiny": 0.0', '"tiny": 1e-400')
        lines.append(text)
    assert all("1e+16" in line and "0.1e2" in line and "1e-400" in line for line in lines)
    assert _core_alone(monkeypatch, lines).tables[Table.GAMES].num_rows == 8


def test_the_core_reads_escaped_strings_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines as Python's ``json.dumps`` writes them (every character beyond ASCII as a ``\\u``
    escape, a card of the Unicode deck as a surrogate pair) and strings with escaped quotes,
    backslashes and control characters are read by the core, not the Python reader, with the
    rows and content hash Python gives."""
    import json

    names = ["黃大文", "陳小明 🂡", 'say "hi"', "back\\slash\ttab\nline\u0001", "é/è"]
    lines = []
    for seed in range(10):
        game = _game(seed, seed % len(OPTIONS), "compact", False)
        game["game_id"] = f"局-{seed}"
        game["table_id"] = "枱 7"
        game["seats"] = [
            {**s, "name": names[(seed + k) % len(names)], "player_id": f"玩家{k}"}
            for k, s in enumerate(game["seats"])
        ]
        game["truth"] = {"note": names[seed % len(names)], "list": ["♠", "\\"]}
        lines.append(json.dumps(game, ensure_ascii=seed % 3 != 0))
    assert sum("\\u9ec3" in line for line in lines) >= 4
    rows = _core_alone(monkeypatch, lines).tables
    assert rows[Table.GAMES].num_rows == 10
    assert "黃大文" in rows[Table.SEATS]["name"].to_pylist()


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6),
    ascii_only=st.booleans(),
)
def test_any_escaped_text_gives_python_s_rows(
    monkeypatch: pytest.MonkeyPatch, texts: list[str], ascii_only: bool
) -> None:
    """Any text (names, a table, ``truth`` keys and values), written by ``json.dumps`` with
    or without its escapes, gives on the core the rows and content hash Python gives."""
    import json

    game = _game(2, 0, "compact", False)
    game["table_id"] = texts[0]
    game["seats"] = [{**s, "name": texts[k % len(texts)]} for k, s in enumerate(game["seats"])]
    game["truth"] = {t: t for t in texts}
    lines = [json.dumps(game, ensure_ascii=ascii_only)]
    mine, _ = _both(monkeypatch, lines)
    assert mine.tables[Table.GAMES].num_rows == 1


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    numbers=st.lists(
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False),
            st.integers(-(2**63), 2**64 - 1),  # orjson writes 64 bits; beyond: above
            # times to the last digit: an odd multiple of 2**-8 near 1.78e9 is exact in 18 digits,
            # the last a 5, halfway between two shortest readings of 17 (a tie: Python's is even)
            st.integers(1785000000 * 128, 1786000000 * 128).map(lambda k: (2 * k + 1) / 256),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_core_hashes_every_number_as_python(
    monkeypatch: pytest.MonkeyPatch, numbers: list[float | int]
) -> None:
    """The content hash of a line holding any numbers (in ``truth``, as orjson writes them)
    is Python's: the core writes each as orjson writes what it reads."""
    from pipeline.logs.records import content_hash

    game = {**_game(1, 0, "compact", False), "truth": {str(k): n for k, n in enumerate(numbers)}}
    line = orjson.dumps(game).decode()
    mine = _run(monkeypatch, [line], core=True)
    assert mine.tables[Table.GAMES]["content_hash"].to_pylist() == [
        content_hash(orjson.loads(line))
    ]


def test_the_core_hashes_powers_of_two_as_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every power of two a double holds, and its neighbours (3 × and (2**53 - 1) × one),
    hash as Python's: a power of two's shortest digits may tie, and the even one may not read
    back (the gap below a power of two is half the gap above: 2**-24 is …063, not …062)."""
    from pipeline.logs.records import content_hash

    numbers = [
        m * 2.0**k
        for k in range(-1074, 1024)
        for m in (1, 3, 2**53 - 1)
        if m * 2.0**k < float("inf") and (m == 1 or k < 1023 - 52)
    ]
    game = _game(1, 0, "compact", False)
    lines = [
        orjson.dumps({**game, "game_id": f"p{k}", "truth": {"x": numbers[k : k + 500]}}).decode()
        for k in range(0, len(numbers), 500)
    ]
    mine = _run(monkeypatch, lines, core=True).tables[Table.GAMES]
    want = {
        f"p{k}": content_hash(orjson.loads(line))
        for k, line in zip(range(0, len(numbers), 500), lines, strict=True)
    }
    assert (
        dict(zip(mine["game_id"].to_pylist(), mine["content_hash"].to_pylist(), strict=True))
        == want
    )


def test_chunks_on_one_core_reuse_its_memory_and_keep_earlier_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The core hands a chunk's columns over in its own memory (no copy) and builds a later
    chunk in the memory of a chunk whose tables were dropped: a chunk kept alive keeps its
    rows while later chunks are built on the same core, and every chunk's rows are Python's."""
    games = [_game(seed, seed % len(OPTIONS), "compact", seed % 2 == 1) for seed in range(30)]
    lines = [orjson.dumps(g).decode() for g in games]
    check_memory_reuse(monkeypatch, [lines[:15], lines[15:]])


def check_memory_reuse(monkeypatch: pytest.MonkeyPatch, parts: list[list[str]]) -> None:
    """Two chunks of lines the core reads whole, imported on one core: a chunk kept alive
    keeps its rows while the others are built, each later chunk is built in the memory of the
    one dropped before it (none in the kept one's), and every chunk's rows are Python's."""
    with monkeypatch.context() as m:
        reference = [_run(m, part, core=False) for part in parts]
    monkeypatch.setattr(native, "_MODULE", MODULE)
    monkeypatch.setattr(native, "_THIS_THREAD", native._PerThread())
    kept = chunk_rows(_chunk(parts[0]), "b1")  # held while the core builds the others
    snapshot = {table: rows.to_pylist() for table, rows in kept.tables.items()}
    kept_at = kept.tables[Table.ACTIONS]["seat"].chunks[0].buffers()[1].address
    addresses = []
    for k in range(4):
        done = chunk_rows(_chunk(parts[1 - k % 2]), "b1")
        _same(done, reference[1 - k % 2])
        seat = done.tables[Table.ACTIONS]["seat"]
        assert seat.num_chunks == 1  # the core's rows alone: none of Python's
        addresses.append(seat.chunks[0].buffers()[1].address)
        del done, seat  # its memory goes back to the core
    assert {table: rows.to_pylist() for table, rows in kept.tables.items()} == snapshot
    _same(kept, reference[0])
    # chunk 0 in new memory (the kept one's was held), each later one in the memory of the
    # one before it (dropped: it went back to the core before the next chunk started)
    assert len(set(addresses)) == 1 and addresses[0] != kept_at
