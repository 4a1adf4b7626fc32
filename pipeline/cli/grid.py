"""The text table of ``big2 sql`` (and ``big2 rescore``): no value is ever cut.

Every value is printed whole: numbers right-aligned, integers as integers (a float that holds
one too, ``3.0`` → ``3``), other floats to 10 significant digits, ``NULL`` for a missing value,
multi-line values (an ``EXPLAIN`` plan) on several lines. A result wider than the screen folds:
its columns are split into blocks that each fit, one after the other, the first column repeated
in each block to name the rows; when even one column is wider than the screen, or the blocks
would be more than :data:`MAX_BLOCKS`, each row is printed as a record, one ``column | value``
line per column, long values wrapped.

>>> print("\\n".join(render(["game_id", "net"], [("g1", 530.0), ("g22", -1260)], width=80)))
game_id    net
-------  -----
g1         530
g22      -1260
>>> cell(0.1 + 0.2), cell(1.6e-44), cell(None), cell(True)
('0.3', '1.6e-44', 'NULL', 'true')
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from rich.cells import cell_len

#: Between two columns.
SEP = "  "
#: Below this many columns of screen the layout acts as if it had this many.
MIN_WIDTH = 20
#: A result that would fold into more column blocks than this prints as records instead.
MAX_BLOCKS = 4
#: Significant digits of a float that is not a whole number.
FLOAT_DIGITS = 10


def is_number(value: Any) -> bool:
    """Whether ``value`` prints as a number (right-aligned); a bool is not one."""
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def cell(value: Any) -> str:
    """``value`` as the table prints it, whole.

    >>> cell(14331.0), cell(-2.5), cell(12345678901234567890), cell(Decimal("1.50"))
    ('14331', '-2.5', '12345678901234567890', '1.50')
    >>> cell(2 / 3), cell(float("nan")), cell([1, "a"])
    ('0.6666666667', 'nan', '[1, "a"]')
    """
    if value is None:
        return "NULL"
    if isinstance(value, list | tuple | dict):
        return nested_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return str(int(value))
        return f"{value:.{FLOAT_DIGITS}g}"
    return str(value).expandtabs(4)


def nested_text(value: list[Any] | tuple[Any, ...] | dict[str, Any]) -> str:
    """A list or struct value (a DuckDB ``LIST``, ``STRUCT``, ``MAP``) as one line of JSON, as
    the table and CSV print it: ``null`` for a NULL inside, a timestamp, date or decimal as
    ``--format json`` writes it (its text), not Python's ``repr`` (``None``,
    ``datetime.date(2026, 1, 2)``, ``Decimal('1.50')``).

    >>> import datetime
    >>> nested_text([datetime.date(2026, 1, 2), None, Decimal("1.50"), True, "雙炒"])
    '["2026-01-02", null, "1.50", true, "雙炒"]'
    >>> nested_text({"game_id": "g1", "step": 3})
    '{"game_id": "g1", "step": 3}'
    """
    return json.dumps(value, ensure_ascii=False, default=str)


def _lines(value: Any) -> list[str]:
    return cell(value).splitlines() or [""]


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(width - cell_len(text), 0)
    return gap + text if right else text + gap


def fold(text: str, width: int) -> list[str]:
    """``text`` cut into pieces of at most ``width`` screen columns, nothing lost: after a
    space where the piece has one (a word is not cut to fit the line), else anywhere (a number,
    a long word).

    >>> fold("abcdefg", 3)
    ['abc', 'def', 'g']
    >>> fold("the game is won", 8), fold("a 123456789", 4)
    (['the ', 'game is ', 'won'], ['a ', '1234', '5678', '9'])
    """
    out: list[str] = []
    piece = ""
    for ch in text:
        if piece and cell_len(piece + ch) > width:
            cut = piece.rfind(" ") + 1
            if 0 < cut < len(piece) and cell_len(piece[cut:] + ch) <= width:
                out.append(piece[:cut])
                piece = piece[cut:]
            else:
                out.append(piece)
                piece = ""
        piece += ch
    out.append(piece)
    return out


def blocks(widths: Sequence[int], width: int) -> list[list[int]] | None:
    """The column indices of each block of a folded table, or ``None`` when one column alone
    (with the repeated first column) is wider than ``width``.

    >>> blocks([5, 10, 10, 10], 30)
    [[0, 1, 2], [0, 3]]
    >>> blocks([5, 40], 30) is None
    True
    """
    if any(w > width for w in widths):
        return None
    out: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        need = w if not out[-1] else used + len(SEP) + w
        if out[-1] and need > width:
            key = widths[0] + len(SEP) + w <= width and i > 0
            out.append([0] if key else [])
            used = widths[0] if key else 0
            need = w if not out[-1] else used + len(SEP) + w
        out[-1].append(i)
        used = need
    return out


def _grid(
    columns: Sequence[str], cells: list[list[list[str]]], right: list[bool], widths: list[int]
) -> Iterator[str]:
    yield SEP.join(_pad(c, w, r) for c, w, r in zip(columns, widths, right, strict=True)).rstrip()
    yield SEP.join("-" * w for w in widths)
    for row in cells:
        for k in range(max(len(v) for v in row)):
            parts = [v[k] if k < len(v) else "" for v in row]
            yield SEP.join(
                _pad(p, w, r) for p, w, r in zip(parts, widths, right, strict=True)
            ).rstrip()


def _records(columns: Sequence[str], cells: list[list[list[str]]], width: int) -> Iterator[str]:
    name_w = min(max(cell_len(c) for c in columns), width // 2)
    value_w = max(width - name_w - 3, 1)
    for n, row in enumerate(cells, 1):
        title = f"-[ row {n} ]"
        yield title + "-" * max(width - len(title), 0)
        for name, value in zip(columns, row, strict=True):
            names = fold(name, name_w)
            pieces = [p for line in value for p in fold(line, value_w)]
            for k in range(max(len(names), len(pieces))):
                left = names[k] if k < len(names) else ""
                right = pieces[k] if k < len(pieces) else ""
                yield f"{_pad(left, name_w, False)} | {right}".rstrip()


def render(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], width: int | None = None
) -> Iterator[str]:
    """The lines of ``rows`` as a table of at most ``width`` screen columns (``None``: no
    limit), folded into column blocks, or records, when it is wider (module docstring).

    >>> for line in render(["id", "a", "b"], [["g1", "x" * 12, "y" * 12]], 20):
    ...     print(line)
    columns 1-2 of 3
    id  a
    --  ------------
    g1  xxxxxxxxxxxx
    <BLANKLINE>
    column 3 of 3 (and id)
    id  b
    --  ------------
    g1  yyyyyyyyyyyy
    """
    cells = [[_lines(v) for v in r] for r in rows]
    right = [
        any(r[i] is not None for r in rows)
        and all(is_number(r[i]) for r in rows if r[i] is not None)
        for i in range(len(columns))
    ]
    widths = [
        max([cell_len(c), *(cell_len(line) for r in cells for line in r[i])])
        for i, c in enumerate(columns)
    ]
    if not columns:
        return
    if width is None:
        yield from _grid(columns, cells, right, widths)
        return
    width = max(width, MIN_WIDTH)
    parts = blocks(widths, width)
    if parts is None or len(parts) > MAX_BLOCKS:
        yield from _records(columns, cells, width)
        return
    for n, part in enumerate(parts):
        if len(parts) > 1:
            own = part[1:] if n and part[0] == 0 else part
            if n:
                yield ""
            span = f" {own[0] + 1}" if len(own) == 1 else f"s {own[0] + 1}-{own[-1] + 1}"
            key = f" (and {columns[0]})" if own is not part else ""
            yield f"column{span} of {len(columns)}{key}"
        yield from _grid(
            [columns[i] for i in part],
            [[r[i] for i in part] for r in cells],
            [right[i] for i in part],
            [widths[i] for i in part],
        )
