"""Shared test setup: the repository root on ``sys.path`` so ``bench`` imports under any runner,
one console width, so rich tables render the same on a developer's terminal and in CI, and no
Hypothesis deadline: `make test` runs two pytest workers on a 2-CPU machine, where one example's
time says more about the neighbours than about the code (the example counts stay as stated)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ["COLUMNS"] = "100"

settings.register_profile("big2", deadline=None)
settings.load_profile("big2")


def pytest_report_header() -> str:
    from pipeline import native

    return f"big2 replay and simulation core: {native.status()}"
