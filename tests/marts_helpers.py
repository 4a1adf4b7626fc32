"""Shared setup for the audit, collusion, stats and luck mart tests (issue 7).

- :func:`golden_game`: the hand-built 頂大 game (met, then violated → 包牌), in any preset.
- :func:`warehouse_of`: games or log files → a warehouse through the real ingest.
- :func:`marts`: a connection with the marts built over a warehouse.
- :func:`table_differences`: the rows two built files differ by, table by table.
- :func:`assert_whatif_reads_only_scoring_keys`: what ``big2 rescore``'s refusal of the other
  keys (E_RESCORE_KEY) rests on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import duckdb

from pipeline import sqlbuild
from pipeline.games import game_for
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent
SQL = ROOT / "sql"
MY_PREFIXES = ("audit_", "collusion_", "stats_", "luck_")

#: The golden deal (seat order = play order). Seat 1 sheds 12 cards in three plays and waits
#: on K♦; seat 0, its 上家, first blocks with 2♠ (met), then leads 4♠ holding A♠ (violated),
#: and seat 1 goes out on K♦: 包牌 on seat 0 where must_block = liability.
GOLDEN_HANDS = [
    "3d 4c 5c 6c 7c 2s As 4s 3c 8d 9d Jc Qc",
    "9c Td Jd Qd Kc 3h 5h 8h Th Qh Ac Ad Kd",
    "2c 2h 5d 4d 4h 5s 6h 7d 7h 8c 9h Tc Jh",
    "6d 2d 3s 6s 7s 8s 9s Ts Js Qs Kh Ks Ah",
]
# fmt: off
GOLDEN_ACTIONS: list[tuple[int, str | None]] = [
    # trick 1: straights
    (0, "3d 4c 5c 6c 7c"), (1, "9c Td Jd Qd Kc"), (2, None), (3, None), (0, None),
    # trick 2: seat 1's flush
    (1, "3h 5h 8h Th Qh"), (2, None), (3, None), (0, None),
    # trick 3: seat 1 down to one card; seat 2 takes it with 2s (seat 0 follows a pair: no 頂大)
    (1, "Ac Ad"), (2, "2c 2h"), (3, None), (0, None), (1, None),
    # trick 4: seat 0 follows a single with its highest single 2♠: met
    (2, "5d"), (3, "6d"), (0, "2s"), (1, None), (2, None), (3, None),
    # trick 5: seat 0 leads 4♠ holding A♠: violated; seat 1 goes out on its very next turn
    (0, "4s"), (1, "Kd"),
]
# fmt: on
GOLDEN_START = 1_793_534_400.0


def golden_game(game_id: str = "golden-1", preset: str = "hk", **extra: Any) -> dict[str, Any]:
    """The golden game as a full-information log object (one second per action)."""
    actions = []
    for i, (seat, cards) in enumerate(GOLDEN_ACTIONS):
        entry: dict[str, Any] = {"seat": seat, "action": "pass" if cards is None else "play"}
        if cards is not None:
            entry["cards"] = cards
        entry["ts"] = GOLDEN_START + i + 1
        actions.append(entry)
    game: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": game_id,
        "ruleset": {"preset": preset, "overrides": {}},
        "match_id": "golden",
        "game_number": 1,
        "started_at": "2026-11-01T12:00:00+00:00",
        "seats": [{"seat": s, "player_id": f"g{s}"} for s in range(4)],
        "deal": {"hands": list(GOLDEN_HANDS), "stock": []},
        "actions": actions,
        "result": {"winner": 1, "cards_left": [6, 0, 10, 12]},
    }
    game.update(extra)
    return game


def warehouse_of(
    directory: Path, games: Iterable[Mapping[str, Any]] = (), files: Sequence[Path] = ()
) -> Warehouse:
    """Ingest log objects (written to one JSON Lines file) and log files into a new warehouse."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [str(f) for f in files]
    games = list(games)
    if games:
        log = directory / "games.jsonl"
        log.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games))
        paths.append(str(log))
    wh = Warehouse(directory / "warehouse")
    summary = ingest(paths, wh, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    return wh


_BUILT: dict[Path, duckdb.DuckDBPyConnection] = {}


def marts(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    """Build every SQL layer (``big2 build``: staging, scoring and these marts) into the
    warehouse; return a read-only connection."""
    if wh.root not in _BUILT:
        build(wh)
        _BUILT[wh.root] = wh.connect()
    return _BUILT[wh.root]


def rows(con: duckdb.DuckDBPyConnection, sql: str, **params: Any) -> list[dict[str, Any]]:
    """A query's rows as dicts."""
    rel = con.execute(sql, params)
    names = [d[0] for d in rel.description]
    return [dict(zip(names, r, strict=True)) for r in rel.fetchall()]


#: The simulated table of the mart tests: two honest heuristic bots, a greedy and a random one,
#: every seat failing 頂大 10 % of the time by chance (must_block_discipline 0.9).
SIM_BOTS = ("heuristic", "greedy", "random", "heuristic")
SIM_DISCIPLINE = 0.9
_SIMULATED: dict[tuple[int, int, bool], tuple[Warehouse, list[dict[str, Any]]]] = {}


def simulated(
    root: Path, *, games: int, seed: int, colluders: bool
) -> tuple[Warehouse, list[dict[str, Any]]]:
    """A simulated run through the real ingest (cached per run) and its logs' ground truth.

    With ``colluders``, seat 0 never blocks seat 1 (its next seat) and feeds it low singles.
    Returns the warehouse and, per game, ``{"seats": [player ids], "truth": {...}}``.
    """
    from pipeline.sim.simulate import SimConfig, simulate_to_file

    key = (games, seed, colluders)
    if key not in _SIMULATED:
        cfg = SimConfig(
            games=games,
            seed=seed,
            bots=SIM_BOTS,
            must_block_discipline=SIM_DISCIPLINE,
            colluders=(0, 1) if colluders else None,
        )
        directory = root / f"sim-{games}-{seed}-{'c' if colluders else 'n'}"
        log = directory / "sim.jsonl"
        simulate_to_file(cfg, log, workers=2 if games >= 2000 else 1)
        truth = []
        with log.open(encoding="utf-8") as fh:
            for line in fh:
                obj = json.loads(line)
                truth.append(
                    {"seats": [s["player_id"] for s in obj["seats"]], "truth": obj["truth"]}
                )
        wh = Warehouse(directory / "warehouse")
        summary = ingest([str(log)], wh, workers=2 if games >= 2000 else 1)
        assert summary.total().rejected == 0, summary.reasons
        _SIMULATED[key] = (wh, truth)
    return _SIMULATED[key]


#: A run of simulated games: (preset, overrides, bots, games).
Run = tuple[str, dict[str, Any], tuple[str, ...], int]


def write_runs(out: TextIO, runs: Sequence[Run], *, seed: int, prefix: str) -> None:
    """Simulate each run (seed ``seed + i``, ids ``<prefix><i>``; 頂大 discipline 0.6, 8-game
    matches) and write its games to ``out`` as JSON Lines."""
    from pipeline.sim.simulate import SimConfig, simulate

    for i, (preset, overrides, bots, games) in enumerate(runs):
        cfg = SimConfig(
            games=games,
            seed=seed + i,
            bots=bots,
            preset=preset,
            overrides=overrides,
            must_block_discipline=0.6,
            match_games=8,
            id_prefix=f"{prefix}{i}",
        )
        for game in simulate(cfg):
            out.write(json.dumps(game, ensure_ascii=False) + "\n")


def sql_test_failures(con: duckdb.DuckDBPyConnection, prefixes: Sequence[str]) -> dict[str, Any]:
    """Run ``sql/tests/<prefix>*.sql`` (queries that must return no rows): name → rows found."""
    out: dict[str, Any] = {}
    for path in sorted((SQL / "tests").glob("*.sql")):
        if path.stem.startswith(tuple(prefixes)):
            found = con.execute(path.read_text()).fetchall()
            if found:
                out[path.stem] = found[:5]
    return out


def file_tables(path: Path) -> set[str]:
    """The file's tables and views (the marts published as views, ``sqlbuild.VIEW_MARTS``,
    and the staging views over the batches' files), but its stamp."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute(
            "select table_name from duckdb_tables() where schema_name = 'main' union all "
            "select view_name from duckdb_views() where schema_name = 'main' and not internal"
        ).fetchall()
    finally:
        con.close()
    return {name for (name,) in rows if name != "_warehouse_meta"}


def table_differences(a: Path, b: Path) -> dict[str, tuple[int, int]]:
    """Per table of either file: rows only in a, rows only in b (as multisets). Floating
    point to 6 decimals: a parallel sum or fit adds in any order, so two full builds of the
    same games already differ in the last bits of luck_outcomes' fits."""
    con = duckdb.connect()
    try:
        con.execute(f"attach '{a}' as a (read_only)")
        con.execute(f"attach '{b}' as b (read_only)")
        out = {}
        for name in sorted(file_tables(a) | file_tables(b)):
            types = con.execute(
                "select column_name, data_type from duckdb_columns() "
                "where database_name = 'a' and table_name = ? order by column_index",
                [name],
            ).fetchall()
            columns = ", ".join(
                f'round("{c}", 6)' if t in ("DOUBLE", "FLOAT") else f'"{c}"' for c, t in types
            )
            only_a, only_b = (
                con.execute(
                    f"select count(*) from (select {columns} from {x}.main.{name} "
                    f"except all select {columns} from {y}.main.{name})"
                ).fetchone()
                or (0,)
                for x, y in (("a", "b"), ("b", "a"))
            )
            if only_a[0] or only_b[0]:
                out[name] = (int(only_a[0]), int(only_b[0]))
        return out
    finally:
        con.close()


def assert_whatif_reads_only_scoring_keys(
    con: duckdb.DuckDBPyConnection,
    kind: str,
    whole: Mapping[str, Any],
    keys: Iterable[str],
    macros: Sequence[str],
    fields: str,
) -> set[str]:
    """``big2 rescore`` refuses an override of a key outside the game's (``kind``)
    ``scoring_keys`` (E_RESCORE_KEY, a rule of the play): the what-if JSON ``whole`` without
    those ruleset keys (``keys``: every key the game's presets may set; the engine's tables
    kept) gives every row of each of ``macros`` as ``whole`` does, and each scoring key is one
    the macro file ``fields`` (sql/macros/) types. Returns the keys left out."""
    scoring_keys = game_for(kind).scoring_keys
    keys = set(keys)
    scoring = {k: v for k, v in whole.items() if k in scoring_keys or k not in keys}
    for macro in macros:
        query = f"select * from {macro}(?) order by all"
        got = con.execute(query, [json.dumps(scoring)]).fetchall()
        assert got == con.execute(query, [json.dumps(whole)]).fetchall(), macro
    text = (sqlbuild.SQL_DIR / "macros" / f"{fields}.sql").read_text(encoding="utf-8")
    assert [k for k in sorted(scoring_keys) if f"'$.{k}'" not in text] == []
    return set(whole) - set(scoring)
