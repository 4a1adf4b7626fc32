"""Hand logs: the documented formats, parsed into typed records with their errors collected.

:func:`read_log` streams any log file (``.jsonl``, ``.jsonl.gz``, ``.csv``) as
:class:`GameRecord` or :class:`Reject` items; :func:`pipeline.replay.replay` checks each
record against the rules. The format is described in ``docs/log-format.md`` and by the
JSON Schemas shipped as ``pipeline/logs/big2-game.schema.json`` and
``pipeline/logs/doudizhu-game.schema.json`` (:func:`schema_path`).
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

from pipeline.logs.model import GameRecord, Reject, Source
from pipeline.logs.reader import log_shape, read_log

SCHEMA_FILE = "big2-game.schema.json"
#: The JSON Schema of each ``game_kind``'s line (a Dou Dizhu line shares the Big Two envelope).
SCHEMA_FILES = {"big2": SCHEMA_FILE, "doudizhu": "doudizhu-game.schema.json"}


def schema_path(game_kind: str = "big2") -> Traversable:
    """The JSON Schema of one game line of ``game_kind``, as shipped in the package.

    >>> schema_path("doudizhu").name
    'doudizhu-game.schema.json'
    """
    return resources.files("pipeline.logs") / SCHEMA_FILES[game_kind]


__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_FILES",
    "GameRecord",
    "Reject",
    "Source",
    "log_shape",
    "read_log",
    "schema_path",
]
