"""The games' keys on the core (``native/src/keys.rs``, what an import worker hands back for the
games it wrote) against :func:`pipeline.warehouse.known.game_keys`: the same 24 bytes a game for
any ids (non-ASCII, empty, long) and content hashes, from the games rows' Arrow columns as
:func:`pipeline.warehouse.store.write_part` gives them (sliced, or in several chunks)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.warehouse import store
from pipeline.warehouse.known import game_keys
from tests.native import NEEDS_CORE

pytestmark = NEEDS_CORE

_IDS = st.one_of(st.text(max_size=40), st.sampled_from(["", "g1", "牌局-七", "x" * 300]))
_HASHES = st.text("0123456789abcdefABCDEF", min_size=16, max_size=64)


def _games(ids: list[str], hashes: list[str]) -> pa.Table:
    return pa.table({"game_id": pa.array(ids, pa.string()), "content_hash": hashes})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_IDS, _HASHES), max_size=30), st.integers(0, 3))
def test_the_core_keys_are_pythons(games: list[tuple[str, str]], cut: int) -> None:
    ids, hashes = [g for g, _ in games], [h for _, h in games]
    expected = game_keys(ids, hashes)
    table = _games(ids, hashes)
    batch = table.combine_chunks().to_batches()
    if batch:
        raw = native.game_keys(batch[0].__arrow_c_array__())
        assert raw is not None
        assert np.array_equal(np.frombuffer(raw, "<u8").reshape(-1, 3), expected)
    # as write_part takes them: a table in several chunks, sliced
    head, tail = table.slice(0, cut), table.slice(cut)
    both = pa.concat_tables([head, tail]) if games else table
    assert np.array_equal(store._keys(both), expected)


def test_a_batch_the_core_does_not_key_is_left_to_python() -> None:
    batch = pa.table({"game_id": ["g1"], "content_hash": ["zz" * 32]}).to_batches()[0]
    assert native.game_keys(batch.__arrow_c_array__()) is None
    nulls = pa.table({"game_id": pa.array([None], pa.string()), "content_hash": ["ab" * 32]})
    assert native.game_keys(nulls.to_batches()[0].__arrow_c_array__()) is None
    ints = pa.table({"game_id": [1], "content_hash": ["ab" * 32]})
    assert native.game_keys(ints.to_batches()[0].__arrow_c_array__()) is None
