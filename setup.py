"""Packaging beyond pyproject.toml (which holds everything else): the packages.

Every ``pipeline*`` package, plus two folders that live at the top of the checkout (the
project's layout) and ship inside ``pipeline`` as package data: ``sql/`` (the SQL layers and
``columns.toml``) as ``pipeline/sql/`` and ``data/samples/`` (the demo's sample logs) as
``pipeline/samples/``. pyproject.toml's package discovery finds folders and cannot map one
to another package name; ``pipeline.shipped`` finds them either way (tests/test_wheel.py).
"""

from setuptools import find_packages, setup

#: Installed package name -> the checkout folder it is made from (files: pyproject.toml's
#: [tool.setuptools.package-data]).
DATA_PACKAGES = {"pipeline.sql": "sql", "pipeline.samples": "data/samples"}

setup(
    packages=[*find_packages(include=["pipeline*"]), *DATA_PACKAGES],
    package_dir=DATA_PACKAGES,
)
