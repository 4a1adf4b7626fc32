"""The optional compiled hot path: the engine, the log parser and the bots built with mypyc.

The Python sources stay the one source of truth. :func:`build` (run by
``make``) compiles the modules in :data:`MODULES` with mypyc, the compiler that ships with
mypy, into ``build/compiled/`` beside the checkout, never into the source tree, and writes a
manifest of the sources' SHA-256. On import, :func:`activate` puts that build ahead of the
sources only while the manifest matches every source byte for byte, so an edited module runs
as Python (slower, never stale) until the next build. ``BIG2_PURE_PYTHON=1`` turns the build
off; an installed wheel has none and runs pure Python.

mypyc keeps the semantics of the Python code (the test suite runs on the pure sources; a
differential test replays games through both and compares every record), and makes the
replay about three times faster (docs/benchmarks.md).

>>> status().startswith(("compiled", "pure Python"))
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "compiled"
MANIFEST = BUILD / "manifest.json"
#: mypyc's shared runtime library for the group, a top-level module in the build.
GROUP = "big2_hot"
#: The hot path, relative to the checkout: parsing, the engine, replay, the simulator's bots.
#: (The row builder is mostly Arrow calls: compiled it measured no faster, so it is left out.)
#: A frozen dataclass here needs a ``__reduce__`` if it crosses processes (see Play).
MODULES = (
    "pipeline/cards.py",
    "pipeline/big2/rules.py",
    "pipeline/big2/combos.py",
    "pipeline/big2/moves.py",
    "pipeline/big2/state.py",
    "pipeline/big2/playout.py",
    "pipeline/big2/game.py",
    "pipeline/big2/sampling.py",
    "pipeline/logs/records.py",
    "pipeline/replay.py",
    "pipeline/sim/bots.py",
    "pipeline/sim/play.py",
)

_status = "pure Python (not activated)"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest() -> dict[str, object]:
    return {
        "python": sys.version,
        "suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
        "sources": {m: _digest(ROOT / m) for m in MODULES},
    }


def _fresh() -> str | None:
    """Why the build cannot be used, or None when it matches the sources and interpreter."""
    if os.environ.get("BIG2_PURE_PYTHON"):
        return "BIG2_PURE_PYTHON is set"
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no build (run `make` or `python -m pipeline.compiled`)"
    try:
        if built != _manifest():
            return "the build is older than the sources (run `make` to rebuild)"
    except OSError as exc:  # a source missing: not a checkout we built from
        return f"cannot read the sources: {exc}"
    return None


def _describe(why_not: str | None) -> str:
    return f"pure Python ({why_not})" if why_not else f"compiled ({len(MODULES)} modules, mypyc)"


def activate(package_path: list[str], package: str) -> list[str]:
    """The package's ``__path__`` with the compiled build first, when it is fresh.

    Called by ``pipeline/__init__.py`` and by each subpackage holding a compiled module,
    before any of their modules is imported.
    """
    global _status
    if package == "pipeline":
        why = _fresh()
        if why is None:
            try:
                _load_runtime()
            except (ImportError, OSError) as exc:
                why = f"the build does not load: {exc}"
        _status = _describe(why)
    if not _status.startswith("compiled"):
        return package_path
    compiled_dir = BUILD.joinpath(*package.split("."))
    return [str(compiled_dir), *package_path]


def _load_runtime() -> None:
    """Import mypyc's shared library for the group from the build, without touching sys.path."""
    name = f"{GROUP}__mypyc"
    if name in sys.modules:
        return
    path = BUILD / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"no {path.name} in {BUILD}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module


#: What :func:`by_constructor` returns, for the ``__reduce__`` annotations.
Reduced = tuple[Any, tuple[type[Any], dict[str, Any]]]


def rebuild(cls: type[Any], values: dict[str, Any]) -> Any:
    """``cls(**values)``: how :func:`by_constructor` objects are unpickled."""
    return cls(**values)


def by_constructor(obj: Any) -> Reduced:
    """``__reduce__`` for a frozen dataclass in a compiled module: mypyc's frozen dataclasses
    cannot be unpickled field by field, so they pickle as a call of their constructor with
    their ``init`` fields (worker processes hand replayed games back to the main process).

    >>> from pipeline.big2.rules import load_ruleset
    >>> import pickle
    >>> pickle.loads(pickle.dumps(load_ruleset("taiwan"))) == load_ruleset("taiwan")
    True
    """
    init = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init}
    return (rebuild, (type(obj), init))


def status() -> str:
    """``compiled (...)`` or ``pure Python (why)``: what runs the hot path in this process."""
    return _status


def ensure() -> str:
    """Build when the build is missing or older than the sources; return :func:`status`'s text
    for a fresh process (``make`` calls this before the demo, the tests and the benchmarks)."""
    global _status
    why = _fresh()
    if why is not None and not os.environ.get("BIG2_PURE_PYTHON"):
        build()
        why = _fresh()
    _status = _describe(why)
    return _status


def build() -> None:
    """Compile :data:`MODULES` into :data:`BUILD` and write the manifest (needs mypy, a C compiler)."""
    import shutil
    import tempfile

    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    cwd = Path.cwd()
    # the sources as compiled: hashed before the compile, so a file edited while it runs makes
    # the build stale (it runs as Python until the next build), never fresh-looking and old
    sources = _manifest()
    os.chdir(ROOT)  # mypyc names modules by their path from here
    try:
        with tempfile.TemporaryDirectory() as tmp:
            extensions = mypycify(
                ["--config-file", "pyproject.toml", *MODULES],
                opt_level="3",
                target_dir=str(Path(tmp) / "c"),
                group_name=GROUP,
            )
            command = build_ext(Distribution({"name": "big2-compiled", "ext_modules": extensions}))
            command.build_lib = str(Path(tmp) / "lib")
            command.build_temp = str(Path(tmp) / "obj")
            command.parallel = os.cpu_count() or 1
            command.ensure_finalized()
            command.run()
            # swap the whole directory in, manifest included, so that a reader (or a second
            # `make` at the same time) sees the old build or the new one, never a mix
            fresh = BUILD.with_name(f"{BUILD.name}.new-{os.getpid()}")
            shutil.copytree(Path(tmp) / "lib", fresh)
            (fresh / MANIFEST.name).write_text(json.dumps(sources, indent=1), encoding="utf-8")
            old = BUILD.with_name(f"{BUILD.name}.old-{os.getpid()}")
            if BUILD.exists():
                with contextlib.suppress(FileNotFoundError):  # a concurrent build moved it
                    BUILD.rename(old)
            try:
                fresh.rename(BUILD)
            except OSError:  # a concurrent build landed first: keep it if it is as fresh
                shutil.rmtree(fresh, ignore_errors=True)
                if _fresh() is not None:
                    raise
            shutil.rmtree(old, ignore_errors=True)
    finally:
        os.chdir(cwd)
