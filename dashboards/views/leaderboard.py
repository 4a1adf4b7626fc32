"""Leaderboard: standings under the games' own rules, what-if rescoring as any preset or
settlement, rank-ladder titles, the winnings graph with the luck-adjusted line beside it.

Scores come from the scoring marts (``mart_match_standings.result``: after the bankroll cap),
the what-if from ``score_seats(whatif := $whatif)`` with the ruleset JSON bound as a parameter,
the luck line from ``luck_outcomes``. Without the marts, the page says to run ``big2 build``.
"""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from dashboards import data, ui

#: The standings' columns in order: the ranks and the rank change first (seen at 1400 px).
STANDINGS = ["rank", "whatif_rank", "rank_change", "player", "score", "whatif_score", "title",
             "whatif_title", "games", "wins", "win_pct"]  # fmt: skip

st.title("🏆 Leaderboard")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)


if not ui.marts_ready(*data.SCORING_MARTS, "luck_outcomes"):
    st.stop()

opts = data.rescore_options()
c1, c2 = st.columns(2)
preset = c1.selectbox(
    "Rescore as",
    [None, *opts.presets],
    format_func=lambda p: "the games' own rules" if p is None else f"{p} (what-if)",
    key="lb_preset",
    help="What-if: every filtered game scored as if played under this preset",
)
settlement = c2.selectbox(
    "Settlement",
    [None, *opts.settlements],
    format_func=lambda s: "the preset's own" if s is None else s,
    key="lb_settlement",
    disabled=preset is None,
)
whatif = data.whatif_json(preset, settlement if preset is not None else None)

board = data.standings(f, whatif)
if board.empty:
    st.info("No scored game matches the filters.")
    st.stop()

st.subheader("Standings")
if len(board) >= data.TABLE_ROWS:
    st.caption(f"The first {data.TABLE_ROWS:,} players by rank; narrow with the filters.")
if whatif is None:
    st.caption(
        "Score: each game under its own ruleset (money, or − penalty points), after the bankroll "
        "cap; title: the rank ladder for that score."
    )
    board = board.drop(columns=["whatif_score", "whatif_rank", "whatif_title", "rank_change"])
else:
    st.caption(
        f"What-if: every game rescored as **{preset}**"
        + (f" with settlement **{settlement}**" if settlement else "")
        + " (no bankroll cap), beside the score under the games' own rules; title: the rank "
        "ladder for each score (wins and win % "
        "without the what-if: pick the games' own rules)."
    )
hide = [] if whatif is None else ["wins", "win_pct"]  # the what-if table fits at 1400 px
ui.table(board, column_config={"win_pct": ui.WIN_PCT, "title": "title"}, key="lb_standings",
         first=STANDINGS, hide=hide)  # fmt: skip

st.subheader("Rate figures")
rates = data.query("dash_player_rates", f, player=None, gap_minutes=data.GAP_MINUTES,
                   limit=data.TABLE_ROWS)  # fmt: skip
ui.table(
    rates,
    column_config={"hours": ui.HOURS},
    key="lb_rates",
    first=["player", "score_per_game", "score_per_hour", "hours", "games"],
    hide=["score"],
)  # fmt: skip  (the standings show it)
st.caption(ui.RATES_NOTE.format(gap=data.GAP_MINUTES) + " Own rules, after the bankroll cap.")

st.subheader("Winnings graph")
by = st.segmented_control("By", list(data.WINNINGS_BY), default="game", key="lb_by",
                          format_func=lambda b: f"by {b}", help="The graphs' x axis")  # fmt: skip
by = by or "game"
lines = data.winnings_by(data.winnings(f, whatif), by, ui.display_zone())
x_title = data.WINNINGS_BY[by] + (f" ({ui.display_zone()})" if by == "date" else "")
shown = lines["player"].nunique()
in_games = len(data.players(f))
if lines.empty or lines["x"].nunique() < 2:
    st.info(
        f"One {by if by != 'date' else 'game with a start time'}: nothing to plot — a winnings "
        f"graph needs two or more. Widen the filters (match, period, player) to see one"
        + (", or plot it by game." if by != "game" else "."),
        icon="📈",
    )
else:
    left, right = st.columns(2)
    style = {"color": "player", "color_discrete_sequence": ui.PALETTE}
    with left:
        fig = px.line(lines, x="x", y="cumulative_score", **style, markers=by == "match")
        fig.update_layout(
            title="Cumulative score ("
            + ("own rules" if whatif is None else f"what-if: {preset}")
            + ")",
            xaxis_title=x_title,
            yaxis_title=f"score ({ui.SCORE_UNIT})",
            height=420,
        )
        st.plotly_chart(fig, key="lb_winnings")
    with right:
        fig = px.line(lines, x="x", y="cumulative_cards_vs_expected", **style,
                      markers=by == "match")  # fmt: skip
        fig.update_layout(
            title="Luck-adjusted: cards vs expected",
            xaxis_title=x_title,
            yaxis_title="Σ (expected − actual cards left)",
            height=420,
        )
        st.plotly_chart(fig, key="lb_luck")
    if in_games > shown:
        st.caption(
            f"Showing the {shown} most active of {in_games:,} players (the filtered one first); "
            "pick a player in the sidebar to see another."
        )
st.caption(
    "Left: what the player won. Right: the luck-adjusted line, Σ (expected − actual cards left) "
    "where the expectation comes from the opening hand's strength (`luck_outcomes`): rising = "
    f"playing better than the cards dealt. Games with an unknown deal count 0. At most "
    f"{data.WINNINGS_PLAYERS} players (the filtered one first), each its own colour, thinned to about "
    "400 points each. By date: at each game's start (games without one left out); by match: the "
    "total at the end of each match, matches in start order (a game without a match is its own). "
    "With a what-if ruleset, the left graph is the what-if score (no bankroll cap)."
)
