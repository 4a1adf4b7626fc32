"""big2-replay: replay analytics for Big Two.

The package is layered, one way: ``pipeline.cards`` and ``pipeline.big2`` (the rules
engine, plain Python that ``make`` compiles with mypyc) know nothing of storage or UI;
``pipeline.cli`` parses and delegates.
"""

__version__ = "0.1.0"

from pipeline.compiled import activate

__path__ = activate(__path__, __name__)  # the mypyc build first, when fresh (pipeline.compiled)
