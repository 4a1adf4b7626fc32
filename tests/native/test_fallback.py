"""pipeline.native without the core: BIG2_PURE_PYTHON, or no built extension, runs the Python
path and says so (these tests run whether or not the extension is built)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import native

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json, sys
from pipeline import native
from pipeline.logs.model import Source
game = {"format_version": 1, "game_kind": "big2", "game_id": "f-1", "ruleset": "hk",
        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(4)],
        "actions": [{"seat": 0, "action": "play", "cards": "3d"}, {"seat": 2, "action": "pass"}]}
done = native.replay_line(json.dumps(game), Source("f.jsonl", 3))
print(json.dumps([native.status(), native.available(), done.code, done.message]))
"""


def _run(code: str, **env: str) -> str:
    """What ``code`` prints in a fresh interpreter at the repository's root, ``env`` added."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def _probe(**env: str) -> list[object]:
    result: list[object] = json.loads(_run(_PROBE, **env))
    return result


def test_pure_python_when_asked() -> None:
    status, available, code, message = _probe(BIG2_PURE_PYTHON="1")
    assert status == "pure Python (BIG2_PURE_PYTHON is set)" and available is False
    assert (code, message) == (
        "E_OUT_OF_TURN",
        "actions[1]: seat 2 acted; seat 1 is to act (trick 1)",
    )


def test_pure_python_when_the_core_is_not_built(tmp_path: Path) -> None:
    # a module of the same name that fails to import stands for a missing build
    (tmp_path / "big2_native.py").write_text("raise ImportError('not built')\n")
    status, available, code, _ = _probe(
        BIG2_PURE_PYTHON="", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}"
    )
    assert status == "pure Python (the native core is not built: make native)"
    assert available is False and code == "E_OUT_OF_TURN"


def _status(**env: str) -> str:
    return _run("from pipeline import native; print(native.status())", **env).strip()


def test_the_status_names_a_profile_guided_build_and_not_a_plain_one(tmp_path: Path) -> None:
    # a stand-in module of the core's name, as native/build.sh's two kinds of build name it
    for build, kind in (("profile-guided", ", profile-guided"), ("release", "")):
        (tmp_path / "big2_native.py").write_text(f"__version__ = '9.9'\n__build__ = {build!r}\n")
        status = _status(BIG2_PURE_PYTHON="", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
        assert status == f"native (big2_native 9.9, Rust{kind})"


def test_make_native_leaves_no_instrumented_core() -> None:
    # the profile workload runs on an instrumented build; the venv must end with the optimised
    # (or the plain) one
    if not native.available():
        pytest.skip("the native core is not built")
    assert "instrumented" not in native.status()
    assert native.status().startswith("native (big2_native ")
