"""``big2 report`` and ``big2 export``: a match or an evening, and one game as a hand history
or a log line (the work is :mod:`pipeline.report`'s)."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.app import (
    WarehouseOption,
    check_output_file,
    command,
    domain_errors,
    output_file_errors,
    terminal_width,
)


def _parse_day(text: str) -> date:
    from pipeline.report import ReportError

    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ReportError(
            "E_REPORT_USAGE", f"--day {text!r}: expected a date like 2026-11-01"
        ) from None


def _check_tz(name: str) -> str:
    import zoneinfo

    from pipeline.report import ReportError

    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ReportError(
            "E_REPORT_USAGE", f"--tz {name!r}: not a time zone name (e.g. UTC, Asia/Hong_Kong)"
        ) from None
    return name


@command("report")
def report_command(
    match: Annotated[
        str | None,
        typer.Option(
            "--match",
            "-m",
            metavar="ID",
            help="The match: a log's match_id, or the id of a game logged without one.",
        ),
    ] = None,
    day: Annotated[
        str | None,
        typer.Option("--day", "-d", metavar="YYYY-MM-DD", help="Every game started that day."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player", "-p", metavar="PLAYER_ID", help="Only the games this player sat in."
        ),
    ] = None,
    tz: Annotated[
        str, typer.Option("--tz", metavar="ZONE", help="Time zone of --day and the times shown.")
    ] = "UTC",
    html_out: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Write a self-contained HTML page instead."),
    ] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """A match or an evening: who played, games, who paid whom (money, or penalty points),
    炒 and 包牌 events, the biggest games; Dou Dizhu games under their own scoring, in their
    own sections (landlord and farmer records, bombs, springs). Exit 2 for an unknown match,
    day or player."""
    from pipeline import report
    from pipeline.warehouse import Warehouse, reading

    with domain_errors():
        if (match is None) == (day is None):
            raise report.ReportError("E_REPORT_USAGE", "give --match ID or --day YYYY-MM-DD")
        if html_out is not None:
            check_output_file(html_out, "--html")
        sel = report.Selection(
            match_key=match,
            day=None if day is None else _parse_day(day),
            tz=_check_tz(tz),
            player_id=player,
        )
        wh = Warehouse.existing(warehouse)
        con = wh.connect()
        try:
            with reading.missing_files_said(wh):
                rep = report.assemble(sel, report.fetch_report(con, sel))
        finally:
            con.close()
        if html_out is not None:
            with output_file_errors(html_out, "--html"):
                html_out.write_text(report.render_html(rep), encoding="utf-8")
            typer.echo(f"{rep.title}: HTML report written to {html_out}")
            return
        typer.echo(report.render_text(rep, width=terminal_width()))


class ExportFormat(StrEnum):
    """What ``big2 export`` writes."""

    TEXT = "text"  # a readable hand history
    JSONL = "jsonl"  # one log line (docs/log-format.md) that re-imports


@command("export")
def export_command(
    game_id: Annotated[str, typer.Argument(metavar="GAME_ID", help="The game to export.")],
    fmt: Annotated[
        ExportFormat, typer.Option("--format", "-f", case_sensitive=False, help="Output format.")
    ] = ExportFormat.TEXT,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", metavar="FILE", help="Write to this file.")
    ] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """One game, Big Two or Dou Dizhu, as a readable hand history (text) or as a log line
    that re-imports (jsonl). Exit 2 for an unknown game."""
    from pipeline import report
    from pipeline.logs.writer import dumps
    from pipeline.warehouse import Warehouse

    with domain_errors():
        if out is not None:
            check_output_file(out)
        con = Warehouse.existing(warehouse).connect()
        try:
            data = report.fetch_game(con, game_id)
        finally:
            con.close()
        text = (
            report.hand_history(data, width=terminal_width())
            if fmt is ExportFormat.TEXT
            else dumps(report.log_line(data))
        )
        if out is not None:
            with output_file_errors(out):
                out.write_text(text + "\n", encoding="utf-8")
            typer.echo(f"game {game_id} → {out}")
        else:
            typer.echo(text)
