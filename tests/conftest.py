"""Shared test setup: the repository root on ``sys.path`` so ``bench`` imports under any runner,
and one console width, so rich tables render the same on a developer's terminal and in CI."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ["COLUMNS"] = "100"


def pytest_report_header() -> str:
    from pipeline import native

    return f"big2 replay and simulation core: {native.status()}"
