"""Leaderboard: standings over the filtered games, with the running totals per player.

Until the scoring marts (issue 6) are built, standings are by wins and cards left straight
from the warehouse; when ``data.MARTS["standings"]`` exists it is shown first.
"""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from dashboards import data, ui

st.title("🏆 Leaderboard")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)

if data.mart_exists("standings"):
    st.subheader("Standings under the games' own rules")
    st.dataframe(data.mart("standings"), hide_index=True)
else:
    st.info(
        f"Scores under each game's own rules, what-if rescoring and rank-ladder titles plug in "
        f"here from the scoring mart `{data.MARTS['standings']}` (issue 6), not built in this "
        "warehouse yet. Meanwhile: wins and cards left, straight from the replayed games.",
        icon="🧮",
    )

board = data.leaderboard(f)
if board.empty:
    st.info("No finished game matches the filters.")
    st.stop()
st.subheader("Wins and cards left")
st.dataframe(
    board,
    hide_index=True,
    column_config={
        "win_pct": st.column_config.ProgressColumn(
            "win %", min_value=0, max_value=100, format="%.1f"
        ),
        "ding_dai_obligations": "頂大 obligations",
        "ding_dai_violations": "頂大 violations",
        "bao_paid": "包牌 paid",
    },
)

st.subheader("Running totals")
metric = st.radio(
    "Line",
    ["cumulative_wins", "cumulative_cards_left"],
    format_func=lambda m: m.replace("_", " ").replace("cumulative cards left", "− cards left"),
    horizontal=True,
    key="lb_metric",
)
totals = data.running_totals(f)
fig = px.line(totals, x="game_no", y=metric, color="player", markers=True)
fig.update_layout(xaxis_title="games played", yaxis_title=metric.replace("_", " "), height=420)
st.plotly_chart(fig, key="lb_lines")
st.caption(
    "The luck-adjusted line (result against the opening hand's expectation) comes with the "
    "strategy marts (issue 7)."
)
