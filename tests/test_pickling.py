"""The engine's results cross processes (ingest and simulation workers pickle them): each kind
survives a pickle round trip equal to itself."""

from __future__ import annotations

import pickle

from pipeline.big2.combos import classify
from pipeline.big2.logformat import record_from_obj
from pipeline.big2.rules import load_ruleset
from pipeline.logs.model import Source
from pipeline.logs.records import content_hash
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.sample import sample_game


def test_the_engine_objects_survive_pickling() -> None:
    obj = sample_game(seed=1, game_id="p1")
    record = record_from_obj(obj, source=Source("t", 1), raw="", content_hash=content_hash(obj))
    done = replay(record)
    assert isinstance(done, ReplayedGame)
    play = classify(7, load_ruleset("hk"))
    rules = load_ruleset("taiwan", {"bombs": True})
    for value in (play, done.result, done.actions[0], record.actions[0], done, rules):
        assert pickle.loads(pickle.dumps(value)) == value
