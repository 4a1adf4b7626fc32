"""The compiled hot path (pipeline.compiled) is active under `make test` and behaves exactly
like the Python sources: the same games, replayed, ingested into rows and simulated by bots,
give byte-identical results in this process (compiled) and in a child process with
BIG2_PURE_PYTHON=1.

Run as a script, this file prints the digest of the pure-Python side.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
#: Every preset, and options that reach the rarer code: 3 players in each mode, bombs,
#: instant wins and redeals, enforced 頂大, pass lock-out, 2 players.
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("hk", {}),
    ("hk-classic", {}),
    ("taiwan", {}),
    ("mainland", {}),
    ("hk", {"players": 3, "three_player_mode": "deal_17"}),
    ("hk", {"players": 3, "three_player_mode": "swap_leftover"}),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}),
    ("hk", {"players": 2}),
    ("hk", {"bombs": True, "must_block": "enforced", "pass_locks_out": False}),
    ("hk", {"dragon_instant_win": True, "four_twos_instant_win": True, "redeal_if": ["no_jqk"]}),
]


def _digest_update(h: Any, table: pa.Table) -> None:
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    h.update(sink.getvalue())


def digest(n_games: int = 60) -> dict[str, str]:
    """SHA-256 of everything the hot path produces on fixed inputs, by part."""
    from pipeline import compiled
    from pipeline.big2.playout import deal, random_playout
    from pipeline.big2.rules import load_ruleset
    from pipeline.big2.state import Game
    from pipeline.ingest import expand_paths, process_chunk
    from pipeline.logs import read_log
    from pipeline.sim.simulate import SimConfig, simulate_lines

    out = {"status": compiled.status()}
    h = hashlib.sha256()
    for preset, overrides in SETTINGS:
        rs = load_ruleset(preset, overrides)
        rng = random.Random(7)
        for _ in range(n_games):
            hands, stock = deal(rs, rng)
            game, actions = random_playout(rs, rng, hands=hands, stock=stock)
            replayed = Game(rs, hands=hands, stock=stock)
            for action in actions:
                h.update(repr(replayed.do(action)).encode())
            h.update(repr(replayed.result).encode() + repr(game.result).encode())
    out["engine"] = h.hexdigest()

    h = hashlib.sha256()
    for path in expand_paths([str(SAMPLES)]):
        items = list(read_log(path))
        for table_name, table in sorted(process_chunk(str(path), items, "b").tables.items()):
            h.update(str(table_name).encode())
            _digest_update(h, table)
    out["rows"] = h.hexdigest()

    h = hashlib.sha256()
    for preset in ("hk", "taiwan"):
        cfg = SimConfig(
            games=24,
            seed=5,
            bots=("heuristic", "greedy", "random", "heuristic"),
            preset=preset,
            must_block_discipline=0.8,
            colluders=(1, 2),
        )
        for lines in simulate_lines(cfg):
            for line in lines:
                h.update(line.encode())
    out["simulated"] = h.hexdigest()
    return out


def test_make_test_runs_the_compiled_hot_path() -> None:
    from pipeline import compiled

    assert compiled.status().startswith("compiled"), (
        f"{compiled.status()}: `make compiled` builds it (make test does this first)"
    )
    import pipeline.big2.state as state

    assert state.__file__ is not None and not state.__file__.endswith(".py"), state.__file__


def test_compiled_and_pure_python_agree_on_every_output() -> None:
    here = digest()
    env = {**os.environ, "BIG2_PURE_PYTHON": "1"}
    child = subprocess.run(
        [sys.executable, __file__], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    pure = json.loads(child.stdout)
    assert pure.pop("status").startswith("pure Python")
    assert here.pop("status").startswith("compiled")
    assert here == pure


def test_the_hot_path_objects_survive_pickling() -> None:
    """Worker processes pickle results; mypyc's frozen dataclasses need a __reduce__ for that."""
    from pipeline.big2.combos import classify
    from pipeline.big2.rules import load_ruleset
    from pipeline.logs.model import Source
    from pipeline.logs.records import content_hash, record_from_obj
    from pipeline.replay import ReplayedGame, replay
    from pipeline.sim.sample import sample_game

    obj = sample_game(seed=1, game_id="p1")
    record = record_from_obj(obj, source=Source("t", 1), raw="", content_hash=content_hash(obj))
    done = replay(record)
    assert isinstance(done, ReplayedGame)
    play = classify(7, load_ruleset("hk"))
    rules = load_ruleset("taiwan", {"bombs": True})
    for value in (play, done.result, done.actions[0], record.actions[0], done, rules):
        assert pickle.loads(pickle.dumps(value)) == value


def test_an_edited_source_falls_back_to_python(tmp_path: Path) -> None:
    """A source that no longer matches the build is run as Python, never as stale code."""
    from pipeline import compiled

    manifest = json.loads(compiled.MANIFEST.read_text(encoding="utf-8"))
    manifest["sources"]["pipeline/big2/state.py"] = "0" * 64
    stale = tmp_path / "manifest.json"
    stale.write_text(json.dumps(manifest), encoding="utf-8")
    code = (
        "import pipeline.compiled as c, pathlib, sys;"
        f"c.MANIFEST = pathlib.Path({str(stale)!r});"
        "print(c._fresh())"
    )
    child = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "older than the sources" in child.stdout


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(digest()))
