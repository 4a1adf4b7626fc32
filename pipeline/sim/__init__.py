"""Simulated Big Two games: bots that choose among the engine's legal moves, and a simulator
that plays seeded matches into log objects (docs/bots.md).

- :mod:`pipeline.sim.bots`: the bots (``random``, ``greedy``, ``heuristic``) behind one interface.
- :mod:`pipeline.sim.simulate`: matches of games, planted behaviour with its ground truth,
  deterministic whatever the number of worker processes.
- :mod:`pipeline.sim.ladder`: the measured strength ladder (average place score per bot).
"""
