"""Report: a match or a day (in a time zone), optionally one player: who played, who paid whom,
炒 and 包牌, the biggest games; the same report as ``big2 report``, with its HTML page to
download (:mod:`pipeline.report`, over the named queries of ``sql/queries/``)."""

from __future__ import annotations

from datetime import date

import pandas as pd
import streamlit as st

from dashboards import data, ddz_data, ui
from pipeline.errors import Big2Error
from pipeline.report import Report, Section, Selection, assemble, fetch_report, render_html
from pipeline.warehouse import reading

#: Time zones offered (any other IANA name can be typed).
ZONES = ["UTC", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Shanghai", "Europe/London"]

st.title("📋 Report")
if not ui.require_games():
    st.stop()


@st.cache_data(show_spinner=False)
def _report(key: str, sel: Selection) -> Report:
    with reading.reader(data.warehouse(), key) as con:
        return assemble(sel, fetch_report(con, sel))


#: The report's columns whose cells are game terms (炒 tiers, 包牌; Dou Dizhu's 春天 / 反春): in
#: the chosen locale.
TERM_CELLS = ("炒", "包牌", "bombs, spring")


def _frame(section: Section) -> pd.DataFrame:
    """A section as a table, its headers and game terms in the chosen locale (names as they are)."""
    out = pd.DataFrame(list(section.rows), columns=list(section.columns))
    for column in TERM_CELLS:
        if column in out.columns:
            out[column] = out[column].map(lambda v: ui.term(v) if isinstance(v, str) else v)
    return out.rename(columns=ui.term)


opts = ddz_data.filter_options() if ddz_data.chosen() else data.filter_options()  # the game's
f = ui.current_filters()
by = st.radio("Report on", ["A match", "A day"], horizontal=True, key="rep_by")
cols = st.columns(3)
match_key: str | None = None
day: date | None = None
tz = "UTC"
if by == "A match":
    matches = opts.matches
    if f.match_id and f.match_id not in matches:
        matches = [f.match_id, *matches]
    start = matches.index(f.match_id) if f.match_id in matches else 0
    match_key = cols[0].selectbox(
        "Match", matches, index=start if matches else None, key="rep_match",
        accept_new_options=True, help="a match id, or a game id for a game without a match",
    )  # fmt: skip
else:
    day_value = cols[0].date_input("Day", value=opts.last, key="rep_day")
    day = day_value if isinstance(day_value, date) else None
    tz = str(cols[1].selectbox("Time zone", ZONES, key="rep_tz", accept_new_options=True) or "UTC")
player = cols[2].selectbox(
    "Player", [None, *opts.players], format_func=ui.all_label, key="rep_player",
    accept_new_options=True,
)  # fmt: skip

if match_key is None and day is None:
    st.info("Pick a match or a day.")
    st.stop()
try:
    sel = Selection(match_key=match_key, day=day, tz=tz, player_id=player)
    rep = _report(data.stamp(), sel)
except Big2Error as err:
    st.warning(str(err))
    st.stop()

st.subheader(rep.title)
for line in rep.lines:
    st.caption(line)
for section in rep.sections:
    note = f" — {ui.term(section.note)}" if section.note else ""
    st.markdown(f"**{ui.term(section.title)}**{note}")
    config = {
        ui.term(c): st.column_config.TextColumn(ui.term(c), alignment="right")
        for c, numeric in zip(section.columns, section.numeric, strict=True)
        if numeric
    }
    st.dataframe(_frame(section), hide_index=True, column_config=config)
st.download_button(
    "Download the HTML page",
    render_html(rep),
    file_name="big2-report.html",
    mime="text/html",
    key="rep_html",
)
