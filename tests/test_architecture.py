"""The import rule of docs/architecture.md: a lower layer never imports a higher one.

The rules engine (``pipeline.big2``) and its foundations (``pipeline.cards``,
``pipeline.errors``) are pure Python: no storage, no UI, no CLI. Checked on the source
(AST), so a module that is never imported by a test is still checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"

#: Top-level packages and project modules the pure layers must not import.
FORBIDDEN = (
    "duckdb",
    "pyarrow",
    "pandas",
    "streamlit",
    "plotly",
    "typer",
    "rich",
    "pipeline.cli",
    "pipeline.warehouse",
    "pipeline.logs",
)

#: Each game package's adapter to the seam (pipeline.games) and to the log format: the named
#: modules of the package that read or write log records (docs/architecture.md, "What may
#: import what"). Its ``game`` module is the one the seam registers; Big Two's log format
#: (the parser, ``LogAction``) is its own module beside it.
ADAPTER_MODULES = {
    "big2": ("game", "logformat", "logwriter", "scoresheet"),
    "doudizhu": ("game",),
}
ADAPTERS = sorted(
    PIPELINE / package / f"{name}.py"
    for package, names in ADAPTER_MODULES.items()
    for name in names
)

PURE_MODULES = sorted(
    {
        *PIPELINE.glob("big2/**/*.py"),
        *PIPELINE.glob("doudizhu/**/*.py"),
        PIPELINE / "cards.py",
        PIPELINE / "errors.py",
        PIPELINE / "rulesets.py",
        PIPELINE / "wording.py",
    }
    - set(ADAPTERS)
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PIPELINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, package: str) -> set[str]:
    r"""Every module the import statements of ``source`` name, relative imports resolved.

    >>> sorted(imported_modules("from .. import cli\nfrom . import combos", "pipeline.big2"))
    ['pipeline', 'pipeline.big2', 'pipeline.big2.combos', 'pipeline.cli']
    """
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(p for p in [*parts[: len(parts) - node.level + 1], base] if p)
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)  # `from pipeline import cli`
    return out


def imports_of(path: Path) -> set[str]:
    """The modules a file under pipeline/ imports."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imported_modules(path.read_text(encoding="utf-8"), package)


def violations(imports: set[str], forbidden: tuple[str, ...] = FORBIDDEN) -> list[str]:
    """The imports that name a forbidden module or one of its submodules.

    >>> violations({"duckdb", "pipeline.cards", "pipeline.cli.app", "richer"})
    ['duckdb', 'pipeline.cli.app']
    """
    return sorted(
        imp for imp in imports if any(imp == f or imp.startswith(f + ".") for f in forbidden)
    )


def test_the_pure_modules_are_found() -> None:
    names = {module_name(p) for p in PURE_MODULES}
    assert {"pipeline.cards", "pipeline.errors", "pipeline.big2", "pipeline.big2.rules"} <= names


@pytest.mark.parametrize("path", PURE_MODULES, ids=module_name)
def test_pure_layers_import_no_storage_ui_or_cli(path: Path) -> None:
    assert violations(imports_of(path)) == []


#: Only the top layers may import UI and CLI libraries: the CLI (typer, rich), dashboards/.
UI = ("streamlit", "plotly", "typer", "rich", "pipeline.cli")


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PIPELINE.rglob("*.py")) if PIPELINE / "cli" not in p.parents],
    ids=module_name,
)
def test_no_pipeline_module_but_the_cli_imports_ui_or_cli(path: Path) -> None:
    bad = [m for m in imports_of(path) if any(m == u or m.startswith(u + ".") for u in UI)]
    assert bad == []


def test_cards_errors_and_rulesets_import_no_engine() -> None:
    for name in ("cards.py", "errors.py", "rulesets.py"):
        engine = [m for m in imports_of(PIPELINE / name) if m.startswith(GAME_PACKAGES)]
        assert engine == [], name


def test_relative_imports_are_resolved() -> None:
    found = imported_modules("from ..cli import app\nfrom .. import warehouse", "pipeline.big2")
    assert violations(found) == ["pipeline.cli", "pipeline.cli.app", "pipeline.warehouse"]
    assert module_name(PIPELINE / "big2" / "rules.py") == "pipeline.big2.rules"
    assert module_name(PIPELINE / "big2" / "__init__.py") == "pipeline.big2"


#: Storage and the layers built on it: what the log readers, the replay and the simulator
#: stay below (docs/architecture.md, "What may import what").
STORAGE = ("duckdb", "pyarrow", "pandas", "pipeline.warehouse", "pipeline.ingest")

#: The game packages (each one implementation of pipeline.games.Game).
GAME_PACKAGES = ("pipeline.big2", "pipeline.doudizhu")

#: Per package or module under pipeline/: the modules it must not import.
LAYERS: dict[str, tuple[str, ...]] = {
    # the readers parse logs (a game's own lines through pipeline.games, never a game package);
    # the simulator plays games and writes logs with them
    "pipeline.logs": (
        *STORAGE,
        "pipeline.sim",
        "pipeline.replay",
        "pipeline.report",
        *GAME_PACKAGES,
    ),
    "pipeline.replay": (*STORAGE, "pipeline.sim", "pipeline.report"),
    "pipeline.sim": (*STORAGE, "pipeline.replay", "pipeline.report"),
    # the seam knows no game; the layers that reach a game through it import no engine
    "pipeline.games": (
        *STORAGE,
        "pipeline.big2",
        "pipeline.doudizhu",
        "pipeline.logs",
        "pipeline.sim",
    ),
    # the optional hot path stands beside the layers, never above them
    "pipeline.native": (*STORAGE, "pipeline.cli", "pipeline.report", "pipeline.sim"),
    # storage and the import serve the CLI and the dashboards; they never call up to them
    "pipeline.ingest": ("pipeline.cli", "pipeline.report"),
    "pipeline.warehouse": ("pipeline.cli", "pipeline.ingest", "pipeline.report", "pipeline.sim"),
}


def layer_of(path: Path) -> str | None:
    """The :data:`LAYERS` entry a file under pipeline/ falls under, if any.

    >>> layer_of(PIPELINE / "logs" / "jsonl.py"), layer_of(PIPELINE / "replay.py"), layer_of(PIPELINE / "cards.py")
    ('pipeline.logs', 'pipeline.replay', None)
    """
    name = module_name(path)
    return next((lay for lay in LAYERS if name == lay or name.startswith(lay + ".")), None)


LAYERED = [p for p in sorted(PIPELINE.rglob("*.py")) if layer_of(p) is not None]


@pytest.mark.parametrize("path", LAYERED, ids=module_name)
def test_each_layer_imports_nothing_above_it(path: Path) -> None:
    layer = layer_of(path)
    assert layer is not None
    assert violations(imports_of(path), LAYERS[layer]) == []


def test_logs_never_imports_sim() -> None:
    """The log readers sit below the simulator: the samples that play games live in
    ``pipeline.sim.sample``, not in ``pipeline.logs``."""
    logs = sorted(PIPELINE.glob("logs/**/*.py"))
    assert logs
    bad = {module_name(p): violations(imports_of(p), ("pipeline.sim",)) for p in logs}
    assert {name: found for name, found in bad.items() if found} == {}
    old_sample = "from pipeline.sim.bots import RandomBot\nfrom pipeline.sim.play import play_game"
    assert violations(imported_modules(old_sample, "pipeline.logs"), ("pipeline.sim",))


#: The modules above the engines that reach a game only through pipeline.games (and every
#: module of pipeline.logs: LAYERS, test_the_log_readers_import_no_game_package).
GENERIC = [
    "pipeline/replay.py",
    "pipeline/games.py",
    "pipeline/warehouse/tables.py",
]


@pytest.mark.parametrize("name", GENERIC)
def test_the_generic_layers_import_no_game(name: str) -> None:
    assert violations(imports_of(PIPELINE.parent / name), GAME_PACKAGES) == []


def test_the_log_readers_import_no_game_package() -> None:
    """``pipeline.logs`` holds no game's log format: Big Two's parser, writer and score
    sheets are its adapter modules (:data:`ADAPTER_MODULES`); the readers reach a game's
    parser and sheets through ``pipeline.games`` only."""
    logs = sorted(PIPELINE.glob("logs/**/*.py"))
    assert {module_name(p) for p in logs} >= {"pipeline.logs.records", "pipeline.logs.reader"}
    bad = {module_name(p): violations(imports_of(p), GAME_PACKAGES) for p in logs}
    assert {name: found for name, found in bad.items() if found} == {}


def test_only_the_adapter_set_of_an_engine_imports_the_logs() -> None:
    """The engine modules but the named adapter set import nothing of ``pipeline.logs``."""
    engine = {*PIPELINE.glob("big2/**/*.py"), *PIPELINE.glob("doudizhu/**/*.py")}
    readers = {p for p in engine if violations(imports_of(p), ("pipeline.logs",))}
    assert readers <= set(ADAPTERS), sorted(map(module_name, readers - set(ADAPTERS)))


def test_every_game_has_its_row_filling_beside_the_tables() -> None:
    """The warehouse reaches a game through ``tables.ROWS`` (``game_kind`` → its
    ``pipeline/warehouse/rows_<game>.py``), as the replay does through ``pipeline.games``;
    a row filling imports its own engine and no other."""
    from pipeline.games import GAMES
    from pipeline.warehouse.tables import ROWS

    assert set(ROWS) == set(GAMES)
    for kind, where in ROWS.items():
        module = where.partition(":")[0]
        assert module.startswith("pipeline.warehouse.rows_"), (kind, where)
        path = PIPELINE / "warehouse" / f"{module.rsplit('.', 1)[1]}.py"
        engine = GAMES[kind].partition(":")[0].rsplit(".", 1)[0]  # pipeline.big2, ...
        others = tuple(p for p in GAME_PACKAGES if p != engine)
        assert violations(imports_of(path), others) == [], path


def test_the_seam_imports_only_the_errors() -> None:
    found = {m for m in imports_of(PIPELINE / "games.py") if m.startswith("pipeline")}
    errors = {m for m in found if m == "pipeline.errors" or m.startswith("pipeline.errors.")}
    assert found and found == errors, found - errors


@pytest.mark.parametrize("path", ADAPTERS, ids=module_name)
def test_a_game_adapter_reads_records_but_stays_below_storage(path: Path) -> None:
    """An adapter module may read and write log records (``pipeline.logs``), nothing above."""
    imports = {m for m in imports_of(path) if m != "pipeline.logs"}
    imports = {m for m in imports if not m.startswith("pipeline.logs.")}
    assert (
        violations(imports, (*FORBIDDEN, "pipeline.sim", "pipeline.replay", "pipeline.ingest"))
        == []
    )


def test_the_adapter_set_is_named_and_exists() -> None:
    """Every module of the adapter set exists, and every game package has its ``game``."""
    assert all(path.is_file() for path in ADAPTERS), ADAPTERS
    assert all("game" in names for names in ADAPTER_MODULES.values())


def test_every_registered_game_has_its_adapter() -> None:
    """Each registered game and each score-sheet shape (pipeline.games) is an adapter module."""
    from pipeline.games import GAMES, SHEETS

    for kind, where in {**GAMES, **SHEETS}.items():
        module = where.partition(":")[0]
        assert (PIPELINE.parent / (module.replace(".", "/") + ".py")) in ADAPTERS, kind


#: What only the engine's legal-moves and 頂大 API reads (pipeline.big2.state.Game): the
#: opening-play rule, the swap, the must-block setting.
ENGINE_RULE_NAMES = frozenset(
    {"lowest_rule", "swapped", "must_block", "first_play_must_contain_lowest", "enforced"}
)


def rule_names_read(source: str) -> set[str]:
    """The attributes and imported names of ``source`` that are the engine's rule state.

    >>> sorted(rule_names_read("ok = game.rs.must_block == x or not game.swapped"))
    ['must_block', 'swapped']
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENGINE_RULE_NAMES:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            found.update(a.name for a in node.names if a.name in {"MustBlock", "FirstPlay"})
    return found


@pytest.mark.parametrize("path", sorted(PIPELINE.glob("sim/**/*.py")), ids=module_name)
def test_the_simulator_holds_no_legal_move_or_must_block_rule(path: Path) -> None:
    """The bots choose among Game.legal_moves(); the 頂大 card is Game.block_card."""
    assert rule_names_read(path.read_text(encoding="utf-8")) == set()


#: What the dashboards may import from pipeline/ (docs/architecture.md, the dashboards row).
DASHBOARD_MAY_IMPORT = (
    "pipeline.warehouse",
    "pipeline.cards",
    "pipeline.report",
    "pipeline.errors",
    "pipeline.sqlbuild",
    "pipeline.wording",
    "pipeline.logs.encodings",  # Import health's encoding hint, from the stored rejected lines
)


@pytest.mark.parametrize(
    "path", sorted((PIPELINE.parent / "dashboards").rglob("*.py")), ids=lambda p: p.name
)
def test_the_dashboards_import_no_rules_engine_nor_the_import(path: Path) -> None:
    found = {
        m
        for m in imported_modules(path.read_text(encoding="utf-8"), "dashboards")
        if m == "pipeline" or m.startswith("pipeline.")
    }
    assert violations(found, DASHBOARD_MAY_IMPORT) == sorted(found)
