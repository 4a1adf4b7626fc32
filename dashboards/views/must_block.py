"""頂大 and collusion: violations, 包牌 paid, the ranked pair list with its evidence, and the
drill-down to the games (replay links).

From the audit marts (``audit_obligations`` under the sidebar filters, ``collusion_ranking`` and
``collusion_evidence`` over the whole warehouse) and ``mart_game_scores`` (包牌 paid); without
them, the page says to run ``big2 build``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import data, ui

st.title(ui.term("🛡️ 頂大 and collusion"))
if not ui.require_games():
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)
st.caption(
    ui.term(
        "頂大 (must-block): when the next player holds one card, a seat must lead a non-single "
        "or its highest single, or follow with its highest single. `unknown` = the hand is not "
        "in the log."
    )
)


#: Key columns first, so that they are seen at 1400 px: whose obligation, the outcome; the
#: pair, its verdict and q-value; the signal and its p-value.
OBLIGATIONS = ["replay", "game_id", "step", "player", "next_player", "obligation", "block",
               "block_reason", "required", "played"]  # fmt: skip
PAIRS = ["rank", "player_id", "partner_id", "verdict", "q_value", "p_combined", "p_bonferroni",
         "n_obligations_toward", "n_violations_toward", "violation_rate_toward",
         "violation_rate_baseline"]  # fmt: skip
EVIDENCE = ["signal", "p_value", "n_cell_actions", "n_cell_opportunities", "cell_rate",
            "n_base_actions", "n_base_opportunities", "base_rate", "baseline"]  # fmt: skip


def replay_table(frame: pd.DataFrame, key: str) -> None:
    ui.table(
        ui.with_replay_links(frame.assign(step=frame["action_index"] + 1), step="step"),
        column_config={"replay": ui.REPLAY_LINK, "next_went_out": "next went out", "bao": "包牌"},
        key=key,
        first=OBLIGATIONS,
    )


def from_marts() -> None:
    per_player = data.audit_by_player(f)
    if per_player.empty:
        st.info("No 頂大 obligation in the games the filters select.")
        return
    st.subheader("Per player")
    st.caption(
        ui.term("violation % = violated ÷ known (met + violated); 包牌 paid in the game's unit.")
        + (
            f" The first {data.TABLE_ROWS:,} rows, most violations first."
            if len(per_player) >= data.TABLE_ROWS
            else ""
        )
    )
    ui.table(
        per_player,
        column_config={"violation_pct": "violation %", "bao": "包牌", "bao_paid": "包牌 paid"},
    )

    st.subheader("Violations and unknowns")
    v = data.listing("dash_obligations", f, player=None, next=None, only_failed=True)
    if v.empty:
        st.success("Every 頂大 obligation in these games was met.", icon="✅")
    else:
        replay_table(ui.first_rows(v, "violations and unknowns, newest first"), "mb_violations")

    st.subheader(ui.term("包牌 paid"))
    bao = data.listing("dash_bao_games", f)
    if bao.empty:
        st.write(ui.term("Nobody paid 包牌 in these games."))
    else:
        ui.table(
            ui.with_replay_links(ui.first_rows(bao, ui.term("包牌 payments, newest first"))),
            column_config={"replay": ui.REPLAY_LINK, "bao_paid": "包牌 paid"},
        )

    st.subheader("Pairs: who fails to block whom")
    st.caption(
        "`collusion_ranking`, most suspicious first: three signals per ordered pair (A obliged "
        "to block B) combined with Fisher's method, q-value by Benjamini–Hochberg; verdict "
        "strong (q < 0.01), moderate, weak, none. Computed over every game of the warehouse (the "
        "tests need the whole sample); the player filter keeps the pairs the player is in."
    )
    pairs = data.query("dash_pairs", player=f.player_id, limit=200)
    if pairs.empty:
        st.write("No pair: nobody was obliged to block anybody.")
        return
    ui.table(pairs, key="mb_pairs", first=PAIRS, hide=[c for c in pairs if c not in PAIRS])
    ui.download_csv(pairs, "the pairs", "collusion_pairs.csv", key="mb_pairs_csv")
    st.caption("The soft-pass and soft-feed signals of a pair are in its evidence below.")
    labels = [f"#{r.rank} {r.player_id} → {r.partner_id}" for r in pairs.itertuples()]
    chosen = st.selectbox("Evidence for the pair", range(len(labels)),
                          format_func=lambda i: labels[i], key="mb_pair")  # fmt: skip
    a, b = pairs.iloc[chosen][["player_id", "partner_id"]]
    st.markdown(f"#### Evidence: {a} → {b}")
    ui.table(data.query("dash_evidence", a=a, b=b), first=EVIDENCE)
    st.markdown(f"#### The games: {a} obliged to block {b}")
    drill = data.listing("dash_obligations", f, player=a, next=b, only_failed=False)
    if drill.empty:
        st.write("No obligation of this pair in the filtered games.")
    else:
        replay_table(ui.first_rows(drill, "obligations, newest first"), "mb_drill")


if ui.marts_ready(*data.SCORING_MARTS, *data.AUDIT_MARTS):  # else: run `big2 build`
    from_marts()
