"""The issue's acceptance runs: 5,000 simulated games each (about a minute apiece)."""

from __future__ import annotations

import pytest

from tests.test_collusion import check_honest, check_planted

pytestmark = pytest.mark.slow


def test_planted_pair_ranks_first_5000(tmp_path_factory: pytest.TempPathFactory) -> None:
    top = check_planted(tmp_path_factory.getbasetemp(), 5000, 11)
    print(f"planted pair: p = {top['p_combined']:.3g}, q = {top['q_value']:.3g}")


def test_honest_table_flags_nobody_5000(tmp_path_factory: pytest.TempPathFactory) -> None:
    top = check_honest(tmp_path_factory.getbasetemp(), 5000, 12)
    print(f"most suspicious honest pair: p = {top['p_combined']:.3g}, q = {top['q_value']:.3g}")
