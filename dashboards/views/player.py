"""Player: one player's profile against the population, 頂大 record, seat effects, games."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from dashboards import data, ui

st.title("👤 Player")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
board = data.leaderboard(f)  # players of the filtered games, most games first
players = board.sort_values(["games", "player"], ascending=[False, True])["player"].tolist()
if not players:
    st.info("No finished game matches the filters.")
    st.stop()
default = f.player_id if f.player_id in players else None
if default is not None:
    st.session_state["pl_player"] = default
player = st.selectbox(
    "Player", players, key="pl_player", help="The sidebar's player filter picks too"
)
if player is None:
    st.stop()
ui.filters_caption(f)

me = board[board["player"] == player]
if me.empty:
    st.info(f"{player} played none of the games the filters select.")
    st.stop()
r = me.iloc[0]
c = st.columns(5)
c[0].metric("Games", int(r["games"]))
c[1].metric("Wins", int(r["wins"]))
c[2].metric(
    "Win %",
    f"{r['win_pct']:.1f}",
    delta=f"{r['win_pct'] - 100 * board['wins'].sum() / board['games'].sum():+.1f} vs all",
)
c[3].metric(
    "Avg cards left when losing",
    "—" if data.missing(r["avg_cards_left_losing"]) else f"{r['avg_cards_left_losing']:.2f}",
)
c[4].metric("包牌 paid", int(r["bao_paid"]))

left, right = st.columns(2)
with left:
    st.subheader("Plays by kind: player vs everyone")
    kinds = data.player_kinds(f, player)
    long = kinds.melt(id_vars="kind", var_name="who", value_name="pct")
    fig = px.bar(long, x="pct", y="kind", color="who", barmode="group", orientation="h", height=360)
    st.plotly_chart(fig, key="pl_kinds")
with right:
    st.subheader("Voluntary passes (could beat, passed)")
    st.dataframe(data.player_passes(f, player), hide_index=True)
    st.subheader("Seat effect")
    st.caption("Position after the first leader (0 = led the first trick).")
    st.dataframe(data.player_seats(f, player), hide_index=True)

st.subheader("頂大 record")
mb = data.must_block_players(f)
mine = mb[mb["player"] == player]
if mine.empty:
    st.write("Never obliged to block in these games.")
else:
    st.dataframe(mine, hide_index=True)
if not data.mart_exists("scores"):
    st.caption(
        f"炒 history, score per game and the leak-finder view plug in here from the marts "
        f"`{data.MARTS['scores']}` (issue 6) and the strategy stats (issue 7), not built yet."
    )

st.subheader("Games")
st.dataframe(
    ui.with_replay_links(data.player_games(f, player)),
    hide_index=True,
    column_config={"replay": ui.REPLAY_LINK},
)
