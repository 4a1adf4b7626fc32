"""Shared test setup: the repository root on ``sys.path`` so ``bench`` imports under any runner,
one console width, so rich tables render the same on a developer's terminal and in CI, and no
Hypothesis deadline: `make test` runs two pytest workers on a 2-CPU machine, where one example's
time says more about the neighbours than about the code (the example counts stay as stated)."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest
import streamlit.components.v2.manifest_scanner as streamlit_manifests
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ["COLUMNS"] = "100"

settings.register_profile("big2", deadline=None)
settings.load_profile("big2")


#: Streamlit's AppTest scans every installed package's metadata for components at the first run
#: of each app (the server does it once, at its start): ~0.35 CPU-s an AppTest, 40-90 CPU-s of
#: the suite. The packages do not change while the tests run: the scan is done once a process.
streamlit_manifests.scan_component_manifests = functools.cache(  # type: ignore[assignment]
    streamlit_manifests.scan_component_manifests
)


def pytest_report_header() -> str:
    from pipeline import native

    return f"big2 replay and simulation core: {native.status()}"


#: The test files that take longest (``make test``'s ``--durations``), longest first. Under
#: ``--dist loadfile`` a worker takes the next file when it is free, in collection order: run
#: these first, so that no long file starts last and leaves the other worker idle at the end.
LONG_FILES = (
    "tests/reliability/test_rel_kill_points.py",
    "tests/browser/test_browser.py",
    "tests/test_dashboard.py",
    "tests/test_dashboard_rollups.py",
    "tests/reliability/test_rel_concurrency.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`LONG_FILES` first, in that order; the rest as collected."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}

    def key(item: pytest.Item) -> int:
        path = item.path.relative_to(ROOT).as_posix() if item.path.is_relative_to(ROOT) else ""
        return rank.get(path, len(rank))

    items.sort(key=key)  # stable: the order within a file and among the rest is kept
