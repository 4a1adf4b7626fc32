"""The benchmark harness: registry, machine description, record format (no timing runs here)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

import bench
import bench.cards
import bench.machine
import bench.run
from pipeline.cards import parse_cards

BENCH_MODULES = [bench] + [
    importlib.import_module(f"bench.{m.name}")
    for m in pkgutil.iter_modules(bench.__path__)
    if not m.name.startswith("_")
]


@pytest.mark.parametrize("module", BENCH_MODULES, ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    failed, _ = doctest.testmod(module)
    assert failed == 0


def test_cards_parse_is_registered_and_discoverable() -> None:
    assert "cards.parse" in bench.run.discover()


def test_benchmark_inputs_parse_back_to_the_hands() -> None:
    hands = bench.cards.hands(20)
    for notation in bench.cards.NOTATIONS:
        texts = bench.cards.texts(notation, 20)
        assert [parse_cards(t) for t in texts] == hands, notation


def test_registering_a_name_twice_is_refused() -> None:
    reg: dict[str, bench.Benchmark] = {}
    bench.benchmark("a", registry=reg)(lambda: [])
    with pytest.raises(ValueError, match="registered twice"):
        bench.benchmark("a", registry=reg)(lambda: [])


def test_machine_describes_this_machine() -> None:
    m = bench.machine.current()
    assert m.python.count(".") == 2
    assert dict(m.libraries).keys() == {"duckdb", "pyarrow", "pandas"}
    assert "Python" in m.describe()


def test_record_appends_a_dated_section(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "benchmarks.md"
    machine = bench.machine.current()
    when = datetime(2025, 1, 2, 3, 4, tzinfo=UTC)
    results = [("cards.parse", [("card tokens parsed per second", 1234567.0, "tokens/s")])]
    section = bench.run.render_section(results, machine, when)
    bench.run.record(section, path)
    bench.run.record(section, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks")
    assert text.count("## 2025-01-02 03:04 UTC") == 2
    assert "| cards.parse | card tokens parsed per second | 1,234,567 | tokens/s |" in text
    assert machine.cpu_model in text


def test_main_lists_and_refuses_unknown_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.run.main(["--list"]) == 0
    assert "cards.parse" in capsys.readouterr().out
    assert bench.run.main(["--only", "nope", "--no-record"]) == 2
    assert "'nope'" in capsys.readouterr().err


def test_csv_games_are_the_standard_files_games(tmp_path: Path) -> None:
    """``ingest.csv_rss``'s streamed CSV pair is the pair ``ingest.csv`` writes of the standard
    file (``write_log``'s played games repeated past ``N_DISTINCT``), game by game."""
    from bench.aims import write_csv_games, write_csv_pair
    from bench.ingest import N_DISTINCT, write_log
    from pipeline.logs.csv_logs import read_csv
    from pipeline.logs.model import GameRecord

    n = N_DISTINCT + 3
    write_log(tmp_path / "games.jsonl", n)
    write_csv_pair(tmp_path / "games.jsonl", tmp_path / "whole.csv")
    write_csv_games(tmp_path / "day.csv", n)
    streamed, whole = list(read_csv(tmp_path / "day.csv")), list(read_csv(tmp_path / "whole.csv"))
    assert all(isinstance(r, GameRecord) for r in streamed + whole) and len(streamed) == n
    assert [r.game_id for r in streamed] == [f"b{i}" for i in range(n)]
    hashes = [[r.content_hash for r in rs if isinstance(r, GameRecord)] for rs in (streamed, whole)]
    assert hashes[0] == hashes[1]


def test_distinct_log_is_big2_simulates_file(tmp_path: Path) -> None:
    """``ingest.aims_distinct``'s file is the one ``big2 simulate -n N --seed 0`` writes, byte
    for byte, and no two of its games are the same game under another id (the standard file's
    repeat every ``N_DISTINCT`` games)."""
    import json
    import subprocess
    import sys

    from bench.ingest import N_DISTINCT, write_distinct_log, write_log

    n = N_DISTINCT + 5
    write_distinct_log(tmp_path / "distinct.jsonl", n)
    big2 = str(Path(sys.executable).with_name("big2"))
    cli = tmp_path / "cli.jsonl"
    subprocess.run([big2, "simulate", "-n", str(n), "--seed", "0", "--out", cli], check=True)
    assert (tmp_path / "distinct.jsonl").read_bytes() == cli.read_bytes()
    write_log(tmp_path / "standard.jsonl", n)
    for name, distinct in (("distinct", n), ("standard", N_DISTINCT)):
        games = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").open()]
        played = {json.dumps([g["deal"], g["actions"]]) for g in games}
        assert len(games) == n and len(played) == distinct
