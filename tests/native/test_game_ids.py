"""The core's table of the game ids a CSV reader meets (``big2_native.GameIds``) answers as the
dict it stands for does (``pipeline.logs.csv_logs.IdNumbers``), in a fraction of its memory."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.native import MODULE, NEEDS_CORE

pytestmark = NEEDS_CORE

#: Ids as exports write them, near-misses of each other, and texts no UTF-8 holds.
IDS = st.one_of(
    st.sampled_from(["g1", "g10", "g1 ", "", "é", "e\u0301", "\ud800", "\udcff", "a\x00"]),
    st.text(max_size=6),
)
OPS = st.lists(
    st.tuples(st.sampled_from(["get", "set", "setdefault"]), IDS, st.integers(0, 2**40)),
    max_size=60,
)


@given(OPS)
@settings(max_examples=300, deadline=None)
def test_answers_as_a_dict_does(ops: list[tuple[str, str, int]]) -> None:
    assert MODULE is not None
    table, plain = MODULE.GameIds(), {}
    for op, game_id, n in ops:
        if op == "get":
            assert table.get(game_id, 0) == plain.get(game_id, 0)
        elif op == "set":
            table[game_id] = n
            plain[game_id] = n
        else:
            assert table.setdefault(game_id, n) == plain.setdefault(game_id, n)
        assert len(table) == len(plain)


def test_answers_as_a_dict_does_through_merges() -> None:
    """Past the small map's size (65,536 ids) ids go into sorted buckets: the same answers."""
    assert MODULE is not None
    table, plain = MODULE.GameIds(), {}
    for k in range(300_000):
        game_id = f"g{k * 7 % 150_001}"
        assert table.setdefault(game_id, k) == plain.setdefault(game_id, k)
        if k % 3 == 0:
            table[game_id] = plain[game_id] = k + 1
    assert len(table) == len(plain) == 150_001
    assert all(table.get(g, -1) == n for g, n in plain.items())
    assert table.get("never", 7) == 7


_RSS = """
import sys
from pipeline import native

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096

ids = native.load_module().GameIds() if sys.argv[1] == "core" else {}
before = rss()
for k in range(1_000_000):
    ids.setdefault(f"game-{k}", k * 3 + 1)
print(rss() - before)
"""


def test_a_million_ids_take_a_fraction_of_a_dicts_memory() -> None:
    """The reason it exists: a million ids, peak RSS growth of a fresh process, against a dict."""
    grown = {}
    for way in ("core", "dict"):
        out = subprocess.run([sys.executable, "-c", _RSS, way], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        grown[way] = int(out.stdout) / 1_000_000  # bytes an id
    assert grown["core"] < 40 < 100 < grown["dict"], grown
