r"""What a log that is not UTF-8 is, told from its bytes: the few encodings club files come in
besides UTF-8, and the command that converts such a file.

Score keepers save their sheets with Excel on a Chinese-locale Windows: its plain "CSV" is
GB18030 (GBK: Simplified Chinese) or Big5 (Traditional: Hong Kong, Taiwan), its "Unicode
text" UTF-16 LE with a BOM. The import reads UTF-8 only (a file's name and line numbers are
its games' provenance: a copy converted on the fly would change them), so such a file's lines
are rejects (``E_ENCODING``, or for UTF-16 whatever its NUL bytes make of it); after the import
:func:`guess_encoding` tells from a few of the rejected lines which of these encodings the file
is in, for the summary to say so with the conversion (:func:`iconv_command`), in the words of
:class:`Finding`; the dashboards' Import health page says the same, told by :func:`raw_guess`
from the rejected lines as the warehouse keeps them (it reads no log file).

GB18030 and Big5 text often each decode without error in the other (as nonsense), so a
decoding is judged by how much of its text is common characters of its own character set
(:func:`common_share`): GB2312's level-1 hanzi for GB18030, Big5's frequent characters for
Big5, either's full-width punctuation. A real text scores near 1, the other decoding much
lower (Big5 read as GB18030 gives private-use characters, kana, Greek); when the two are
close (a line of a name or two), both are named, the likelier first.

>>> guess_encoding(["锄大地 阿明 小红 陈大文 没叫最后一张".encode("gb18030")]).names
('GB18030',)
>>> guess_encoding(["鋤大D 大老二 阿明 小紅 陳大文".encode("big5")]).names
('BIG5',)
>>> guess_encoding(["阿明".encode("gb18030")]).names  # 陝隴 in Big5: too little to tell
('GB18030', 'BIG5')
>>> guess_encoding([b"Jos\xe9 bob"]).names  # Latin-1: none of these
()
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pipeline.errors import LogFormatError
from pipeline.logs.jsonl import READ_ERRORS, open_log
from pipeline.wording import plural

#: The iconv names of the encodings told here, with what they are, for the summary.
UTF16 = "UTF-16"
GB18030 = "GB18030"
BIG5 = "BIG5"
BIG5_HKSCS = "BIG5-HKSCS"
WHAT = {
    UTF16: 'UTF-16 (Excel\'s "Unicode text"; read as UTF-8, its NUL bytes make each line a reject)',
    GB18030: "GB18030 (GBK: Simplified Chinese)",
    BIG5: "Big5 (Traditional Chinese)",
    BIG5_HKSCS: "Big5-HKSCS (Traditional Chinese, Hong Kong)",
}
#: Python's codec of each iconv name.
CODECS = {UTF16: "utf-16", GB18030: "gb18030", BIG5: "big5", BIG5_HKSCS: "big5hkscs"}
#: How far apart two decodings' shares of common characters must be for the better one to be
#: named alone: :data:`WIDE_MARGIN`, or :data:`MARGIN` when it is at least :data:`SURE`.
WIDE_MARGIN = 0.3
MARGIN = 0.15
SURE = 0.9
#: How many bytes of a file's start :func:`file_head` reads.
HEAD_BYTES = 4096
#: How far :func:`file_lines` reads at most for the lines it is asked for (the first
#: rejected lines of a big file may be far in).
SCAN_BYTES = 64 << 20


@dataclass(frozen=True)
class Guess:
    """The encodings a file's bytes decode cleanly in (iconv names, likeliest first; empty:
    none of those told here) and how its first rejected line reads in the first of them."""

    names: tuple[str, ...]
    sample: str = ""
    #: a line of the file that is UTF-8 past ASCII (the others not: a file of both)
    utf8_line: int | None = None


def has_utf16_bom(head: bytes) -> bool:
    r"""Whether bytes start as a UTF-16 text: a byte-order mark (Excel's "Unicode text": LE),
    or no mark but a NUL in every other byte of ASCII text (a BOM-less UTF-16 export).

    >>> has_utf16_bom("date,match\r\n".encode("utf-16")), has_utf16_bom(b"date,match\r\n")
    (True, False)
    >>> has_utf16_bom("date,match".encode("utf-16-le"))
    True
    """
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    pairs = len(head) // 2
    if pairs < 4:
        return False
    odd = head[1 : 2 * pairs : 2].count(0)  # LE: the high byte of ASCII is NUL
    even = head[0 : 2 * pairs : 2].count(0)
    return max(odd, even) >= 0.75 * pairs and min(odd, even) == 0


def _common(char: str, codec: str) -> bool:
    """Whether a character is a common one of the character set of ``codec``: for GB18030, a
    GB2312 level-1 hanzi or full-width punctuation; for Big5, a frequent character (A440-C67E)
    or punctuation (A140-A3BF)."""
    if char.isascii():
        return True
    try:
        data = char.encode("gb2312" if codec == "gb18030" else "big5")
    except UnicodeEncodeError:
        return False
    if len(data) != 2:
        return False
    code = data[0] << 8 | data[1]
    if codec == "gb18030":
        return 0xB0A1 <= code <= 0xD7FE or 0xA1A1 <= code <= 0xA3FE
    return 0xA440 <= code <= 0xC67E or 0xA140 <= code <= 0xA3BF


def common_share(text: str, codec: str) -> float:
    """The share of ``text``'s characters past ASCII that are common ones of ``codec``'s
    character set (1.0 for ASCII text).

    >>> common_share("没叫最后一张", "gb18030"), common_share("羶請郔綴珨桲", "big5")  # the same bytes
    (1.0, 0.5)
    """
    wide = [c for c in text if not c.isascii()]
    return sum(_common(c, codec) for c in wide) / len(wide) if wide else 1.0


def _decoded(lines: Sequence[bytes], codec: str) -> list[str] | None:
    try:
        return [line.decode(codec) for line in lines]
    except UnicodeDecodeError:
        return None


def guess_encoding(lines: Sequence[bytes]) -> Guess:
    """Which of GB18030, Big5 (or Big5-HKSCS) ``lines`` (bytes that are not UTF-8) are in:
    those that decode them all without error, the likelier first; only one when the other's
    reading has clearly fewer common characters (see the module's docstring)."""
    readings: list[tuple[float, str, str]] = []
    for name in (GB18030, BIG5, BIG5_HKSCS):
        if name == BIG5_HKSCS and any(r[1] == BIG5 for r in readings):
            continue  # Big5 read them: HKSCS (its superset) adds nothing
        texts = _decoded(lines, CODECS[name])
        if texts is not None:
            codec = "gb18030" if name == GB18030 else "big5"
            readings.append((common_share("".join(texts), codec), name, texts[0]))
    if not readings:
        return Guess(())
    readings.sort(key=lambda r: -r[0])
    best = readings[0]
    gap = best[0] - readings[1][0] if len(readings) > 1 else 1.0
    sure = gap >= WIDE_MARGIN or (best[0] >= SURE and gap >= MARGIN)
    names = (best[1],) if sure else tuple(r[1] for r in readings)
    return Guess(names, excerpt(best[2]))


def excerpt(text: str, size: int = 40) -> str:
    """The part of a line that shows how it reads: ``size`` characters from a little before its
    first past ASCII (a line of JSON begins with its keys), elided with ``…``.

    >>> excerpt('{"format_version": 1, "seats": [{"seat": 0, "name": "阿明"}]}', 24)
    '…name": "阿明"}]}'
    >>> excerpt("2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,,没叫最后一张,", 36)
    '2026-10-30,m1,阿明 小红 陈大文 李四,0 4 9 13,…'
    """
    text = text.strip()
    first = next((k for k, c in enumerate(text) if not c.isascii()), 0)
    start = first - size // 3 if first > size // 2 else 0  # a short start: whole
    part = text[start : start + size]
    return ("…" if start else "") + part + ("…" if start + size < len(text) else "")


def file_head(path: str | Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of a log (inflated when ``.gz``); empty when it cannot be
    read."""
    try:
        with open_log(path) as fh:
            return fh.read(size)
    except (*READ_ERRORS, LogFormatError):  # a hint is best-effort: the import said why
        return b""


def file_lines(path: str | Path, numbers: Iterable[int]) -> tuple[list[bytes], int | None]:
    """The lines of a log numbered ``numbers`` (from 1; inflated when ``.gz``), ends
    stripped, read up to the last of them and :data:`SCAN_BYTES` at most (those it has not
    reached, or all when it cannot be read, left out), and the number of the first line read
    that is UTF-8 past ASCII, if any (a file of both encodings: converting it whole would
    garble those lines)."""
    wanted = set(numbers)
    out: list[bytes] = []
    utf8_line: int | None = None
    if not wanted:
        return out, None
    last, size = max(wanted), 0
    try:
        with open_log(path) as fh:
            for number, line in enumerate(fh, start=1):
                if number in wanted:
                    out.append(line.rstrip(b"\r\n"))
                elif utf8_line is None and not line.isascii() and not not_utf8_lines([line]):
                    utf8_line = number
                size += len(line)
                if number >= last or size > SCAN_BYTES:
                    break
    except (*READ_ERRORS, LogFormatError):  # a hint is best-effort: the import said why
        pass
    return out, utf8_line


def not_utf8_lines(lines: Iterable[bytes]) -> list[bytes]:
    r"""The lines that are not UTF-8.

    >>> not_utf8_lines([b"ok", "阿明".encode("gb18030"), "阿明".encode()])
    [b'\xb0\xa2\xc3\xf7']
    """
    out = []
    for line in lines:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            out.append(line)
    return out


def converted_path(path: str | Path) -> Path:
    """Where :func:`iconv_command` writes a file's UTF-8 copy: ``utf8/`` beside it, under
    its own name (so a CSV pair stays a pair, and a folder's ``games.csv`` its games CSV).

    >>> converted_path("/club/2026-10.csv").as_posix()
    '/club/utf8/2026-10.csv'
    """
    p = Path(path)
    return p.parent / "utf8" / p.name


def iconv_command(path: str | Path, encoding: str) -> str:
    """The shell command that writes a log's UTF-8 copy (:func:`converted_path`), a ``.gz``
    inflated and gzipped again.

    >>> print(iconv_command("/club/day 1.csv", "GB18030"))
    mkdir -p /club/utf8 && iconv -f GB18030 -t UTF-8 '/club/day 1.csv' > '/club/utf8/day 1.csv'
    >>> print(iconv_command("logs/a.jsonl.gz", "BIG5"))
    mkdir -p logs/utf8 && gzip -dc logs/a.jsonl.gz | iconv -f BIG5 -t UTF-8 | gzip > logs/utf8/a.jsonl.gz
    """
    src, dst = Path(path), converted_path(path)
    q = shlex.quote
    mkdir = f"mkdir -p {q(str(dst.parent))}"
    if src.name.endswith(".gz"):
        convert = f"gzip -dc {q(str(src))} | iconv -f {encoding} -t UTF-8 | gzip > {q(str(dst))}"
    else:
        convert = f"iconv -f {encoding} -t UTF-8 {q(str(src))} > {q(str(dst))}"
    return f"{mkdir} && {convert}"


def file_guess(path: str | Path, lines: Iterable[int]) -> Guess | None:
    """What a log is in when it is not UTF-8: UTF-16 when it starts so (:func:`has_utf16_bom`),
    else what its lines numbered ``lines`` that are not UTF-8 decode as (:func:`guess_encoding`;
    no names: none of those told here); None when neither (UTF-8 as far as read, or not
    readable)."""
    head = file_head(path)
    if has_utf16_bom(head):
        bom = head[:2] in (b"\xff\xfe", b"\xfe\xff")
        codec = "utf-16" if bom else "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        text = head[: len(head) // 2 * 2].decode(codec, "replace")
        return Guess((UTF16,), excerpt(text.splitlines()[0]) if text else "")
    read, utf8_line = file_lines(path, lines)
    bad = not_utf8_lines(read)
    if not bad:
        return None
    guess = guess_encoding(bad)
    return guess if utf8_line is None else replace(guess, utf8_line=utf8_line)


#: A byte the readers wrote as ``\xNN`` in a reject's ``raw`` (``backslashreplace``).
ESCAPED_BYTE = re.compile(rb"\\x([0-9a-f]{2})")


def raw_bytes(raw: str) -> bytes:
    r"""The bytes of a rejected line as the warehouse stores it (``rejects.raw``: bytes that
    are not UTF-8 written as ``\xNN``): the line as read, but for a literal ``\xNN`` in its
    text (read as that byte too: rare in a line that was not UTF-8).

    >>> raw_bytes("2026-10-30,m1,\\xb0\\xa2\\xc3\\xf7").decode("gb18030")
    '2026-10-30,m1,阿明'
    """
    return ESCAPED_BYTE.sub(lambda m: bytes([int(m[1], 16)]), raw.encode("utf-8"))


def raw_guess(raws: Sequence[str]) -> Guess | None:
    r""":func:`file_guess` of a file's first rejected lines as the warehouse stores them
    (``rejects.raw``, :func:`raw_bytes`), for a reader without the file (the dashboards):
    UTF-16 when the first starts so, else what those that are not UTF-8 decode as; None when
    none of them is not UTF-8. Unlike :func:`file_guess` it cannot see the file's other lines,
    so a file of both encodings (:attr:`Guess.utf8_line`) is not told.

    >>> raw_guess(["2026-10-30,m1,\\xb0\\xa2\\xc3\\xf7 \\xd0\\xa1\\xba\\xec"]).names
    ('GB18030',)
    >>> raw_guess(['{"game_id": "g1"}']) is None
    True
    """
    lines = [raw_bytes(r) for r in raws]
    if lines and has_utf16_bom(lines[0][:HEAD_BYTES]):
        head = lines[0][:HEAD_BYTES]
        bom = head[:2] in (b"\xff\xfe", b"\xfe\xff")
        codec = "utf-16" if bom else "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        text = head[: len(head) // 2 * 2].decode(codec, "replace")
        return Guess((UTF16,), excerpt(text.splitlines()[0]) if text.strip() else "")
    bad = not_utf8_lines(lines)
    return guess_encoding(bad) if bad else None


def utf16_advice(paths: Iterable[Path]) -> str:
    """For the messages about files that are no log (``E_FILE``, ``E_NO_INPUT``): those of
    ``paths`` that are UTF-16 (:func:`has_utf16_bom`, which no shape is told in), each with
    the command writing its UTF-8 copy; empty when none is.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "hk.txt").write_bytes("amy bob\\r\\n".encode("utf-16"))
    ...     print(utf16_advice([Path(d) / "hk.txt"]).replace(d, "/club"))
    ; /club/hk.txt is UTF-16 (Excel's "Unicode text"), which an import reads as no log: convert it, then import the copy: mkdir -p /club/utf8 && iconv -f UTF-16 -t UTF-8 /club/hk.txt > /club/utf8/hk.txt
    """
    found = [p for p in paths if has_utf16_bom(file_head(p))]
    if not found:
        return ""
    # tab-separated, as Excel writes "Unicode text": the UTF-8 copy reads so (header_delimiter)
    if len(found) == 1:
        return (
            f'; {found[0]} is UTF-16 (Excel\'s "Unicode text"), which an import reads as no '
            f"log: convert it, then import the copy: {iconv_command(found[0], UTF16)}"
        )
    return (
        f'; {len(found)} files are UTF-16 (Excel\'s "Unicode text"), which an import reads as no '
        f"log: convert each, then import the copies: {iconv_command(found[0], UTF16)}; …"
    )


@dataclass
class Finding:
    r"""A file that is not UTF-8: what :func:`file_guess` (or :func:`raw_guess`) made of it, its
    ``E_ENCODING`` rejects, and (a games CSV) the actions CSVs read with it: what ``big2
    ingest``'s summary and the dashboards' Import health page say of it, and the commands.

    >>> f = Finding("/club/day1.games.csv", Guess(("GB18030", "BIG5"), "阿明"), 2, ["/club/day1.csv"])
    >>> print(f.what())
    GB18030 (GBK: Simplified Chinese) or Big5 (Traditional Chinese) (2 rejects E_ENCODING): too little text to tell; as GB18030 it reads '阿明' (if the copy reads wrong, convert with -f BIG5)
    >>> print(*f.commands(), sep="\n")
    mkdir -p /club/utf8 && iconv -f GB18030 -t UTF-8 /club/day1.games.csv > /club/utf8/day1.games.csv
    cp /club/day1.csv /club/utf8/day1.csv  # its actions CSV, beside it
    """

    file: str
    guess: Guess
    n_encoding: int
    partners: list[str] = field(default_factory=list)

    def what(self) -> str:
        """What the file is in, how a line of it reads so, and its rejects ``E_ENCODING``."""
        names, reads = self.guess.names, repr(self.guess.sample)
        rejects = f" ({plural(self.n_encoding, 'reject')} E_ENCODING)" if self.n_encoding else ""
        if not names:
            return (
                f"not UTF-8{rejects}, nor GB18030, Big5 or UTF-16: save it as UTF-8 (Excel: "
                'Save As "CSV UTF-8 (Comma delimited)")'
            )
        if self.guess.utf8_line is not None:
            return (
                f"{WHAT[names[0]]} in some lines{rejects}, reads {reads}; UTF-8 in others (line "
                f"{self.guess.utf8_line}): converting it whole would garble those: save it "
                "again as UTF-8 from the tool that wrote it, or mend the lines rejected"
            )
        if len(names) == 1:
            return f"{WHAT[names[0]]}{rejects}, reads {reads}"
        return (
            f"{WHAT[names[0]]} or {' or '.join(WHAT[n] for n in names[1:])}{rejects}: too "
            f"little text to tell; as {names[0]} it reads {reads} (if the copy reads wrong, "
            f"convert with -f {names[1]})"
        )

    def commands(self) -> list[str]:
        """The shell commands that write the file's UTF-8 copy (its actions CSVs copied beside
        a games CSV's); none when there is no command to give."""
        names = self.guess.names
        if not names or self.guess.utf8_line is not None:
            return []
        copies = [
            f"cp {shlex.quote(p)} {shlex.quote(str(converted_path(p)))}  # its actions CSV, beside it"
            for p in self.partners
        ]
        return [iconv_command(self.file, names[0]), *copies]
