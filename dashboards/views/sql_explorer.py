"""SQL explorer: a read-only query box with the table catalogue beside it: every table, view
and mart with its description and its columns' (as ``big2 sql --tables``), the ones to start
with first."""

from __future__ import annotations

import streamlit as st

from dashboards import adhoc, data, ui
from pipeline.wording import plural

st.title("🔎 SQL explorer")
if not ui.require_games(allow_empty=True):
    st.stop()

#: The few tables to begin with, and why (the catalogue lists them first, starred).
START = {
    "mart_game_scores": "every seat of every game scored by its own rules (net, 炒, 包牌)",
    "mart_player_standings": "per player: games, wins, score, rank-ladder title",
    "mart_payments": "who paid whom in each money game",
    "games": "one row per game (ruleset, match, start, winner)",
    "audit_obligations": "every 頂大 obligation and whether it was met",
}
EXAMPLE = "select ruleset, count(*) as games\nfrom games\ngroup by ruleset\norder by games desc"

query_col, cat_col = st.columns([3, 2])
with cat_col:
    st.markdown("**Tables**")
    st.caption("**Where to start:** " + "; ".join(f"`{t}` {why}" for t, why in START.items()))
    cat = data.query("dash_catalogue")
    find = st.text_input("Find a table or column", key="sql_find", placeholder="e.g. 炒, bao")
    if find:
        hit = cat.apply(lambda r: find.lower() in " ".join(map(str, r.values)).lower(), axis=1)
        cat = cat[cat["table_name"].isin(cat.loc[hit, "table_name"])]
    names = sorted(cat["table_name"].unique(), key=lambda t: (t not in START, t))
    for table in names:
        cols = cat[cat["table_name"] == table]
        first = cols.iloc[0]
        with st.expander(f"{'⭐ ' if table in START else ''}{table} ({first['kind']})"):
            st.caption(str(first["table_description"]) or "(no description)")
            ui.table(cols[["column_name", "data_type", "description"]])
with query_col:
    sql = st.text_area("Query (one SELECT)", value=EXAMPLE, height=160, key="sql_text")
    c1, c2, c3 = st.columns([1, 1, 2])
    max_rows = c1.number_input("Row limit", 1, adhoc.MAX_ROWS, 1000, step=100, key="sql_rows")
    timeout = c2.number_input("Time limit (s)", 1.0, adhoc.TIMEOUT_S, 5.0, key="sql_timeout")
    run = c3.button("Run ▶", type="primary", key="sql_run", shortcut="Ctrl+Enter")
    try:
        memory = f", {adhoc.query_memory()} of memory"
    except data.QueryError as err:
        memory = ""
        st.session_state["sql_error"] = str(err)
    st.caption(
        "Read-only: one SELECT (or EXPLAIN [ANALYZE] of one) on the warehouse's tables, no other "
        f"file, as `big2 sql`; at most {adhoc.MAX_ROWS:,} rows, {adhoc.TIMEOUT_S:g} s{memory}."
    )
    if run or "sql_result" in st.session_state:
        if run:
            try:
                st.session_state["sql_result"] = adhoc.run_sql(
                    sql, max_rows=int(max_rows), timeout_s=float(timeout)
                )
                st.session_state.pop("sql_error", None)
            except data.QueryError as err:
                st.session_state.pop("sql_result", None)
                st.session_state["sql_error"] = str(err)
        res = st.session_state.get("sql_result")
        if res is not None:
            note = f" (cut at {len(res.frame):,} rows)" if res.truncated else ""
            st.caption(f"{plural(len(res.frame), 'row')} in {res.seconds * 1000:.0f} ms{note}")
            st.dataframe(res.frame, hide_index=True)
            st.download_button(
                "Download CSV",
                res.frame.to_csv(index=False).encode("utf-8"),
                file_name="query.csv",
                mime="text/csv",
                key="sql_csv",
            )
    if "sql_error" in st.session_state:
        st.error(st.session_state["sql_error"])
