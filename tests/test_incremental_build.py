"""Incremental builds (docs/sql.md, "Incremental builds"): a build over marts already built by
the same SQL adds the new batches' games to the game-local marts and rebuilds the others, and
every table it publishes holds the very rows a full build of the same batches does; where it
cannot add (other SQL, a batch no longer committed, a ruleset's rules changed), it builds
whole and says why."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from marts_helpers import Run, file_tables, golden_game, table_differences, write_runs

from pipeline import sqlbuild
from pipeline.cli.demo import write_ddz_log
from pipeline.ingest import ingest
from pipeline.shipped import samples_dir
from pipeline.warehouse import Warehouse

BOTS4 = ("random", "greedy", "heuristic", "random")
#: Big Two runs of each part: (preset, overrides, bots, games). The second part brings
#: rulesets the first has not (a new ruleset row: allowed), and the 歡樂 / last-call rules.
CALLS = {"last_card_call": "required", "missed_call_penalty": "takes_all_losses"}
PARTS: list[list[Run]] = [
    [
        ("hk", {}, BOTS4, 40),
        ("mainland", {"bonus_multipliers": "huanle"}, BOTS4, 40),
        ("taiwan", {"bankroll": True, "bankroll_start": 60}, BOTS4, 24),
        ("hk", {"players": 3, "three_player_mode": "stock_13"}, BOTS4[:3], 16),
    ],
    [
        ("hk", {}, BOTS4, 40),
        ("mainland", {"bonus_multipliers": "huanle"}, BOTS4, 24),
        ("hk-classic", CALLS, BOTS4, 24),
        ("hk", {"players": 5}, (*BOTS4, "heuristic"), 16),
    ],
]


def _write_part(directory: Path, part: int) -> list[str]:
    """One import's logs: simulated Big Two, Dou Dizhu deals, a golden 包牌 game; the first
    part also the sample logs (partial information, score sheets, CSV, rejects)."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"big2-{part}.jsonl"
    with log.open("w", encoding="utf-8") as out:
        write_runs(out, PARTS[part], seed=500 + 10 * part, prefix=f"p{part}r")
        # one match over both imports: its standings are computed again with its second game
        golden = golden_game(f"golden-{part}", match_id="golden", game_number=part + 1)
        out.write(json.dumps(golden) + "\n")
    ddz = directory / f"ddz-{part}.jsonl"
    write_ddz_log(ddz, seed=70 + part)
    if part == 0:
        return [str(log), str(ddz), str(samples_dir())]
    # a club's score sheet of another evening: games known only by their result
    sheet = directory / "club-sheet.csv"
    rows = (samples_dir() / "club-sheet.csv").read_text(encoding="utf-8").splitlines()
    sheet.write_text(
        "\n".join([rows[0]] + [r.replace("2026-10-30", "2026-11-06") for r in rows[1:]]) + "\n",
        encoding="utf-8",
    )
    return [str(log), str(ddz), str(sheet)]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[list[str]]:
    root = tmp_path_factory.mktemp("incremental-logs")
    return [_write_part(root / f"part{p}", p) for p in range(2)]


def _import(wh: Warehouse, paths: list[str]) -> int:
    summary = ingest(paths, wh, workers=1)
    return summary.total().stored


def _full_copy(wh: Warehouse, to: Path) -> Warehouse:
    """The same committed batches in another folder, without the built file."""
    shutil.copytree(wh.root, to, ignore=shutil.ignore_patterns("warehouse.duckdb*"))
    return Warehouse(to)


def test_a_build_adds_new_games_and_publishes_what_a_full_build_does(
    logs: list[list[str]], tmp_path: Path
) -> None:
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0])
    first = sqlbuild.build(wh)
    assert first.added_games is None and first.full_because == ""  # nothing to add to
    stored = _import(wh, logs[1])
    assert stored > 150
    second = sqlbuild.build(wh)
    assert second.added_games == stored
    assert second.full_because == ""
    full = _full_copy(wh, tmp_path / "full")
    whole = sqlbuild.build(full, full=True)
    assert whole.added_games is None
    # every mart and constant table holds the same rows, and the marts are not empty: the
    # game-local ones gained the second part's games, the others were rebuilt over both
    assert second.rows == whole.rows
    assert all(second.rows[m] > 0 for m in ("mart_game_scores", "stats_player_games"))
    assert all(second.rows[m] > 0 for m in ("ddz_game_scores", "ddz_stats_player_games"))
    assert table_differences(wh.db_path, full.db_path) == {}
    assert file_tables(wh.db_path) == file_tables(full.db_path)
    for path in (wh.db_path, full.db_path):  # the marts published as views, not tables
        con = duckdb.connect(str(path), read_only=True)
        try:
            views = {v for (v,) in con.execute("select view_name from duckdb_views()").fetchall()}
            tables = {
                t for (t,) in con.execute("select table_name from duckdb_tables()").fetchall()
            }
        finally:
            con.close()
        assert views >= sqlbuild.VIEW_MARTS and not sqlbuild.VIEW_MARTS & tables
    con = wh.connect()
    try:
        # the second import's score sheet was added: games known by their result alone
        (sheet,) = con.execute(
            "select count(*) from mart_game_scores as s join stg_games as g using (game_id) "
            "where g.info_level = 'result' and g.match_id = 'club-2026-11-06'"
        ).fetchone() or (0,)
        assert sheet > 0
        assert {n: r for n, r in sqlbuild.run_tests(con).items() if r} == {}
    finally:
        con.close()
    assert wh.marts_problem() is None


def test_a_batch_committed_as_the_build_starts_is_added(
    logs: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import that commits after the build read the stamp, before it wrote the new file's
    views: its games are in those views, so the per-game marts add them too (the stamp then
    says they are covered, and they are)."""
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0][:1])
    sqlbuild.build(wh)
    covered = sqlbuild._covered_batches
    stored: list[int] = []

    def then_an_import(w: Warehouse, key: str) -> tuple[set[str] | None, str]:
        found = covered(w, key)
        stored.append(_import(w, logs[1][:1]))
        return found

    monkeypatch.setattr(sqlbuild, "_covered_batches", then_an_import)
    done = sqlbuild.build(wh)
    assert done.added_games == stored[0] > 0
    full = _full_copy(wh, tmp_path / "full")
    sqlbuild.build(full, full=True)
    assert table_differences(wh.db_path, full.db_path) == {}
    assert wh.marts_problem() is None


def test_a_build_with_nothing_new_changes_no_row(logs: list[list[str]], tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0])
    sqlbuild.build(wh)
    before = tmp_path / "before.duckdb"
    shutil.copyfile(wh.db_path, before)
    again = sqlbuild.build(wh)
    assert again.added_games == 0
    assert table_differences(wh.db_path, before) == {}


def test_other_sql_builds_whole_and_says_why(
    logs: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0])
    sqlbuild.build(wh)
    monkeypatch.setattr(sqlbuild, "INCREMENTAL_FORMAT", "another")  # as a changed mart would
    done = sqlbuild.build(wh)
    assert done.added_games is None
    assert done.full_because == "the marts were built by other SQL (or another DuckDB)"
    assert wh.file_stamp() is not None and wh.file_stamp().build_key == sqlbuild.build_key()  # type: ignore[union-attr]


def test_full_builds_whole_when_asked(logs: list[list[str]], tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0])
    sqlbuild.build(wh)
    done = sqlbuild.build(wh, full=True)
    assert (done.added_games, done.full_because) == (None, "")


def test_changed_rules_of_a_stored_ruleset_build_whole(
    logs: list[list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A preset whose rules changed since the build (its rulesets row differs): the stored
    marts scored its games by the old rules, so the build starts over."""
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0])
    sqlbuild.build(wh)
    write = sqlbuild._write_rulesets

    def stakes_doubled(con: duckdb.DuckDBPyConnection) -> None:
        write(con)
        con.execute("update rulesets set params = json_merge_patch(params, '{\"stake\": 2}')")

    monkeypatch.setattr(sqlbuild, "_write_rulesets", stakes_doubled)
    done = sqlbuild.build(wh)
    assert done.added_games is None
    assert done.full_because == "rulesets changed since the marts were built"
    (stake,) = wh.connect().execute("select max(stake) from mart_game_scores").fetchone() or (0,)
    assert stake == 2  # rescored, not added to


def test_a_dropped_batch_builds_whole(logs: list[list[str]], tmp_path: Path) -> None:
    """``verify --repair`` drops a damaged batch: the marts covered its games, so they are
    rebuilt from the batches still committed."""
    wh = Warehouse(tmp_path / "wh")
    _import(wh, logs[0][:1])
    _import(wh, logs[0][1:2])
    sqlbuild.build(wh)
    damaged = wh.entries()[0].files[0]
    path = wh.root / damaged.path
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    wh.repair()
    assert len(wh.entries()) == 1
    done = sqlbuild.build(wh)
    assert done.added_games is None
    assert done.full_because == "a batch the marts cover is no longer committed"
    assert wh.marts_problem() is None


def test_match_local_marts_partition_by_the_match() -> None:
    """Each mart an incremental build computes again for the new games' matches has their
    key, and groups and partitions by it (a match's rows read that match alone)."""
    marts = sqlbuild.sql_files("marts")
    for name in sqlbuild.MATCH_LOCAL_MARTS:
        text = sqlbuild._strip_comments(marts[name])
        assert re.search(r"\bmatch_key\b", text), name
        for clause in re.findall(r"(?:partition|group) by\s+([^)\n]*)", text):
            assert "match_key" in clause, (name, clause)


def test_game_local_marts_read_only_game_local_marts() -> None:
    """Each mart an incremental build adds to reads no mart it rebuilds (whose rows of the
    new games it would not see yet), nor a window, fit or cross-game aggregate."""
    marts = sqlbuild.sql_files("marts")
    for name in sqlbuild.GAME_LOCAL_MARTS:
        text = sqlbuild._strip_comments(marts[name])
        read = {m for m in marts if m != name and re.search(rf"\b{m}\b", text)}
        assert read <= sqlbuild.GAME_LOCAL_MARTS, (name, read)
        assert not re.search(r"\bover\s*\(|\bregr_|\bbatches\b", text), name


def test_the_commands_say_how_they_built(tmp_path: Path) -> None:
    """``big2 ingest`` and ``big2 build`` say what their build added, or why it was whole."""
    from typer.testing import CliRunner

    from pipeline.cli import app
    from pipeline.sim.sample import dumps, sample_game

    runner = CliRunner()
    wh = str(tmp_path / "wh")
    for part, seeds in (("a", range(4)), ("b", range(4, 7))):
        log = tmp_path / f"{part}.jsonl"
        lines = (dumps(sample_game(seed=s, game_id=f"{part}{s}")) + "\n" for s in seeds)
        log.write_text("".join(lines), encoding="utf-8")
        result = runner.invoke(app, ["ingest", str(log), "-w", wh])
        assert result.exit_code == 0, result.output
        if part == "a":  # nothing built before: a full build, nothing to say
            assert "SQL marts built in" in result.stdout and "added" not in result.stdout
        else:
            assert "the per-game marts added 3 new games" in result.stdout
    result = runner.invoke(app, ["build", "-w", wh, "--full"])
    assert result.exit_code == 0 and "added" not in result.stdout, result.output
    result = runner.invoke(app, ["build", "-w", wh])
    assert "the per-game marts added 0 new games" in result.stdout, result.output
