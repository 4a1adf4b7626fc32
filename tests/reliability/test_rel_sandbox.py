"""Sandbox attempts (issue 11 items 1, 2, 4 and 8): no reader can harm the warehouse.

Every attempt goes through both ad-hoc SQL paths, ``big2 sql`` and the dashboards' SQL explorer
(``dashboards.adhoc.run_sql``), one implementation in :mod:`pipeline.warehouse.reading`; each is
refused with a message and, after each, every file under the warehouse (``warehouse.duckdb``
included) has the same sha256. Then: the bounds of ``big2 sql`` (a time limit, streamed output
in bounded memory), the dashboard server's Host and Origin guard on a real server, the replayer's
``?game_id=`` shown as text, and the warning of ``big2 dashboard --host``.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dashboards import adhoc, data
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Table, Warehouse, reading

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"
runner = CliRunner()


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Two sample files imported (two batches) and the marts built."""
    wh = Warehouse(tmp_path_factory.mktemp("sandbox") / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    ingest([str(SAMPLES / "bad.jsonl"), str(SAMPLES / "partial.jsonl")], wh)
    build(wh)
    return wh


@pytest.fixture(autouse=True)
def point_the_dashboards(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))


def digests(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root``, by relative path."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def before(wh: Warehouse) -> dict[str, str]:
    reading.open_readonly(wh).close()  # the views are fresh: a read changes nothing from here
    return digests(wh.root)


def attempts(root: str, parquet: str, outside: str) -> list[str]:
    """Each way we know to write, reach a file, or change the sandbox."""
    manifest = f"{root}/manifest.jsonl"
    return [
        # COPY into the warehouse: the manifest, a committed Parquet file, a new file
        f"copy (select 1 as x) to '{manifest}'",
        f"copy (select 1 as x) to '{manifest}' (format csv, header false)",
        f"copy (select * from games limit 0) to '{parquet}' (format parquet, use_tmp_file false)",
        f"copy games to '{parquet}' (format parquet)",
        f"copy (select 1) to '{root}/games/new.parquet' (format parquet)",
        f"copy games from '{outside}'",
        # EXPLAIN ANALYZE runs what it wraps
        f"explain analyze copy (select 1 as x) to '{manifest}'",
        f"EXPLAIN ANALYZE copy (select 1) to '{parquet}' (format parquet, use_tmp_file false)",
        f"/* hi */ explain -- x\n analyse (format json) copy (select 1) to '{manifest}'",
        f"explain copy (select 1) to '{manifest}'",
        "explain analyze create table t as select 1",
        "explain analyze explain analyze select 1",
        # file functions inside and outside the warehouse
        f"select * from read_csv('{manifest}')",
        f"select * from read_json('{manifest}')",
        f"select * from read_text('{manifest}')",
        f"select * from read_blob('{root}/manifest.jsonl')",
        f"select * from read_blob('{root}/.lock')",
        f"select * from glob('{root}/*')",
        f"select * from glob('{root}/games/*')",
        f"select * from read_csv('{outside}')",
        "select * from read_text('/etc/passwd')",
        "select * from glob('/tmp/*')",
        f"select * from '{outside}'",
        f"select * from query('copy (select 1) to ''{manifest}''')",
        # other databases, extensions, settings
        f"attach '{root}/warehouse.duckdb' as w2",
        f"attach '{root}/evil.duckdb' as evil",
        "attach ':memory:' as m",
        "detach warehouse",
        "use memory",
        "install httpfs",
        "load httpfs",
        "force install parquet",
        "set enable_external_access = true",
        "set allowed_directories = ['/']",
        "reset lock_configuration",
        "set threads = 1",
        "set variable x = 1",
        "pragma enable_profiling",
        f"pragma profiling_output = '{root}/profile.txt'",
        "pragma memory_limit = '1GB'",
        f"export database '{root}/dump'",
        f"import database '{root}/dump'",
        # writes
        "create table t as select 1",
        "create view v as select 1",
        "create or replace view games as select 1",
        "create macro m() as 1",
        "create secret s (type s3, key_id 'x', secret 'y')",
        "insert into batches select * from batches",
        "update batches set meta = '{}'",
        "delete from batches",
        "truncate batches",
        "drop view games",
        "drop table batches",
        "alter view games rename to g",
        "comment on view games is 'x'",
        "checkpoint",
        "call checkpoint()",
        "vacuum",
        "analyze",
        "begin transaction",
        "prepare p as select 1",
        # more than one statement
        f"select 1; copy (select 1) to '{manifest}'",
        "select 1; select 2",
        "",
        "   ;  ",
    ]


def refused_by_cli(wh: Warehouse, sql: str) -> str:
    result = runner.invoke(app, ["sql", sql, "-w", str(wh.root), "--format", "csv"])
    assert result.exit_code == 2, (sql, result.output)
    return result.output


def refused_by_explorer(sql: str) -> str:
    with pytest.raises(data.QueryError) as err:
        adhoc.run_sql(sql)
    return str(err.value)


@pytest.mark.parametrize("index", range(len(attempts("/w", "/w/games/x.parquet", "/o"))))
def test_every_attempt_is_refused_and_changes_nothing(
    wh: Warehouse, before: dict[str, str], tmp_path: Path, index: int
) -> None:
    outside = tmp_path / "secret.csv"
    outside.write_text("a\n1\n")
    parquet = wh.files(Table.GAMES)[0].as_posix()
    sql = attempts(wh.root.as_posix(), parquet, outside.as_posix())[index]
    cli = refused_by_cli(wh, sql)
    assert "big2: error: E_SQL" in cli and "Traceback" not in cli, cli
    assert len(cli.strip().splitlines()) == 1, cli  # one clear line, nothing else
    explorer = refused_by_explorer(sql)
    assert explorer and "Traceback" not in explorer
    assert digests(wh.root) == before, sql
    assert not (wh.root / "dump").exists()


def test_the_refusals_name_the_reason(wh: Warehouse, tmp_path: Path) -> None:
    manifest = f"{wh.root.as_posix()}/manifest.jsonl"
    assert "this is a COPY statement" in refused_by_cli(wh, f"copy (select 1) to '{manifest}'")
    assert "wraps a COPY" in refused_by_explorer(f"explain analyze copy (select 1) to '{manifest}'")
    assert "exactly one statement" in refused_by_cli(wh, "select 1; select 2")
    assert "file system operations are disabled" in refused_by_explorer(
        "select * from read_text('/etc/passwd')"
    )


def test_reads_still_work(wh: Warehouse, before: dict[str, str]) -> None:
    (n_games,) = wh.connect().execute("select count(*) from games").fetchone() or (0,)
    reads = {
        "select count(*) as n from games": str(n_games),
        "with g as (select * from games) select count(*) as n from g": str(n_games),
        "from games select count(*) as n": str(n_games),
        "select count(*) as n from mart_game_scores where seat = 0": str(n_games),
        "select count(*) as n from warehouse.main.games": str(n_games),
        "select count(*) as n from (describe games)": "",
        "explain select * from games": "physical_plan",
        "explain analyze select count(*) from games": "analyzed_plan",
        "EXPLAIN (FORMAT json) select 1": "",
        "pragma table_info('games')": "game_id",
    }
    for sql, shown in reads.items():
        result = runner.invoke(app, ["sql", sql, "-w", str(wh.root), "--format", "csv"])
        assert result.exit_code == 0, (sql, result.output)
        assert shown in result.output, (sql, result.output)
        assert not adhoc.run_sql(sql).frame.empty, sql
    games = wh.files(Table.GAMES)[0].as_posix()
    assert adhoc.run_sql(f"select count(*) from read_parquet('{games}')").frame.iloc[0, 0] > 0
    assert digests(wh.root) == before


# ----- a fuzz of statement kinds ---------------------------------------------------------------

READS = [
    ["select", "count(*)", "from", "games"],
    ["with", "t", "as", "(select 1 as x)", "select", "x", "from", "t"],
    ["from", "batches"],
    ["values", "(1)"],
    ["describe", "games"],
    ["summarize", "batches"],
    ["show", "tables"],
]
WRITES = [
    ["copy", "(select 1)", "to", "'{manifest}'"],
    ["copy", "games", "to", "'{parquet}'", "(format parquet, use_tmp_file false)"],
    ["export", "database", "'{root}/x'"],
    ["attach", "'{root}/x.duckdb'", "as", "x"],
    ["install", "httpfs"],
    ["load", "httpfs"],
    ["set", "threads", "=", "1"],
    ["reset", "threads"],
    ["pragma", "enable_profiling"],
    ["create", "table", "x", "as", "select", "1"],
    ["create", "view", "games2", "as", "select", "1"],
    ["insert", "into", "batches", "select", "*", "from", "batches"],
    ["update", "batches", "set", "meta", "=", "'{{}}'"],
    ["delete", "from", "batches"],
    ["drop", "view", "games"],
    ["alter", "table", "batches", "rename", "to", "b"],
    ["checkpoint"],
    ["vacuum"],
    ["detach", "warehouse"],
    ["use", "memory"],
]
#: SELECTs that reach a file other than the committed Parquet files: refused by DuckDB.
FILE_READS = [
    ["select", "*", "from", "read_text('{manifest}')"],
    ["select", "*", "from", "read_csv('{root}/manifest.jsonl')"],
    ["select", "*", "from", "glob('{root}/**')"],
    ["from", "'{root}/manifest.jsonl'"],
    ["select", "*", "from", "read_blob('/etc/hostname')"],
]
GAPS = st.sampled_from([" ", "  ", "\n", "\t", " /* c */ ", " -- c\n", "/**/"])


def _case(word: str, upper: list[bool]) -> str:
    if "'" in word:  # holds a literal (a path): as it is
        return word
    return "".join(c.upper() if u else c for c, u in zip(word, upper * len(word), strict=False))


@st.composite
def statements(draw: st.DrawFn) -> tuple[str, str]:
    """A statement of a random kind, with random case, gaps and comments, maybe wrapped in
    EXPLAIN [ANALYZE] or followed by another statement; and what must happen to it: it runs
    ("read"), DuckDB refuses its file ("file") or the statement check refuses it ("refused")."""
    kind = draw(st.sampled_from(["read", "file", "refused"]))
    words = list(
        draw(st.sampled_from({"read": READS, "file": FILE_READS, "refused": WRITES}[kind]))
    )
    wrap = draw(st.sampled_from(["", "explain", "explain analyze", "explain (format json)"]))
    if wrap:
        words = wrap.split(" ") + words
    upper = draw(st.lists(st.booleans(), min_size=1, max_size=4))
    text = draw(st.sampled_from(["", " ", "/* lead */ ", "-- lead\n"]))
    for word in words:
        text += _case(word, upper) + draw(GAPS)
    if draw(st.booleans()):
        other = draw(st.sampled_from(READS + WRITES))
        text += ";" + " ".join(other)
        kind = "refused"
    if draw(st.booleans()):
        text += ";"
    return text, kind


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(statements())
def test_fuzz_of_statement_kinds(
    wh: Warehouse, before: dict[str, str], statement: tuple[str, str]
) -> None:
    template, kind = statement
    root = wh.root.as_posix()
    sql = template.format(
        root=root, manifest=f"{root}/manifest.jsonl", parquet=wh.files(Table.GAMES)[0].as_posix()
    )
    if kind == "read":
        assert reading.check_query(sql) == sql
        adhoc.run_sql(sql)
    elif kind == "file":
        assert reading.check_query(sql) == sql
        with pytest.raises(data.QueryError, match="disabled by configuration"):
            adhoc.run_sql(sql)
    else:
        with pytest.raises(reading.SqlRefused):
            reading.check_query(sql)
        with pytest.raises(data.QueryError):
            adhoc.run_sql(sql)
    assert digests(wh.root) == before, sql


# ----- bounds of `big2 sql`: a time limit, streamed output ----------------------------------------


def big2_argv() -> list[str]:
    return [sys.executable, "-m", "pipeline.cli"]


def test_the_time_limit_stops_a_long_query(wh: Warehouse) -> None:
    started = time.monotonic()
    done = subprocess.run(
        [
            *big2_argv(),
            "sql",
            "select count(*) from range(100000000000000) a",
            "-w",
            str(wh.root),
            "--timeout",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert "E_SQL_TIMEOUT" in done.stderr and "time limit of 1 s" in done.stderr
    assert took < 30, took
    assert (
        runner.invoke(app, ["sql", "select 1", "-w", str(wh.root), "--timeout", "0"]).exit_code == 0
    )


def test_the_time_limit_covers_streaming(wh: Warehouse, tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    result = runner.invoke(
        app,
        [
            "sql",
            "select * from range(1000000000000)",
            "-w",
            str(wh.root),
            "--format",
            "csv",
            "-o",
            str(out),
            "--timeout",
            "0.5",
        ],
    )
    assert result.exit_code == 2 and "E_SQL_TIMEOUT" in result.output, result.output
    assert not out.exists() and not list(tmp_path.glob(".*.part"))  # nothing half-written


#: A query that needs more than 48 MB of DuckDB's memory (a hash table of 3M keys), fast.
BIG = "select count(*) as n from (select distinct range % 3000000 from range(6000000))"


def test_the_memory_limit_stops_a_big_query(wh: Warehouse, before: dict[str, str]) -> None:
    root = str(wh.root)
    result = runner.invoke(app, ["sql", BIG, "-w", root, "--memory-limit", "48MB"])
    assert result.exit_code == 2, result.output
    assert re.search(
        r"E_SQL_MEMORY_LIMIT: stopped at the memory limit of 45\.\d MiB: an ad-hoc query never "
        r"spills to disk; a higher --memory-limit",
        result.output,
    ), result.output
    by_env = runner.invoke(app, ["sql", BIG, "-w", root], env={"BIG2_SQL_MEMORY": "48MB"})
    assert by_env.exit_code == 2 and "E_SQL_MEMORY_LIMIT" in by_env.output, by_env.output
    for more in (["--memory-limit", "1GB"], []):
        done = runner.invoke(app, ["sql", BIG, "-w", root, "--format", "csv", *more])
        assert done.exit_code == 0 and done.output == "n\n3000000\n", done.output
    bad = runner.invoke(app, ["sql", "select 1", "-w", root, "--memory-limit", "lots"])
    assert bad.exit_code == 2 and "E_SQL_USAGE: memory limit 'lots'" in bad.output
    assert digests(wh.root) == before


def test_only_big2s_own_queries_spill(wh: Warehouse, tmp_path: Path) -> None:
    """The sandbox spills past its memory limit only to a folder it is given (rescore's), and
    never into the warehouse."""
    with reading.open_readonly(wh, memory="48MB", spill=tmp_path) as con:
        assert con.execute(BIG).fetchall() == [(3_000_000,)]
    con = reading.open_readonly(wh, memory="48MB")
    stops = pytest.raises(reading.SqlMemoryLimit, match="never spills")
    with con, stops, reading.memory_bound(con):
        con.execute(BIG).fetchall()


def test_rescore_spills_past_its_memory_limit(
    wh: Warehouse, before: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`big2 rescore --memory-limit` gives the same table under a small limit, spilling to a
    temporary folder it removes (at 1M games: 3.0 GB by default, or 0.7 GB under 512MB)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    argv = ["rescore", "--as", "mainland", "-w", str(wh.root), "--format", "csv"]
    free = runner.invoke(app, argv)
    small = runner.invoke(app, [*argv, "--memory-limit", "48MB"])
    assert free.exit_code == 0 and small.exit_code == 0, small.output
    assert small.output == free.output and free.output.count("\n") > 2
    tiny = runner.invoke(app, [*argv, "--memory-limit", "1MB"])
    assert tiny.exit_code == 2 and "E_SQL_MEMORY_LIMIT" in tiny.output, tiny.output
    assert "never spills" not in tiny.output
    assert list(tmp_path.iterdir()) == [] and digests(wh.root) == before


def peak_rss_mb(argv: list[str], out: Path) -> float:
    """The peak RSS (MB) of ``argv`` run in a fresh intermediate process (its only child)."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], 'wb'))\n"
        "assert done.returncode == 0, done.returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(out), *argv],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=True,
    )
    return int(done.stdout.strip()) / 1024


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_large_results_stream_in_bounded_memory(wh: Warehouse, tmp_path: Path, fmt: str) -> None:
    n = 1_000_000 if fmt == "json" else 5_000_000  # before streaming: 3.3 GB for 5M as JSON
    out = tmp_path / f"out.{fmt}"
    argv = [
        *big2_argv(),
        "sql",
        f"select * from range({n}) t(i)",
        "-w",
        str(wh.root),
        "--format",
        fmt,
        "--timeout",
        "0",
    ]
    if fmt == "parquet":
        argv += ["-o", str(out)]
    mb = peak_rss_mb(argv, tmp_path / "stdout")
    assert mb < 400, f"{fmt}: {mb:.0f} MB"
    if fmt in ("csv", "json"):
        with (tmp_path / "stdout").open() as fh:
            lines = sum(1 for _ in fh)
        assert lines == (n + 1 if fmt == "csv" else 2 + 3 * n)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        assert pq.read_metadata(out).num_rows == n


def test_a_reader_that_leaves_early_stops_the_query_quietly(wh: Warehouse) -> None:
    argv = [*big2_argv(), "sql", "select * from range(100000000)", "-w", str(wh.root)]
    proc = subprocess.Popen(
        [*argv, "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"range\n"
    proc.stdout.close()  # as `| head -1` does
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""


def test_the_table_format_shows_at_most_its_rows(wh: Warehouse) -> None:
    result = runner.invoke(app, ["sql", "select * from range(5000)", "-w", str(wh.root)])
    assert result.exit_code == 0, result.output
    assert "4,000 more rows not shown" in result.output
    assert "999" in result.output and "1000 " not in result.output


def test_json_output_is_one_array(wh: Warehouse) -> None:
    import json

    sql = "select range as i, 'x' || range as s from range(3)"
    result = runner.invoke(app, ["sql", sql, "-w", str(wh.root), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = [{"i": i, "s": f"x{i}"} for i in range(3)]
    assert result.output == json.dumps(rows, indent=1) + "\n"
    empty = runner.invoke(
        app, ["sql", "select 1 where false", "-w", str(wh.root), "--format", "json"]
    )
    assert empty.output == "[]\n"


def test_out_inside_the_warehouse_is_refused(wh: Warehouse, before: dict[str, str]) -> None:
    target = wh.root / "manifest.jsonl"
    result = runner.invoke(
        app, ["sql", "select 1", "-w", str(wh.root), "--format", "csv", "-o", str(target)]
    )
    assert result.exit_code == 2 and "inside the warehouse" in result.output
    assert digests(wh.root) == before


# ----- the dashboard server: Host and Origin -------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(wh: Warehouse, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``big2 dashboard`` on 127.0.0.1 and a free port; its port once it answers."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "log.txt"
    with log.open("w") as fh:
        proc = subprocess.Popen(
            [*big2_argv(), "dashboard", "--warehouse", str(wh.root), "--port", str(port)],
            cwd=ROOT,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while request(port, "GET", "/_stcore/health")[0] != 200:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the dashboard did not start:\n{log.read_text()}")
            time.sleep(0.3)
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    """One raw HTTP/1.1 request (Host and Origin exactly as given); (status, head) or (0, '')."""
    lines = [f"{method} {path} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in (headers or {"Host": f"127.0.0.1:{port}"}).items()]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(("\r\n".join([*lines, "Connection: close", "", ""])).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    break
                head += chunk
    except OSError:
        return 0, ""
    text = head.decode("latin-1")
    parts = text.split(" ", 2)
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0), text


def websocket(port: int, host: str, origin: str | None) -> int:
    """The status of a WebSocket handshake on the app's stream (101: accepted)."""
    headers = {
        "Host": host,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Protocol": "streamlit",
    }
    if origin is not None:
        headers["Origin"] = origin
    lines = ["GET /_stcore/stream HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall("\r\n".join(lines).encode())
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
    parts = head.decode("latin-1").split(" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def test_the_server_refuses_foreign_hosts_and_origins(
    server: int, wh: Warehouse, before: dict[str, str]
) -> None:
    port = server
    me = f"127.0.0.1:{port}"
    assert websocket(port, me, f"http://{me}") == 101
    assert websocket(port, f"localhost:{port}", f"http://localhost:{port}") == 101
    assert websocket(port, me, None) == 101  # not a browser: no Origin
    assert websocket(port, me, "http://evil.example") == 403
    assert websocket(port, me, "http://localhost:3000") == 403  # another local server
    assert websocket(port, me, f"http://127.0.0.1:{port + 1}") == 403
    assert websocket(port, me, "null") == 403
    assert (
        websocket(port, f"evil.example:{port}", f"http://evil.example:{port}") == 403
    )  # rebinding
    assert websocket(port, f"127.0.0.1:{port + 1}", None) == 403
    assert request(port, "GET", "/")[0] == 200
    assert request(port, "GET", "/", {"Host": f"evil.example:{port}"})[0] == 403
    assert request(port, "GET", "/_stcore/health", {"Host": f"evil.example:{port}"})[0] == 403
    assert request(port, "GET", "/", {"Host": me, "Origin": "http://localhost:1"})[0] == 403
    assert request(port, "GET", "/", {"Host": ""})[0] == 403
    assert digests(wh.root) == before


# ----- item 8: the replayer's ?game_id=, the --host warning ------------------------------------------


def test_the_replayer_shows_game_id_as_text(wh: Warehouse) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=60)
    wanted = "[click me](http://evil.example/x) **bold** :red[red]"
    at.query_params["game_id"] = wanted
    at.run()
    at.switch_page("views/replayer.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (warning,) = [str(w.value) for w in at.warning if "No game" in str(w.value)]
    assert "click me" in warning
    unescaped = re.findall(r"(?<!\\)[\[\]()*:.]", warning.removesuffix(" in the warehouse."))
    assert unescaped == [], warning  # no link, emphasis, directive or autolink can form
    assert re.sub(r"\\(.)", r"\1", warning) == f"No game {wanted} in the warehouse."


def test_dashboard_warns_when_the_host_is_not_loopback(
    wh: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "execve", lambda *args: None)
    for host, warned in (("0.0.0.0", True), ("192.0.2.7", True), ("127.0.0.1", False),
                         ("localhost", False), ("::1", False)):  # fmt: skip
        result = runner.invoke(app, ["dashboard", "-w", str(wh.root), "--host", host])
        assert result.exit_code == 0, result.output
        assert ("warning: --host" in result.output) is warned, (host, result.output)
