"""Dou Dizhu player: one player's games, roles and bids; win rates by bid and by hand strength;
bidding discipline (bid against hand strength, beside everyone's); the strategy stats beside the
other players'; the games with replay links.

From ``ddz_stats_player_games``, ``ddz_game_scores``, ``stg_ddz_seats`` (``big2 build``) under
the sidebar filters.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import data, ddz_data, ddz_ui, ui

st.title("👤 Dou Dizhu player")
if not ui.require_games() or not ui.marts_ready(*ddz_data.DDZ_MARTS):
    st.stop()

f = ui.current_filters()
players = ddz_data.players(f)
if not players:
    st.info("No Dou Dizhu game matches the filters.", icon="🀄")
    st.stop()
if f.player_id is not None and f.player_id not in players:
    if len(players) < data.OPTION_LIMIT:  # the whole list: the player has no game here
        st.info(f"{f.player_id} played no Dou Dizhu game that the other filters select.",
                icon="🀄")  # fmt: skip
        st.stop()
    players = [*players, f.player_id]  # the most active only are listed
if f.player_id in players:
    st.session_state["ddz_pl_player"] = f.player_id
player = st.selectbox("Player", players, key="ddz_pl_player",
                      help="The sidebar's player filter picks too")  # fmt: skip
if player is None:
    st.stop()
ui.filters_caption(f)

#: The games in two tables, the same rows in the same order (their 14 columns in one table ran
#: past 1400 px, numbers cut at its edge): the results and stakes, key columns first (whose
#: role, the result, the score) ...
GAMES = ["replay", "game_id", "role", "is_winner", "score", "bid", "multiplier", "spring",
         "started_at", "ruleset", "outcome"]  # fmt: skip
#: ... and the player's own auction in each (void deals included).
AUCTIONS = ["replay", "game_id", "seat", "max_bid", "hand_strength", "started_at", "ruleset",
            "outcome"]  # fmt: skip
#: Rates shown, in order: (column, label).
RATES = (
    ("win_rate", "win rate"),
    ("landlord_share", "landlord share (games as 地主)"),
    ("landlord_win_rate", "landlord win rate"),
    ("farmer_win_rate", "farmer win rate"),
    ("bid_rate", "bid rate (auctions spoken in, void deals 荒牌 included)"),
    ("strong_pass_rate", "strong hands passed (strength ≥ 4)"),
    ("weak_bid_rate", "weak hands bid (strength ≤ 1)"),
    ("bomb_use_rate", "bombs and rockets played ÷ held"),
    ("voluntary_pass_rate", "voluntary pass rate"),
    ("partner_beat_rate", "partner beat rate (farmer)"),
    ("feed_rate", "feed rate (farmer, landlord on 1-2 cards)"),
)

stats = data.query("dash_ddz_player_stats", f, player=player).set_index("who")
me = stats.loc["player"] if "player" in stats.index else None
if me is None or not (me["n_games"] or me["n_asked"]):
    st.info(f"{player} played out none of the Dou Dizhu games the filters select.")
    st.stop()
played = bool(me["n_games"])
if not played:  # void deals (荒牌) only: they count for bidding (docs/stats.md, "Dou Dizhu")
    st.info(
        ui.term(
            f"{player} played out none of the Dou Dizhu games the filters select: its deals were "
            "void (荒牌, nobody bid), which count for the bidding stats only."
        )
    )
c = st.columns(5)
c[0].metric("Games", f"{int(me['n_games']):,}")
c[1].metric("Wins", f"{int(me['n_wins']):,}")
c[2].metric("As landlord", f"{int(me['n_landlord']):,}",
            delta=f"{int(me['n_landlord_wins']):,} won", delta_color="off")  # fmt: skip
c[3].metric("As farmer", f"{int(me['n_farmer']):,}",
            delta=f"{int(me['n_farmer_wins']):,} won", delta_color="off")  # fmt: skip
c[4].metric("Score", f"{me['score']:,.0f}", help="Money, each game under its own ruleset")

st.subheader("Strategy stats")
st.caption(
    ui.term(
        "Each stat is actions ÷ opportunities (docs/stats.md, Dou Dizhu) over the filtered games "
        "played out; the three bidding stats over every auction the player spoke in, void deals "
        "(荒牌) included, as the bidding discipline below. Other players: every other seat of the "
        "same games, ruleset by ruleset, each ruleset's rate weighted by the player's own "
        "opportunities under it (its auctions for the bid rate …), so that 3-player (ddz) and "
        "2-player (ddz-2p) games are compared like with like."
    )
)
others = stats.loc["others"] if "others" in stats.index else None
rows = [
    {
        "stat": ui.term(name),
        "player_rate": me[col],
        "others_rate": None if others is None else others[col],
    }
    for col, name in RATES
]
ui.table(
    pd.DataFrame(rows),
    column_config={
        "player_rate": st.column_config.NumberColumn("player", format="%.3f"),
        "others_rate": st.column_config.NumberColumn(
            "other players",
            format="%.3f",
            help="Every other seat's rate under each ruleset, "
            "weighted by the player's own opportunities under it",
        ),
    },
    key="ddz_pl_stats",
    whole=True,  # the 11th, the feed rate, scrolled out of sight
)

st.subheader("Win rates by bid and by hand strength")
rates = ddz_data.win_rates(f, player)
rates = ddz_ui.role_words(rates)
left, right = st.columns(2)
for col, dim, title in ((left, "bid", "By the winning bid"),
                        (right, "hand_strength", "By hand strength at bidding")):  # fmt: skip
    cell = rates[rates["dimension"] == dim]
    with col:
        st.markdown(f"**{title}**")
        if cell.empty:  # as the leaderboard says it (the hands are known with the deal only)
            st.write("No full-information game (the hands are not in the logs)."
                     if dim == "hand_strength" and played
                     else "No game played out in this selection.")  # fmt: skip
            continue
        ui.table(cell.drop(columns=["dimension"]).rename(columns={"value": dim}),
                 key=f"ddz_pl_by_{dim}", whole=True)  # fmt: skip

st.subheader("Bidding discipline")
st.caption(
    ui.term(
        "Per hand strength of the hands the player spoke with (void deals included: passing a "
        "hand is a decision too): how often it bid, its average bid (0 = passed), how often it bid "
        "the top (3 分, or call 叫地主), beside everyone's bid rate with such a hand under the "
        "same rulesets (each ruleset's weighted by the player's hands of that strength under "
        "it); then its record as landlord with it. Bidding weak hands and passing strong ones "
        "shows here."
    )
)
bidding = ddz_data.bidding(f, player)
if bidding.empty:
    st.write("No auction with a known hand in these games.")
else:
    rate = {k: st.column_config.NumberColumn(ui.label(k), format="%.2f")
            for k in ("bid_rate", "avg_bid", "top_bid_rate", "all_bid_rate")}  # fmt: skip
    ui.table(bidding, column_config=rate, key="ddz_pl_bidding", whole=True)

st.subheader("Games")
games = data.query("dash_ddz_player_games", f, player=player, limit=ddz_data.GAME_ROWS + 1)
games = ddz_ui.with_replay_links(ui.first_rows(games, "games, newest first",
                                                rows=ddz_data.GAME_ROWS))  # fmt: skip
st.caption(
    "The results and stakes: the role, won or lost, the score, the game's bid, multiplier and "
    "spring."
)
ui.table(games[GAMES], column_config={"replay": ui.REPLAY_LINK}, unit="money",
         key="ddz_pl_games")  # fmt: skip
st.caption(
    ui.term(
        "The same games' auctions: the player's seat, its own highest bid (0 = passed) and its "
        "hand strength at bidding (void deals 荒牌 included)."
    )
)
ui.table(games[AUCTIONS], column_config={"replay": ui.REPLAY_LINK}, key="ddz_pl_auctions")
ui.download_csv(games, "these games", "ddz_player_games.csv", key="ddz_pl_games_csv")
