"""``python -m pipeline.cli``: the ``big2`` command."""

from pipeline.cli import app

app()
