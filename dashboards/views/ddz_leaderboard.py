"""Dou Dizhu leaderboard: the filtered games at a glance, player standings (score, landlord and
farmer records, rank-ladder title; what-if rescoring as a preset and cap) and the win rates of
each role by the bid and by the hand strength at bidding.

From ``ddz_game_scores``, ``ddz_stats_player_games`` and ``rank_ladder`` (``big2 build``) under
the sidebar filters; the what-if from ``ddz_score_seats(whatif := $whatif)`` with the ruleset
JSON bound. Big Two games never appear here.
"""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboards import data, ddz_data, ddz_ui, ui

#: The standings' key columns first (seen at 1400 px): the ranks, the scores and the titles.
STANDINGS = ["rank", "whatif_rank", "rank_change", "player_id", "score", "whatif_score", "title",
             "whatif_title", "games", "wins", "win_pct"]  # fmt: skip
#: The roles' records, a table each beside the other under the standings (the 13 columns in
#: one table ran past 1400 px: "landlord wins" was cut at its edge): the role's columns, and
#: the words of the role (in the chosen locale).
ROLES = {"landlord": "As landlord (地主)", "farmer": "As farmer (農民)"}
#: The what-if standings' shorter headers, the full wording in their help.
WHATIF_HEADERS = {
    "whatif_score": st.column_config.NumberColumn(
        "what-if score", format=ui.SCORE_FORMAT, help="Money, every game rescored as the what-if"),
    "title": st.column_config.TextColumn(
        "title", help="The rank-ladder title for the score under the games' own rules"),
    "whatif_title": st.column_config.TextColumn(
        "what-if title", help="The rank-ladder title for the what-if score"),
}  # fmt: skip

st.title("🏆 Dou Dizhu leaderboard")
if not ui.require_games() or not ui.marts_ready(*ddz_data.DDZ_MARTS):
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)
c = ddz_data.counts(f)
if not c["n_games"]:
    st.info("No Dou Dizhu game matches the filters (or none is imported yet).", icon="🀄")
    st.stop()

m = st.columns(5)
m[0].metric("Dou Dizhu games", f"{c['n_games']:,}")
m[1].metric(ui.term("Void deals (荒牌)"), f"{c['n_void']:,}", help="Every seat passed: dealt again")
m[2].metric("Players", f"{c['n_players']:,}")
m[3].metric("Matches", f"{c['n_matches']:,}")
m[4].metric("Springs / anti-springs", f"{c['n_springs']:,} / {c['n_anti_springs']:,}")

st.subheader("Standings")
c1, c2 = st.columns(2)
preset = c1.selectbox(
    "Rescore as",
    [None, *ddz_data.rescore_presets()],
    format_func=lambda p: "the games' own rules" if p is None else f"{p} (what-if)",
    key="ddz_lb_preset",
    help="What-if: every filtered game scored under this preset's stake, spring and cap (the "
    "bids, bombs, rockets and springs stay those played)",
)
cap = c2.selectbox(
    ui.term("Multiplier cap (封頂)"),
    ddz_data.WHATIF_CAPS,
    format_func=lambda c: "the preset's own" if c is None else "no cap" if c == "none" else f"×{c}",
    key="ddz_lb_cap",
    disabled=preset is None,
)
whatif = ddz_data.whatif_json(preset, cap if preset is not None else None)
pct = {
    k: st.column_config.ProgressColumn(ui.label(k), min_value=0, max_value=100, format="%.1f")
    for k in ("win_pct", "landlord_win_pct", "farmer_win_pct")
}
if whatif is None:
    st.caption(
        ui.term(
            "Score: money, each game under its own ruleset (bid × stake × 2^(bombs + rockets), "
            "spring and cap as the ruleset says; each farmer pays or is paid the amount, the "
            "landlord the rest); win % as landlord (地主) and as farmer (農民); title: the rank "
            "ladder for that score."
        )
    )
    board = ddz_data.standings(f)
    roles = [c for r in ROLES for c in board.columns if str(c).startswith(f"{r}_")]
    ui.table(board, column_config=pct, unit="money", key="ddz_lb_standings", first=STANDINGS,
             hide=roles)  # fmt: skip
    for col, (role, words) in zip(st.columns(2), ROLES.items(), strict=True):
        with col:
            st.markdown(f"**{ui.term(words)}**")
            record = board[["rank", "player_id", f"{role}_games", f"{role}_wins",
                            f"{role}_win_pct"]]  # fmt: skip
            ui.table(record, key=f"ddz_lb_{role}", column_config={
                f"{role}_games": st.column_config.NumberColumn(
                    "games", help=ui.term(f"Games {words.lower()}")),
                f"{role}_wins": st.column_config.NumberColumn(
                    "wins", help=ui.term(f"Games won {words.lower()}")),
                f"{role}_win_pct": st.column_config.ProgressColumn(
                    "win %", min_value=0, max_value=100, format="%.1f",
                    help=ui.term(f"{ui.label(f'{role}_win_pct')}: wins ÷ games "
                                 f"{words.lower()}")),
            })  # fmt: skip
    ui.download_csv(board, "the standings", "ddz_standings.csv", key="ddz_lb_csv")
else:
    shown = f"**{preset}**" + ("" if cap is None else f", cap **{cap}**")
    st.caption(
        f"What-if: the filtered games rescored as {shown} (its stake, spring doubling and "
        "multiplier cap; what was played stays), beside the score under the games' own rules; "
        "rank change: places gained under the what-if."
    )
    # 11 columns in 1400 px: the win % a number, not a bar; the what-if score's unit and the
    # titles' ladder in their help (the score beside it says "(money)"). In a container of its
    # own: in the own standings' place the browser kept their columns' widths (the bar's 140 px)
    with st.container(key="ddz_lb_whatif"):
        ui.table(ddz_data.standings_whatif(f, whatif), unit="money", key="ddz_lb_standings_whatif",
                 first=STANDINGS, column_config=WHATIF_HEADERS)  # fmt: skip

st.subheader("Win rates by role")
rates = ddz_data.win_rates(f)
if rates.empty:
    st.write("No game played out in this selection.")
    st.stop()
rates = ddz_ui.role_words(rates)
left, right = st.columns(2)
for col, dim, title in ((left, "bid", "By the winning bid"),
                        (right, "hand_strength", "By hand strength at bidding")):  # fmt: skip
    cell: pd.DataFrame = rates[rates["dimension"] == dim]
    with col:
        st.markdown(f"**{title}**")
        if cell.empty:
            st.write("No full-information game (the hands are not in the logs).")
            continue
        fig = px.bar(cell, x="value", y="win_pct", color="role", barmode="group", height=320,
                     hover_data=["games", "wins"], color_discrete_sequence=ui.PALETTE)  # fmt: skip
        fig.update_layout(
            xaxis_title=ui.label(dim), yaxis_title="win %", yaxis_range=[0, 100], xaxis_dtick=1
        )  # every bid and strength named (Plotly's ticks: 0, 5)
        st.plotly_chart(fig, key=f"ddz_lb_{dim}")
        ui.table(cell.drop(columns=["dimension"]).rename(columns={"value": dim}),
                 key=f"ddz_lb_rates_{dim}", whole=True)  # fmt: skip
st.caption(
    "Hand strength (docs/stats.md, Dou Dizhu): in the dealt hand, without the kitty, bombs + "
    "the rocket + 2s + jokers; strong ≥ 4, weak ≤ 1. A landlord's win % is its own; a farmer's "
    f"is the farmers' side's. {data.TABLE_ROWS:,} players at most in the standings."
)
