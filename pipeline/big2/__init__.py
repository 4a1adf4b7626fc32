"""The Big Two rules engine: rulesets, combinations, the game state machine, legal moves.

Plain typed Python (``make`` also compiles it with mypyc: :mod:`pipeline.compiled`);
imports nothing from storage or UI.
"""

from pipeline.compiled import activate

__path__ = activate(__path__, __name__)  # the mypyc build first, when fresh (pipeline.compiled)
