"""The JSON Lines reader: one game per line, ``.jsonl`` or ``.jsonl.gz``, streamed.

:func:`read_jsonl` yields, line by line, a :class:`GameRecord` or a :class:`Reject`; bad
input never raises. Lines are read with a cap (``max_line_bytes``, default 1 MiB): a
longer line is rejected ``E_LINE_TOO_LONG`` after skipping to its newline in chunks, so
it is never held in memory whole. Blank lines are skipped.

>>> import io
>>> data = io.BytesIO(b'{"not": "a game"}\\n\\n[1, 2\\n')
>>> [(r.code, r.source.line) for r in read_jsonl_stream(data, "mem.jsonl")]
[('E_SCHEMA', 1), ('E_JSON', 3)]
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

import orjson

from pipeline.errors import LogFormatError
from pipeline.logs.gz import open_gzip
from pipeline.logs.model import GameRecord, Reject, Source, file_label
from pipeline.logs.records import check_surrogates, escaped, parse_game

DEFAULT_MAX_LINE_BYTES = 1 << 20  # 1 MiB
RAW_PREFIX_BYTES = 4096  # how much of an over-long line a reject keeps
_SKIP_CHUNK = 1 << 16
_BLANK = b" \t\r\n"
_GAME_ID_RE = re.compile(r'"game_id"\s*:\s*"((?:[^"\\]|\\.){1,200})"')


def guess_game_id(text: str) -> str | None:
    """The game id of a record that cannot be parsed, when its text shows one.

    >>> guess_game_id('{"format_version": 1, "game_id": "m1-g7", "actions": [')
    'm1-g7'
    """
    m = _GAME_ID_RE.search(text)
    if m is None:
        return None
    try:
        value = json.loads(f'"{m.group(1)}"')
    except ValueError:
        return m.group(1)
    return escaped(value) if isinstance(value, str) else None


#: What is left of a line cut inside a value, from where json's error points to the line's end,
#: by the error: a string never closed (an escape cut included; json points at its quote), a
#: ``\u`` escape cut in its digits, ``true`` / ``false`` / ``null`` or a minus sign cut, a
#: number cut after its ``.`` or exponent mark (a digit before it).
_CUT_VALUE = {
    "Unterminated string starting at": re.compile(r'".*', re.DOTALL),
    "Invalid \\uXXXX escape": re.compile(r"u[0-9a-fA-F]{0,3}"),
    "Expecting value": re.compile(r"t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?|-"),
    "Expecting ',' delimiter": re.compile(r"(?<=\d)(?:\.|[eE][+-]?)"),
}


def json_message(err: json.JSONDecodeError, text: str) -> str:
    """The reject message of a line json refuses, with the column; ``the line ends early``
    when the line was cut: the error at its end, or inside a value that runs to its end
    (``_CUT_VALUE``), where json points at the value's start.

    >>> def message(text):
    ...     try:
    ...         json.loads(text)
    ...     except json.JSONDecodeError as err:
    ...         return json_message(err, text)
    >>> message('{"game_id": "m1-g7", "actions": [{"cards": "3d 4')
    'invalid JSON: the line ends early (Unterminated string starting at column 44)'
    >>> message('{"game_id": "m1-g7",}')
    'invalid JSON: Expecting property name enclosed in double quotes at column 21'
    """
    where = f"{err.msg.removesuffix(' at')} at column {err.colno}"  # "starting at", "character at"
    end = len(text.rstrip())
    cut = _CUT_VALUE.get(err.msg)
    if err.pos >= end or (cut is not None and cut.fullmatch(text, err.pos, end)):
        return f"invalid JSON: the line ends early ({where})"
    return f"invalid JSON: {where}"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_line(text: str, source: Source) -> GameRecord | Reject:
    """One line of text (already decoded) → a record or a reject."""
    checked = False  # whether the slow path let through what orjson refuses (lone surrogates)
    try:
        try:
            obj = orjson.loads(
                text
            )  # fast path; anything it refuses takes json's, for its messages
        except orjson.JSONDecodeError:
            obj = json.loads(text, parse_constant=_no_constant)
            checked = True
    except ValueError as err:
        if isinstance(err, json.JSONDecodeError):
            message = json_message(err, text)
        else:
            message = f"invalid JSON: {err}"
        return Reject(source, guess_game_id(text), None, "E_JSON", message, text)
    except RecursionError:
        return Reject(
            source, guess_game_id(text), None, "E_JSON", "invalid JSON: nested too deeply", text
        )
    game_id = obj.get("game_id") if isinstance(obj, dict) else None
    if not isinstance(obj, dict):
        return Reject(
            source,
            None,
            None,
            "E_SCHEMA",
            "(game): expected a JSON object, one game per line",
            text,
        )
    try:
        if checked:
            check_surrogates(obj)
        # the envelope's game_kind picks the game's parser (pipeline.games)
        return parse_game(obj, source=source, raw=text)
    except LogFormatError as err:
        return Reject(
            source,
            escaped(game_id) if isinstance(game_id, str) else None,
            err.context.get("action_index"),
            err.code,
            err.message,
            text,
        )


def not_utf8(data: bytes, err: UnicodeDecodeError) -> str:
    r"""The message of ``E_ENCODING``: ``data``'s first byte that is not UTF-8 (``err``, its
    decoding's error), where it is and why (hand logs and score sheets alike).

    >>> try:
    ...     b"Jos\xe9 bob".decode("utf-8")
    ... except UnicodeDecodeError as err:
    ...     print(not_utf8(b"Jos\xe9 bob", err))
    byte 0xe9 at offset 3 is not UTF-8 (invalid continuation byte)
    """
    return f"byte 0x{data[err.start]:02x} at offset {err.start} is not UTF-8 ({err.reason})"


def _decode(line: bytes, source: Source) -> str | Reject:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raw = line.decode("utf-8", "backslashreplace").rstrip("\r\n")
        return Reject(source, guess_game_id(raw), None, "E_ENCODING", not_utf8(line, err), raw)
    if source.line == 1:
        text = text.removeprefix("\ufeff")
    return text


def _peek(fh: IO[bytes]) -> bytes:
    """The buffered bytes ahead in a stream, without consuming them (b"" if it cannot peek)."""
    peek = getattr(fh, "peek", None)
    return cast(bytes, peek(_SKIP_CHUNK)) if peek is not None else b""


#: A compressed file that ends early (EOFError) or is corrupt (zlib.error, gzip.BadGzipFile, an
#: OSError), or a read that fails: the file's reject, after the games read before it.
READ_ERRORS = (EOFError, OSError, zlib.error)


def read_failure(err: BaseException, file: str, line: int) -> Reject:
    """The reject of a file whose reading failed after ``line`` (a JSON Lines file's, a CSV
    pair's, a score sheet's): a ``.gz`` cut short, corrupt, or a read that failed.

    >>> read_failure(EOFError("Compressed file ended early"), "a.csv.gz", 12).code
    'E_GZIP_TRUNCATED'
    >>> read_failure(zlib.error("invalid stored block lengths"), "a.csv.gz", 3).message
    'the compressed file is corrupt after line 3 (invalid stored block lengths)'
    """
    if isinstance(err, EOFError):
        code, message = "E_GZIP_TRUNCATED", f"the compressed file ends early after line {line}"
    elif isinstance(err, gzip.BadGzipFile | zlib.error):
        code, message = "E_GZIP", f"the compressed file is corrupt after line {line}"
    else:
        code, message = "E_READ", f"read failed after line {line}"
    return Reject(Source(file, line + 1), None, None, code, f"{message} ({err})", "")


def iter_jsonl_lines(
    fh: IO[bytes],
    name: str,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    first_line: int = 1,
) -> Iterator[tuple[Source, str] | Reject]:
    """The non-blank lines of a JSON Lines stream, decoded, each with its source; or a reject
    for a line that is too long or not UTF-8, or for a stream that ends badly.

    Cheap (no JSON parsing), so that a caller may parse the lines elsewhere, e.g. in worker
    processes, with :func:`parse_line`. ``first_line``: the line number of the stream's first
    line (a stream that starts part-way into a file, as an import worker reads its range).

    >>> import io
    >>> [(s.line, t) for s, t in iter_jsonl_lines(io.BytesIO(b'{}\\n\\n[]'), "m", first_line=7)]
    [(7, '{}'), (9, '[]')]
    """
    name = file_label(name)
    line_no = first_line - 1
    try:
        while True:
            line = fh.readline(max_line_bytes + 1)
            if not line:
                return
            line_no += 1
            source = Source(name, line_no)
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                prefix = line[:RAW_PREFIX_BYTES]
                size = len(line)
                while not line.endswith(b"\n"):
                    line = fh.readline(_SKIP_CHUNK)
                    if not line:
                        break
                    size += len(line)
                text = prefix.decode("utf-8", "backslashreplace")
                yield Reject(
                    source,
                    guess_game_id(text),
                    None,
                    "E_LINE_TOO_LONG",
                    f"line of {size} bytes is longer than the {max_line_bytes}-byte cap "
                    f"(raw keeps the first {len(prefix)} bytes)",
                    text,
                )
                continue
            decoded = _decode(line, source)
            if isinstance(decoded, Reject):
                yield decoded
                continue
            text = decoded.rstrip("\r\n")
            if not text.strip():
                # a blank line: skip the blank lines after it a buffer at a time (a run of
                # millions of newlines costs a scan, not a readline each); lines over the cap
                # are not passed over: readline rejects them, blank or not
                while (buf := _peek(fh)) and (blank := len(buf) - len(buf.lstrip(_BLANK))):
                    cut = buf.rfind(b"\n", 0, blank) + 1  # blanks after it start a line
                    end = buf.rfind(b"\n", 0, min(cut, max_line_bytes + 1)) + 1
                    if not end:
                        break
                    line_no += buf.count(b"\n", 0, end)
                    fh.read(end)
                    if end == cut and blank < len(buf):
                        break
                continue
            yield source, text
    except READ_ERRORS as err:
        yield read_failure(err, name, line_no)


def read_jsonl_stream(
    fh: IO[bytes], name: str, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[GameRecord | Reject]:
    """Read an open binary stream (plain, or a ``gzip.GzipFile``) of JSON Lines."""
    for item in iter_jsonl_lines(fh, name, max_line_bytes=max_line_bytes):
        yield item if isinstance(item, Reject) else parse_line(item[1], item[0])


def open_log(path: str | Path) -> IO[bytes]:
    """Open a log file for binary reading, inflated when its name ends in ``.gz``
    (:func:`pipeline.logs.gz.open_gzip`: what ``gzip.open`` reads, faster).

    A file that cannot be opened raises :class:`LogFormatError` ``E_FILE`` (unusable
    input, not a rejected game).
    """
    try:
        if str(path).endswith(".gz"):
            return open_gzip(path)
        return open(path, "rb")
    except OSError as err:
        raise LogFormatError(
            "E_FILE", f"cannot open {str(path)!r}: {err}", file=str(path)
        ) from None


def read_jsonl(
    path: str | Path, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[GameRecord | Reject]:
    """Stream a ``.jsonl`` / ``.jsonl.gz`` file: one record or reject per non-blank line."""
    with open_log(path) as fh:
        yield from read_jsonl_stream(fh, str(path), max_line_bytes=max_line_bytes)
