"""The card texts the warehouse views compute (``pipeline.warehouse.tables``: ``Derived``
columns, constant look-up lists ``card_texts_table``) are the Python printers'
(``pipeline.cards.format_cards``, ``pipeline.doudizhu.cards.format_cards``), byte for byte:
every single card, Hypothesis over masks, and every ``*_text`` of simulated games of both
games read through the views."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline import cards as big2_cards
from pipeline.doudizhu import cards as ddz_cards
from pipeline.ingest import ingest
from pipeline.warehouse import SCHEMAS, Table, Warehouse
from pipeline.warehouse.tables import (
    CARD_TEXTS,
    DERIVED,
    VIEW_NAMES,
    card_text_sql,
    card_texts_table,
    mask_text_sql,
)

#: Each game's printer of a mask, and its deck size.
PRINTERS: dict[str, tuple[Callable[[int], str], int]] = {
    "big2": (big2_cards.format_cards, big2_cards.N_CARDS),
    "doudizhu": (ddz_cards.format_cards, ddz_cards.N_CARDS),
}


@pytest.fixture(scope="module")
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect() as c:
        c.register(CARD_TEXTS, card_texts_table())
        yield c


def sql_texts(
    con: duckdb.DuckDBPyConnection, kind: str, masks: list[int | None]
) -> list[str | None]:
    """The views' text of each mask (as the views compute it: over the look-up table)."""
    rows = con.execute(
        f"select {mask_text_sql('t.m', 't.k')} from "
        "(select ?::varchar as k, m, i from unnest(?::bigint[]) with ordinality as u(m, i)) as t "
        f"cross join {CARD_TEXTS} as _ct order by t.i",
        [kind, masks],
    ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("kind", sorted(PRINTERS))
def test_every_single_card(con: duckdb.DuckDBPyConnection, kind: str) -> None:
    printer, n_cards = PRINTERS[kind]
    cards = list(range(n_cards))
    (by_id,) = con.execute(
        f"select list({card_text_sql('c', '?')} order by c) from unnest(?::tinyint[]) as t(c) "
        f"cross join {CARD_TEXTS} as _ct",
        [kind, cards],
    ).fetchone() or (None,)
    assert by_id == [printer(1 << c) for c in cards]
    assert sql_texts(con, kind, [1 << c for c in cards]) == [printer(1 << c) for c in cards]
    # NULL in, NULL out; the empty set is ''
    assert sql_texts(con, kind, [None, 0]) == [None, ""]
    assert con.execute(
        f"select {card_text_sql('null::tinyint', '?')} from {CARD_TEXTS} as _ct", [kind]
    ).fetchone() == (None,)


def test_whole_decks(con: duckdb.DuckDBPyConnection) -> None:
    for kind, (printer, n_cards) in PRINTERS.items():
        deck = (1 << n_cards) - 1
        assert sql_texts(con, kind, [deck]) == [printer(deck)]


def test_another_game_kind_prints_nothing(con: duckdb.DuckDBPyConnection) -> None:
    """A row of a game with no printer (none is stored) gets NULL, never another game's text."""
    assert sql_texts(con, "chess", [3]) == [None]


def masks(n_cards: int) -> st.SearchStrategy[list[int | None]]:
    """Masks of any size: whole random bit patterns, and small hands (sets of card ids)."""
    whole = st.integers(0, (1 << n_cards) - 1)
    hand = st.sets(st.integers(0, n_cards - 1), max_size=20).map(big2_cards.mask_of)
    return st.lists(whole | hand | st.none(), min_size=1, max_size=64)


def printed(printer: Callable[[int], str], drawn: list[int | None]) -> list[str | None]:
    return [None if m is None else printer(m) for m in drawn]


@given(masks(big2_cards.N_CARDS))
def test_big_two_masks(con: duckdb.DuckDBPyConnection, drawn: list[int | None]) -> None:
    assert sql_texts(con, "big2", drawn) == printed(big2_cards.format_cards, drawn)


@given(masks(ddz_cards.N_CARDS))
def test_dou_dizhu_masks(con: duckdb.DuckDBPyConnection, drawn: list[int | None]) -> None:
    assert sql_texts(con, "doudizhu", drawn) == printed(ddz_cards.format_cards, drawn)


# ----- simulated games through the views ------------------------------------------------------
#: 3 players drawing from a stock after a pass (``actions.drawn``).
STOCK = "three_player_mode=stock_13"


def simulate(out: Path, games: int, *args: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "simulate", "-o", str(out), "-n", str(games), *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Big Two games (4 players, 3 players drawing from a stock) and Dou Dizhu games (3 and 2
    players: a kitty, set-aside cards, a face-up card), imported."""
    tmp = tmp_path_factory.mktemp("sim")
    logs = [
        simulate(tmp / "hk.jsonl", 150, "--ruleset", "hk", "--seed", "1"),
        simulate(tmp / "stock.jsonl", 60, "--players", "3", "--set", STOCK, "--seed", "2"),
        simulate(tmp / "ddz.jsonl", 150, "--ruleset", "ddz", "--seed", "3"),
        simulate(tmp / "ddz2.jsonl", 60, "--ruleset", "ddz-2p", "--seed", "4"),
    ]
    wh = Warehouse(tmp / "wh")
    summary = ingest([str(p) for p in logs], wh)
    assert summary.total().rejected == 0, summary.reasons
    return wh


def test_the_stored_files_hold_no_derived_text(simulated: Warehouse) -> None:
    for table in (Table.SEATS, Table.ACTIONS):
        for path in simulated.files(table):
            names = pq.read_schema(path).names
            assert names == SCHEMAS[table].names
            assert not [n for n in names if n.endswith("_text")]
            assert "game_kind" in names


@pytest.mark.parametrize("table", [Table.SEATS, Table.ACTIONS])
def test_every_view_text_of_simulated_games_is_the_printers(
    simulated: Warehouse, table: Table
) -> None:
    derived = DERIVED[table]
    assert derived
    with simulated.connect() as con:
        names = tuple(d[0] for d in con.execute(f"select * from {table.value} limit 0").description)
        assert names == VIEW_NAMES[table]
        listed = ", ".join(f"{d.source}, {d.name}" for d in derived)
        rows = con.execute(f"select game_kind, {listed} from {table.value}").fetchall()
    assert {r[0] for r in rows} == {"big2", "doudizhu"}
    checked = 0
    for kind, *values in rows:
        printer, _ = PRINTERS[kind]
        for d, value, text in zip(derived, values[::2], values[1::2], strict=True):
            if value is None:
                assert text is None, (d.name, kind)
                continue
            assert text == printer(1 << value if d.card else value), (d.name, kind, value)
            checked += 1
    assert checked > len(rows)  # most rows have several texts to check
