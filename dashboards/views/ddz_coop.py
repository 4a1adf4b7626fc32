"""Farmer cooperation audit (Dou Dizhu): the ranked list of farmers who feed the landlord (pass
though able to beat a landlord down to one or two cards) or beat their partner's play, and the
evidence: each event's game, step (= action_index + 1, the replayer's), the cards, a replay link
at that step. Like the 頂大 audit page for Big Two.

From ``ddz_coop_players`` (ranked over the whole warehouse: the z statistic needs the whole
sample; the sidebar's ruleset and player filters keep rows) and ``ddz_coop_actions`` (the
evidence, under the sidebar filters).
"""

from __future__ import annotations

import streamlit as st

from dashboards import data, ddz_data, ddz_ui, ui

#: The ranking in two tables, a signal each (its 14 columns in one table ran past 1400 px,
#: numbers cut at its edge): the feeds against the player's baseline, by feed rank, key
#: columns first and the counts behind the rates after them ...
RANKED = ["feed_rank", "player_id", "ruleset", "feed_z", "feed_rate", "baseline_rate", "n_feeds",
          "n_feed_opportunities", "n_baseline_passes", "n_baseline_turns"]  # fmt: skip
#: ... and the partner beats, by their own rank.
PARTNER = ["partner_beat_rank", "player_id", "ruleset", "partner_beat_rate", "n_partner_beats",
           "n_partner_follows"]  # fmt: skip
#: The evidence's key columns first: the event (its step, trick, the landlord's cards left, the
#: play on the table and the farmer's answer), then the farmer's hand (17 cards at most, the
#: widest) and when: the step was cut at the edge at 1400 px.
EVIDENCE = ["replay", "game_id", "step", "trick", "landlord_cards_left", "table_play", "played",
            "hand"]  # fmt: skip

st.title("🤝 Farmer cooperation audit")
if not ui.require_games() or not ui.marts_ready(*ddz_data.DDZ_MARTS, *ddz_data.COOP_MARTS):
    st.stop()

f = ui.current_filters()
ui.filters_caption(f)
st.caption(
    ui.term(
        "The two farmers play together against the landlord (地主): a farmer should not beat its "
        "partner's play, and must not let the landlord out. Per farmer's turn holding a beating "
        "play: **feed** = passed on the landlord's play while the landlord holds 1 or 2 cards; "
        "**baseline** = passed on it otherwise (the player's own habit); **partner** = played over "
        "the other farmer's play. feed z compares the feed rate with the player's baseline (a "
        "two-proportion z statistic): a player who simply passes a lot is not a feeder."
    )
)

ranked = data.query("dash_ddz_coop_players", ruleset=f.ruleset, player_id=f.player_id,
                    limit=data.TABLE_ROWS)  # fmt: skip
if ranked.empty:
    st.info("No farmer's turn with a beating play in these games (the audit needs the deal).")
    st.stop()

st.subheader("Feeding the landlord, most suspect first")
rate = {k: st.column_config.NumberColumn(ui.label(k), format="%.3f")
        for k in ("feed_rate", "baseline_rate", "partner_beat_rate")}  # fmt: skip
rate["feed_z"] = st.column_config.NumberColumn("feed z", format="%+.2f")
ui.table(ranked[RANKED], column_config=rate, key="ddz_coop_ranked")
st.markdown("**Beating the partner's play, most first**")
partner = ranked[PARTNER].sort_values(["partner_beat_rank", "player_id", "ruleset"])
ui.table(partner, column_config=rate, key="ddz_coop_partner")
st.caption(
    "Ranked over every Dou Dizhu game of the warehouse (the z statistic needs the whole "
    "sample): the ruleset and player filters keep rows, the match and period filters narrow "
    "the evidence below only."
)
if f.variant:  # the ranking is per preset: not the variant's own figures, and said so
    st.info(
        f"The ranking is per preset: these are the rows of {str(f.ruleset).split(' ', 1)[0]}, every "
        "game of the preset whatever overrides it; the evidence below keeps the chosen "
        "variant's games only.",
        icon="ℹ️",
    )
ui.download_csv(ranked, "the ranking", "ddz_coop_ranking.csv", key="ddz_coop_csv")
top = ranked.iloc[0]
if not data.missing(top["feed_z"]) and top["feed_z"] > 3:
    st.error(
        f"{top['player_id']} ({top['ruleset']}) let the landlord through {int(top['n_feeds'])} "
        f"times of {int(top['n_feed_opportunities'])} (feed rate {top['feed_rate']:.2f}, against "
        f"its own pass rate {top['baseline_rate']:.2f} otherwise: z = {top['feed_z']:+.1f}).",
        icon="🚩",
    )

st.subheader("Evidence")
labels = [f"#{int(r.feed_rank)} {r.player_id} ({r.ruleset})" for r in ranked.itertuples()]
chosen = st.selectbox("Player", range(len(labels)), format_func=lambda i: labels[i],
                      key="ddz_coop_player")  # fmt: skip
signal = st.radio(
    "Signal",
    ["feed", "partner"],
    format_func={
        "feed": "fed the landlord (passed, landlord on 1-2 cards)",
        "partner": "beat the partner's play",
    }.__getitem__,
    horizontal=True,
    key="ddz_coop_signal",
)
who = str(ranked.iloc[chosen]["player_id"])
evidence = data.query("dash_ddz_coop_evidence", f, player=who, signal=signal)
if evidence.empty:
    st.write(f"No such event of {who} in the filtered games.")
else:
    st.caption(
        f"{len(evidence):,} events of {who} (at most 1,000, in play order); table play = the "
        "play let through or beaten, hand = the farmer's hand then. ▶ replay opens the replayer "
        "at that step."
    )
    shown = ddz_ui.with_replay_links(evidence.assign(step=evidence["action_index"] + 1),
                                     step="step")  # fmt: skip
    ui.table(shown, column_config={"replay": ui.REPLAY_LINK}, key="ddz_coop_evidence",
             first=EVIDENCE)  # fmt: skip
