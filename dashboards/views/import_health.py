"""Import health: batches, rejects by error code and file (open, and resolved since by a later
import), the raw rejected record."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import plotly.express as px
import streamlit as st

from dashboards import data, ddz_ui, ui
from pipeline.logs.encodings import Finding, raw_guess

#: The message column's width in pixels: the rejects table fits at 1400 px (the whole
#: message is under "Show record").
MESSAGE_PX = 380
#: The status filter of the rejected records: open (the default), resolved, all.
STATUS: dict[bool | None, str] = {False: "open", True: "resolved", None: "(all)"}
#: The columns naming the game that resolved a reject (mart_reject_status).
RESOLVED_COLUMNS = ["resolved_by", "resolved_game_id", "resolved_batch_id", "resolved_at",
                    "resolved_file", "resolved_line"]  # fmt: skip
#: How a reject was matched to the game that resolved it (mart_reject_status.resolved_by).
MATCHED_BY = {
    "game_id": "the same game id",
    "line": "the same line of the same file, or of its UTF-8 copy in utf8/",
    "file": "a header that kept the file from being read: the file, or its UTF-8 copy, now imports",
}
OPEN_HELP = "Rejected records whose game no later import has stored: still to mend."
RESOLVED_HELP = (
    "Resolved: rejected, then a later import stored the game (the same game id; for a record "
    "whose id could not be read, a game from the same line of the same file or of its UTF-8 "
    "copy in utf8/). Conflicts (E_CONFLICT) and duplicate ids are never resolved so: their id "
    "is stored, as another game. The warehouse keeps every reject, as history."
)


def markdown_text(text: str) -> str:
    r"""``text`` shown as it is in Streamlit's markdown (its ``*``, ``_``, ``$`` … escaped)."""
    return re.sub(r"([\\`*_\[\]<>$#~|])", r"\\\1", text)


st.title("🩺 Import health")
if not ui.require_games(allow_empty=True):
    st.stop()

st.subheader("Import batches")
batches = data.query("dash_batches")
ui.table(batches)
if not batches["rejects"].fillna(0).any():
    st.success("No record was rejected.", icon="✅")
    st.stop()
if not ui.marts_ready("mart_reject_status"):  # which rejects are resolved: a view of the build
    st.stop()

by_code = data.query("dash_rejects_by_code")
if by_code.empty:
    st.success("No record was rejected.", icon="✅")
    st.stop()
n_open, n_resolved = int(by_code["open"].sum()), int(by_code["resolved"].sum())
st.subheader("Rejects by error code")
m = st.columns(4)
m[0].metric("Open rejects", f"{n_open:,}", help=OPEN_HELP)
m[1].metric("Resolved since", f"{n_resolved:,}", help=RESOLVED_HELP)
if not n_open:
    st.success(
        f"Every rejected record ({n_resolved:,}) has since been resolved: a later import stored "
        "its game. They stay listed below, as history (Status: resolved).",
        icon="✅",
    )
left, right = st.columns([2, 3])
with left:
    ui.table(by_code)
fig = px.bar(
    by_code, x=["open", "resolved"], y="code", orientation="h", height=80 + 28 * len(by_code),
    color_discrete_map={"open": "#d62728", "resolved": "#2ca02c"},
)  # fmt: skip
fig.update_layout(
    yaxis={"categoryorder": "total ascending"},
    xaxis_title="rejects",
    legend_title_text="",
    margin={"l": 0, "r": 0, "t": 10},
)
right.plotly_chart(fig, key="rejects_by_code")

st.subheader("Rejects by file")
ui.table(data.query("dash_rejects_by_file_code"))

# the files whose open rejects are E_ENCODING: what each is in and the commands converting it,
# in big2 ingest's words (Finding), told from the text of its first such rejects as stored
hints = []
for r in data.query("dash_reject_encodings").itertuples():
    guess = raw_guess([str(raw) for raw in r.raws])
    if guess is not None:
        found = Finding(str(r.file), guess, int(r.n_encoding))
        hints.append((found.file, found.what(), found.commands()))
if hints:
    st.subheader("Files not in UTF-8")
    st.markdown(
        "An import reads UTF-8 only: convert each file to a UTF-8 copy, in `utf8/` beside it "
        "under its own name, then import the copies. Their games are stored, and these rejects "
        "show as resolved."
    )
    for file, what, commands in hints:
        st.warning(f"`{file}`: {markdown_text(what)}", icon="🔤")
        if commands:
            st.code("\n".join(commands), language="bash")
    folders = sorted({str(Path(file).parent / "utf8") for file, _, commands in hints if commands})
    if folders:
        words = " ".join(shlex.quote(folder) for folder in folders)
        st.markdown("Then import the copies (with the first import's other options):")
        st.code(f"big2 ingest {words} --warehouse {shlex.quote(str(data.root()))}", language="bash")
    st.caption(
        "Told from the text of each file's first rejected lines as the warehouse keeps it. "
        "`big2 ingest` of the file says the same, reading the file itself: it also tells a file "
        "that mixes encodings (converting it whole would garble its UTF-8 lines) and names the "
        "actions CSVs of a games CSV, to copy beside its UTF-8 copy."
    )

st.subheader("Rejected records")
c1, c2, c3 = st.columns([2, 2, 1])
code = c1.selectbox("Error code", [None, *by_code["code"]], format_func=ui.all_label, key="ih_code")
files = data.query("dash_rejects_by_file")["file"].tolist()
file = c2.selectbox("File", [None, *files], format_func=ui.all_label, key="ih_file")
resolved = c3.selectbox(
    "Status",
    list(STATUS),
    index=0 if n_open else 2,  # all resolved: all, rather than an empty list
    format_func=STATUS.__getitem__,
    key="ih_status",
    help=RESOLVED_HELP,
)
rows = data.listing("dash_rejects", code=code, file=file, resolved=resolved)
rows = ui.first_rows(rows, "rejected records, in import order")
# the game that resolved a reject, and when: in view at 1400 px beside its code
shown_first = [] if resolved is False else ["resolved_game_id", "resolved_at"]
ui.table(
    rows,
    first=["reject_no", "code", *shown_first, "message", "file", "line", "game_id", "step"],
    # raw: shown below, one record at a time; the resolving game's columns: none when open
    hide=["raw", "is_resolved", *(RESOLVED_COLUMNS if resolved is False else [])],
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
    if rec["is_resolved"]:
        st.success(
            f"**Resolved** by import {rec['resolved_batch_id']} "
            f"({ui.when(rec['resolved_at'])}): game {rec['resolved_game_id']} stored from "
            f"{rec['resolved_file']}, line {rec['resolved_line']} "
            f"({MATCHED_BY[rec['resolved_by']]}).",
            icon="✅",
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
