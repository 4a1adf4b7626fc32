"""Worker pools (:mod:`pipeline.workers`): what their processes start with."""

from __future__ import annotations

import os

from pipeline.workers import SERVER_ENV, pool


def test_workers_start_with_one_blas_thread_and_the_parent_keeps_its_environment() -> None:
    before = dict(os.environ)
    with pool(1) as workers:
        got = {k: workers.submit(os.getenv, k).result() for k in SERVER_ENV}
    assert got == {k: os.environ.get(k, v) for k, v in SERVER_ENV.items()}
    assert dict(os.environ) == before
