"""It installs as a package: a wheel built from the sources, installed into a fresh virtual
environment outside the checkout, runs ``big2 demo --no-dashboard`` from a folder outside the
checkout (the SQL, the column descriptions and the sample logs come from the wheel).

Offline: the wheel is built without build isolation when this environment's setuptools meets
``[build-system] requires`` (else pip fetches it, as ``pip install`` does); the project's
dependencies are not installed again but reached through a ``.pth`` line naming this
environment's site-packages, written after the wheel is installed (a path added by a ``.pth``
line has its own ``.pth`` files ignored, so an editable install of the checkout there stays
out of the fresh environment).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
#: What a wheel is built from (the rest of the checkout is not packaged).
SOURCES = ("pyproject.toml", "setup.py", "README.md", "pipeline", "sql", "data/samples")


def _setuptools_fits() -> bool:
    """Whether this environment's setuptools meets the build-system's ``setuptools>=N``."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    wanted = next(r for r in requires if r.startswith("setuptools"))
    least = wanted.partition(">=")[2] or "0"
    try:
        have = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return False
    return tuple(int(x) for x in have.split(".")[:2]) >= tuple(int(x) for x in least.split("."))


def _run(args: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs
    )  # type: ignore[call-overload]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BIG2_WAREHOUSE")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _build_wheel(tmp: Path) -> Path:
    src = tmp / "src"  # a copy: an in-tree build writes build/ and *.egg-info beside the sources
    for name in SOURCES:
        from_ = ROOT / name
        if from_.is_dir():
            shutil.copytree(from_, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(from_, src / name)
    isolation = ["--no-build-isolation"] if _setuptools_fits() else []
    out = tmp / "dist"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", out, src],
        env=_env(),
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("big2_replay-*.whl")
    return wheel


def test_a_wheel_installed_outside_the_checkout_runs_the_demo(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in (
        "pipeline/sql/columns.toml",
        "pipeline/sql/marts/mart_game_scores.sql",
        "pipeline/sql/staging/stg_actions.sql",
        "pipeline/samples/games.jsonl",
        "pipeline/big2/presets/hk.toml",
    ):
        assert shipped in names, f"{shipped} is not in the wheel"

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], env=_env())
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--no-deps",
            "--no-index",
            wheel,
        ],
        env=_env(),
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # the third-party dependencies: this environment's, after the project's own site-packages
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    ours = sysconfig.get_paths()
    deps = dict.fromkeys([ours["purelib"], ours["platlib"]])  # one line each, in order
    (site / "zz_big2_test_deps.pth").write_text("".join(f"{d}\n" for d in deps))

    where = _run(
        [
            python,
            "-c",
            "import pipeline, pipeline.shipped as s; print(pipeline.__file__, s.sql_dir(), s.samples_dir())",
        ],
        env=_env(),
        cwd=tmp_path,
    )
    assert where.returncode == 0, where.stderr
    assert all(Path(p).is_relative_to(site) for p in where.stdout.split()), where.stdout

    run = tmp_path / "elsewhere"
    run.mkdir()
    demo = _run(
        [venv / "bin" / "big2", "demo", "--no-dashboard", "--games", "60"], env=_env(), cwd=run
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "4/4 big2 verify: OK" in demo.stdout, demo.stdout
    assert (run / "data" / "demo" / "simulated.jsonl.gz").is_file()
    db = run / "data" / "warehouse" / "warehouse.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        (games,) = con.execute("select count(*) from games").fetchone() or (0,)
        (scored,) = con.execute("select count(*) from mart_game_scores").fetchone() or (0,)
        (samples,) = con.execute(
            "select count(*) from games where source_file like '%/pipeline/samples/%'"
        ).fetchone() or (0,)
        (comments,) = con.execute(
            "select count(*) from duckdb_columns() where table_name = 'games' and comment is not null"
        ).fetchone() or (0,)
    assert games > 60 and scored > 0 and samples > 0, (games, scored, samples)
    assert comments > 0  # the column descriptions came from the wheel's columns.toml
