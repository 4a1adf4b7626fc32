"""Hand logs: the documented formats, parsed into typed records with their errors collected.

:func:`read_log` streams any log file (``.jsonl``, ``.jsonl.gz``, ``.csv``) as
:class:`GameRecord` or :class:`Reject` items; :func:`pipeline.replay.replay` checks each
record against the rules. The format is described in ``docs/log-format.md`` and by the
JSON Schema shipped as ``pipeline/logs/big2-game.schema.json`` (:func:`schema_path`).
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

from pipeline.compiled import activate

__path__ = activate(__path__, __name__)  # the mypyc build first, when fresh (pipeline.compiled)

# the submodules are imported after __path__ is set
from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.reader import log_shape, read_log

SCHEMA_FILE = "big2-game.schema.json"


def schema_path() -> Traversable:
    """The JSON Schema of one game line, as shipped in the package."""
    return resources.files("pipeline.logs") / SCHEMA_FILE


__all__ = ["SCHEMA_FILE", "GameRecord", "Reject", "Source", "log_shape", "read_log", "schema_path"]
