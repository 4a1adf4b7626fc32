"""The core builds the Dou Dizhu warehouse rows itself (issue 15): a chunk's games, seats,
actions and tricks rows from the Dou Dizhu core's column buffers equal, row for row, the rows
the Python reader, engine and row builder (:mod:`pipeline.warehouse.rows_doudizhu`) make of
the same lines; the schemas, the rejects (codes and messages) and the repeats too.

Hypothesis draws chunks of Dou Dizhu games (the bots' and the engine's, every preset and
ruleset option, three card notations, full and partial information, void deals), with the
metadata the rows carry (``tests.native.test_rows``' match, table and tournament fields,
``started_at`` shapes, names, balances, ``truth`` objects and time jitter), mutated copies,
repeats, conflicts, an indented line, a repeated key and a Big Two game under a Dou Dizhu
game's id (the two cores share the chunk's game ids); each chunk goes through
:func:`pipeline.ingest.chunk_rows` on the core and in pure Python, in this process.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.doudizhu.cards import format_cards
from pipeline.warehouse import Table
from tests.native import NEEDS_CORE
from tests.native import test_differential as big2
from tests.native.test_ddz_differential import BOTS, MUTATIONS, OPTIONS, _game, _mutate
from tests.native.test_rows import (
    _META,
    _as_iso,
    _both,
    _core_alone,
    _run,
    _with_meta,
    check_memory_reuse,
)

pytestmark = NEEDS_CORE


#: A number of more than 15 digits in a line.
_LONG_NUMBER = re.compile(r"[0-9.]{17,}")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seeds=st.lists(st.integers(0, 10**6), min_size=1, max_size=4),
    option=st.integers(0, len(OPTIONS) - 1),
    bots=st.sampled_from(BOTS),
    notation=st.sampled_from(["compact", "pretty", "list"]),
    partial=st.booleans(),
    meta=_META,
    how=st.sampled_from(MUTATIONS),
)
def test_a_ddz_chunk_gives_the_same_rows_on_the_core_and_in_python(
    monkeypatch: pytest.MonkeyPatch,
    seeds: list[int],
    option: int,
    bots: str,
    notation: str,
    partial: bool,
    meta: dict[str, Any],
    how: str,
) -> None:
    rng = random.Random(seeds[0])
    lines = []
    for k, seed in enumerate(seeds):
        game = _game(seed, (option + k) % len(OPTIONS), bots, notation, partial)
        game = _with_meta(game, meta, rng)
        game["game_id"] = f"d{k}-{seed}"
        bad = _mutate(game, how, rng)
        bad["game_id"] = f"{game['game_id']}-{how}"
        lines.append(orjson.dumps(_as_iso(game, meta["iso"])).decode())
        lines.append(orjson.dumps(_as_iso(bad, meta["iso"])).decode())
    first = orjson.loads(lines[0])
    b2 = big2._game(seeds[0], 0, "compact", False)
    lines += [
        lines[0],  # a repeat
        orjson.dumps({**first, "match_id": "other"}).decode(),  # a conflict (same id)
        orjson.dumps({**first, "game_id": "spaced"}, option=orjson.OPT_INDENT_2).decode(),
        lines[0].replace('"game_id":', '"game_id":"dup","game_id":', 1),  # a repeated key
        orjson.dumps({**b2, "game_id": first["game_id"]}).decode(),  # Big Two, the same id
    ]
    _both(monkeypatch, lines)


def test_the_core_builds_the_ddz_rows_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison is not vacuous: on the core, common Dou Dizhu lines never reach the
    Python reader or row builder; their rows come whole from the core's buffers, the content
    hash the reader's."""
    import pipeline.ingest
    import pipeline.replay
    from pipeline.logs.records import content_hash

    def no_python(*args: Any) -> Any:
        raise AssertionError("Python built a Dou Dizhu game the core reads")

    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "compact", seed % 3 == 1)
        for seed in range(48)
    ]
    # a float stake's 0.30000000000000004 among them: read from the tree, exactly
    assert any(_LONG_NUMBER.search(orjson.dumps(g).decode()) for g in games)
    lines = [orjson.dumps(g).decode() for g in games]
    monkeypatch.setattr(pipeline.replay, "game_for", no_python)
    monkeypatch.setattr(native, "replay_game", no_python)
    monkeypatch.setattr(pipeline.ingest.RowBuffer, "add_game", no_python)
    result = _run(monkeypatch, lines, core=True)
    stored = result.tables[Table.GAMES]
    assert stored.num_rows == 48 and not result.reject_codes
    assert set(stored["game_kind"].to_pylist()) == {"doudizhu"}
    assert result.tables[Table.TRICKS].num_rows > 200
    assert stored["landlord"].null_count < 48 and stored["kitty_mask"].null_count < 48
    by_id = {g["game_id"]: content_hash(g) for g in games}
    assert stored["content_hash"].to_pylist() == [by_id[g] for g in stored["game_id"].to_pylist()]


def test_the_core_reads_ddz_iso_times_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dou Dizhu actions whose ``ts`` are ISO times are read by the core (the shapes Big Two's
    reads), not the Python reader, and give the rows Python gives."""
    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "compact", False) for seed in range(30)
    ]
    games = [g for g in games if not _LONG_NUMBER.search(orjson.dumps(g).decode())][:12]
    lines = [
        orjson.dumps(_as_iso(g, ("milliseconds", -330 if k % 2 else 480, "offset"))).decode()
        for k, g in enumerate(games)
    ]
    assert all('"ts":"20' in line for line in lines)
    assert _core_alone(monkeypatch, lines).tables[Table.GAMES].num_rows == 12


def test_the_core_reads_escaped_ddz_strings_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dou Dizhu lines as Python's ``json.dumps`` writes them (names beyond ASCII as ``\\u``
    escapes, a quote and a backslash escaped) are read by the core, not the Python reader,
    and give the rows and content hash Python gives."""
    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "compact", False) for seed in range(30)
    ]
    games = [g for g in games if not _LONG_NUMBER.search(orjson.dumps(g).decode())][:10]
    names = ["地主 黃", '農民 "二"', "back\\slash"]
    for k, g in enumerate(games):
        g["seats"] = [{**s, "name": names[(k + n) % 3]} for n, s in enumerate(g["seats"])]
    lines = [json.dumps(g) for g in games]
    assert sum("\\u5730" in line for line in lines) >= 6
    rows = _core_alone(monkeypatch, lines).tables
    assert rows[Table.GAMES].num_rows == 10
    assert "地主 黃" in rows[Table.SEATS]["name"].to_pylist()


def test_the_core_reads_ddz_long_numbers_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dou Dizhu lines with times to the last digit a double holds (``json.dumps(time.time())``
    writes them so), balances of 17 digits and long numbers in the declared result (a float
    stake's ``0.30000000000000004``) are read by the core from the line's tree (each number
    read once, correctly), not by the Python reader, with the rows and content hash Python
    gives."""
    rng = random.Random(5)
    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "compact", False) for seed in range(12)
    ]
    assert any("0000000000" in json.dumps(g["result"]) for g in games)  # a float stake's
    for g in games:
        g["actions"] = [
            {**a, "ts": a["ts"] + rng.random() / 10} if isinstance(a.get("ts"), float) else a
            for a in g["actions"]
        ]
        g["seats"] = [{**s, "balance": 1234.5678901234567} for s in g["seats"]]
    lines = [json.dumps(g) for g in games]
    assert all(_LONG_NUMBER.search(line) for line in lines)
    rows = _core_alone(monkeypatch, lines).tables
    assert rows[Table.GAMES].num_rows == 12


#: Each card-text column the Dou Dizhu core prints, and the column it prints.
_TEXTS_OF = {
    Table.GAMES: {
        "kitty_text": "kitty_mask",
        "set_aside_text": "set_aside_mask",
        "face_up_card_text": "face_up_card",
    },
    Table.SEATS: {"deal_text": "deal_mask", "final_hand_text": "final_hand_mask"},
    Table.ACTIONS: {
        "cards_text": "cards_mask",
        "top_before_text": "top_before_mask",
        "hand_before_text": "hand_before_mask",
    },
}


def test_the_core_prints_the_ddz_card_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``*_text`` columns come printed from the core (no Python card printer runs), each
    Dou Dizhu ``format_cards`` of its mask or card (spaced, the jokers last; NULL for NULL,
    '' for no card); Big Two's ``highest_single_text`` and ``drawn_text`` NULL."""
    from pipeline.warehouse.tables import CardPrinter

    def no_python(*args: Any) -> Any:
        raise AssertionError("Python printed a card text of a game the core reads")

    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "pretty", seed % 3 == 1)
        for seed in range(30)
    ]
    lines = [line for g in games if not _LONG_NUMBER.search(line := orjson.dumps(g).decode())]
    monkeypatch.setattr(CardPrinter, "mask_text", no_python)
    monkeypatch.setattr(CardPrinter, "card_text", no_python)
    tables = _run(monkeypatch, lines, core=True).tables
    for table, texts in _TEXTS_OF.items():
        rows = tables[table]
        for text, source in texts.items():
            values = rows[source].to_pylist()
            want = [
                None if v is None else format_cards(v if source.endswith("_mask") else 1 << v)
                for v in values
            ]
            assert rows[text].to_pylist() == want, text
    actions = tables[Table.ACTIONS]
    assert "" in actions["cards_text"].to_pylist()  # a pass, a bid
    hands = [t for t in tables[Table.SEATS]["deal_text"].to_pylist() if t]
    assert any(t.endswith("BJ RJ") for t in hands) and all(" " in t for t in hands)
    for name in ("highest_single_text", "drawn_text"):
        assert actions[name].null_count == actions.num_rows


def test_ddz_lines_the_core_leaves_still_give_their_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A balance and times of more digits than the core reads exactly, an escape in a name,
    a number at the edge of 64 bits: those lines' rows are Python's, the same."""
    game = _game(5, 0, "greedy", "compact", False)
    long_ts = {**game, "game_id": "long-ts", "actions": [dict(a) for a in game["actions"]]}
    for a in long_ts["actions"]:
        if "ts" in a:
            a["ts"] += 0.123456789
    seats = [{**s, "balance": 0.1 + 0.2} for s in game["seats"]]
    escaped = [{**s, "name": 'say "hi"\n'} for s in game["seats"]]
    lines = [
        orjson.dumps(game).decode(),
        orjson.dumps(long_ts).decode(),
        orjson.dumps({**game, "game_id": "long-balance", "seats": seats}).decode(),
        orjson.dumps({**game, "game_id": "escaped", "seats": escaped}).decode(),
        json.dumps({**game, "game_id": "big", "truth": {"big": 2**70}}),
    ]
    mine, _ = _both(monkeypatch, lines)
    assert mine.tables[Table.GAMES].num_rows == 5


def test_a_big2_game_and_a_ddz_game_share_the_chunks_game_ids(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One id set for the chunk: a Big Two game after a Dou Dizhu game of the same id (and
    the other way round) is a repeat, as in the Python row buffer."""
    ddz = _game(1, 0, "random", "compact", False)
    b2 = big2._game(1, 0, "compact", False)
    lines = [
        orjson.dumps({**ddz, "game_id": "same"}).decode(),
        orjson.dumps({**b2, "game_id": "same"}).decode(),
        orjson.dumps({**b2, "game_id": "other"}).decode(),
        orjson.dumps({**ddz, "game_id": "other"}).decode(),
    ]
    mine, _ = _both(monkeypatch, lines)
    assert [r.record.game_id for r in mine.repeats] == ["same", "other"]


def test_ddz_chunks_on_one_core_reuse_its_memory_and_keep_earlier_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Dou Dizhu core hands a chunk's columns over as the Big Two core does: in its own
    memory (no copy), a later chunk built in the memory of a chunk whose tables were dropped;
    a chunk kept alive keeps its rows while later chunks are built, every chunk's rows Python's."""
    games = [
        _game(seed, seed % len(OPTIONS), BOTS[seed % 4], "compact", seed % 2 == 1)
        for seed in range(40)
    ]
    lines = [line for g in games if not _LONG_NUMBER.search(line := orjson.dumps(g).decode())]
    check_memory_reuse(monkeypatch, [lines[:12], lines[12:24]])
