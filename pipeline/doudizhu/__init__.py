"""The Dou Dizhu (斗地主) rules engine: cards with jokers, rulesets, combinations, legal moves, state.

The same inner shape as :mod:`pipeline.big2` (cards, rules + presets, combos, moves, state);
spec section 2 is the contract and ``docs/doudizhu.md`` describes the engine. Like the Big Two
engine it imports nothing from storage, UI, CLI or log reading.
"""
