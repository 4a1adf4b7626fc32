"""A warehouse the user may read but not write (an analyst given read access to an operator's
warehouse, a backup mounted read-only): every reader works, every writer says it cannot write
(``E_WAREHOUSE``, exit 2) before it changes anything, and no file changes.

As root, permission bits do not stop a process (``CAP_DAC_OVERRIDE``): the warehouse then
belongs to another user and the commands run under ``setpriv`` without the capabilities that
override file permissions, as an ordinary user would run them.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.reliability.test_rel_kill_points import child_env
from tests.reliability.test_rel_sandbox import SAMPLES, digests

#: Drops what lets root ignore file permissions (util-linux's setpriv, in Debian's base).
AS_A_USER = [
    "setpriv",
    "--bounding-set=-dac_override,-dac_read_search,-fowner,-chown",
    "--inh-caps=-all",
]


SCORED = "select count(*) as n from mart_game_scores"


@pytest.fixture(scope="module")
def read_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample games imported and built, then made read-only: no ``w`` bit anywhere, and
    owned by another user when the tests run as root."""
    root = tmp_path_factory.mktemp("read-only") / "wh"
    wh = Warehouse(root)
    ingest([str(SAMPLES / "games.jsonl")], wh)
    build(wh)
    with wh.connect() as con:
        (scored,) = con.execute(SCORED).fetchone() or (None,)
    (root.parent / "scored").write_text(str(scored))
    for path in [root, *root.rglob("*")]:
        if os.geteuid() == 0:
            os.chown(path, 1000, 1000, follow_symlinks=False)
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return root


def big2(*args: str) -> subprocess.CompletedProcess[str]:
    as_user = AS_A_USER if os.geteuid() == 0 else []
    if as_user and shutil.which("setpriv") is None:
        pytest.fail("running as root needs setpriv (util-linux) to drop the capabilities")
    return subprocess.run(
        [*as_user, sys.executable, "-m", "pipeline.cli", *args],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_user_cannot_write_there(read_only: Path) -> None:
    """The setting itself: without it the other tests prove nothing."""
    done = subprocess.run(
        [*(AS_A_USER if os.geteuid() == 0 else []), "touch", str(read_only / "x")],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "Permission denied" in done.stderr


def test_readers_read_writers_refuse_and_nothing_changes(read_only: Path) -> None:
    before = digests(read_only)
    done = big2("sql", "-w", str(read_only), SCORED)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == (read_only.parent / "scored").read_text() != "0"
    done = big2("verify", "-w", str(read_only))
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr
    for writer in (
        ["ingest", str(SAMPLES / "partial.jsonl"), "-w", str(read_only)],
        ["build", "-w", str(read_only)],
        ["verify", "--repair", "-w", str(read_only)],
    ):
        done = big2(*writer)
        assert done.returncode == 2, (writer, done.stdout, done.stderr)
        assert f"E_WAREHOUSE: cannot write to {read_only}" in done.stderr, done.stderr
        assert "Permission denied" in done.stderr and "Traceback" not in done.stderr
    assert digests(read_only) == before
