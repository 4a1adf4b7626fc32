"""頂大 and collusion: violations, 包牌 paid, the ranked pair list, drill-down to the games.

Straight from the actions table's ``obligation`` / ``block`` columns until the audit marts
(issue 7) exist; then ``data.MARTS["must_block"]`` and ``["collusion_pairs"]`` are shown.
"""

from __future__ import annotations

import streamlit as st

from dashboards import data, ui

st.title("🛡️ 頂大 and collusion")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)
st.caption(
    "頂大 (must-block): when the next player holds one card, a seat must lead a non-single or "
    "its highest single, or follow with its highest single. `unknown` = the hand is not in the log."
)

players = data.must_block_players(f)
if players.empty:
    st.info("No 頂大 obligation in the games the filters select.")
    st.stop()

st.subheader("Per player")
if data.mart_exists("must_block_players"):
    st.caption(
        f"The audit mart `{data.MARTS['must_block_players']}` (per player and ruleset, all "
        "games); below, the same from the actions table under the sidebar filters."
    )
    st.dataframe(data.mart("must_block_players"), hide_index=True)
else:
    st.caption(
        f"Straight from the actions table until the audit mart "
        f"`{data.MARTS['must_block_players']}` (issue 7) is built."
    )
st.dataframe(
    players,
    hide_index=True,
    column_config={"violation_pct": "violation %", "bao_paid": "包牌 paid"},
)

st.subheader("Pairs: who fails to block whom")
if data.mart_exists("collusion_pairs"):
    st.dataframe(data.mart("collusion_pairs"), hide_index=True)
else:
    st.caption(
        f"Ranked by violations toward the beneficiary, with the obliged player's rate toward "
        f"everyone else beside it. The statistical test and 'how sure' column come from the "
        f"mart `{data.MARTS['collusion_pairs']}` (issue 7), not built yet."
    )
    st.dataframe(
        data.must_block_pairs(f),
        hide_index=True,
        column_config={
            "violation_pct": "violation %",
            "violation_pct_vs_others": "violation % toward others",
        },
    )

st.subheader("Violations and unknowns")
v = data.violations(f)
if v.empty:
    st.success("Every 頂大 obligation in these games was met.", icon="✅")
else:
    st.dataframe(
        ui.with_replay_links(v.assign(step=v["action_index"] + 1), step="step"),
        hide_index=True,
        column_config={
            "replay": ui.REPLAY_LINK,
            "next_won": "next player went out",
            "paid_bao": "包牌",
        },
    )
