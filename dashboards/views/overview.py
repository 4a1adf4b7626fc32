"""Overview: games, players, matches, the period covered, import health, recent matches."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import data, ui

st.title("🃏 big2-replay")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)
o = data.overview(f)

c = st.columns([2, 2, 2, 5])  # the period's two dates fit at 1400 px
c[0].metric("Games", f"{o['n_games']:,}")
c[1].metric("Players", f"{o['n_players']:,}")
c[2].metric("Matches", f"{o['n_matches']:,}",
            help="A game that names no match is a match of its own, as in Recent matches")  # fmt: skip
first, last = o["first_game"], o["last_game"]
period = "—" if pd.isna(first) else f"{first:%Y-%m-%d} → {last:%Y-%m-%d}"
c[3].metric("Period", period)

st.subheader("Import health")
h = st.columns(4)
h[0].metric("Import batches", f"{o['n_batches']:,}")
h[1].metric(
    "Open rejects",
    f"{o['n_rejects']:,}",
    help="Rejected records no later import has resolved (stored their game); "
    f"{o['n_resolved_rejects']:,} more were resolved so (Import health lists both)",
)
h[2].metric("Partial-information games", f"{o['n_partial']:,}")
h[3].metric(ui.term("Games with 包牌"), f"{o['n_bao']:,}")
resolved = (
    f" ({o['n_resolved_rejects']:,} more were resolved by a later import)"
    if o["n_resolved_rejects"]
    else ""
)
if o["n_rejects"]:
    st.warning(
        f"{o['n_rejects']:,} records rejected at import are still open{resolved} "
        f"(last import {ui.when(o['last_import'])}).",
        icon="⚠️",
    )
    st.page_link("views/import_health.py", label="See the rejects in Import health", icon="🩺")
elif o["n_resolved_rejects"]:
    st.success(
        f"No open rejects: the {o['n_resolved_rejects']:,} records rejected at import were all "
        f"resolved by a later import (last import {ui.when(o['last_import'])}).",
        icon="✅",
    )
else:
    st.success(f"No rejected records (last import {ui.when(o['last_import'])}).", icon="✅")

st.subheader("Recent matches")
matches = data.query("dash_recent_matches", f, limit=20)
ui.table(
    ui.with_replay_links(matches, "last_game"),
    column_config={"replay": ui.REPLAY_LINK},
    hide=["last_game"],  # the replay link opens it
)

st.subheader("Recent games")
games = data.query("dash_games", f, limit=50)
ui.table(ui.with_replay_links(games), column_config={"replay": ui.REPLAY_LINK})
