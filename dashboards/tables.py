"""The dashboards' tables: one label map for every header, one number format for scores (with
their unit), p-values in scientific notation, times in the display time zone to the minute, one
action numbering (step = ``action_index`` + 1), and the columns a table shows first.

Pure of queries: :mod:`dashboards.ui` re-exports what the pages use.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboards import ddz_data, terms

TZ_KEY = "f_tz"
#: The one precision of every time shown: to the minute.
TIME_FORMAT = "%Y-%m-%d %H:%M"

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
    "ended_at": "ended",
    "committed_at": "committed",
    "block": "outcome",
    "last_game": "last game",
    "first_game": "first game",
    "last_import": "last import",
    "n_games": "games",
    "n_players": "players",
    "n_matches": "matches",
    "n_actions": "actions",
    "n_tricks": "tricks",
    "n_rejects": "rejects",
    "resolved_game_id": "resolved by game",
    "resolved_batch_id": "resolved by import",
    "resolved_at": "resolved",
    "resolved_file": "resolved by file",
    "resolved_line": "resolved by line",
    "resolved_by": "matched by",
    "n_obligations": "obligations",
    "n_cell_actions": "actions",
    "n_cell_opportunities": "opportunities",
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
    "player_opportunities": "n (player)",
    "winners_opportunities": "n (winners)",
    "n_obligations_toward": "obligations",
    "n_violations_toward": "violations",
    "violation_rate_toward": "violation rate",
    "violation_rate_baseline": "baseline rate",
    "n_base_actions": "baseline actions",
    "n_base_opportunities": "baseline opportunities",
    "base_rate": "baseline rate",
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
    "timed_games": "timed games",
    **ddz_data.LABELS,  # the Dou Dizhu pages' headers
}

#: Score columns (money, or − penalty points): one format, the unit in the header.
SCORE_COLUMNS = {"score": "score", "whatif_score": "what-if score", "net": "net",
                 "points": "penalty points", "result": "result", "amount": "amount",
                 "cumulative_score": "cumulative score", "score_per_game": "score per game",
                 "score_per_hour": "score per hour"}  # fmt: skip
SCORE_FORMAT = "localized"
#: p- and q-values: scientific notation (1.60e-44), never a row of zeros.
P_COLUMNS = {"p_value", "p_combined", "p_bonferroni", "q_value", "p_fisher", "p"}
P_FORMAT = "%.2e"
#: Columns holding a time (strings as logged or timestamps), shown in :func:`display_zone`.
#: Shares without a format of their own (``win_pct``, ``violation_rate_baseline``): a
#: percentage to one decimal, a rate to three (never 0.0936890045543266).
SHARE_FORMATS = {"pct": "%.1f", "rate": "%.3f"}
TIME_COLUMNS = {"started_at", "ended_at", "last_game", "first_game", "last_import",
                "imported_at", "created_at", "finished_at", "committed_at", "resolved_at"}  # fmt: skip


#: Columns holding a rank-ladder title, and the game's terms (炒 tiers): in the chosen locale.
TITLE_COLUMNS = {"title", "whatif_title"}
TERM_COLUMNS = {"tier_name", "tier"}


def label(name: str) -> str:
    """The header of column ``name``: :data:`LABELS`, else the name read out: a count's
    ``n_`` dropped, ``_pct`` as %, spaces for underscores.

    >>> label("violated_then_out"), label("n_base_actions"), label("some_new_column")
    ('violated, then next went out', 'baseline actions', 'some new column')
    >>> label("n_pairs"), label("everyone_win_pct")
    ('pairs', 'everyone win %')
    """
    if name in LABELS:
        return terms.text(LABELS[name])
    text = name.removeprefix("n_").replace("_pct", " %")
    return terms.text(text.replace("_", " "))


def _share(name: str) -> str | None:
    """Which share column ``name`` is (a key of :data:`SHARE_FORMATS`), if any.

    >>> _share("win_pct"), _share("violation_rate_baseline"), _share("rated")
    ('pct', 'rate', None)
    """
    return next((w for w in name.split("_") if w in SHARE_FORMATS), None)


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


def download_csv(frame: pd.DataFrame, what: str, file_name: str, *, key: str) -> None:
    """A button that downloads ``frame`` whole as CSV (a table's own toolbar CSV holds the
    columns it shows only): labelled "Download ``what`` (CSV, every column)"."""
    st.download_button(
        f"Download {what} (CSV, every column)",
        frame.to_csv(index=False).encode("utf-8"),
        file_name=file_name,
        mime="text/csv",
        key=key,
    )


def table(
    frame: pd.DataFrame,
    *,
    key: str | None = None,
    column_config: dict[str, Any] | None = None,
    unit: str | None = None,
    first: list[str] | None = None,
    hide: list[str] | None = None,
    whole: bool = False,
) -> None:
    """``frame`` as a table with readable headers (:func:`label`), scores in one format with
    their unit (``unit``, else :data:`SCORE_UNIT`), p-values in scientific notation and times
    in the display zone, to the minute; ``column_config`` adds to (or overrides) that.

    ``first``: the key columns, shown first in this order (the rest after, as in ``frame``), so
    they stay in the table's viewport at 1400 px; ``hide``: columns not shown (nor in the
    table's own CSV download, the toolbar's, which holds the shown columns only: a page that
    must offer them adds a download of the frame, as the Dou Dizhu standings do); ``whole``: as
    tall as its rows (a short table of a few dozen rows at most; else ten rows show and the
    rest scroll, unseen).

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
        elif (share := _share(c)) and pd.api.types.is_float_dtype(shown[c]):
            config[c] = st.column_config.NumberColumn(label(c), format=SHARE_FORMATS[share])
        elif c in TIME_COLUMNS:
            stamps = _to_zone(shown[c], zone)
            shown[c] = [None if pd.isna(t) else t.strftime(TIME_FORMAT) for t in stamps]
            config[c] = st.column_config.TextColumn(f"{label(c)} ({zone})")
        else:
            config[c] = label(c)
        if c in TITLE_COLUMNS:  # rank-ladder titles and 炒 tiers in the chosen locale
            shown[c] = shown[c].map(terms.title)
        elif c in TERM_COLUMNS:
            shown[c] = shown[c].map(lambda v: terms.text(v) if isinstance(v, str) else v)
    # an explicit column type brings its own label; a plain label reads in the locale too, and
    # keeps the column's format (a share's, a score's)
    for k, v in (column_config or {}).items():
        typed = isinstance(v, str) and isinstance(config.get(k), dict)
        config[k] = {**config[k], "label": terms.text(v)} if typed else (
            terms.text(v) if isinstance(v, str) else v)  # fmt: skip
    names = [str(c) for c in shown.columns]
    lead = [c for c in (first or []) if c in names]
    order = [c for c in lead + names if c not in set(hide or [])]
    st.dataframe(shown, hide_index=True, column_config=config, key=key,
                 column_order=list(dict.fromkeys(order)),
                 height="content" if whole else "auto")  # fmt: skip
