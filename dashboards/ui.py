"""Shared page helpers: the friendly empty-warehouse message, the sidebar filters, cards as HTML.

Cards are drawn with the project's own printers' tables (:mod:`pipeline.cards`): rank text and
suit symbol, red for ♦ and ♥.
"""

from __future__ import annotations

import html
from datetime import date
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboards import data, ddz_data
from pipeline.cards import RANK_TEXT, SUIT_SYMBOL, cards_of

FILTERS_KEY = "filters"
TZ_KEY = "f_tz"
#: Display time zones offered in the sidebar (UTC first, the default; any IANA name can be typed).
ZONES = ["UTC", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Shanghai", "Europe/London"]
#: The one precision of every time shown: to the minute.
TIME_FORMAT = "%Y-%m-%d %H:%M"
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


#: The filter widgets' keys (kept across a page that does not draw them).
FILTER_KEYS = ("f_ruleset", "f_match", "f_player", "f_from", "f_to")


def sidebar_filters(*, shown: bool = True) -> data.Filters:
    """The shared filters (ruleset, period, match, player) and the display time zone in the
    sidebar.

    Called by ``app.py`` on every page; the result is stored under
    ``st.session_state["filters"]``. ``shown=False`` (a page that ignores the filters: SQL
    explorer, Import health) draws only the time zone and keeps the filters' values for the
    next page that shows them.
    """
    if not shown:
        for key in (*FILTER_KEYS, "f_tz"):
            if key in st.session_state:  # a widget not drawn this run would lose its value
                st.session_state[key] = st.session_state[key]
        with st.sidebar:
            _zone_choice()
        return current_filters()
    state, _ = data.status()
    if state is not data.State.READY:
        st.session_state[FILTERS_KEY] = data.NO_FILTERS
        with st.sidebar:
            _zone_choice()
        return data.NO_FILTERS
    opts = ddz_data.filter_options() if ddz_data.chosen() else data.filter_options()
    with st.sidebar:
        st.markdown("### Filters")
        ruleset = st.selectbox(
            "Ruleset", [None, *opts.rulesets], format_func=all_label, key="f_ruleset"
        )
        match_id = id_choice("Match", opts.matches, opts.n_matches, key="f_match",
                             kept="the most recent")  # fmt: skip
        player_id = id_choice("Player", opts.players, opts.n_players, key="f_player",
                              kept="the most active")  # fmt: skip
        bounds: dict[str, Any] = {"min_value": opts.first, "max_value": opts.last}
        date_from = st.date_input("From", value=None, key="f_from", **bounds)
        date_to = st.date_input("To", value=None, key="f_to", **bounds)
        st.button("Clear filters", key="f_clear", on_click=_clear_filters)
        _zone_choice()
    filters = data.Filters(
        ruleset=ruleset,
        match_id=match_id,
        player_id=player_id,
        date_from=date_from if isinstance(date_from, date) else None,
        date_to=date_to if isinstance(date_to, date) else None,
    )
    st.session_state[FILTERS_KEY] = filters
    return filters


def _zone_choice() -> None:
    st.selectbox("Display time zone", ZONES, key=TZ_KEY, accept_new_options=True,
                 help="Every time in the tables is shown in this zone, to the minute")  # fmt: skip


def id_choice(label: str, ids: list[str], n_all: int, *, key: str, kept: str) -> str | None:
    """A selection of one id among ``ids`` (or all). When ``ids`` is a cut of ``n_all`` (a
    list of 10^5 players is not sent to the browser on every rerun), any other id can be typed
    in, and the current choice stays listed."""
    cut = n_all > len(ids)
    current = st.session_state.get(key)
    options = [None, *ids, *([current] if cut and current and current not in ids else [])]
    help_text = (
        f"{kept} {len(ids):,} of {n_all:,}; type any other id and press Enter" if cut else None
    )
    value = st.selectbox(label, options, format_func=all_label, key=key, help=help_text,
                         accept_new_options=cut)  # fmt: skip
    return None if value is None else str(value)


def all_label(value: str | None) -> str:
    return "(all)" if value is None else str(value)


def _clear_filters() -> None:
    for key in FILTER_KEYS:
        st.session_state[key] = None


def current_filters() -> data.Filters:
    """The filters chosen in the sidebar (none when the page runs alone)."""
    value = st.session_state.get(FILTERS_KEY)
    return value if isinstance(value, data.Filters) else data.NO_FILTERS


def filters_caption(f: data.Filters) -> None:
    parts = [f"{k.replace('_', ' ')}: {v}" for k, v in f.params().items() if v is not None]
    st.caption("Filters: " + ("; ".join(parts) if parts else "none (all games)"))


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


# ----- tables: one label map, one number and time format ------------------------------------

#: Line colours of the charts: 24 (Plotly's default has 10 and repeats them), so no two
#: players of the winnings graph (at most ``data.WINNINGS_PLAYERS``) share a colour.
PALETTE: list[str] = list(px.colors.qualitative.Dark24)

#: Units of every score: the game's own (money, or − penalty points as the ruleset says).
SCORE_UNIT = "money, or − penalty points"

#: Column name → the header people read, for every table of every page (names not listed
#: read with spaces for underscores, :func:`label`).
LABELS: dict[str, str] = {
    "game_id": "game",
    "match_id": "match",
    "player_id": "player",
    "partner_id": "partner",
    "game_number": "game no.",
    "started_at": "started",
    "last_game": "last game",
    "first_game": "first game",
    "last_import": "last import",
    "n_games": "games",
    "n_players": "players",
    "n_matches": "matches",
    "n_actions": "actions",
    "n_tricks": "tricks",
    "n_rejects": "rejects",
    "n_obligations": "obligations",
    "n_cell_actions": "actions (in this cell)",
    "n_cell_opportunities": "opportunities (in this cell)",
    "cards_left": "cards left",
    "is_winner": "winner",
    "final_hand_text": "final hand",
    "cards_text": "cards",
    "top_before_text": "on the table before",
    "action_type": "action",
    "block_reason": "why",
    "violated_then_out": "violated, then next went out",
    "next_went_out": "next went out",
    "bao": "包牌",
    "bao_possible": "包牌 possible",
    "bao_paid": "包牌 paid",
    "soft_feed": "soft feed (gave the next a way out)",
    "tier_name": "炒",
    "violation_pct": "violation %",
    "win_pct": "win %",
    "p_value": "p-value",
    "p_combined": "p (combined)",
    "p_bonferroni": "p (Bonferroni)",
    "q_value": "q-value",
    "player_rate": "player",
    "winners_rate": "winners",
    "player_opportunities": "player's opportunities",
    "winners_opportunities": "winners' opportunities",
    "title": "rank-ladder title",
    "whatif_rank": "what-if rank",
    "whatif_title": "what-if title",
    "rank_change": "rank change",
    "own_ruleset_id": "ruleset",
    "source_file": "file",
    "source_line": "line",
    "reject_no": "reject no.",
    "batch_id": "batch",
    "column_name": "column",
    "data_type": "type",
    "step": "step",
    **ddz_data.LABELS,  # the Dou Dizhu pages' headers
}

#: Score columns (money, or − penalty points): one format, the unit in the header.
SCORE_COLUMNS = {"score": "score", "whatif_score": "what-if score", "net": "net",
                 "points": "penalty points", "result": "result", "amount": "amount",
                 "cumulative_score": "cumulative score"}  # fmt: skip
SCORE_FORMAT = "localized"
#: p- and q-values: scientific notation (1.60e-44), never a row of zeros.
P_COLUMNS = {"p_value", "p_combined", "p_bonferroni", "q_value", "p_fisher", "p"}
P_FORMAT = "%.2e"
#: Columns holding a time (strings as logged or timestamps), shown in :func:`display_zone`.
TIME_COLUMNS = {"started_at", "last_game", "first_game", "last_import", "imported_at",
                "created_at", "finished_at"}  # fmt: skip


def label(name: str) -> str:
    """The header of column ``name``: :data:`LABELS`, else the name with spaces.

    >>> label("violated_then_out"), label("n_cell_actions"), label("some_new_column")
    ('violated, then next went out', 'actions (in this cell)', 'some new column')
    """
    return LABELS.get(name, name.replace("_", " "))


def display_zone() -> str:
    """The display time zone chosen in the sidebar (UTC by default)."""
    value = st.session_state.get(TZ_KEY)
    return str(value) if value else "UTC"


def when(value: Any, zone: str | None = None) -> str:
    """A time (ISO text as logged, or a timestamp) in the display zone, to the minute; a time
    without a zone is UTC; ``—`` for none.

    >>> when("2024-03-01T12:00:05.123Z", "Asia/Hong_Kong"), when(None, "UTC")
    ('2024-03-01 20:00 HKT', '—')
    """
    stamp = _to_zone(pd.Series([value]), zone or display_zone()).iloc[0]
    return "—" if pd.isna(stamp) else f"{stamp.strftime(TIME_FORMAT)} {stamp.tzname()}"


def _to_zone(values: pd.Series, zone: str) -> pd.Series:
    parsed = pd.to_datetime(values, utc=True, errors="coerce", format="ISO8601")
    return parsed.dt.tz_convert(zone)


def steps(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``action_index`` (0-based) replaced by ``step`` (= ``action_index`` +
    1, the replayer's "Step 45"), in the same place; a frame with a ``step`` already drops it.

    >>> steps(pd.DataFrame({"game_id": ["g"], "action_index": [44]})).to_dict("list")
    {'game_id': ['g'], 'step': [45]}
    """
    out = frame.copy()
    if "action_index" not in out.columns:
        return out
    if "step" not in out.columns:
        out.insert(list(out.columns).index("action_index"), "step", out["action_index"] + 1)
    return out.drop(columns=["action_index"])


def step_of(action_index: Any) -> str:
    """The replayer's step of a 0-based action index, as text (``—`` for none).

    >>> step_of(44), step_of(None)
    ('45', '—')
    """
    return "—" if action_index is None or pd.isna(action_index) else str(int(action_index) + 1)


def score_header(name: str, unit: str | None = None) -> str:
    return f"{SCORE_COLUMNS[name]} ({unit or SCORE_UNIT})"


def table(
    frame: pd.DataFrame,
    *,
    key: str | None = None,
    column_config: dict[str, Any] | None = None,
    unit: str | None = None,
) -> None:
    """``frame`` as a table with readable headers (:func:`label`), scores in one format with
    their unit (``unit``, else :data:`SCORE_UNIT`), p-values in scientific notation and times
    in the display zone, to the minute; ``column_config`` adds to (or overrides) that.

    Actions are numbered one way everywhere, as the replayer does: **step** = ``action_index``
    + 1 (step 0 is the deal); a frame's ``action_index`` is shown as ``step`` (:func:`steps`)."""
    shown = steps(frame)
    zone = display_zone()
    config: dict[str, Any] = {}
    for name in shown.columns:
        c = str(name)
        if c in SCORE_COLUMNS:
            config[c] = st.column_config.NumberColumn(score_header(c, unit), format=SCORE_FORMAT)
        elif c in P_COLUMNS:
            config[c] = st.column_config.NumberColumn(label(c), format=P_FORMAT)
        elif c in TIME_COLUMNS:
            stamps = _to_zone(shown[c], zone)
            shown[c] = [None if pd.isna(t) else t.strftime(TIME_FORMAT) for t in stamps]
            config[c] = st.column_config.TextColumn(f"{label(c)} ({zone})")
        else:
            config[c] = label(c)
    config.update(column_config or {})  # an explicit column type brings its own label
    st.dataframe(shown, hide_index=True, column_config=config, key=key)
