"""What the ``big2`` commands print, as a user sees it: in a pipe and at 80 columns (issue 13).

Each test runs the real command in a subprocess with ``COLUMNS`` set and stdout a pipe."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import sqlbuild
from pipeline.cli.app import COMMAND_ORDER
from pipeline.cli.grid import cell
from pipeline.ingest import ingest
from pipeline.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"


def big2(*args: str | Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """``big2 ARGS`` in a subprocess, stdout and stderr pipes, ``COLUMNS`` set."""
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "24"}
    env.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """The sample logs imported and the marts built."""
    wh = Warehouse(tmp_path_factory.mktemp("output") / "warehouse")
    ingest([str(SAMPLES / "games.jsonl"), str(SAMPLES / "partial.jsonl")], wh)
    sqlbuild.build(wh)
    return wh


def values(wh: Warehouse, query: str) -> list[tuple[object, ...]]:
    con = wh.connect()
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("columns", [60, 80])
def test_rules_list_cuts_no_description(columns: int) -> None:
    """Every preset's description and source whole, however narrow (rich cut ``no lock-out,``
    beside CJK text to ``no lock-out…`` at 80 columns)."""
    from pipeline.big2 import rules
    from pipeline.doudizhu import rules as ddz_rules

    done = big2("rules", "list", columns=columns)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    text = " ".join(re.sub(r"[│┃]", " ", done.stdout).split())
    metas = [rules.preset_meta(n) for n in rules.preset_names()]
    metas += [ddz_rules.preset_meta(n) for n in ddz_rules.preset_names()]
    for meta in metas:
        for word in f"{meta['description']} {meta['source']}".split():
            assert word in text, word


@pytest.mark.parametrize("columns", [80, 120])
def test_sql_never_cuts_a_value_of_a_wide_result(wh: Warehouse, columns: int) -> None:
    query = "from mart_game_scores order by game_id, seat"
    done = big2("sql", query, "-w", wh.root, columns=columns)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(len(line) <= columns for line in lines), max(lines, key=len)
    assert "…" not in done.stdout
    rows = values(wh, query)
    assert len(rows) > 10
    for row in rows:
        for value in row:
            text = cell(value)
            if len(text) < columns // 2 and "\n" not in text:
                assert text in done.stdout, text


def test_sql_numbers_right_aligned_integers_as_integers(wh: Warehouse) -> None:
    query = (
        "select * from (values ('a', 1.0::double, 7, 2.5::double), "
        "('bbbbbb', 14331.0::double, 12345, 1/3)) t(name, whole, n, part)"
    )
    done = big2("sql", query, "-w", wh.root)
    assert done.returncode == 0, done.stderr
    header, _rule, first, second = done.stdout.splitlines()[:4]
    assert header.split() == ["name", "whole", "n", "part"]
    assert "1.0" not in done.stdout and "14331" in second and "0.3333333333" in second
    # right-aligned: the numbers of a column end where its header ends
    for name in ("whole", "n", "part"):
        end = header.index(name) + len(name)
        assert first[:end].endswith(first[:end].split()[-1]) and first[end : end + 1] in ("", " ")
        assert second[end - 1] != " " and first[end - 1] != " "


def test_sql_folds_a_result_wider_than_the_screen_into_blocks(wh: Warehouse) -> None:
    cols = ", ".join(f"'{'v' * 12}{i}' as column_{i:02d}" for i in range(8))
    done = big2("sql", f"select 42 as game_id, {cols}", "-w", wh.root)
    assert done.returncode == 0, done.stderr
    assert "columns 1-" in done.stdout and "(and game_id)" in done.stdout
    for i in range(8):
        assert f"{'v' * 12}{i}" in done.stdout and f"column_{i:02d}" in done.stdout
    assert all(len(line) <= 80 for line in done.stdout.splitlines())


def test_sql_prints_a_column_wider_than_the_screen_as_records(wh: Warehouse) -> None:
    long = "x" * 150 + "END"
    done = big2("sql", f"select 1 as id, '{long}' as note", "-w", wh.root)
    assert done.returncode == 0, done.stderr
    assert "-[ row 1 ]" in done.stdout
    assert "".join(
        line.split(" | ", 1)[1] for line in done.stdout.splitlines() if " | " in line
    ).endswith(long)
    assert all(len(line) <= 80 for line in done.stdout.splitlines())


def test_off_a_terminal_the_commands_write_nothing_on_stderr(wh: Warehouse, tmp_path: Path) -> None:
    """The progress bars are drawn on a terminal only (off one, rich left a blank line)."""
    log = tmp_path / "g.jsonl"
    for args in (
        ("simulate", "-n", "3", "-o", log),
        ("ingest", log, "-w", tmp_path / "wh"),
        ("build", "-w", wh.root),
    ):
        done = big2(*args)
        assert done.returncode == 0, done.stderr
        assert done.stderr == "" and done.stdout, args


def test_sql_csv_and_table_write_lists_and_structs_as_json(wh: Warehouse) -> None:
    """A list or struct holding a timestamp, date, decimal or NULL: CSV and the table write
    JSON text, as --format json does (they wrote Python's repr:
    ``[datetime.datetime(2026, 1, 1, 10, 0)]``, ``[Decimal('1.50')]``, ``[True, None]``)."""
    query = (
        "select [timestamp '2026-01-01 10:00'] as ts, [1.5::decimal(4, 2)] as dec, "
        "{'d': date '2026-01-02', 'n': null} as st, [true, null] as bl"
    )
    csv_out = big2("sql", query, "--format", "csv", "-w", wh.root)
    assert csv_out.returncode == 0, csv_out.stderr
    assert csv_out.stdout.splitlines()[1] == (
        '"[""2026-01-01 10:00:00""]","[""1.50""]",'
        '"{""d"": ""2026-01-02"", ""n"": null}","[true, null]"'
    )
    table = big2("sql", query, "-w", wh.root, columns=120)
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[2].split() == [
        '["2026-01-01',
        '10:00:00"]',
        '["1.50"]',
        '{"d":',
        '"2026-01-02",',
        '"n":',
        "null}",
        "[true,",
        "null]",
    ]


def test_sql_writes_an_interval_as_duckdbs_text(wh: Warehouse) -> None:
    """An INTERVAL with months in every text format: DuckDB's text, not a timedelta of 30-day
    months (``age(...)`` of 1 month 1 day printed ``31 days, 0:00:00``); NULL stays NULL and
    the other columns keep their types; a ; then a comment after the query changes nothing."""
    query = (
        "select age(timestamp '2026-03-01', timestamp '2026-01-31') as gap, "
        "null::interval as none, 7 as n, 'x;' as s; -- the gap"
    )
    csv_out = big2("sql", query, "--format", "csv", "-w", wh.root)
    assert csv_out.returncode == 0, csv_out.stderr
    assert csv_out.stdout == "gap,none,n,s\n1 month 1 day,,7,x;\n"
    json_out = big2("sql", query, "--format", "json", "-w", wh.root)
    assert json.loads(json_out.stdout) == [
        {"gap": "1 month 1 day", "none": None, "n": 7, "s": "x;"}
    ]
    table = big2("sql", query, "-w", wh.root)
    assert table.stdout.splitlines()[2].split() == ["1", "month", "1", "day", "NULL", "7", "x;"]


def test_sql_writes_a_blob_as_duckdbs_text(wh: Warehouse) -> None:
    """A BLOB in CSV and JSON: DuckDB's text (``\\xAA\\x00x``), not Python's ``b'\\xaa\\x00x'``."""
    query = r"select '\xAA\x00x'::blob as bl, null::blob as nb"
    csv_out = big2("sql", query, "--format", "csv", "-w", wh.root)
    assert csv_out.stdout == "bl,nb\n\\xAA\\x00x,\n", csv_out.stderr
    json_out = big2("sql", query, "--format", "json", "-w", wh.root)
    assert json.loads(json_out.stdout) == [{"bl": r"\xAA\x00x", "nb": None}]


@pytest.mark.parametrize(
    ("args", "got"),
    [
        (["select 1", "--file", "{q}"], "a query and --file"),
        (["select 1", "--tables"], "a query and --tables"),
        (["--file", "{q}", "--tables"], "--file and --tables"),
    ],
)
def test_sql_refuses_a_query_given_twice(
    wh: Warehouse, tmp_path: Path, args: list[str], got: str
) -> None:
    """A query and --file (or --tables): one ran and the other was ignored, without a word."""
    q = tmp_path / "q.sql"
    q.write_text("select 2 as n", encoding="utf-8")
    done = big2("sql", *(a.format(q=q) for a in args), "-w", wh.root)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"big2: error: E_SQL_USAGE: give a query, --file, --tables or --columns, one of them "
        f"(got {got})\n"
    )


def test_sql_draws_no_progress_bar_into_the_output(wh: Warehouse) -> None:
    # DuckDB draws its progress bar on stdout for a query over 2 s (5M rows of CSV did, the
    # reliability test saw it): the sandbox turns it off, so a pipe gets only rows.
    query = "select current_setting('enable_progress_bar') as bar"
    done = big2("sql", query, "-w", wh.root, "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "bar\nFalse\n"


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        ("select * from gamez", 'Did you mean "games"?'),
        ("select gam_id from games", 'Candidate bindings: "game_id"'),
    ],
)
def test_sql_errors_keep_duckdbs_hints(wh: Warehouse, query: str, hint: str) -> None:
    done = big2("sql", query, "-w", wh.root)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()  # one line, the hint on it
    assert line.startswith("big2: error: E_SQL_QUERY: ") and hint in line, done.stderr


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("create table x as select 1", "a CREATE statement"),
        ("insert into games select * from games", "an INSERT statement"),
        ("with t as (delete from games returning *) select * from t", "this one writes"),
    ],
)
def test_sql_a_write_is_refused_as_read_only(wh: Warehouse, query: str, kind: str) -> None:
    done = big2("sql", query, "-w", wh.root)
    assert done.returncode == 2
    assert "E_SQL_QUERY: read-only: only SELECT" in done.stderr and kind in done.stderr
    assert "Binder Error:" not in done.stderr.split("(", 1)[0]


def test_rescore_writes_parquet_to_out_and_refuses_it_without(
    wh: Warehouse, tmp_path: Path
) -> None:
    refused = big2("rescore", "--as", "mainland", "--format", "parquet", "-w", wh.root)
    assert refused.returncode == 2
    assert refused.stderr.strip() == "big2: error: E_SQL_USAGE: --format parquet needs --out FILE"
    out = tmp_path / "whatif.parquet"
    args = ["--as", "mainland", "--format", "parquet", "--out", out, "-w", wh.root]
    done = big2("rescore", *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"→ {out}\n")
    rows = values(wh, f"select player_id, whatif_rank from '{out}'")
    assert rows and all(r[0] for r in rows)


def test_sql_parquet_refuses_a_column_parquet_cannot_hold_in_one_line(
    wh: Warehouse, tmp_path: Path
) -> None:
    """An INTERVAL or UNION column as Parquet: one line naming the columns and the way out,
    exit 2, no file (was pyarrow's ArrowNotImplementedError as a traceback, exit 1)."""
    out = tmp_path / "gap.parquet"
    query = "select 1 as n, interval 3 day as gap, union_value(k := 1) as u"
    done = big2("sql", query, "--format", "parquet", "--out", out, "-w", wh.root)
    assert done.returncode == 2
    assert done.stderr == (
        "big2: error: E_SQL_QUERY: --format parquet cannot hold columns gap "
        "(month_day_nano_interval), u (sparse_union<k: int32=0>); cast them in the query "
        "(gap::varchar) or write --format csv or json\n"
    )
    assert not out.exists() and not list(tmp_path.iterdir())
    cast = big2(
        "sql",
        "select interval 3 day::varchar as gap",
        "--format",
        "parquet",
        "--out",
        out,
        "-w",
        wh.root,
    )
    assert cast.returncode == 0, cast.stderr
    assert values(wh, f"select gap from '{out}'") == [("3 days",)]


def rescore_match_rows(wh: Warehouse, preset: str) -> int:
    """How many (match, player) rows ``big2 rescore --as preset --by match`` has."""
    con = wh.connect()
    try:
        found = con.execute(
            "select count(*) from rescore_matches(?)", [sqlbuild.ruleset_json(preset, {})]
        ).fetchone()
    finally:
        con.close()
    assert found is not None
    return int(found[0])


@pytest.mark.parametrize(
    ("fmt", "to_file"), [("csv", False), ("csv", True), ("json", False), ("parquet", True)]
)
def test_rescore_writes_every_row_whatever_the_limit(
    wh: Warehouse, tmp_path: Path, fmt: str, to_file: bool
) -> None:
    # issue: `--limit` (default 30) cut the csv, json and parquet outputs too, silently
    n = rescore_match_rows(wh, "mainland")
    assert n > 5
    out = tmp_path / f"whatif.{fmt}"
    args = ["--as", "mainland", "--by", "match", "--format", fmt, "--limit", "5", "-w", wh.root]
    done = big2("rescore", *args, *(["--out", out] if to_file else []))
    assert done.returncode == 0, done.stderr
    if fmt == "parquet":
        assert values(wh, f"select count(*) from '{out}'") == [(n,)]
        return
    text = out.read_text(encoding="utf-8") if to_file else done.stdout
    rows = json.loads(text) if fmt == "json" else text.splitlines()[1:]
    assert len(rows) == n


def test_rescore_table_stops_at_the_limit_and_says_how_many_it_did_not_show(
    wh: Warehouse, tmp_path: Path
) -> None:
    n = rescore_match_rows(wh, "mainland")
    args = ["--as", "mainland", "--by", "match", "--limit", "5", "-w", wh.root]
    done = big2("rescore", *args)
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last == (
        f"{n - 5} more rows not shown (the table shows 5; --format csv, json or parquet "
        "writes them all)"
    )
    # the table in a file (--out) holds every row
    out = tmp_path / "whatif.txt"
    done = big2("rescore", *args, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "not shown" not in out.read_text(encoding="utf-8")
    assert len(out.read_text(encoding="utf-8").splitlines()) == n + 2  # header, rule, rows


def test_rescore_help_says_what_limit_cuts() -> None:
    done = big2("rescore", "--help", columns=200)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if "--limit" in line)
    assert "table" in line and "every row" in line, line


HELP_PAGES = [[], *([c] for c in COMMAND_ORDER), ["rules", "show"], ["rules", "list"]]


@pytest.mark.parametrize("command", HELP_PAGES, ids=lambda c: " ".join(c) or "big2")
def test_help_shows_no_type_placeholders(command: list[str]) -> None:
    done = big2(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert not re.findall(r"<[\w\[\]|., ]+>", done.stdout), done.stdout
    assert all(len(line) <= 80 for line in done.stdout.splitlines())


def test_demo_help_cuts_no_default() -> None:
    # the default --log is an absolute path: shown in full, rich cut it ("[default: /…/dem…")
    done = big2("demo", "--help")
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout and "simulated.jsonl.gz" in done.stdout


def test_help_lists_the_commands_in_workflow_order() -> None:
    done = big2("--help")
    listed = [m.group(1) for m in re.finditer(r"^│ (\w+) ", done.stdout, re.MULTILINE)]
    assert [c for c in listed if c in COMMAND_ORDER] == list(COMMAND_ORDER), done.stdout
    assert listed.index("demo") < listed.index("ingest") < listed.index("sql")


def test_counts_of_one_are_singular(wh: Warehouse, tmp_path: Path) -> None:
    out = tmp_path / "one.jsonl"
    done = big2("simulate", "-n", "1", "--out", out, "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "1 game (1 match of up to 8)" in done.stdout and "1 worker)" in done.stdout
    done = big2("sql", "select * from range(1001)", "-w", wh.root)
    assert "1 more row not shown" in done.stdout


def test_ingest_summary_says_more_codes_an_example_each_and_where_the_rest_are(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("bad.jsonl", "games.jsonl", "actions.csv", "actions.games.csv"):
        (folder / name).write_bytes((SAMPLES / name).read_bytes())
    for name in ("README.txt", "notes.md", "scores.xlsx"):
        (folder / name).write_text("not a log\n", encoding="utf-8")
    done = big2("ingest", folder, "-w", tmp_path / "wh", "--top", "2", "--no-build")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # README.txt too: not by name (a .txt may be a big-two-scorer sheet) but by its content
    assert (
        "3 files skipped (not a log by name and content: .jsonl, .jsonl.gz, .ndjson, "
        ".ndjson.gz, .csv, .csv.gz, a tab-separated .tsv or .txt score sheet or a big-two-scorer "
        ".txt; --format names the shape of any "
        "other file): README.txt, notes.md, "
    ) in out
    assert "actions.games.csv" not in out.split("skipped", 1)[1]  # read with its actions CSV
    reasons = out.split("top reject reasons:\n", 1)[1].splitlines()
    shown = reasons[:2]
    assert all(re.search(r"E_\w+ +\S*bad\.jsonl:\d+$", line) for line in shown), reasons
    n_codes = len(set(values(Warehouse(tmp_path / "wh"), "select distinct code from rejects")))
    assert n_codes > 3
    assert reasons[2] == f"  and {n_codes - 2} more codes"
    assert (
        reasons[3].startswith("details: ") and "select * from rejects where batch_id" in reasons[3]
    )


def test_an_import_of_many_files_lists_the_ones_with_problems_and_sums_the_rest(
    tmp_path: Path,
) -> None:
    """Past ``--files`` files the summary lists those with rejects or duplicates (the most
    rejects first, in the import's order), then one row summing the others, then the total:
    every count is there, in a table that stays short; ``--files 0`` lists every file."""
    from pipeline.sim.sample import dumps, sample_game

    logs = tmp_path / "logs"
    logs.mkdir()
    for k in range(30):
        lines = [dumps(sample_game(seed=k, game_id=f"g{k}"))]
        if k in (7, 21):
            lines.append("{oops")  # a reject
        if k == 12:
            lines.append(lines[0])  # a duplicate
        (logs / f"day{k:02d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = big2("ingest", logs, "-w", tmp_path / "wh", "--no-build", "--files", "4", columns=400)
    assert done.returncode == 0, done.stderr
    rows = [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in done.stdout.splitlines()
        if line.startswith("│")
    ]
    assert [r[0].rsplit("/", 1)[-1] for r in rows] == [
        "day00.jsonl",
        "day07.jsonl",
        "day12.jsonl",
        "day21.jsonl",
        "… 26 more files",
        "total",
    ]
    assert rows[1][1:] == ["2", "1", "0", "1"] and rows[2][1:] == ["2", "1", "1", "0"]
    assert rows[-2][1:] == ["26", "26", "0", "0"] and rows[-1][1:] == ["33", "30", "1", "2"]
    every = big2("ingest", logs, "-w", tmp_path / "wh2", "--no-build", "--files", "0", columns=400)
    assert every.returncode == 0, every.stderr
    assert sum(line.startswith("│") for line in every.stdout.splitlines()) == 31
