"""The data the package ships beside its code: the SQL layers and the sample logs.

In a source checkout they are the top-level folders ``sql/`` (with ``sql/columns.toml``, the
column descriptions) and ``data/samples/``, the one source of truth. A wheel carries the same
files as package data, ``pipeline/sql/`` and ``pipeline/samples/`` (the mapping is in
``setup.py``; the file patterns in ``pyproject.toml``), found here with
:mod:`importlib.resources`. So ``big2 build``, the report's named queries and ``big2 demo`` run
the same from a checkout and from an installed wheel (``tests/test_wheel.py``).

>>> (sql_dir() / "columns.toml").is_file(), (sql_dir() / "marts").is_dir()
(True, True)
>>> any(p.suffix == ".jsonl" for p in samples_dir().iterdir())
True
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The source checkout this module sits in, when it does (``pyproject.toml`` beside ``pipeline``).
CHECKOUT = Path(__file__).resolve().parent.parent
#: Each shipped folder: its name inside the installed package, and its place in a checkout.
FOLDERS = {"sql": "sql", "samples": "data/samples"}


def in_checkout() -> bool:
    """Whether this ``pipeline`` runs from a source checkout (not from an installed wheel)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / FOLDERS["sql"]).is_dir()


def folder(name: str) -> Path:
    """A shipped folder (``sql`` or ``samples``): the installed package data when this is an
    installed package, else the checkout's top-level folder."""
    installed = resources.files("pipeline") / name
    if isinstance(installed, Path) and installed.is_dir():
        return installed
    return CHECKOUT / FOLDERS[name]


def sql_dir() -> Path:
    """The SQL layers: ``seeds``, ``staging``, ``macros``, ``marts``, ``queries``, ``tests``
    and ``columns.toml``."""
    return folder("sql")


def samples_dir() -> Path:
    """The sample logs (good, partial and bad lines) that ``big2 demo`` imports."""
    return folder("samples")


def demo_log() -> Path:
    """Where ``big2 demo`` writes its simulated log by default: ``data/demo/`` in the checkout,
    else ``data/demo/`` under the working directory (beside the default warehouse,
    ``data/warehouse/``)."""
    base = CHECKOUT if in_checkout() else Path()
    return base / "data" / "demo" / "simulated.jsonl.gz"
