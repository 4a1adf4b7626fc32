"""docs/errors.md stays honest: every ``E_*`` code string under pipeline/ is documented there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"E_[A-Z0-9_]+")


def codes_in(source: str) -> set[str]:
    """The string literals of a module that are error codes (whole literal ``E_*``).

    >>> sorted(codes_in('raise X("E_NOT_HIGHER", "E_FOO is mentioned")\\nd = "E_BIG2"'))
    ['E_BIG2', 'E_NOT_HIGHER']
    """
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CODE.fullmatch(node.value)
    }


def pipeline_codes() -> dict[str, list[str]]:
    """Each code → the files under pipeline/ that use it."""
    out: dict[str, list[str]] = {}
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        for code in codes_in(path.read_text(encoding="utf-8")):
            out.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return out


def test_codes_are_found() -> None:
    codes = pipeline_codes()
    assert {"E_BAD_CARD", "E_DUPLICATE_CARD", "E_RULESET_KEY", "E_RULESET_VALUE"} <= set(codes)


def test_every_code_is_documented() -> None:
    doc = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`(E_[A-Z0-9_]+)`", doc))
    missing = {code: files for code, files in pipeline_codes().items() if code not in documented}
    assert missing == {}, f"add these codes to docs/errors.md: {missing}"
