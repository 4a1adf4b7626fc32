"""Import health: batches, rejects by error code and file, the raw rejected record."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from dashboards import data, ddz_ui, ui

#: The message column's width in pixels: the rejects table fits at 1400 px (the whole
#: message is under "Show record").
MESSAGE_PX = 380

st.title("🩺 Import health")
if not ui.require_games(allow_empty=True):
    st.stop()

st.subheader("Import batches")
ui.table(data.query("dash_batches"))

by_code = data.query("dash_rejects_by_code")
if by_code.empty:
    st.success("No record was rejected.", icon="✅")
    st.stop()

st.subheader("Rejects by error code")
left, right = st.columns([2, 3])
with left:
    ui.table(by_code)
fig = px.bar(by_code, x="rejects", y="code", orientation="h", height=80 + 28 * len(by_code))
fig.update_layout(yaxis={"categoryorder": "total ascending"}, margin={"l": 0, "r": 0, "t": 10})
right.plotly_chart(fig, key="rejects_by_code")

st.subheader("Rejects by file")
ui.table(data.query("dash_rejects_by_file_code"))

st.subheader("Rejected records")
c1, c2 = st.columns(2)
code = c1.selectbox("Error code", [None, *by_code["code"]], format_func=ui.all_label, key="ih_code")
files = data.query("dash_rejects_by_file")["file"].tolist()
file = c2.selectbox("File", [None, *files], format_func=ui.all_label, key="ih_file")
rows = data.listing("dash_rejects", code=code, file=file)
rows = ui.first_rows(rows, "rejected records, in import order")
ui.table(
    rows,
    first=["reject_no", "code", "message", "file", "line", "game_id", "step"],
    hide=["raw"],  # shown below, one record at a time
    column_config={"message": st.column_config.TextColumn("message", width=MESSAGE_PX)},
)
ui.download_csv(rows, "these rejected records", "rejects.csv", key="ih_rejects_csv")
if not rows.empty:
    labels = {
        int(r.reject_no): f"#{r.reject_no} {r.code} — {r.file}:{r.line}" for r in rows.itertuples()
    }
    pick = st.selectbox("Show record", list(labels), format_func=labels.__getitem__, key="ih_pick")
    rec = data.record(rows[rows["reject_no"] == pick].iloc[0])
    st.error(f"**{rec['code']}**: {rec['message']}")
    st.caption(
        f"file {rec['file']}, line {rec['line']}, game {rec['game_id'] or '—'}, "
        f"step {ui.step_of(rec['action_index'])}, "
        f"batch {rec['batch_id']}"
    )
    st.code(rec["raw"] or "(empty)", language="json", wrap_lines=True)
    if rec["code"] == "E_CONFLICT" and rec["game_id"]:  # the copy it contradicts, to compare
        stored = data.query("dash_conflict_stored", game_id=rec["game_id"])
        if not stored.empty:
            st.markdown("**The stored copy** of this game id (the record above was not stored):")
            links = ddz_ui if stored["game_kind"].iloc[0] == "doudizhu" else ui
            ui.table(
                links.with_replay_links(stored),
                column_config={"replay": ui.REPLAY_LINK},
                key="ih_stored",
            )
