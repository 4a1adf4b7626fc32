"""big2-replay: replay analytics for Big Two and Dou Dizhu.

The package is layered, one way: ``pipeline.cards`` and ``pipeline.big2`` (the rules
engine, plain Python; the native core in ``native/`` runs its hot path, :mod:`pipeline.native`) know nothing of storage or UI;
``pipeline.cli`` parses and delegates.
"""

__version__ = "0.1.0"
