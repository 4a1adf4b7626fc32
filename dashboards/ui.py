"""Shared page helpers: the friendly empty-warehouse message, cards as HTML, replay links (the
sidebar is :mod:`dashboards.sidebar`, the tables :mod:`dashboards.tables`, both re-exported).

Cards are drawn with the project's own printers' tables (:mod:`pipeline.cards`): rank text and
suit symbol, red for ♦ and ♥.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboards import data, terms
from dashboards.sidebar import FILTER_KEYS as FILTER_KEYS
from dashboards.sidebar import all_label as all_label
from dashboards.sidebar import current_filters as current_filters
from dashboards.sidebar import filters_caption as filters_caption
from dashboards.sidebar import sidebar_filters as sidebar_filters
from dashboards.tables import LABELS as LABELS
from dashboards.tables import PALETTE as PALETTE
from dashboards.tables import SCORE_FORMAT as SCORE_FORMAT
from dashboards.tables import SCORE_UNIT as SCORE_UNIT
from dashboards.tables import display_zone as display_zone
from dashboards.tables import download_csv as download_csv
from dashboards.tables import label as label
from dashboards.tables import step_of as step_of
from dashboards.tables import steps as steps
from dashboards.tables import table as table
from dashboards.tables import when as when
from pipeline.cards import RANK_TEXT, SUIT_SYMBOL, cards_of

RED_SUITS = frozenset({0, 2})  # ♦ ♥
REPLAYER_PATH = "replayer"

IMPORT_HINT = (
    "Import some games to get started:\n\n"
    "```\nbig2 ingest data/samples/games.jsonl --warehouse {root}\n```\n\n"
    "then reload this page."
)


def require_games(*, allow_empty: bool = False) -> bool:
    """Show a friendly message (never a traceback) unless the warehouse holds games.

    ``allow_empty``: an empty warehouse (imports that stored no game) is good enough, e.g. for
    import health.
    """
    state, message = data.status()
    if state is data.State.READY or (allow_empty and state is data.State.EMPTY):
        return True
    if state is data.State.BROKEN:
        st.error(message)
        return False
    st.info(f"**{message}** " + IMPORT_HINT.format(root=data.root()), icon="📥")
    return False


# ----- filters ---------------------------------------------------------------------------------


def term(value: str) -> str:
    """``value`` with the game terms in the chosen locale (:func:`dashboards.terms.text`)."""
    return terms.text(value)


def title(value: object) -> str:
    """A rank-ladder title in the chosen locale (:func:`dashboards.terms.title`)."""
    return str(terms.title(value))


# ----- cards -----------------------------------------------------------------------------------

CARD_CSS = """
<style>
.b2-card { display:inline-block; min-width:2.1em; padding:0.1em 0.25em; margin:0 0.12em 0.2em 0;
  border:1px solid #bbb; border-radius:0.3em; background:#fff; text-align:center;
  font-weight:600; font-family: ui-monospace, monospace; }
.b2-red { color:#d32f2f; } .b2-black { color:#111; }
.b2-back { color:#777; background:repeating-linear-gradient(45deg,#eee,#eee 3px,#ddd 3px,#ddd 6px); }
.b2-seat { padding:0.45em 0.6em; border-radius:0.5em; border:1px solid #e3e3e3; margin-bottom:0.4em; }
.b2-turn { border:2px solid #1976d2; background:#f1f7fe; }
.b2-winner { border:2px solid #2e7d32; background:#f1faf1; }
.b2-dingdai { border:2px solid #ef6c00; background:#fff6ec; }
</style>
"""


def card_html(c: int) -> str:
    colour = "b2-red" if c & 3 in RED_SUITS else "b2-black"
    return f'<span class="b2-card {colour}">{RANK_TEXT[c >> 2]}{SUIT_SYMBOL[c & 3]}</span>'


def cards_html(mask: int | None, *, count: int | None = None) -> str:
    """A card set as coloured HTML; unknown cards (``mask`` None) as ``count`` card backs."""
    if mask is None:
        n = count or 0
        return '<span class="b2-card b2-back">?</span>' * n if n else "<i>unknown</i>"
    if mask == 0:
        return "<i>none</i>"
    return "".join(card_html(c) for c in cards_of(mask))


def text(value: object) -> str:
    return html.escape(str(value))


# ----- links to the replayer ------------------------------------------------------------------


def first_rows(frame: pd.DataFrame, what: str, rows: int | None = None) -> pd.DataFrame:
    """The first ``rows`` (:data:`data.LIST_ROWS`) rows of ``frame``, a list of ``what`` read
    with one row more (:func:`data.listing`); says so on the page when it had more."""
    n = data.LIST_ROWS if rows is None else rows
    if len(frame) > n:
        st.caption(
            f"The first {n:,} {what}; there are more: narrow them with the filters, "
            "or query them all in the SQL explorer."
        )
    return frame.head(n)


def with_replay_links(
    frame: pd.DataFrame, column: str = "game_id", *, step: str | None = None
) -> pd.DataFrame:
    """Add a ``replay`` link column (opens the hand replayer on that game, at the step held in
    column ``step`` when given)."""
    out = frame.copy()
    games = out[column].tolist()
    steps = out[step].tolist() if step else [None] * len(games)
    links = [
        f"{REPLAYER_PATH}?{urlencode({'game_id': g, **({'step': int(k)} if k is not None else {})})}"
        for g, k in zip(games, steps, strict=True)
    ]
    out.insert(0, "replay", pd.Series(links, index=out.index, dtype=object))
    return out


HOURS = st.column_config.NumberColumn("hours", format="%.2f")
#: How the rate figures are computed (``dash_player_rates``), said under them.
RATES_NOTE = (
    "Per game: the score ÷ the games. Per hour: the score of the timed games ÷ their hours at the "
    "table. The logs have start times only, so a game lasts until the player's next game starts "
    "when that is within {gap} minutes, else as long as the typical game (the median of those "
    "times); a game without a start time has none, and no per-hour figure is shown without times."
)
REPLAY_LINK = st.column_config.LinkColumn("replay", display_text="▶ replay", width="small")
WIN_PCT = st.column_config.ProgressColumn("win %", min_value=0, max_value=100, format="%.1f")


def run_page(page: Any) -> None:
    """Run the page; a query the warehouse's SQL layers are too old for (``E_SQL_NOT_BUILT``)
    is a message saying to run ``big2 build``, not a traceback."""
    try:
        page.run()
    except data.QueryError as err:
        if err.code != "E_SQL_NOT_BUILT":
            raise
        st.info(
            f"This view needs the SQL marts as this version builds them: run "
            f"`big2 build --warehouse {data.root()}`, then reload. ({err.message})",
            icon="🧮",
        )


def marts_ready(*names: str) -> bool:
    """Whether the marts ``names`` are built; if not, say how to build them (no traceback)."""
    if data.marts_built(*names):
        return True
    st.info(
        f"This view reads the SQL marts ({', '.join(f'`{n}`' for n in names)}), not built in "
        f"this warehouse yet: run `big2 build --warehouse {data.root()}` (`big2 ingest` runs it "
        "too), then reload.",
        icon="🧮",
    )
    return False
