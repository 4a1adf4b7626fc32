"""Session / match reports and the export of one game (``big2 report``, ``big2 export``, the
dashboards' Report page).

The data come from named queries, ``sql/queries/<name>.sql`` with bound ``$params`` (each
file states its grain), over the marts of ``big2 build`` (``mart_game_scores``,
``mart_payments``, ``mart_match_standings``, ``audit_obligations``) and the table macro
``report_games`` (``sql/macros/report_games.sql``: a match, or a day in a time zone, and
optionally one player). :func:`fetch_report` and :func:`fetch_game` are the only functions
that touch a connection; everything else is pure: rows in, a :class:`Report` (sections of
formatted cells), text or HTML out.

>>> rows = {
...     "report_summary": [{"unit": "money", "n_games": 1, "n_scored": 1, "n_matches": 1,
...         "n_players": 2, "first_started": None, "last_started": None, "rulesets": "hk {}",
...         "has_bankroll": False, "n_bao": 0, "n_chao": 0}],
...     "report_players": [
...         {"unit": "money", "player_id": "a", "name": "Ann", "n_games": 1, "n_wins": 1,
...          "net": 12.0, "net_after_cap": 12.0, "points": None, "score": 12.0, "n_chao": 0,
...          "n_bao": 0, "bao_paid": 0, "place": 1},
...         {"unit": "money", "player_id": "b", "name": "b", "n_games": 1, "n_wins": 0,
...          "net": -12.0, "net_after_cap": -12.0, "points": None, "score": -12.0, "n_chao": 0,
...          "n_bao": 0, "bao_paid": 0, "place": 2}],
...     "report_payments": [{"payer_id": "b", "receiver_id": "a", "amount": 12.0, "n_games": 1}],
...     "report_chao": [], "report_bao": [], "report_game_list": [],
... }
>>> report = assemble(Selection(match_key="m1"), rows)
>>> print(render_text(report, width=60))  # doctest: +NORMALIZE_WHITESPACE
Match m1
money: 1 game in 1 match, 2 players; rulesets hk {}
<BLANKLINE>
Players (money)
player   games  wins  net  炒  包牌  place
-------  -----  ----  ---  --  ----  -----
Ann (a)      1     1  +12   0     0      1
b            1     0  -12   0     0      2
<BLANKLINE>
Who paid whom (money)
payer  receiver  amount  games
-----  --------  ------  -----
b      Ann (a)       12      1
"""

from __future__ import annotations

import html
import json
import re
import shlex
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

import duckdb

from pipeline.cards import cards_of, format_card, format_cards
from pipeline.errors import Big2Error
from pipeline.warehouse import reading
from pipeline.wording import plural

#: The folder of the named queries.
QUERIES = reading.queries_dir()
#: The queries one report runs, in this order.
REPORT_QUERIES = (
    "report_summary",
    "report_players",
    "report_payments",
    "report_chao",
    "report_bao",
    "report_game_list",
)
#: The queries of a report's Dou Dizhu part (the ddz_* marts), run after those.
DDZ_REPORT_QUERIES = (
    "report_ddz_summary",
    "report_ddz_players",
    "report_ddz_payments",
    "report_ddz_game_list",
)
#: The ids ``--match`` takes (a game logged with a match id is reported with its match).
MATCH_IDS = "a log's match_id, or the id of a game logged without one"
#: How many games "Biggest games" lists.
BIGGEST = 5
MONEY = "money"
POINTS = "penalty points"

Row = dict[str, Any]


class ReportError(Big2Error):
    """A report or export asked for something the warehouse does not hold."""

    default_code = "E_REPORT"


# ----- the named queries -------------------------------------------------------------------


def run_query(con: duckdb.DuckDBPyConnection, name: str, **params: Any) -> list[Row]:
    """Run a named query with its bound ``$params`` (:func:`pipeline.warehouse.reading.run_query`,
    the one runner the dashboards use too); its errors as :class:`ReportError` (a warehouse
    whose marts predate the query is ``E_SQL_NOT_BUILT``)."""
    try:
        return reading.run_query(con, name, **params)
    except reading.NamedQueryError as err:
        raise ReportError(err.code, err.message) from err


# ----- what a report covers ----------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """The games of a report: one match, or one day (a date in ``tz``), optionally only the
    games ``player_id`` sat in.

    >>> Selection(day=date(2026, 11, 1), tz="Asia/Hong_Kong", player_id="u1").label()
    'Day 2026-11-01 (Asia/Hong_Kong) · player u1'
    """

    match_key: str | None = None
    day: date | None = None
    tz: str = "UTC"
    player_id: str | None = None

    def __post_init__(self) -> None:
        if (self.match_key is None) == (self.day is None):
            raise ReportError("E_REPORT_USAGE", "give either a match or a day (not both)")

    def label(self) -> str:
        head = f"Match {self.match_key}" if self.day is None else f"Day {self.day} ({self.tz})"
        return head + (f" · player {self.player_id}" if self.player_id else "")

    def params(self) -> dict[str, Any]:
        return {
            "match_key": self.match_key,
            "day": self.day,
            "tz": self.tz,
            "player_id": self.player_id,
        }


_SUMMARIES = ("report_summary", "report_ddz_summary")
#: The players of a selection an unknown ``--player`` is told, at most.
PLAYERS_NAMED = 8


def fetch_report(con: duckdb.DuckDBPyConnection, sel: Selection) -> dict[str, list[Row]]:
    """Every query of a report for ``sel``; a part (Big Two, Dou Dizhu) whose summary finds no
    game runs no other query: each selects among the games its summary counts, so they would
    find none either (at 1M Big Two games the Dou Dizhu part's three cost ~0.2 s). Nothing
    selected: ``E_UNKNOWN_MATCH`` / ``E_UNKNOWN_DAY``, or ``E_UNKNOWN_PLAYER`` when the match or
    day exists without the player.
    """
    out: dict[str, list[Row]] = {}
    for summary, *rest in (REPORT_QUERIES, DDZ_REPORT_QUERIES):
        out[summary] = run_query(con, summary, **sel.params())
        for name in rest:  # a part's queries select among the games its summary counts
            out[name] = run_query(con, name, **sel.params()) if out[summary] else []
    if out["report_summary"] or out["report_ddz_summary"]:
        return out
    if sel.player_id is not None:
        everyone = Selection(match_key=sel.match_key, day=sel.day, tz=sel.tz)
        if any(run_query(con, q, **everyone.params()) for q in _SUMMARIES):
            where = f"in match {sel.match_key}" if sel.day is None else f"on {sel.day} ({sel.tz})"
            rows = run_query(con, "report_selection_players", **everyone.params())
            players = [str(r["player_id"]) for r in rows]
            shown = ", ".join(players[:PLAYERS_NAMED])
            more = (
                f" and {len(players) - PLAYERS_NAMED:,} more"
                if len(players) > PLAYERS_NAMED
                else ""
            )
            raise ReportError(
                "E_UNKNOWN_PLAYER",
                f"player {sel.player_id!r} played no game {where} (its players: {shown}{more})",
            )
    if sel.day is None:
        raise unknown_match(con, str(sel.match_key))
    (near,) = run_query(con, "report_near_days", day=sel.day, tz=sel.tz)
    days = [
        f"{near[f'day_{side}']} ({side})" for side in ("before", "after") if near[f"day_{side}"]
    ]
    nearest = f"the nearest day{'s' if len(days) > 1 else ''} with a game: {' and '.join(days)}"
    hint = f"; {nearest}" if days else "; no game has a start time"
    raise ReportError("E_UNKNOWN_DAY", f"no game started on {sel.day} ({sel.tz}){hint}")


def unknown_match(con: duckdb.DuckDBPyConnection, match_key: str) -> ReportError:
    """``E_UNKNOWN_MATCH`` for a ``--match`` that selects no game: when it is the id of a game
    of a match (named query ``report_match_of_game``), the match to ask for and the command
    that shows the one game; else which ids ``--match`` takes."""
    rows = run_query(con, "report_match_of_game", game_id=match_key)
    if rows:
        match = str(rows[0]["match_key"])
        return ReportError(
            "E_UNKNOWN_MATCH",
            f"{match_key!r} is a game of match {match!r}: --match {shlex.quote(match)} reports "
            f"the match, `big2 export {shlex.quote(match_key)}` the game",
        )
    close = [
        str(r["match_key"]) for r in run_query(con, "report_close_matches", match_key=match_key)
    ]
    hint = f"; did you mean {' or '.join(repr(m) for m in close)}?" if close else ""
    return ReportError(
        "E_UNKNOWN_MATCH",
        f"no match {match_key!r} in the warehouse ({MATCH_IDS}){hint}",
    )


def unknown_game(con: duckdb.DuckDBPyConnection, game_id: str) -> ReportError:
    """``E_UNKNOWN_GAME`` for a ``big2 export`` id that is no game: when it is a match id
    (named query ``export_match_games``), its games and the command that reports the match;
    else up to three ids close to it (``export_close_games``: ids that start with it, or the
    same but for case)."""
    rows = run_query(con, "export_match_games", match_key=game_id)
    if rows:
        m = rows[0]
        n = int(m["n_games"])
        games = f"{m['first_game_id']} … {m['last_game_id']}" if n > 1 else m["first_game_id"]
        return ReportError(
            "E_UNKNOWN_GAME",
            f"{game_id!r} is a match of {n:,} game{'s' if n != 1 else ''} ({games}), not a "
            f"game: `big2 report --match {shlex.quote(game_id)}` reports it, `big2 export "
            "GAME_ID` one of its games",
        )
    close = [row["game_id"] for row in run_query(con, "export_close_games", game_id=game_id)]
    hint = f" (did you mean {' or '.join(repr(g) for g in close)}?)" if close else ""
    return ReportError("E_UNKNOWN_GAME", f"no game {game_id!r} in the warehouse{hint}")


# ----- the report as sections of formatted cells -------------------------------------------


@dataclass(frozen=True)
class Section:
    """One table of a report: a title, headers, which columns are numbers, formatted rows."""

    title: str
    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


@dataclass(frozen=True)
class Report:
    """A report: a title, a few summary lines, then its sections."""

    title: str
    lines: tuple[str, ...] = ()
    sections: tuple[Section, ...] = field(default_factory=tuple)


def number(value: Any, *, signed: bool = False) -> str:
    """A number as people read it: integers without ``.0``, thousands separated, a sign on
    request; ``—`` for none.

    >>> number(1234.0), number(-7.5), number(530, signed=True), number(0, signed=True), number(None)
    ('1,234', '-7.5', '+530', '0', '—')
    """
    if value is None:
        return "—"
    x = float(value)
    text = f"{int(x):,}" if x == int(x) else f"{x:,.2f}".rstrip("0").rstrip(".")
    return f"+{text}" if signed and x > 0 else text


def _when(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return "—" if value is None else str(value)


def _who(player_id: str, name: Any) -> str:
    return player_id if not name or name == player_id else f"{name} ({player_id})"


_DECIMAL = re.compile(r"[+-]?[\d,]+\.(\d+)")
_WHOLE = re.compile(r"[+-]?[\d,]+")


def same_decimals(cells: Sequence[str]) -> list[str]:
    """A column's numbers (as :func:`number` writes them) with as many decimals each as the
    most of any of them, so that amounts of a fractional stake read alike (``+220.0`` beside
    ``-112.5``, not ``+220``); other cells (``—``, empty) as they are.

    >>> same_decimals(["+220", "-112.5", "—", "1,000", "0.25"])
    ['+220.00', '-112.50', '—', '1,000.00', '0.25']
    >>> same_decimals(["3", "-4"])
    ['3', '-4']
    """
    places = max((len(m[1]) for c in cells if (m := _DECIMAL.fullmatch(c))), default=0)
    if not places:
        return list(cells)
    out = []
    for c in cells:
        if (m := _DECIMAL.fullmatch(c)) is not None:
            c += "0" * (places - len(m[1]))
        elif _WHOLE.fullmatch(c):
            c += "." + "0" * places
        out.append(c)
    return out


def _section(
    title: str, columns: Sequence[tuple[str, bool]], rows: Sequence[Sequence[str]], note: str = ""
) -> Section:
    numeric = tuple(n for _, n in columns)
    cells = [list(r) for r in rows]
    for k, is_number in enumerate(numeric):
        if is_number:
            for r, c in zip(cells, same_decimals([r[k] for r in cells]), strict=True):
                r[k] = c
    return Section(
        title=title,
        columns=tuple(c for c, _ in columns),
        numeric=numeric,
        rows=tuple(tuple(r) for r in cells),
        note=note,
    )


def assemble(sel: Selection, data: Mapping[str, Sequence[Row]]) -> Report:
    """The report of ``sel`` from its queries' rows (:func:`fetch_report`): the Big Two games
    as ever, then the Dou Dizhu games (:func:`ddz_part`); when the selection holds both games,
    each line and section names its game."""
    ddz = ddz_part(data, sel.tz)
    if not data["report_summary"]:
        return Report(title=sel.label(), lines=ddz.lines, sections=ddz.sections)
    big2 = _big2_part(sel, data)
    if not ddz.lines:
        return big2
    return Report(
        title=sel.label(),
        lines=(*(f"Big Two, {x}" for x in big2.lines), *ddz.lines),
        sections=(
            *(replace(x, title=f"Big Two: {x.title}") for x in big2.sections),
            *ddz.sections,
        ),
    )


def _big2_part(sel: Selection, data: Mapping[str, Sequence[Row]]) -> Report:
    lines: list[str] = []
    units = [s["unit"] for s in data["report_summary"]]
    for s in data["report_summary"]:
        counted = f"{s['n_games']:,} game{'s' if s['n_games'] != 1 else ''}"
        if s["n_scored"] != s["n_games"]:
            counted += f" ({s['n_games'] - s['n_scored']:,} redealt)"
        matches = f"{s['n_matches']:,} match{'es' if s['n_matches'] != 1 else ''}"
        span = ""
        if s["first_started"] is not None:
            span = f", {_when(s['first_started'])} → {_when(s['last_started'])} {sel.tz}"
        line = f"{s['unit']}: {counted} in {matches}, {s['n_players']:,} players{span}; "
        line += f"rulesets {s['rulesets']}"
        if s["has_bankroll"]:
            line += "; bankroll games: payments before the cap, net after cap beside"
        lines.append(line)
    names: dict[str, str] = {
        str(p["player_id"]): _who(p["player_id"], p["name"]) for p in data["report_players"]
    }

    def name_of(player_id: Any) -> str:
        return names.get(str(player_id), str(player_id))

    sections: list[Section] = []
    for unit in units:
        players = [p for p in data["report_players"] if p["unit"] == unit]
        capped = any(s["has_bankroll"] for s in data["report_summary"] if s["unit"] == unit)
        if unit == POINTS:
            cols = [("player", False), ("games", True), ("wins", True), ("points", True)]
        else:
            cols = [("player", False), ("games", True), ("wins", True), ("net", True)]
            if capped:
                cols.append(("after cap", True))
        cols += [("炒", True), ("包牌", True), ("place", True)]
        rows: list[list[str]] = []
        for p in players:
            row = [names[p["player_id"]], number(p["n_games"]), number(p["n_wins"])]
            if unit == POINTS:
                row.append(number(p["points"]))
            else:
                row.append(number(p["net"], signed=True))
                if capped:
                    row.append(number(p["net_after_cap"], signed=True))
            row += [number(p["n_chao"]), number(p["n_bao"]), number(p["place"])]
            rows.append(row)
        note = "lowest total wins" if unit == POINTS else ""
        sections.append(_section(f"Players ({unit})", cols, rows, note))
    if data["report_payments"]:
        rows = [
            [
                name_of(p["payer_id"]),
                name_of(p["receiver_id"]),
                number(p["amount"]),
                number(p["n_games"]),
            ]
            for p in data["report_payments"]
        ]
        cols = [("payer", False), ("receiver", False), ("amount", True), ("games", True)]
        sections.append(_section(f"Who paid whom ({MONEY})", cols, rows))
    if data["report_chao"]:
        rows = [
            [
                c["game_id"],
                name_of(c["player_id"]),
                number(c["cards_left"]),
                f"{c['tier_name'] or ''} ×{c['multiplier']}".strip(),
                number(c["penalty"]),
                c["unit"],
            ]
            for c in data["report_chao"]
        ]
        cols = [("game", False), ("player", False), ("cards", True), ("炒", False),
                ("penalty", True), ("unit", False)]  # fmt: skip
        sections.append(_section("炒 (multiplied losses)", cols, rows))
    if data["report_bao"]:
        rows = [
            [
                b["game_id"],
                name_of(b["violator_id"]),
                number(b["bao_paid"]),
                b["unit"],
                name_of(b["winner_id"]),
                "—" if b["step"] is None else f"step {b['step']}: {b['block_reason'] or ''}",
            ]
            for b in data["report_bao"]
        ]
        cols = [("game", False), ("paid by", False), ("paid", True), ("unit", False),
                ("winner let out", False), ("頂大 broken", False)]  # fmt: skip
        sections.append(_section("包牌 (a 頂大 failure pays for the others)", cols, rows))
    games = list(data["report_game_list"])
    if games:
        biggest = sorted(games, key=lambda g: (-(g["swing"] or 0), g["game_id"]))[:BIGGEST]
        rows = [
            [
                g["game_id"],
                g["winner"] or "—",
                number(g["winner_score"], signed=True),
                g["biggest_loser"] or "—",
                number(g["biggest_loss"], signed=True),
                g["unit"],
            ]
            for g in biggest
            if g["swing"]
        ]
        cols = [("game", False), ("winner", False), ("won", True), ("biggest loser", False),
                ("lost", True), ("unit", False)]  # fmt: skip
        sections.append(_section("Biggest games", cols, rows, "score: net money, or −points"))
        rows = [
            [
                number(g["game_number"]),
                g["game_id"],
                _when(g["started_local"]),
                g["winner"] or g["outcome"],
                number(g["winner_score"], signed=True),
                f"×{g['max_multiplier']}" if (g["max_multiplier"] or 1) > 1 else "",
                "包牌" if g["has_bao"] else "",
            ]
            for g in games
        ]
        cols = [("#", True), ("game", False), ("started", False), ("winner", False),
                ("won", True), ("炒", False), ("包牌", False)]  # fmt: skip
        sections.append(_section("Games", cols, rows))
    return Report(title=sel.label(), lines=tuple(lines), sections=tuple(sections))


def _spring(value: Any) -> str:
    return {"spring": "春天", "anti_spring": "反春"}.get(value or "", "")


def ddz_part(data: Mapping[str, Sequence[Row]], tz: str = "UTC") -> Report:
    """The Dou Dizhu part of a report (queries ``report_ddz_*``, none when the selection holds
    no Dou Dizhu game): a summary line (its times in the selection's time zone ``tz``, as the
    queries give them), the players with their landlord and farmer records,
    who paid whom (each farmer settles with the landlord), the biggest games and every game
    with its landlord, bid, bombs, rockets, spring and multiplier.

    >>> part = ddz_part({
    ...     "report_ddz_summary": [{"unit": "money", "n_games": 1, "n_scored": 1,
    ...         "n_matches": 1, "n_players": 3, "first_started": None, "last_started": None,
    ...         "rulesets": "ddz {}", "n_bombs": 2, "n_rockets": 1, "n_springs": 0,
    ...         "n_anti_springs": 0}],
    ...     "report_ddz_players": [{"player_id": "ana", "name": "ana", "n_games": 1,
    ...         "n_wins": 1, "n_landlord": 1, "n_landlord_wins": 1, "n_farmer": 0,
    ...         "n_farmer_wins": 0, "n_bombs": 3, "score": 48.0, "place": 1}],
    ...     "report_ddz_payments": [{"payer_id": "bo", "receiver_id": "ana", "amount": 24.0,
    ...         "n_games": 1}],
    ...     "report_ddz_game_list": [],
    ... })
    >>> part.lines[0]
    'Dou Dizhu, money: 1 game in 1 match, 3 players; rulesets ddz {}; 2 bombs, 1 rocket, 0 springs'
    >>> [s.title for s in part.sections]
    ['Dou Dizhu: players (money)', 'Dou Dizhu: who paid whom (money)']
    """
    summary = list(data.get("report_ddz_summary") or [])
    if not summary:
        return Report(title="")
    s = summary[0]
    counted = f"{s['n_games']:,} game{'s' if s['n_games'] != 1 else ''}"
    if s["n_scored"] != s["n_games"]:
        void = s["n_games"] - s["n_scored"]
        counted += f" ({void:,} void deal{'s' if void != 1 else ''})"
    matches = f"{s['n_matches']:,} match{'es' if s['n_matches'] != 1 else ''}"
    span = ""
    if s["first_started"] is not None:
        span = f", {_when(s['first_started'])} → {_when(s['last_started'])} {tz}"
    line = f"Dou Dizhu, {MONEY}: {counted} in {matches}, {s['n_players']:,} players{span}; "
    line += f"rulesets {s['rulesets']}; "
    line += ", ".join(
        [plural(s["n_bombs"], "bomb"), plural(s["n_rockets"], "rocket"),
         plural(s["n_springs"], "spring")]
        + ([plural(s["n_anti_springs"], "anti-spring")] if s["n_anti_springs"] else [])
    )  # fmt: skip
    players = list(data.get("report_ddz_players") or [])
    names = {str(p["player_id"]): _who(p["player_id"], p["name"]) for p in players}

    def name_of(player_id: Any) -> str:
        return names.get(str(player_id), str(player_id))

    sections: list[Section] = []
    cols = [("player", False), ("games", True), ("wins", True), ("landlord", True),
            ("l. wins", True), ("farmer", True), ("f. wins", True), ("bombs", True),
            ("net", True),
            ("place", True)]  # fmt: skip
    rows = [
        [
            names[str(p["player_id"])],
            number(p["n_games"]),
            number(p["n_wins"]),
            number(p["n_landlord"]),
            number(p["n_landlord_wins"]),
            number(p["n_farmer"]),
            number(p["n_farmer_wins"]),
            number(p["n_bombs"]),
            number(p["score"], signed=True),
            number(p["place"]),
        ]
        for p in players
    ]
    note = "games as landlord and as farmer, and wins; bombs: bombs and rockets played"
    sections.append(_section(f"Dou Dizhu: players ({MONEY})", cols, rows, note))
    payments = list(data.get("report_ddz_payments") or [])
    if payments:
        rows = [
            [name_of(p["payer_id"]), name_of(p["receiver_id"]), number(p["amount"]),
             number(p["n_games"])]
            for p in payments
        ]  # fmt: skip
        cols = [("payer", False), ("receiver", False), ("amount", True), ("games", True)]
        sections.append(_section(f"Dou Dizhu: who paid whom ({MONEY})", cols, rows))
    games = list(data.get("report_ddz_game_list") or [])

    def result(g: Row) -> str:
        if g["landlord_won"] is None:
            return "void deal"
        return "landlord" if g["landlord_won"] else "farmers"

    def bombs(g: Row) -> str:
        parts = [f"{g['bombs']} bomb{'s' if g['bombs'] != 1 else ''}"] if g["bombs"] else []
        parts += [f"{g['rockets']} rocket{'s' if g['rockets'] != 1 else ''}"] * bool(g["rockets"])
        return ", ".join(parts + ([_spring(g["spring"])] if g["spring"] else []))

    if games:
        biggest = sorted(games, key=lambda g: (-(g["swing"] or 0), g["game_id"]))[:BIGGEST]
        rows = [
            [g["game_id"], g["landlord"] or "—", number(g["bid"]), f"×{g['multiplier']}",
             bombs(g), result(g), number(g["amount"]), number(g["landlord_score"], signed=True)]
            for g in biggest
            if g["swing"]
        ]  # fmt: skip
        cols = [("game", False), ("landlord", False), ("bid", True), ("×", False),
                ("bombs, spring", False), ("won by", False), ("per farmer", True),
                ("landlord net", True)]  # fmt: skip
        note = "bid × 2^(bombs + rockets), ×2 for a spring where the rules say, up to the cap"
        sections.append(_section("Dou Dizhu: biggest games", cols, rows, note))
        rows = [
            [number(g["game_number"]), g["game_id"], _when(g["started_local"]),
             g["landlord"] or "—", number(g["bid"]),
             f"×{g['multiplier']}" if g["landlord_won"] is not None else "",
             result(g), number(g["landlord_score"], signed=True)]
            for g in games
        ]  # fmt: skip
        cols = [("#", True), ("game", False), ("started", False), ("landlord", False),
                ("bid", True), ("×", False), ("won by", False), ("landlord net", True)]  # fmt: skip
        sections.append(_section("Dou Dizhu: games", cols, rows))
    return Report(title="", lines=(line,), sections=tuple(sections))


# ----- text ----------------------------------------------------------------------------------


def width_of(text: str) -> int:
    """Terminal columns of ``text`` (East Asian wide characters take two).

    >>> width_of("炒 x"), width_of("abc")
    (4, 3)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fold(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns: words kept whole when they fit, a longer
    word cut by display width.

    >>> _fold("頂大: seat 1 holds one card", 12)
    ['頂大: seat 1', 'holds one', 'card']
    """
    width = max(width, 1)
    out: list[str] = []
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if width_of(joined) <= width:
            line = joined
            continue
        if line:
            out.append(line)
        line = ""
        for ch in word:  # a word alone on its line, cut when longer than the column
            if width_of(line + ch) > width and line:
                out.append(line)
                line = ""
            line += ch
    out.append(line)
    return out


def _pad(text: str, width: int, right: bool) -> str:
    gap = " " * max(width - width_of(text), 0)
    return gap + text if right else text + gap


def render_section(section: Section, width: int = 80) -> str:
    """One section as a plain-text table: numbers right-aligned and never cut; when the table
    is wider than ``width``, its text columns fold onto more lines (numbers keep their width,
    so a table of numbers alone may stay wider than ``width``).

    >>> s = Section("T", ("name", "n"), (False, True), (("a very long name indeed", "12,345"),))
    >>> print(render_section(s, width=20))
    T
    name               n
    ------------  ------
    a very long   12,345
    name indeed
    """
    n = len(section.columns)
    widths = [
        max([width_of(section.columns[i]), *(width_of(r[i]) for r in section.rows)])
        for i in range(n)
    ]
    texts = [i for i in range(n) if not section.numeric[i]]
    total = sum(widths) + 2 * (n - 1)
    while total > width and texts:
        widest = max(texts, key=lambda i: widths[i])
        floor = max(width_of(section.columns[widest]), 6)
        if widths[widest] <= floor:
            texts.remove(widest)
            continue
        widths[widest] -= 1
        total -= 1
    title = f"{section.title} ({section.note})" if section.note else section.title
    lines = _fold(title, width)  # a long note (the Dou Dizhu sections') folds too
    header = [_fold(c, widths[i]) for i, c in enumerate(section.columns)]
    body = [[_fold(c, widths[i]) for i, c in enumerate(r)] for r in section.rows]
    rule = [["-" * w] for w in widths]
    for cells in [header, rule, *body]:
        height = max(len(c) for c in cells)
        for k in range(height):
            parts = [
                _pad(cells[i][k] if k < len(cells[i]) else "", widths[i], section.numeric[i])
                for i in range(n)
            ]
            lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def render_text(report: Report, width: int = 80) -> str:
    """The report as plain text (a terminal, a pipe, a file): title, summary lines, tables."""
    parts = [report.title, *(line for x in report.lines for line in _fold(x, width))]
    out = "\n".join(parts)
    for section in report.sections:
        out += "\n\n" + render_section(section, width)
    return out


# ----- HTML ----------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border-bottom: 1px solid #ccc; padding: 0.2em 0.7em; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td:first-child { white-space: nowrap; }
.note { color: #555; font-size: 0.9em; }
@media print { body { margin: 0; } h2 { break-after: avoid; } tr { break-inside: avoid; } }
"""


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (inline CSS, no script, no external asset;
    every text escaped).

    >>> page = render_html(Report("<script>", ("a & b",)))
    >>> "&lt;script&gt;" in page and "<script>" not in page and "a &amp; b" in page
    True
    """
    e = html.escape
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(report.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
        *(f"<p>{e(line)}</p>" for line in report.lines),
    ]
    for s in report.sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        if s.note:
            out.append(f'<p class="note">{e(s.note)}</p>')
        out.append("<table><thead><tr>")
        out.extend(
            f"<th{' class=n' if s.numeric[i] else ''}>{e(c)}</th>" for i, c in enumerate(s.columns)
        )
        out.append("</tr></thead><tbody>")
        for row in s.rows:
            cells = (
                f"<td{' class=n' if s.numeric[i] else ''}>{e(c)}</td>" for i, c in enumerate(row)
            )
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
    out.append("<p class=note>big2-replay report</p></body></html>")
    return "\n".join(out) + "\n"


# ----- one game: a hand history and a log line ---------------------------------------------


@dataclass(frozen=True)
class GameData:
    """One stored game's rows (``export_game``, ``export_seats``, ``export_actions``,
    ``export_payments``)."""

    game: Row
    seats: tuple[Row, ...]
    actions: tuple[Row, ...]
    payments: tuple[Row, ...] = ()


def fetch_game(con: duckdb.DuckDBPyConnection, game_id: str) -> GameData:
    """A stored game's rows, Big Two or Dou Dizhu (``export_ddz_*``: its ``game_kind`` is
    ``doudizhu``); an unknown id is ``E_UNKNOWN_GAME``."""
    found = run_query(con, "export_game", game_id=game_id)
    if not found:
        ddz = run_query(con, "export_ddz_game", game_id=game_id)
        if not ddz:
            raise unknown_game(con, game_id)
        seats = tuple(run_query(con, "export_ddz_seats", game_id=game_id))
        return GameData(
            game=ddz[0],
            seats=seats,
            actions=tuple(run_query(con, "export_ddz_actions", game_id=game_id)),
            payments=ddz_payments(seats),
        )
    return GameData(
        game=found[0],
        seats=tuple(run_query(con, "export_seats", game_id=game_id)),
        actions=tuple(run_query(con, "export_actions", game_id=game_id)),
        payments=tuple(run_query(con, "export_payments", game_id=game_id)),
    )


def _compact(mask: int) -> str:
    return format_cards(mask, compact=True)


def _stock(data: GameData) -> list[str]:
    """The undealt cards: the cards drawn (in draw order), then the others, lowest first."""
    dealt = 0
    for s in data.seats:
        dealt |= int(s["deal_mask"])
    drawn = [int(a["drawn"]) for a in data.actions if a["drawn"] is not None]
    rest = [c for c in cards_of(((1 << 52) - 1) & ~dealt) if c not in drawn]
    return [format_card(c, compact=True) for c in [*drawn, *rest]]


def _start_counts(data: GameData) -> list[int]:
    """Partial information: each seat's cards before the first action."""
    first = data.actions[0]
    counts = [int(n) for n in first["cards_left"]]
    if first["action_type"] == "play":
        counts[int(first["seat"])] += int(first["cards_mask"]).bit_count()
    elif first["action_type"] == "pass" and first["drawn"] is not None:
        counts[int(first["seat"])] -= 1
    return counts


def _previous_winner(data: GameData) -> int | None:
    """The ``previous_winner`` that makes the replay lead as stored (the warehouse does not
    keep the log's): under ``first_lead = lowest_card_then_winner`` the previous winner leads a
    later game of a match, so a later game names its first leader; game 1 names none. With
    partial information the first leader is given anyway, and what matters is whether the first
    play had to hold the lowest card (``unchecked`` lists ``first_play_lowest`` then): only
    when no previous winner was known."""
    g = data.game
    if g["first_leader"] is None:
        return None
    if not g["full_info"]:
        first = list(data.actions[0]["unchecked"] or []) if data.actions else []
        return None if "first_play_lowest" in first else int(g["first_leader"])
    return int(g["first_leader"]) if int(g["game_number"]) > 1 else None


def is_ddz(data: GameData) -> bool:
    """Whether ``data`` is a Dou Dizhu game (``game_kind = 'doudizhu'``)."""
    return data.game.get("game_kind") == "doudizhu"


def ddz_payments(seats: Sequence[Row]) -> tuple[Row, ...]:
    """Who paid whom in a Dou Dizhu game: each farmer settles with the landlord alone (a
    farmer's negative score goes to the landlord, a positive one comes from the landlord).

    >>> ddz_payments([{"seat": 0, "role": "landlord", "score": 48},
    ...               {"seat": 1, "role": "farmer", "score": -24},
    ...               {"seat": 2, "role": "farmer", "score": -24}])  # doctest: +NORMALIZE_WHITESPACE
    ({'payer_seat': 1, 'receiver_seat': 0, 'amount': 24},
     {'payer_seat': 2, 'receiver_seat': 0, 'amount': 24})
    """
    landlord = next((int(s["seat"]) for s in seats if s["role"] == "landlord"), None)
    out: list[Row] = []
    for s in seats:
        if landlord is None or s["role"] != "farmer" or not s["score"]:
            continue
        farmer, score = int(s["seat"]), s["score"]
        payer, receiver = (farmer, landlord) if score < 0 else (landlord, farmer)
        out.append({"payer_seat": payer, "receiver_seat": receiver, "amount": abs(score)})
    return tuple(out)


def _ddz_cards(mask: Any) -> str:
    from pipeline.doudizhu.cards import format_cards as ddz_format

    return ddz_format(int(mask))


def ddz_log_line(data: GameData) -> dict[str, Any]:
    """A Dou Dizhu game as a log object (docs/log-format.md, "Dou Dizhu") that re-imports to
    the same rows: the envelope, the full deal (hands, kitty, set-aside and face-up cards) when
    it is known, the first bidder, the auction and the plays (each play names the kind it was
    read as, so an ambiguous set reads the same), and the result's facts."""
    g = data.game
    obj: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "doudizhu",
        "game_id": g["game_id"],
        "ruleset": {"preset": g["ruleset"], "overrides": json.loads(g["overrides"] or "{}")},
        "match_id": g["match_id"],
        "game_number": g["game_number"],
        "table_id": g["table_id"],
    }
    if g["tournament_id"] is not None:
        obj["tournament_id"] = g["tournament_id"]
    obj["started_at"] = g["started_at"]
    seats = []
    for s in data.seats:
        entry: dict[str, Any] = {"seat": int(s["seat"]), "player_id": s["player_id"]}
        if s["name"] is not None:
            entry["name"] = s["name"]
        if s["balance"] is not None:
            entry["balance"] = s["balance"]
        seats.append(entry)
    obj["seats"] = seats
    if g["full_info"]:
        deal: dict[str, Any] = {"hands": [_ddz_cards(s["deal_mask"]) for s in data.seats]}
        if g["kitty_mask"] is not None:
            deal["kitty"] = _ddz_cards(g["kitty_mask"])
        if g["set_aside_mask"] is not None:
            deal["set_aside"] = _ddz_cards(g["set_aside_mask"])
        if g["face_up_card"] is not None:
            deal["face_up_card"] = _ddz_cards(1 << int(g["face_up_card"]))
        obj["deal"] = deal
    if g["first_bidder"] is not None:
        obj["first_bidder"] = int(g["first_bidder"])
    actions = []
    for a in data.actions:
        act: dict[str, Any] = {"seat": int(a["seat"]), "action": a["action_type"]}
        if a["action_type"] == "bid":
            act["value"] = int(a["bid"])
        elif a["action_type"] == "play":
            act["cards"] = _ddz_cards(a["cards_mask"])
            if a["kind"] is not None:
                act["kind"] = a["kind"]
        if a["ts_epoch"] is not None:
            act["ts"] = float(a["ts_epoch"])
        actions.append(act)
    obj["actions"] = actions
    result: dict[str, Any] = {"outcome": g["outcome"]}
    if g["landlord"] is not None:
        result["landlord"] = int(g["landlord"])
    if g["winner"] is not None:
        result.update(
            winner=int(g["winner"]),
            landlord_won=bool(g["landlord_won"]),
            bombs=int(g["bombs"]),
            rockets=int(g["rockets"]),
            spring=g["spring"],
        )
    obj["result"] = result
    return obj


def log_line(data: GameData) -> dict[str, Any]:
    """The game as a log object (docs/log-format.md) that re-imports to the same rows.

    Its content hash is that of this object, not of the line first imported (the hash covers
    the whole original record: its card notation, time format, ``truth`` …), so importing it
    into the warehouse it came from is usually an ``E_CONFLICT``; into another warehouse, and
    again, it is the same game. A game known only by its result (a score sheet's line) has no
    log line: ``E_RESULT_ONLY``. A Dou Dizhu game: :func:`ddz_log_line`."""
    if is_ddz(data):
        return ddz_log_line(data)
    g = data.game
    if g.get("info_level") == "result":
        raise ReportError(
            "E_RESULT_ONLY",
            f"game {g['game_id']!r} is known only by its result (a score sheet's line, "
            f"{g['source_file']}:{g['source_line']}): no hand-log line re-imports it; "
            "export it as text, or re-import the sheet",
        )
    obj: dict[str, Any] = {
        "format_version": 1,
        "game_kind": g["game_kind"],
        "game_id": g["game_id"],
        "ruleset": {"preset": g["ruleset"], "overrides": json.loads(g["overrides"] or "{}")},
        "match_id": g["match_id"],
        "game_number": g["game_number"],
        "table_id": g["table_id"],
    }
    for key in ("tournament_id", "tournament_kind", "tournament_round"):
        if g[key] is not None:
            obj[key] = g[key]
    obj["started_at"] = g["started_at"]
    seats = []
    for s in data.seats:
        entry: dict[str, Any] = {"seat": int(s["seat"]), "player_id": s["player_id"]}
        if s["name"] is not None:
            entry["name"] = s["name"]
        if s["balance"] is not None:
            entry["balance"] = s["balance"]
        seats.append(entry)
    obj["seats"] = seats
    if g["full_info"]:
        obj["deal"] = {
            "hands": [_compact(int(s["deal_mask"])) for s in data.seats],
            "stock": _stock(data),
        }
    elif data.actions:
        obj["start_counts"] = _start_counts(data)
    obj["previous_winner"] = _previous_winner(data)
    obj["first_leader"] = g["first_leader"]
    actions = []
    for a in data.actions:
        act: dict[str, Any] = {"seat": int(a["seat"]), "action": a["action_type"]}
        if a["action_type"] == "play":
            act["cards"] = _compact(int(a["cards_mask"]))
        elif a["action_type"] == "claim":
            act["claim"] = a["claim"]
        elif a["action_type"] == "pass" and a["drawn"] is not None:
            act["drawn"] = format_card(int(a["drawn"]), compact=True)
        if a["ts_epoch"] is not None:
            act["ts"] = float(a["ts_epoch"])
        actions.append(act)
    obj["actions"] = actions
    if g["winner"] is not None:
        obj["result"] = {
            "winner": int(g["winner"]),
            "cards_left": [int(s["cards_left"]) for s in data.seats],
        }
    return obj


def _wrapped(lines: Sequence[str], width: int) -> list[str]:
    """Lines longer than ``width`` columns continue on lines indented four more."""
    out: list[str] = []
    for line in lines:
        if width_of(line) <= width:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        first, *rest = _fold(line.strip(), width - len(indent))
        out.append(line[: len(line) - len(line.lstrip())] + first)
        out.extend(indent + r for r in rest)
    return out


def _history_head(data: GameData, kind: str) -> tuple[dict[int, str], list[str]]:
    """A hand history's seats (seat → who) and its opening lines: the game (``kind`` after its
    id), match, ruleset, source, and the "Deal" heading."""
    g = data.game
    who = {int(s["seat"]): _who(s["player_id"], s["name"]) for s in data.seats}
    ruleset = g["ruleset"] + ("" if g["overrides"] in (None, "{}") else f" {g['overrides']}")
    lines = [
        f"Game {g['game_id']}{kind}",
        f"match {g['match_id'] or '—'} game {g['game_number']} · {g['players']} players · "
        f"started {g['started_at'] or '—'}",
        f"ruleset {ruleset}",
        f"source {g['source_file']}:{g['source_line']}",
        "",
        "Deal" + ("" if g["full_info"] else " (partial information: only the plays are known)"),
    ]
    return who, lines


def hand_history(data: GameData, width: int = 80) -> str:
    """The game as a readable hand history: the deal, each trick's plays and passes with seat
    and player, 頂大 obligations, the result and who paid whom; lines longer than ``width``
    columns continue on the next. A Dou Dizhu game: :func:`ddz_hand_history`."""
    if is_ddz(data):
        return ddz_hand_history(data, width)
    g = data.game
    who, lines = _history_head(data, "")

    def seat(n: Any) -> str:
        return f"seat {int(n)} {who.get(int(n), '?')}"

    if g.get("info_level") == "result":
        lines[-1] = "Seats (result only: a score sheet's line, no deal and no plays)"
    for s in data.seats:
        hand = s["deal_text"] if s["deal_text"] else "—"
        lines.append(f"  {seat(s['seat'])}: {hand}")
    trick = None
    for a in data.actions:
        if a["trick"] != trick:
            trick = a["trick"]
            lines.append(f"Trick {trick}")
        step = int(a["action_index"]) + 1
        kind = a["action_type"]
        if kind == "play":
            what = f"plays {(a['kind'] or '').replace('_', ' ')} {a['cards_text']}"
            if a["wins_game"]:
                what += " and goes out"
            if a.get("last_call") == "missing":
                what += ", no last-card call"
        elif kind == "pass":
            what = "passes" + (f", draws {a['drawn_text']}" if a["drawn_text"] else "")
        elif kind == "claim":
            what = f"claims {a['claim']}"
        elif kind == "announce":
            what = "calls its last card"
        else:
            what = f"swaps {a['cards_text']}"
        lines.append(f"  {step:>3}. {seat(a['seat'])} {what}")
        if a["obligation"]:
            need = {
                "lead_non_single_or_highest_single": "lead a non-single or the highest single",
                "follow_with_highest_single": "follow with the highest single",
            }.get(a["obligation"], a["obligation"])
            why = f" ({a['block_reason']})" if a["block_reason"] else ""
            lines.append(
                f"       頂大: {seat(a['next_seat'])} holds one card; must {need}: "
                f"{a['block']}{why}"
            )
    lines.append("")
    if g["winner"] is None:
        lines.append(f"Result: {g['outcome']} ({g['claim'] or ''}), nothing scored")
    else:
        how = g["outcome"].replace("_", " ") + (f" by {g['claim']}" if g["claim"] else "")
        lines.append(f"Result: {seat(g['winner'])} wins ({how})")
    for s in data.seats:
        if s["unit"] is None:
            continue
        result = number(s["points"]) + " points" if s["unit"] == POINTS else ""
        if s["unit"] != POINTS:
            result = number(s["net"], signed=True)
        tier = f" {s['tier_name'] or ''} ×{s['multiplier']}" if (s["multiplier"] or 1) > 1 else ""
        bao = f" 包牌: pays {number(s['bao_paid'])} for the others" if s["is_bao_payer"] else ""
        hand = "" if g.get("info_level") == "result" else f" ({s['final_hand_text'] or '?'})"
        left = f"{s['cards_left']} left{hand}" if s["cards_left"] else ""
        lines.append(f"  {seat(s['seat'])}: {left or 'out'}{tier} → {result}{bao}")
    if data.payments:
        lines.append(f"Payments ({MONEY}, before any bankroll cap)")
        for p in data.payments:
            lines.append(
                f"  {seat(p['payer_seat'])} pays {seat(p['receiver_seat'])} {number(p['amount'])}"
            )
    elif any(s["unit"] == POINTS for s in data.seats):
        lines.append("Penalty points: no money changes hands (lowest total wins the match)")
    return "\n".join(_wrapped(lines, width))


_AUCTION_WORDS = {"call": "calls the landlord (叫地主)", "no_call": "does not call (不叫)"}


def ddz_hand_history(data: GameData, width: int = 80) -> str:
    """A Dou Dizhu game as a readable hand history: the deal with the jokers, the kitty (底牌)
    and for 2 players the cards set aside, the auction and who became the landlord, each
    round's plays and passes with the multiplier after every bomb or rocket, the result (春天 /
    反春, bid × multiplier) and who paid whom; lines longer than ``width`` continue on the next.
    """
    g = data.game
    who, lines = _history_head(data, " (Dou Dizhu)")

    def seat(n: Any) -> str:
        return f"seat {int(n)} {who.get(int(n), '?')}"

    for s in data.seats:
        hand = s["deal_text"] if s["deal_text"] else "—"
        lines.append(f"  {seat(s['seat'])}: {hand}")
    if g["kitty_text"]:
        lines.append(f"  kitty (底牌): {g['kitty_text']}")
    if g["set_aside_text"]:
        lines.append(f"  set aside: {g['set_aside_text']}")
    if g["face_up_card_text"]:
        lines.append(f"  face-up card: {g['face_up_card_text']}")
    if data.actions and data.actions[0]["phase"] == "auction":
        lines.append("Auction")
    trick = 0
    multiplier = 1
    for a in data.actions:
        step = int(a["action_index"]) + 1
        kind = a["action_type"]
        if a["phase"] == "play" and a["trick"] != trick:
            trick = a["trick"]
            lines.append(f"Round {trick}")
        if kind == "bid":
            what = "passes (不叫)" if not a["bid"] else f"bids {a['bid']}"
        elif kind == "play":
            what = f"plays {(a['kind'] or '').replace('_', ' ')} {a['cards_text']}"
            if a["multiplier"] is not None and int(a["multiplier"]) != multiplier:
                multiplier = int(a["multiplier"])
                what += f" → ×{multiplier}"
            if a["wins_game"]:
                what += " and goes out"
        elif kind == "pass":
            what = "passes"
        else:
            what = _AUCTION_WORDS.get(str(kind), str(kind))
        lines.append(f"  {step:>3}. {seat(a['seat'])} {what}")
        if a["ends_auction"] and g["landlord"] is not None:
            took = f"; takes the kitty {g['kitty_text']}" if g["kitty_text"] else ""
            lines.append(f"       landlord: {seat(g['landlord'])}, bid {g['bid']}{took}")
    lines.append("")
    if g["landlord"] is None:
        lines.append(f"Result: {g['outcome']} (a void deal: nobody bid), nothing scored")
    else:
        side = "the landlord wins" if g["landlord_won"] else "the farmers win"
        spring = {"spring": ", spring (春天)", "anti_spring": ", anti-spring (反春)"}.get(
            g["spring"] or "", ""
        )
        lines.append(f"Result: {seat(g['winner'])} goes out first; {side}{spring}")
        first = data.seats[0] if data.seats else {}
        if first.get("multiplier") is not None:
            lines.append(
                f"  bid {g['bid']}, multiplier ×{first['multiplier']} "
                f"({plural(g['bombs'], 'bomb')}, {plural(g['rockets'], 'rocket')}): "
                f"{number(first['amount'])} per farmer"
            )
    for s in data.seats:
        role = s["role"] or "—"
        left = (
            f"{s['cards_left']} left ({s['final_hand_text'] or '?'})" if s["cards_left"] else "out"
        )
        score = "" if s["score"] is None else f" → {number(s['score'], signed=True)}"
        lines.append(f"  {seat(s['seat'])}: {role}, {left}{score}")
    if data.payments:
        lines.append(f"Payments ({MONEY})")
        for p in data.payments:
            lines.append(
                f"  {seat(p['payer_seat'])} pays {seat(p['receiver_seat'])} {number(p['amount'])}"
            )
    return "\n".join(_wrapped(lines, width))
