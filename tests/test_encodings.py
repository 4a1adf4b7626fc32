"""Club files that are not UTF-8 (Excel on a Chinese Windows: GB18030 / GBK, Big5, UTF-16):
``big2 ingest`` says what each file is in and the command that converts it
(:mod:`pipeline.logs.encodings`), the commands it prints work, and the rejects stay as the
readers write them."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.logs.encodings import (
    BIG5,
    GB18030,
    UTF16,
    Finding,
    file_guess,
    guess_encoding,
    has_utf16_bom,
    raw_guess,
)

#: Real text of both scripts: the game's names, club members' names, a sheet's note.
SIMPLIFIED = ["锄大地", "阿明 小红 陈大文 李四", "没叫最后一张", "张三 李四 王五 赵六"]
TRADITIONAL = ["鋤大D", "大老二", "阿明 小紅 陳大文 李四", "冇叫最後一張", "張三 黃小明 趙六"]


@pytest.mark.parametrize("text", SIMPLIFIED)
def test_simplified_text_in_gbk_reads_as_gb18030_first(text: str) -> None:
    assert guess_encoding([text.encode("gbk")]).names[0] == GB18030


@pytest.mark.parametrize("text", TRADITIONAL)
def test_traditional_text_in_big5_reads_as_big5_first(text: str) -> None:
    assert guess_encoding([text.encode("big5")]).names[0] == BIG5


def test_a_line_of_a_club_file_tells_one() -> None:
    """A row of a sheet (the match, four names, a note) holds enough text to be sure."""
    simplified = " ".join(SIMPLIFIED).encode("gbk")
    traditional = " ".join(TRADITIONAL).encode("big5")
    assert guess_encoding([simplified]).names == (GB18030,)
    assert guess_encoding([traditional]).names == (BIG5,)
    for text in ("2026-10-30,锄大地,阿明 小红 陈大文 李四,0 4 9 13", "李四 王五 没叫最后一张"):
        assert guess_encoding([text.encode("gbk")]).names == (GB18030,), text
    for text in ("2026-10-30,鋤大D,阿明 小紅 陳大文 李四,0 4 9 13", "大老二 冇叫最後一張"):
        assert guess_encoding([text.encode("big5")]).names == (BIG5,), text


def test_too_little_text_names_both_likelier_first() -> None:
    assert guess_encoding(["阿明".encode("gbk")]).names == (GB18030, BIG5)  # 陝隴 in Big5
    assert set(guess_encoding(["陳".encode("big5")]).names) == {BIG5, GB18030}  # 朝 in GB18030


def test_a_sheet_of_lines_tells_more_than_one_line() -> None:
    lines = [f"2026-10-30,m1,{names},0 4 9 13".encode("gbk") for names in SIMPLIFIED[1::2]]
    guess = guess_encoding(lines)
    assert guess.names == (GB18030,)
    assert "阿明 小红 陈大文 李四" in guess.sample


def test_other_bytes_are_none_of_them() -> None:
    assert guess_encoding([b"Jos\xe9 bob", b"\xff\xfe\xfd"]).names == ()
    assert not has_utf16_bom(b"date,match\r\n")
    assert has_utf16_bom("date,match\r\n".encode("utf-16"))


SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
SHEET = "date,match,players,cards_left,bao_seat,notes,redeal\n"


def club_files(folder: Path) -> dict[str, str]:
    """A club's files as Excel on Chinese Windows saves them, CRLF line ends: a GBK score
    sheet, a Big5 scorer text, a CSV pair whose games CSV is GBK (its actions CSV ASCII, gzipped) and
    a UTF-16 JSON Lines log, gzipped; each file's encoding as iconv names it."""
    folder.mkdir()
    (folder / "mainland.csv").write_bytes(
        (SHEET + "2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,,没叫最后一张,\n")
        .replace("\n", "\r\n")
        .encode("gbk")
    )
    (folder / "hk.txt").write_bytes("2026-10-30\n阿明 小紅 陳大文 李四\n0 8 1 13\n".encode("big5"))
    games = (SAMPLES / "actions.games.csv").read_text().splitlines()  # 2 games
    rows = [games[0] + ",names", *(g + ",阿明|小红|陈大文|李四" for g in games[1:])]
    (folder / "day1.games.csv").write_bytes("\n".join([*rows, ""]).encode("gbk"))
    # its actions CSV: ASCII (UTF-8 already), gzipped
    (folder / "day1.csv.gz").write_bytes(gzip.compress((SAMPLES / "actions.csv").read_bytes()))
    game = json.loads((SAMPLES / "games.jsonl").read_text().splitlines()[0])
    game["seats"][0]["name"] = "陳大文"
    jsonl = json.dumps(game, ensure_ascii=False) + "\r\n"
    (folder / "app.jsonl.gz").write_bytes(gzip.compress(jsonl.encode("utf-16")))
    return {
        "mainland.csv": GB18030,
        "hk.txt": BIG5,
        "day1.games.csv": GB18030,
        "app.jsonl.gz": UTF16,
    }


def test_ingest_names_each_file_and_the_command_that_converts_it(tmp_path: Path) -> None:
    files = club_files(tmp_path / "club")
    wh = tmp_path / "wh"
    done = CliRunner().invoke(app, ["ingest", str(tmp_path / "club"), "-w", str(wh), "--no-build"])
    assert done.exit_code == 0, done.output
    out = done.output
    for name, encoding in files.items():
        path = tmp_path / "club" / name
        line = next(x for x in out.splitlines() if x.startswith(f"  {path}: "))
        assert encoding.replace("BIG5", "Big5") in line, line
        convert = (
            f"gzip -dc {path} | iconv -f {encoding} -t UTF-8 | gzip > {path.parent}/utf8/{name}"
            if name.endswith(".gz")
            else f"iconv -f {encoding} -t UTF-8 {path} > {path.parent}/utf8/{name}"
        )
        assert f"    mkdir -p {path.parent}/utf8 && {convert}\n" in out
    assert "阿明 小红 陈大文 李四" in out  # how the sheet's row reads in GB18030
    assert f"    cp {tmp_path}/club/day1.csv.gz {tmp_path}/club/utf8/day1.csv.gz" in out
    assert f"ingest {tmp_path}/club/utf8 -w {wh}" in out
    # the rejects are the readers' own, unchanged: the hint is the summary's alone
    con = duckdb.connect(str(wh / "warehouse.duckdb"), read_only=True)
    messages = con.execute(
        "select message from rejects where code = 'E_ENCODING' and file like '%mainland.csv'"
    ).fetchall()
    assert messages == [("byte 0xb0 at offset 14 is not UTF-8 (invalid start byte)",)]
    con.close()
    # imported again: every reject was stored by the first import (met before), still said
    again = CliRunner().invoke(app, ["ingest", str(tmp_path / "club"), "-w", str(wh), "--no-build"])
    assert "met before" in again.output
    for name in files:
        assert f"  {tmp_path}/club/{name}: " in again.output, again.output

    if shutil.which("iconv") is None or shutil.which("gzip") is None:
        pytest.skip("no iconv or gzip to run the commands with")
    commands = [
        x.strip().split("  #")[0] for x in out.splitlines() if x.startswith(("    mkdir", "    cp"))
    ]
    subprocess.run(["sh", "-ec", "\n".join(commands)], check=True)
    again = CliRunner().invoke(
        app, ["ingest", str(tmp_path / "club" / "utf8"), "-w", str(tmp_path / "wh2"), "--no-build"]
    )
    assert again.exit_code == 0 and "not UTF-8" not in again.output, again.output
    con = duckdb.connect(str(tmp_path / "wh2" / "warehouse.duckdb"), read_only=True)
    assert con.execute("select count(*) from rejects").fetchone() == (0,)
    assert con.execute("select count(*) from games").fetchone() == (5,)
    names = {r[0] for r in con.execute("select name from seats where name is not null").fetchall()}
    assert {"阿明", "小红", "陈大文", "小紅", "陳大文"} <= names


def test_a_utf16_file_passed_over_is_named(tmp_path: Path) -> None:
    """A UTF-16 ``.txt`` is no scorer file: passed over, and named; past ``--files`` files,
    the others are named in one line."""
    (tmp_path / "club").mkdir()
    for name in ("hk.txt", "tw.txt"):
        data = "amy bob cat dan\r\n0 8 1 13\r\n".encode("utf-16")
        (tmp_path / "club" / name).write_bytes(data)
    (tmp_path / "club" / "ok.txt").write_text("amy bob cat dan\n0 8 1 13\n")
    done = CliRunner().invoke(
        app,
        [
            "ingest",
            str(tmp_path / "club"),
            "-w",
            str(tmp_path / "wh"),
            "--no-build",
            "--files",
            "1",
        ],
    )
    assert "2 files skipped" in done.output
    assert f"  {tmp_path}/club/hk.txt: UTF-16" in done.output, done.output
    assert f"iconv -f UTF-16 -t UTF-8 {tmp_path}/club/hk.txt > " in done.output
    assert (
        "  and 1 more file, each converted alike (--files 0 lists every command): tw.txt (UTF-16)\n"
        in done.output
    )


def test_a_utf16_file_alone_is_named_in_the_error(tmp_path: Path) -> None:
    """A UTF-16 ``.txt`` is no log shape: typed alone it is E_FILE, a folder of nothing else
    E_NO_INPUT; each says it is UTF-16, with the command converting it."""
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / "hk.txt").write_bytes("amy bob cat dan\r\n0 8 1 13\r\n".encode("utf-16"))
    convert = f"iconv -f UTF-16 -t UTF-8 {folder}/hk.txt > {folder}/utf8/hk.txt"
    for path, code in ((folder / "hk.txt", "E_FILE"), (folder, "E_NO_INPUT")):
        done = CliRunner().invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh")])
        assert done.exit_code != 0
        assert code in done.output and f"{folder}/hk.txt is UTF-16" in done.output, done.output
        assert convert in done.output


def test_a_file_of_both_encodings_gets_no_command(tmp_path: Path) -> None:
    """A sheet whose rows were written by two tools, UTF-8 then GBK: iconv of the whole file
    would garble the UTF-8 rows, so the summary says so and gives no command."""
    (tmp_path / "club").mkdir()
    sheet = tmp_path / "club" / "mixed.csv"
    rows = [SHEET, "2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,,,\n"]
    sheet.write_bytes("".join(rows).encode() + rows[1].replace("0 4", "4 0").encode("gbk"))
    done = CliRunner().invoke(app, ["ingest", str(sheet), "-w", str(tmp_path / "wh"), "--no-build"])
    line = next(x for x in done.output.splitlines() if x.startswith(f"  {sheet}: "))
    assert "GB18030" in line and "UTF-8 in others (line 2)" in line, done.output
    assert "iconv" not in done.output and "then:" not in done.output


def test_excels_unicode_text_sheet_is_converted_and_read_tab_separated(tmp_path: Path) -> None:
    """Excel's "Unicode text" is UTF-16 and tab-separated: the summary and E_FILE said to save
    it as "CSV UTF-8" instead (a UTF-8 copy was no log: the readers took commas). Tab-separated
    sheets are read now, so both give the iconv command, whose copy imports."""
    (tmp_path / "club").mkdir()
    sheet = tmp_path / "club" / "sheet.txt"
    rows = "date\tmatch\tplayers\tcards_left\r\n2026-10-30\tm1\t阿明 小紅 陳大文 李四\t0 4 9 13\r\n"
    sheet.write_bytes(rows.encode("utf-16"))
    (tmp_path / "club" / "ok.txt").write_text("amy bob cat dan\n0 8 1 13\n")
    convert = f"iconv -f UTF-16 -t UTF-8 {sheet} > {tmp_path}/club/utf8/sheet.txt"
    for path in (tmp_path / "club", sheet):
        done = CliRunner().invoke(
            app, ["ingest", str(path), "-w", str(tmp_path / "wh"), "--no-build"]
        )
        assert convert in done.output and "Comma delimited" not in done.output, done.output
    if shutil.which("iconv") is None:
        pytest.skip("no iconv to run the command with")
    subprocess.run(["sh", "-ec", f"mkdir -p {tmp_path}/club/utf8 && {convert}"], check=True)
    done = CliRunner().invoke(
        app, ["ingest", f"{tmp_path}/club/utf8", "-w", str(tmp_path / "wh2"), "--no-build"]
    )
    assert done.exit_code == 0 and "not UTF-8" not in done.output, done.output
    con = duckdb.connect(str(tmp_path / "wh2" / "warehouse.duckdb"), read_only=True)
    assert con.execute("select count(*) from rejects").fetchone() == (0,)
    got = con.execute("select name from seats order by seat").fetchall()
    assert [n for (n,) in got] == ["阿明", "小紅", "陳大文", "李四"]
    con.close()


def test_the_stored_rejects_tell_what_the_files_tell(tmp_path: Path) -> None:
    """The dashboards read no log: ``raw_guess`` tells each file's encoding from the text of
    its first E_ENCODING rejects as the warehouse keeps it, as ``big2 ingest`` tells it from the
    file's bytes (the same lines); the same words and commands (``Finding``)."""
    files = club_files(tmp_path / "club")
    wh = tmp_path / "wh"
    done = CliRunner().invoke(app, ["ingest", str(tmp_path / "club"), "-w", str(wh), "--no-build"])
    assert done.exit_code == 0, done.output
    con = duckdb.connect(str(wh / "warehouse.duckdb"), read_only=True)
    rows = con.execute(
        "select file, list_slice(list(raw order by line), 1, 3), min(line) from rejects "
        "where code = 'E_ENCODING' group by file"
    ).fetchall()
    con.close()
    told = {}
    for file, raws, line in rows:
        guess = raw_guess(raws)
        assert guess is not None, file
        from_file = file_guess(file, [line])
        assert from_file is not None and guess.names == from_file.names, file
        told[Path(file).name] = guess.names[0]
        finding = Finding(file, guess, len(raws))
        assert f"    {finding.commands()[0]}\n" in done.output  # the summary's command
    assert told == files
    assert raw_guess(['{"game_id": "g1", "seats": []}']) is None  # UTF-8: nothing to tell
