"""``big2 rules list`` and ``big2 rules show``: the presets of both games (Big Two, Dou Dizhu),
and a ruleset with overrides, each value marked with where it comes from.

>>> from typer.testing import CliRunner
>>> from pipeline.cli import app
>>> CliRunner().invoke(app, ["rules", "show", "--format", "json"]).exit_code
0
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.markup import escape
from rich.table import Table

from pipeline.big2.rules import (
    DEFAULT_PRESET,
    TIER_TABLES,
    Ruleset,
    load_ruleset,
    preset_meta,
    preset_names,
)
from pipeline.cli.app import Big2Group, app, command, console, domain_errors, parse_overrides
from pipeline.doudizhu import rules as ddz_rules
from pipeline.doudizhu.rules import DdzRuleset
from pipeline.games import check_preset

rules_app = typer.Typer(
    help="House rules: list the presets, show a ruleset with overrides.",
    no_args_is_help=True,
    cls=Big2Group,
)
app.add_typer(rules_app, name="rules")


class OutputFormat(StrEnum):
    """How ``rules show`` prints a ruleset."""

    TABLE = "table"
    TOML = "toml"
    JSON = "json"


class Source(StrEnum):
    """Where a parameter's value comes from."""

    DEFAULT = "default"  # the preset leaves the built-in default
    PRESET = "preset"  # the preset sets a value other than the default
    OVERRIDE = "override"  # given with --set


def presets_table() -> Table:
    """The Big Two presets with their description and seed sources, the default marked."""
    table = Table(title="Big Two presets")
    table.add_column("preset", style="bold")
    table.add_column("description", overflow="fold")
    table.add_column("source", overflow="fold")
    for name in preset_names():
        meta = preset_meta(name)
        label = f"{name} (default)" if name == DEFAULT_PRESET else name
        table.add_row(label, escape(meta.get("description", "")), escape(meta.get("source", "")))
    return table


def ddz_presets_table() -> Table:
    """The Dou Dizhu presets (``game_kind: doudizhu``) with description and source."""
    table = Table(title="Dou Dizhu presets (game_kind doudizhu)")
    table.add_column("preset", style="bold")
    table.add_column("description", overflow="fold")
    table.add_column("source", overflow="fold")
    for name in ddz_rules.preset_names():
        meta = ddz_rules.preset_meta(name)
        table.add_row(name, escape(meta.get("description", "")), escape(meta.get("source", "")))
    return table


AnyRuleset = Ruleset | DdzRuleset


def load_any(name: str, overrides: dict[str, Any]) -> AnyRuleset:
    """A Dou Dizhu preset (``ddz``, ``ddz-2p``) or else a Big Two one, plus overrides.

    >>> load_any("ddz-2p", {}).players, load_any("hk", {}).players
    (2, 4)
    """
    check_preset(name)
    if name in ddz_rules.preset_names():
        return ddz_rules.load_ruleset(name, overrides)
    return load_ruleset(name, overrides)


def parameter_sources(rs: AnyRuleset) -> dict[str, Source]:
    """Each parameter of ``rs.to_dict()`` → where its value comes from."""
    overridden = {key for key, _ in rs.overrides}
    defaults = type(rs)().to_dict()
    out: dict[str, Source] = {}
    for key, value in rs.to_dict().items():
        if key in overridden:
            out[key] = Source.OVERRIDE
        elif value != defaults[key]:
            out[key] = Source.PRESET
        else:
            out[key] = Source.DEFAULT
    return out


def _describe_value(key: str, value: Any) -> str:
    if key == "multiplier_tiers":
        rows = ", ".join(f"{low}→×{mult}" for low, mult in value)
        names = [n for n, t in TIER_TABLES.items() if [list(r) for r in t] == value]
        return f"{names[0]} ({rows})" if names else rows
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML string
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def render_ruleset(rs: AnyRuleset, fmt: OutputFormat) -> str | Table:
    """A ruleset as a rich table, a TOML document or JSON, each value with its source."""
    params = rs.to_dict()
    sources = parameter_sources(rs)
    meta = {"name": params.pop("name"), "description": params.pop("description")}
    if fmt is OutputFormat.JSON:
        doc = {
            **meta,
            "parameters": {k: {"value": v, "from": sources[k].value} for k, v in params.items()},
        }
        return json.dumps(doc, ensure_ascii=False, indent=2)
    if fmt is OutputFormat.TOML:
        lines = [
            f"# ruleset {meta['name']!r}: {meta['description']}",
            "# each line ends with where the value comes from: default, preset or override",
        ]
        width = max(len(f"{k} = {_toml_value(v)}") for k, v in params.items())
        for key, value in params.items():
            line = f"{key} = {_toml_value(value)}"
            lines.append(f"{line:<{width}}  # {sources[key].value}")
        return "\n".join(lines)
    title = f"ruleset {meta['name']}: {meta['description']}"
    # as wide as its title (a narrow table, Dou Dizhu's, folded it over three lines)
    table = Table(title=escape(title), min_width=cell_len(title))
    table.add_column("parameter", overflow="fold")
    table.add_column("value", overflow="fold")
    table.add_column("from")
    style = {Source.DEFAULT: "dim", Source.PRESET: "", Source.OVERRIDE: "bold"}
    for key, value in params.items():
        src = sources[key]
        table.add_row(key, escape(_describe_value(key, value)), src.value, style=style[src])
    return table


@command("list", on=rules_app)
def rules_list() -> None:
    """List the shipped presets of both games (the Big Two default is marked)."""
    with domain_errors():
        console.print(presets_table())
        console.print(ddz_presets_table())


@command("show", on=rules_app)
def rules_show(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME", help="Preset name, Big Two or Dou Dizhu (see `big2 rules list`)."
        ),
    ] = DEFAULT_PRESET,
    overrides: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            "-s",
            metavar="KEY=VALUE",
            help="Override one parameter (value read as TOML); repeatable.",
        ),
    ] = None,
    fmt: Annotated[
        OutputFormat,
        typer.Option("--format", "-f", case_sensitive=False, help="Output format."),
    ] = OutputFormat.TABLE,
) -> None:
    """Show every parameter of a preset plus overrides, and where each value comes from."""
    with domain_errors():
        out = render_ruleset(load_any(name, parse_overrides(overrides)), fmt)
        if isinstance(out, str):
            typer.echo(out)
        else:
            console.print(out)
