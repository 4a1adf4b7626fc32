"""CI runs exactly the README's test command (a static check: running it here would recurse)."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / ".ci" / "run"


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "README Quick start has no ```sh block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_quick_start_is_make_demo_and_make_test() -> None:
    assert quick_start_commands() == ["make demo", "make test"]


def test_ci_script_runs_make_test_strictly() -> None:
    text = CI.read_text(encoding="utf-8")
    commands = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert "set -euo pipefail" in commands
    assert commands[-1] == "make test"
    assert os.access(CI, os.X_OK)


def test_makefile_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("demo", "test", "lint", "bench"):
        assert re.search(rf"^{target}:", makefile, re.M), target
