"""The Big Two rules engine: rulesets, combinations, the game state machine, legal moves.

Plain typed Python (the native core, :mod:`pipeline.native`, runs the same rules at scale);
imports nothing from storage or UI.
"""
