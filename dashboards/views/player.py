"""Player: one player's profile: the leak finder (strategy stats against the winning players),
炒 history, 頂大 record, seat effects, games.

From the marts (``stats_player_games``, ``mart_game_scores``, ``audit_obligations``,
``stats_seat_positions``) under the sidebar filters; without them, the page says to run
``big2 build`` (the games list reads the games table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboards import data, ui

st.title("👤 Player")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
players = data.players(replace(f, player_id=None))  # every player: the list picks one
if not players:
    st.info("No game matches the filters.")
    st.stop()
if f.player_id in players:
    st.session_state["pl_player"] = f.player_id
cut = len(players) >= data.OPTION_LIMIT  # the most active only: any other id can be typed
chosen = st.session_state.get("pl_player")
if cut and chosen and chosen not in players:
    players = [*players, chosen]
picked = st.selectbox(
    "Player",
    players,
    key="pl_player",
    help="The sidebar's player filter picks too"
    + (f"; the {data.OPTION_LIMIT:,} most active listed, type any other id" if cut else ""),
    accept_new_options=cut,
)
if picked is None:
    st.stop()
player: str = picked
ui.filters_caption(f)

#: The leak finder's colours: by whether the difference is good or bad, not by its sign.
VERDICT_COLOURS = {"better": "#2e7d32", "worse": "#c62828", "style": "#9e9e9e", "same": "#9e9e9e"}

#: The leak finder's advice column, in pixels: the table fits at 1400 px (hover for the rest).
ADVICE_PX = 300
#: The obligations' columns in order: whose, the obligation and its outcome first.
OBLIGATIONS = ["replay", "game_id", "step", "player", "next_player", "obligation", "block",
               "block_reason", "required", "played"]  # fmt: skip
MARTS = (*data.SCORING_MARTS, "stats_player_games", "stats_seat_positions", "audit_obligations")


def _games_and_wins(board: pd.DataFrame) -> tuple[pd.Series, Sequence[Any]] | None:
    """The player's row of a board and five metric columns, the first two filled; None (with
    a message) when the player finished none of the filtered games."""
    me = board[board["player"] == player]
    if me.empty:
        st.info(f"{player} finished none of the games the filters select.")
        return None
    r = me.iloc[0]
    c = st.columns(5)
    c[0].metric("Games", int(r["games"]))
    c[1].metric("Wins", int(r["wins"]))
    return r, c


def headline() -> None:
    got = _games_and_wins(data.player_standing(f, player))
    if got is None:
        return
    r, c = got
    all_pct = r["all_win_pct"]
    c[2].metric(
        "Win %",
        "—" if data.missing(r["win_pct"]) else f"{r['win_pct']:.1f}",
        delta=None if data.missing(r["win_pct"]) else f"{r['win_pct'] - all_pct:+.1f} vs all",
    )
    c[3].metric("Score", f"{r['score']:,.0f}", help="Own rules, after the bankroll cap")
    c[4].metric("Rank-ladder title", ui.title(r["title"]), delta=f"rank {int(r['rank'])}",
                delta_color="off")  # fmt: skip
    rates()


def rates() -> None:
    """Score per game and per hour (``dash_player_rates``); no per-hour figure without times."""
    got = data.query("dash_player_rates", f, player=player, gap_minutes=data.GAP_MINUTES, limit=1)
    if got.empty:
        return
    r = data.record(got.iloc[0])
    c = st.columns(5)
    c[0].metric("Score per game", f"{r['score_per_game']:,.2f}", help=ui.SCORE_UNIT)
    if r["hours"] is None:
        c[1].metric("Score per hour", "—", help="No start time in these games: no hours")
    else:
        c[1].metric("Score per hour", f"{r['score_per_hour']:,.1f}", help=ui.SCORE_UNIT)
        c[2].metric("Hours at the table", f"{r['hours']:,.1f}",
                    help=f"{r['timed_games']} of {r['games']} games timed")  # fmt: skip
    st.caption(ui.RATES_NOTE.format(gap=data.GAP_MINUTES))


def from_marts() -> None:
    headline()
    st.subheader("Leak finder: against the winning players")
    st.caption(
        "Each stat is actions ÷ opportunities (docs/stats.md) over the filtered games; "
        "*winners* are the other players with a positive score over them. z is a two-proportion "
        "z-score: the difference weighted by the sample size; |z| > 2 is worth a look (none under "
        f"{data.MIN_GAMES} games)."
    )
    leaks = data.leaks(f, player)
    # the stats and advice name 雙炒 …: in the chosen locale
    words = {c: leaks[c].map(lambda v: ui.term(v) if isinstance(v, str) else v)
             for c in ("stat", "advice")}  # fmt: skip
    leaks = leaks.assign(**words)
    if leaks.empty:
        st.write("Not enough games to compare (no winning player or no stat for this player).")
    else:
        few = bool(leaks["z"].isna().all())
        if few:
            st.info(
                f"Fewer than {data.MIN_GAMES} games in this selection: the rates are shown, "
                "but no z-score (too few games to tell a leak from luck).",
                icon="🔬",
            )
        top = leaks.head(10).iloc[::-1]
        fig = px.bar(top, x="difference" if few else "z", y="stat", orientation="h", height=360,
                     color="verdict", color_discrete_map=VERDICT_COLOURS)  # fmt: skip
        fig.update_layout(
            xaxis_title="player − winners" if few else "z (player vs winners)", yaxis_title=""
        )
        st.plotly_chart(fig, key="pl_leaks")
        st.caption(
            "Colour: green = better than the winners, red = worse (by each stat's polarity: a "
            "higher win rate is better, more 2s left at the end worse), grey = a matter of style."
        )
        ui.table(
            leaks,
            column_config={
                "player_rate": st.column_config.NumberColumn("player", format="%.3f"),
                "winners_rate": st.column_config.NumberColumn("winners", format="%.3f"),
                "difference": st.column_config.NumberColumn("difference", format="%+.3f"),
                "z": st.column_config.NumberColumn("z", format="%+.2f"),
                "advice": st.column_config.TextColumn("advice", width=ADVICE_PX),
            },
            key="pl_leak_table",
            first=["stat", "verdict", "player_rate", "winners_rate", "difference", "z", "advice"],
        )

    st.subheader(ui.term("炒 history"))
    tiers = data.query("dash_chao_tiers", f, player=player)
    hist = data.listing("dash_chao_history", f, player=player)
    st.caption(ui.term("Losses by 炒 tier (×1 = no 炒)."))
    ui.table(tiers)
    if hist.empty:
        st.write(ui.term("Never caught 炒 (×2 or more) in these games."))
    else:
        ui.table(
            ui.with_replay_links(ui.first_rows(hist, ui.term("炒 losses, newest first"))),
            column_config={"replay": ui.REPLAY_LINK, "tier_name": "炒"},
            first=["replay", "game_id", "tier_name", "multiplier", "cards_left", "net"],
        )

    st.subheader(ui.term("頂大 record"))
    record = data.audit_by_player(f, player)
    if record.empty:
        st.write("Never obliged to block in these games.")
    else:
        ui.table(
            record,
            column_config={"violation_pct": "violation %", "bao": "包牌", "bao_paid": "包牌 paid"},
        )
        failed = data.listing("dash_obligations", f, player=player, next=None, only_failed=True)
        if not failed.empty:
            st.caption("Violated (or unknown) obligations:")
            failed = ui.first_rows(failed, "violated or unknown obligations, newest first")
            ui.table(
                ui.with_replay_links(failed.assign(step=failed["action_index"] + 1), step="step"),
                column_config={"replay": ui.REPLAY_LINK},
                first=OBLIGATIONS,
            )

    st.subheader("Seat effect")
    st.caption(
        "Win % by position after the first leader (0 = led the first trick), beside everyone's "
        "(`stats_seat_positions`)."
    )
    seats = data.query("dash_seat_effects", f, player_id=None, player=player)
    if seats.empty:  # games known by their result only (a score sheet): no plays, no leader
        st.write(
            "No position after the first leader in these games: it needs the plays (who led "
            "the first trick), and a score sheet's games hold only their results."
        )
    else:
        ui.table(seats)


if ui.marts_ready(*MARTS):  # else: run `big2 build`
    from_marts()

st.subheader("Games")
games = data.listing("dash_player_games", f, player=player)
games = ui.first_rows(games, "games, newest first")
ui.table(ui.with_replay_links(games), column_config={"replay": ui.REPLAY_LINK})
