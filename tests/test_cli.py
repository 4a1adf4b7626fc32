"""The ``big2`` CLI: thin commands, errors as a stderr line plus exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline import __version__, native
from pipeline.cli import EXIT_USAGE, app
from pipeline.games import preset_game
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import Warehouse

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == (
        f"big2-replay {__version__} (replay and simulation core: {native.status()})"
    )


def test_no_arguments_shows_help() -> None:
    result = runner.invoke(app, [])
    assert "Usage" in result.output
    assert "rules" in result.output


@pytest.mark.parametrize(
    "args",
    [[], ["rules"], ["rules", "list"], ["rules", "show"], ["demo"], ["bench"]],
)
def test_every_command_has_help(args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_rules_list_marks_the_default() -> None:
    result = runner.invoke(app, ["rules", "list"])
    assert result.exit_code == 0
    for name in ("hk (default)", "hk-classic", "mainland", "taiwan", "Funtown"):
        assert name in result.stdout


def test_rules_show_table() -> None:
    result = runner.invoke(app, ["rules", "show", "taiwan", "--set", "settlement=place"])
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│" in line}
    assert "override" in rows["settlement"]
    assert "preset" in rows["suit_order"] and "taiwan" in rows["suit_order"]
    assert "default" in rows["players"]
    assert "hk_10_13" in rows["multiplier_tiers"]


def test_rules_show_title_on_one_line() -> None:
    """Dou Dizhu's table is narrow: its title was folded over three lines at 80 columns."""
    result = runner.invoke(app, ["rules", "show", "ddz"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].strip() == (
        "ruleset ddz: 三人斗地主: 3 players, 叫分 bidding 1-3 (default for Dou Dizhu)"
    )


def test_rules_show_json_marks_each_source() -> None:
    args = ["-s", "bombs=true", "-s", "multiplier_tiers=[[8,2],[13,4]]", "--format", "json"]
    result = runner.invoke(app, ["rules", "show", "mainland", *args])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    params = doc["parameters"]
    assert doc["name"] == "mainland"
    assert params["bombs"] == {"value": True, "from": "override"}
    assert params["multiplier_tiers"] == {"value": [[0, 1], [8, 2], [13, 4]], "from": "override"}
    assert params["straight_order"] == {"value": "highest_card", "from": "preset"}
    assert params["players"] == {"value": 4, "from": "default"}


def test_rules_show_toml_is_valid_toml() -> None:
    result = runner.invoke(app, ["rules", "show", "hk-classic", "--format", "toml"])
    assert result.exit_code == 0, result.output
    doc = tomllib.loads(result.stdout)
    assert doc["settlement"] == "penalty_points"
    assert doc["multiplier_tiers"] == [[0, 1], [10, 2], [13, 3]]
    assert 'settlement = "penalty_points"' in result.stdout
    assert "# preset" in result.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["rules", "show", "hk", "--set", "bomb=true"], "E_RULESET_KEY"),
        (["rules", "show", "hk", "--set", "suit_order=bridge"], "E_RULESET_VALUE"),
        (["rules", "show", "hk", "--set", "bombs"], "E_RULESET_OVERRIDE"),
        (["rules", "show", "hk", "-s", "bombs=true", "-s", "bombs=false"], "E_RULESET_OVERRIDE"),
        (["rules", "show", "nope"], "E_RULESET_PRESET"),
    ],
)
def test_bad_input_exits_2_with_the_message_and_no_traceback(args: list[str], code: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith(f"big2: error: {code}: ")
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "show", "nope"],
        ["simulate", "-r", "nope", "-n", "1", "-o", "x.jsonl"],
        ["rescore", "--as", "nope"],  # takes a Dou Dizhu preset too: it named Big Two's only
    ],
)
def test_an_unknown_preset_is_told_every_games_presets(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USAGE
    assert "Big Two hk, hk-classic, mainland, taiwan; Dou Dizhu ddz, ddz-2p" in result.stderr
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)


def test_a_dou_dizhu_preset_for_score_sheets_says_they_are_big_twos(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", "x.csv", "--ruleset", "ddz", "-w", str(tmp_path / "w")])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == (
        "big2: error: E_RULESET_PRESET: --ruleset 'ddz': score sheets are Big Two's; presets: "
        "hk, hk-classic, mainland, taiwan\n"
    )
    assert not (tmp_path / "w").exists()


#: The end of the message of a key of the other game: whose it is, that game's presets.
OF_DOU_DIZHU = "(a Dou Dizhu key, not Big Two's; Dou Dizhu presets: ddz, ddz-2p)"
OF_BIG_TWO = "(a Big Two key, not Dou Dizhu's; Big Two presets: hk, hk-classic, mainland, taiwan)"


@pytest.mark.parametrize(
    ("args", "key", "hint"),
    [
        (["rescore", "--as", "hk", "-s", "multiplier_cap=8"], "multiplier_cap", OF_DOU_DIZHU),
        (["rescore", "--as", "ddz", "-s", "bombs=true"], "bombs", OF_BIG_TWO),
        (["simulate", "-r", "mainland", "-s", "multiplier_cap=8"], "multiplier_cap", OF_DOU_DIZHU),
        (["simulate", "-r", "ddz-2p", "-s", "suit_order=taiwan"], "suit_order", OF_BIG_TWO),
        (["ingest", "x.csv", "--ruleset", "hk", "-s", "spring_doubles=true"], "spring_doubles",
         OF_DOU_DIZHU),
        (["rules", "show", "ddz", "-s", "allow_triples=false"], "allow_triples", OF_BIG_TWO),
    ],
)  # fmt: skip
def test_a_key_of_the_other_game_says_whose_it_is(
    args: list[str], key: str, hint: str, tmp_path: Path
) -> None:
    # was 'unknown ruleset key ...' alone: no word that the key is the other game's
    out = ["-o", str(tmp_path / "x.jsonl")] if args[0] == "simulate" else []
    result = runner.invoke(app, [*args, *out])
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == (
        f"big2: error: E_RULESET_KEY: override: unknown ruleset key {key!r} {hint}\n"
    )


@pytest.mark.parametrize(
    ("preset", "override"),
    [
        ("hk", "bombs=true"),
        ("mainland", "suit_order=taiwan"),
        ("hk", "last_card_call=required"),  # taken only beside missed_call_penalty, which needs it
        ("ddz", "bidding=call"),
        ("ddz-2p", "hand_size=17"),
    ],
)
def test_rescore_refuses_a_rule_of_the_play(preset: str, override: str) -> None:
    # was taken and ignored: the what-if scores the games as played, it replays none, so the
    # table was the one without it, and nothing said so
    result = runner.invoke(app, ["rescore", "--as", preset, "--set", override])
    assert result.exit_code == EXIT_USAGE, result.output
    key = override.split("=")[0]
    game = preset_game(preset)
    assert result.stderr == (
        f"big2: error: E_RESCORE_KEY: override {key}: a rule of the play, not of the scoring; "
        "rescore changes only the scoring of the games as played (it does not replay them); "
        f"the {game.csv.title} keys it takes: {', '.join(sorted(game.scoring_keys))}\n"
    )


def test_rescore_names_every_rule_of_the_play_it_refuses() -> None:
    args = ["rescore", "--as", "taiwan", "-s", "stake=2", "-s", "suit_order=hk", "-s", "bombs=true"]
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USAGE, result.output
    assert "E_RESCORE_KEY: override bombs, suit_order: rules of the play" in result.stderr


def test_bad_set_message_names_the_key() -> None:
    result = runner.invoke(app, ["rules", "show", "hk", "--set", "bomb=true"])
    assert "did you mean 'bombs'?" in result.stderr


def test_bad_format_is_a_usage_error() -> None:
    result = runner.invoke(app, ["rules", "show", "hk", "--format", "yaml"])
    assert result.exit_code == EXIT_USAGE


#: The parser's own usage errors: arguments, the command whose ``--help`` the line names, what
#: that help lists, and a piece of click's message.
USAGE_ERRORS = {
    "unknown option": (["sql", "--bogus"], "sql", "options", "No such option: --bogus"),
    "bad choice": (
        ["rules", "show", "hk", "--format", "yaml"],
        "rules show",
        "options",
        "'yaml' is not one of 'table', 'toml', 'json'",
    ),
    "int below min": (
        ["ingest", "no-such.jsonl", "--workers", "0"],
        "ingest",
        "options",
        "Invalid value for '--workers'",
    ),
    "not an int": (["simulate", "-n", "abc"], "simulate", "options", "Invalid value for '--games'"),
    "unknown command": (["bogus"], "", "commands", "No such command 'bogus'."),
    "unknown subcommand": (["rules", "bogus"], "rules", "commands", "No such command 'bogus'."),
    "missing argument": (["ingest"], "ingest", "arguments", "Missing argument 'PATH...'."),
    "option without its value": (
        ["sql", "--warehouse"],
        "sql",
        "options",
        "Option '--warehouse' requires an argument.",
    ),
    "extra argument": (["rules", "show", "hk", "x"], "rules show", "usage", "extra argument"),
}


def usage_line(prog: str, case: str) -> str:
    """The ``E_USAGE`` line of ``case`` when the command line starts with ``prog``."""
    _, command, what, _ = USAGE_ERRORS[case]
    verb = "shows" if what == "usage" else "lists"
    return f"{' '.join(filter(None, (prog, command)))} --help {verb} the {what})"


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_a_usage_error_is_one_line_naming_the_commands_help(case: str) -> None:
    """Not click's usage and boxed panel: ``big2: error: E_USAGE: <click's message> (big2 …
    --help lists …)``, exit 2, nothing on stdout."""
    args, _, _, message = USAGE_ERRORS[case]
    result = runner.invoke(app, args)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("big2: error: E_USAGE: "), line
    assert message in line and line.endswith(f"({usage_line('big2', case)}"), line


def run_big2(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pipeline.cli ARGS``, the real command in a subprocess (a terminal's width)."""
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.parametrize(
    "case",
    [
        "unknown option",
        "bad choice",
        "int below min",
        "unknown command",
        "missing argument",
        "option without its value",
    ],
)
def test_a_usage_error_of_the_real_command_is_one_line(case: str) -> None:
    """In a real run (typer's own ``main``, rich installed): one ``E_USAGE`` line on stderr,
    naming the command as it was typed (``python -m pipeline.cli sql``), exit 2."""
    args, _, _, message = USAGE_ERRORS[case]
    out = run_big2(*args)
    assert out.returncode == EXIT_USAGE, out.stderr
    assert out.stdout == ""
    [line] = out.stderr.splitlines()
    assert line.startswith("big2: error: E_USAGE: "), out.stderr
    assert message in line, line
    assert line.endswith(f" -m {usage_line('pipeline.cli', case)}"), line


@pytest.mark.parametrize("args", [["--help"], ["sql", "--help"], ["rules", "--help"]])
def test_help_is_still_help(args: list[str]) -> None:
    out = run_big2(*args)
    assert out.returncode == 0, out.stderr
    assert "Usage" in out.stdout and out.stderr == ""


@pytest.mark.parametrize("args", [[], ["rules"]])
def test_no_arguments_still_shows_the_help(args: list[str]) -> None:
    """``no_args_is_help``: the help on stdout, no error line, exit 2 as click has it."""
    out = run_big2(*args)
    assert out.returncode == EXIT_USAGE
    assert "Usage" in out.stdout and "Commands" in out.stdout
    assert "big2: error" not in out.stderr


def test_demo_ingests_the_samples_into_a_consistent_warehouse(tmp_path: Path) -> None:
    argv = ["demo", "--warehouse", str(tmp_path / "wh"), "--games", "24", "--no-dashboard"]
    result = runner.invoke(app, [*argv, "--log", str(tmp_path / "sim.jsonl.gz")])
    assert result.exit_code == 0, result.output
    # The per-file table folds long paths at the console width, so ask the warehouse, not the table.
    assert "2/4 ingest" in result.stdout and "big2 verify: OK" in result.stdout
    wh = Warehouse(tmp_path / "wh")
    with wh.connect() as con:
        n_sim = con.execute("select count(*) from games where game_id like 'demo1-%'").fetchone()
        files = {
            Path(name).name
            for (name,) in con.execute("select distinct source_file from games").fetchall()
        }
        standings = con.execute("select count(*) from mart_player_standings").fetchone()
        ddz = con.execute(
            "select ruleset, count(*) from games where game_kind = 'doudizhu' "
            "and outcome = 'played_out' group by 1 order by 1"
        ).fetchall()
        feeder = con.execute(
            "select distinct g.ruleset from seats s join games g using (game_id) "
            "where s.player_id = 'ddz-feeder' and s.seat = 2"
        ).fetchall()
    assert n_sim == (24,)
    assert ddz == [("ddz", 60), ("ddz-2p", 30)]  # both games in the demo warehouse
    assert feeder == [("ddz",)]  # the planted feeding seat is one player, in 3-player games
    assert {"sim.jsonl.gz", "games.jsonl", "actions.csv"} <= files
    assert standings is not None and standings[0] >= 4


def test_bench_unknown_name_exits_2() -> None:
    result = runner.invoke(app, ["bench", "--only", "no.such.benchmark", "--no-record"])
    assert result.exit_code == EXIT_USAGE
    assert "no.such.benchmark" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["verify"],
        ["build"],
        ["sql", "select 1"],
        ["sql", "--tables"],
        ["rescore", "--as", "mainland"],
        ["report", "--match", "m1"],
        ["export", "g1"],
    ],
)
def test_a_path_that_is_no_warehouse_is_refused_and_not_created(
    tmp_path: Path, args: list[str]
) -> None:
    typo = tmp_path / "typo"
    result = CliRunner().invoke(app, [*args, "-w", str(typo)])
    assert result.exit_code == 2, result.output
    assert f"E_NO_WAREHOUSE: {typo} is not a warehouse" in result.stderr
    assert not typo.exists()


@pytest.mark.parametrize(
    "args", [["--workers", "0"], ["--workers", "-3"], ["--top", "-1"], ["--files", "-1"]]
)
def test_ingest_refuses_a_count_below_its_minimum(tmp_path: Path, args: list[str]) -> None:
    """`--workers` is 1 or more, `--top` and `--files` 0 or more (0: every one), as `big2
    simulate` checks its own: a usage error before anything is read or created."""
    log = str(SAMPLES / "bad.jsonl")
    result = runner.invoke(app, ["ingest", log, "-w", str(tmp_path / "wh"), *args])
    assert result.exit_code == EXIT_USAGE, result.output
    assert "Invalid value for" in result.stderr and args[0] in result.stderr
    assert not (tmp_path / "wh").exists()


def test_ingest_top_0_lists_every_reject_code(tmp_path: Path) -> None:
    log = str(SAMPLES / "bad.jsonl")
    result = runner.invoke(app, ["ingest", log, "-w", str(tmp_path / "wh"), "--top", "0"])
    assert result.exit_code == 0, result.output
    reasons = result.stdout.split("top reject reasons:\n", 1)[1].splitlines()
    with Warehouse(tmp_path / "wh").connect() as con:
        codes = {code for (code,) in con.execute("select distinct code from rejects").fetchall()}
    assert len(codes) > 5  # more than the default --top
    assert {line.split()[1] for line in reasons[: len(codes)]} == codes
    assert reasons[len(codes)].startswith("details: ")


def test_counts_are_worded_in_the_singular_for_one(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="one")) + "\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["ingest", str(log), "-w", str(tmp_path / "wh")]).exit_code == 0
    result = CliRunner().invoke(app, ["verify", "-w", str(tmp_path / "wh")])
    assert result.exit_code == 0 and "OK (1 batch)" in result.output


def test_an_import_stopped_in_its_build_says_it_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) during the build after an import: the games are stored, and the
    message says so and names `big2 build` (it said nothing of the import was committed)."""
    from pipeline import sqlbuild

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sqlbuild, "build", interrupted)
    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="one")) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(log), "-w", str(tmp_path / "wh")])
    assert result.exit_code == 130, result.output
    assert "E_INTERRUPTED: stopped by SIGINT: the import had committed" in result.output
    assert "run `big2 build`" in result.output
    problems = Warehouse(tmp_path / "wh").verify()
    assert [p.code for p in problems] == ["E_MARTS_STALE"], problems


@pytest.mark.parametrize("command", ["ingest", "verify", "simulate", "build", "sql", "demo"])
def test_flags_show_no_type_placeholder(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "--help" not in line]
    assert not [line for line in lines if "<bool>" in line], result.output


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["rules", "list"], ["sql", "--help"]])
def test_the_cli_starts_without_the_warehouse_libraries(argv: list[str]) -> None:
    """`big2 --help`, `--version`, `rules` and any command's `--help` never load pyarrow,
    duckdb, numpy or pandas (pandas cost ~1.4 s of every start, the others ~0.5 CPU-s): the
    commands that need them (the import, the warehouse, the dashboards, report frames) import
    them when they run."""
    code = (
        "import sys\n"
        "from pipeline.cli import app\n"
        "try:\n"
        f"    app({argv!r})\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "heavy = {'pyarrow', 'duckdb', 'numpy', 'pandas'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "[]", out.stdout[-500:]


@pytest.fixture(scope="module")
def one_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built warehouse of one game, ``one`` (its own match)."""
    root = tmp_path_factory.mktemp("one")
    log = root / "one.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="one")) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(log), "-w", str(root / "wh")])
    assert result.exit_code == 0, result.output
    return root / "wh"


#: Each command that writes a file the user names, with its option and the file's suffix.
OUTPUT_FILES = {
    "report": (["report", "--match", "one"], "--html", "html"),
    "export": (["export", "one"], "--out", "txt"),
    "rescore": (["rescore", "--as", "hk", "--format", "csv"], "--out", "csv"),
    "sql": (["sql", "select 1 as n", "--format", "csv"], "--out", "csv"),
    "sql parquet": (["sql", "select 1 as n", "--format", "parquet"], "--out", "parquet"),
    "simulate": (["simulate", "-n", "1", "--workers", "1"], "--out", "jsonl"),
}


@pytest.mark.parametrize("where", ["no folder", "a folder", "under a file", "in a warehouse"])
@pytest.mark.parametrize("command", list(OUTPUT_FILES))
def test_an_output_file_that_cannot_be_written_is_one_error_line(
    one_game: Path, tmp_path: Path, command: str, where: str
) -> None:
    """A missing folder is refused, not created; a folder is not a file; a file in a warehouse
    folder is refused (`rescore --out wh/manifest.jsonl` wrote over the manifest): E_OUTPUT_FILE
    names the path as given (no temporary name), exit 2, no traceback, nothing written."""
    args, option, suffix = OUTPUT_FILES[command]
    manifest = b'{"batch_id": "b1", "files": []}\n'
    if where == "no folder":
        path = tmp_path / "nodir" / f"out.{suffix}"
    elif where == "a folder":
        path = tmp_path / f"out.{suffix}"
        path.mkdir()
    elif where == "in a warehouse":  # another warehouse than the one read, its manifest
        (tmp_path / "wh").mkdir()
        path = tmp_path / "wh" / "manifest.jsonl"
        path.write_bytes(manifest)
    else:
        (tmp_path / "file").write_text("", encoding="utf-8")
        path = tmp_path / "file" / f"out.{suffix}"
    warehouse = [] if command == "simulate" else ["-w", str(one_game)]
    result = CliRunner().invoke(app, [*args, option, str(path), *warehouse])
    assert result.exit_code == EXIT_USAGE, result.output
    assert isinstance(result.exception, SystemExit)
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"big2: error: E_OUTPUT_FILE: {option} {path}: cannot write it: ")
    assert ".part" not in line and ".tmp" not in line
    assert result.stdout == ""
    assert not (tmp_path / "nodir").exists()
    left = {"no folder": [], "a folder": [path.name], "under a file": ["file"]}.get(where, ["wh"])
    assert sorted(p.name for p in tmp_path.iterdir()) == left
    if where == "a folder":
        assert not list(path.iterdir())
    if where == "in a warehouse":
        assert [p.name for p in path.parent.iterdir()] == ["manifest.jsonl"]
        assert path.read_bytes() == manifest


def test_the_warehouse_files_an_output_may_not_be_are_the_warehouses() -> None:
    from pipeline.cli.app import WAREHOUSE_FILES
    from pipeline.warehouse import store

    own = [store.MANIFEST, store.LEDGER, store.DB_FILE, store.KNOWN_FILE, store.KNOWN_STAMP]
    assert (*own, store.LOCK_FILE, store.BUILD_LOCK_FILE) == WAREHOUSE_FILES


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", ["export", "rescore", "sql", "sql parquet"])
def test_an_error_while_writing_the_output_file_names_it(one_game: Path, command: str) -> None:
    # /proc exists but no file can be created in it (not even by root): the check passes, the
    # write fails, and the message names the file as given, not its temporary .part file
    args, option, suffix = OUTPUT_FILES[command]
    path = Path("/proc") / f"big2-out.{suffix}"
    result = CliRunner().invoke(app, [*args, option, str(path), "-w", str(one_game)])
    assert result.exit_code == EXIT_USAGE, result.output
    (line,) = result.stderr.splitlines()
    assert line == f"big2: error: E_OUTPUT_FILE: {option} {path}: cannot write it: " + (
        "No such file or directory"
    )


@pytest.mark.parametrize("views", ["made by the reader", "in warehouse.duckdb"])
def test_a_missing_committed_file_is_one_line_pointing_to_verify(
    tmp_path: Path, views: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed Parquet file gone: `big2 sql`, `big2 report` and the dashboards' SQL
    explorer (reading.run_adhoc) said DuckDB's error over lines, echoing the views (when the
    reader makes them), or E_SQL_QUERY's "file system operations are disabled" and
    E_REPORT_QUERY's "No files found" (when the query reads the file's views); now one
    E_WAREHOUSE line naming the file and `big2 verify` / `big2 verify --repair`."""
    import streamlit as st

    from dashboards import data
    from pipeline.warehouse import WarehouseError, reading

    log = tmp_path / "one.jsonl"
    log.write_text(dumps(sample_game(seed=1, game_id="one")) + "\n", encoding="utf-8")
    wh = tmp_path / "wh"
    result = CliRunner().invoke(app, ["ingest", str(log), "-w", str(wh), "--no-build"])
    assert result.exit_code == 0, result.output
    if views == "made by the reader":  # over the manifest's files, as it connects
        (wh / "warehouse.duckdb").unlink()
    (gone,) = (wh / "games").glob("*.parquet")
    gone.unlink()
    rel = gone.relative_to(wh).as_posix()
    commands = [["sql", "select count(*) from games"], ["report", "--match", "one"]]
    if views == "in warehouse.duckdb":  # no marts to report on (a build: ~2 s more)
        commands.pop()
    for args in commands:
        bad = CliRunner().invoke(app, [*args, "-w", str(wh)])
        assert bad.exit_code == 2, bad.output
        assert bad.output.count("\n") == 1 and "LINE 1" not in bad.output, bad.output
        assert bad.output.startswith(f"big2: error: E_WAREHOUSE: {wh} is damaged: {rel} ")
        assert "`big2 verify` lists every problem, `big2 verify --repair`" in bad.output
    with pytest.raises(WarehouseError, match=f"E_WAREHOUSE: {wh} is damaged: {rel} "):
        reading.run_adhoc(Warehouse(wh), "from games", max_rows=1, timeout_s=5)
    # the dashboards' status line (a named query of dashboards.data) says the same
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh))
    st.cache_data.clear()
    state, line = data.status()
    assert state is data.State.BROKEN and f"E_WAREHOUSE: {wh} is damaged: {rel} " in line
    if views == "in warehouse.duckdb":  # a query that reads no missing file is itself
        typo = CliRunner().invoke(app, ["sql", "from gamez", "-w", str(wh)])
        assert "E_SQL_QUERY: Catalog Error: Table with name gamez" in typo.output
