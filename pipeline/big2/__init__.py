"""The Big Two rules engine: rulesets, combinations, the game state machine, legal moves.

Pure Python; imports nothing from storage or UI.
"""
