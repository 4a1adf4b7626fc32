"""Hand replayer: pick a game (selection or ``?game_id=``) and step through it action by action.

Keyboard: ← / → previous / next action, Home / End first / last (Streamlit button shortcuts);
Tab reaches every control.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboards import data, ui

GAME_KEY = "replayer_game"
STEP_KEY = "replayer_step"


#: The characters that can start Markdown (or Streamlit) markup inside a line: escaped by plain().
MARKUP = frozenset("\\`*_{}[]()<>#!|~:$.@&")


def plain(value: object) -> str:
    """``value`` as literal text inside Markdown (``?game_id=`` comes from any link): each
    character that can start a link, an autolink (``http:``, ``www.``, ``a@b.c``), emphasis, a
    ``:color[]`` directive, a ``$`` formula or an entity is backslash-escaped; line breaks
    become spaces (no block markup can start)."""
    text = " ".join(str(value).split())
    return "".join("\\" + c if c in MARKUP else c for c in text)


st.title("🃏 Hand replayer")
if not ui.require_games():
    st.stop()

f = ui.current_filters()
options = data.query("dash_games", f, limit=5000)["game_id"].tolist()

# ?game_id= (a link from any table) picks the game once; the selection box then drives it
wanted = st.query_params.get("game_id")
if wanted and st.session_state.get("_replayer_qp") != wanted:
    st.session_state["_replayer_qp"] = wanted
    if not data.query("dash_game", game_id=wanted).empty:
        st.session_state[GAME_KEY] = wanted
        step_param = st.query_params.get("step") or ""
        st.session_state["_replayer_start"] = int(step_param) if step_param.isdigit() else 0
    else:
        st.warning(f"No game {plain(wanted)} in the warehouse.")
current = st.session_state.get(GAME_KEY)
if current and current not in options:
    options = [current, *options]
if not options:
    st.info("No game matches the filters in the sidebar.")
    st.stop()

game_id = st.selectbox("Game", options, key=GAME_KEY)
st.session_state["_replayer_qp"] = game_id
st.query_params["game_id"] = game_id

found = data.query("dash_game", game_id=game_id)
if found.empty:  # the warehouse changed under us
    st.warning(f"No game {plain(game_id)} in the warehouse.")
    st.stop()
g = data.record(found.iloc[0])
seats = data.query("dash_game_seats", game_id=game_id)
actions = data.query("dash_game_actions", game_id=game_id)
hands = data.hands_after(seats, actions)
n = len(actions)

if st.session_state.get("_replayer_step_game") != game_id:
    st.session_state["_replayer_step_game"] = game_id
    st.session_state[STEP_KEY] = min(st.session_state.pop("_replayer_start", 0), n)


def _move(delta: int | None = None, to: int | None = None) -> None:
    step = int(st.session_state.get(STEP_KEY, 0))
    step = to if to is not None else step + (delta or 0)
    st.session_state[STEP_KEY] = max(0, min(n, step))


names = {
    int(r.seat): (r.name if isinstance(r.name, str) and r.name else r.player_id)
    for r in seats.itertuples()
}
st.caption(
    f"ruleset **{g['ruleset']}** · {g['players']} players · match {g['match_id'] or '—'} "
    f"game {g['game_number']} · started {ui.when(g['started_at'])} · {n} actions, "
    f"{g['n_tricks']} tricks · {'full' if g['full_info'] else 'partial'} information · "
    f"source {g['source_file']}:{g['source_line']}"
)

bar = st.container(horizontal=True, vertical_alignment="center")
bar.button("⏮ First", on_click=_move, kwargs={"to": 0}, shortcut="Home", key="rp_first")
bar.button("◀ Previous", on_click=_move, kwargs={"delta": -1}, shortcut="Left", key="rp_prev")
bar.button("Next ▶", on_click=_move, kwargs={"delta": 1}, shortcut="Right", key="rp_next")
bar.button("Last ⏭", on_click=_move, kwargs={"to": n}, shortcut="End", key="rp_last")
step_label = bar.empty()
if n:
    st.slider("Step", min_value=0, max_value=n, key=STEP_KEY, help="← / → keys step too")
step = int(st.session_state.get(STEP_KEY, 0))
st.query_params["step"] = str(step)  # the link opens this step (read when the game changes)
step_label.markdown(f"**Step {step} / {n}** " + ("(the deal)" if step == 0 else ""))


def _row(i: int) -> dict[str, Any]:
    """Action ``i`` as a dict, missing values as ``None``."""
    return data.record(actions.iloc[i])


act: dict[str, Any] | None = _row(step - 1) if step else None


def _describe(a: dict[str, Any]) -> str:
    who = f"seat {a['seat']} ({ui.text(names.get(int(a['seat']), '?'))})"
    kind = a["action_type"]
    if kind == "play":
        label = (a["kind"] or "play").replace("_", " ")
        return f"{who} plays {label} {ui.cards_html(ui_mask(a['cards_mask']))}" + (
            " and <b>goes out</b> 🏁" if a["wins_game"] else ""
        )
    if kind == "pass":
        end = " — everyone passed, the trick ends" if a["ends_trick"] else ""
        drawn = f" and draws {ui.text(a['drawn_text'])}" if a.get("drawn_text") else ""
        return f"{who} passes{drawn}{end}"
    if kind == "claim":
        return f"{who} claims <b>{ui.text(a['claim'])}</b>"
    return f"{who} swaps {ui.text(a['cards_text'])}"


def ui_mask(value: Any) -> int | None:
    return None if data.missing(value) else int(value)


def _result_tables() -> None:
    """The end of the game in a few readable columns: each seat's result in the game's unit,
    then who paid whom (money games); every scoring column in an expander."""
    scores = data.query("dash_game_scores", game_id=game_id)
    points = bool((scores["settlement"] == "penalty_points").any())
    unit = "penalty points" if points else "money"
    by_seat = seats.set_index("seat")
    result = pd.DataFrame(
        {
            "seat": scores["seat"],
            "player_id": scores["player_id"],
            "cards_left": [int(by_seat.loc[int(s), "cards_left"]) for s in scores["seat"]],
            "final_hand_text": [by_seat.loc[int(s), "final_hand_text"] for s in scores["seat"]],
            "炒": [f"{ui.term(t)} ×{int(m)}" if not data.missing(t) and t else "" for t, m in
                   zip(scores["tier_name"], scores["multiplier"].fillna(1), strict=True)],
            "result": scores["points"] if points else scores["net"],
        }
    )  # fmt: skip
    st.markdown(f"**Result under the game's own rules** ({unit})")
    ui.table(result, unit=unit + (", added to the running total" if points else ", + won / − lost"),
             key="rp_result")  # fmt: skip
    if points:
        st.caption("Penalty points: no money changes hands (the lowest total wins the match).")
    else:
        paid = data.query("dash_game_payments", game_id=game_id)
        if paid.empty:
            st.caption("Nobody paid anybody in this game.")
        else:
            st.markdown("**Who paid whom** (money, before any bankroll cap)")
            ui.table(paid.drop(columns=["payer_seat", "receiver_seat"]), unit="money",
                     key="rp_payments")  # fmt: skip
    with st.expander("Every scoring column (mart_game_scores)"):
        ui.table(scores)


# the trick on the table after this step: the plays of the current trick so far
trick_rows = []
if act is not None:
    trick_no = act["trick"]
    trick_rows = [_row(i) for i in range(step) if actions["trick"].iat[i] == trick_no]
    if act["ends_trick"]:
        trick_rows = []  # cleared: the next trick starts
last_by_seat: dict[int, str] = {}
top: dict[str, Any] | None = None
for r in trick_rows:
    if r["action_type"] == "play":
        top = r
        last_by_seat[int(r["seat"])] = ui.cards_html(ui_mask(r["cards_mask"]))
    elif r["action_type"] == "pass":
        last_by_seat[int(r["seat"])] = "<i>pass</i>"

st.markdown(ui.CARD_CSS, unsafe_allow_html=True)
if act is None:
    st.info("The deal. Press **Next ▶** (or →) to play the first action.")
else:
    st.markdown(f"**Step {step}** · trick {act['trick']}: {_describe(act)}", unsafe_allow_html=True)
    if act["obligation"]:
        need = {
            "lead_non_single_or_highest_single": "lead a non-single or the highest single",
            "follow_with_highest_single": "follow with the highest single",
        }.get(act["obligation"], act["obligation"])
        nxt = int(act["next_seat"])
        line = (
            ui.term("頂大")
            + f": the next seat {nxt} ({names.get(nxt, '?')}) holds one card, so seat "
            f"{act['seat']} must {need} — **{act['block']}**"
            + (f" ({act['block_reason']})" if act["block_reason"] else "")
        )
        {"violated": st.error, "unknown": st.warning}.get(act["block"], st.success)(line, icon="🛡️")

if top is not None:
    st.markdown(
        f"**On the table** (trick {top['trick']}): {ui.cards_html(ui_mask(top['cards_mask']))} "
        f"by seat {top['seat']}",
        unsafe_allow_html=True,
    )
elif act is not None:
    st.markdown("**On the table:** nothing — a new trick is led next.")

# every seat's hand
left_counts = list(act["cards_left"]) if act is not None else None
cols = st.columns(len(seats))
for s, row in enumerate(seats.itertuples()):
    mask = hands[step][s]
    count = (
        int(left_counts[s])
        if left_counts is not None
        else (mask.bit_count() if mask is not None else 13)
    )
    css = "b2-seat"
    if act is not None and int(act["seat"]) == s:
        css += " b2-dingdai" if act["obligation"] else " b2-turn"
    if step == n and row.is_winner:
        css += " b2-winner"
    badge = " 🏆" if step == n and row.is_winner else ""
    on_table = last_by_seat.get(s, "")
    cols[s].markdown(
        f'<div class="{css}"><b>Seat {s}</b> · {ui.text(names[s])}{badge}<br>'
        f"<small>{count} card{'s' if count != 1 else ''} left</small><br>"
        f"{ui.cards_html(mask, count=count)}"
        + (f"<br><small>this trick:</small> {on_table}" if on_table else "")
        + "</div>",
        unsafe_allow_html=True,
    )

if step == n:
    st.subheader("Result")
    winner = g["winner"]
    if winner is None:
        st.info(f"No winner: {g['outcome']} ({g['claim'] or ''}).")
    else:
        w = int(winner)
        st.success(
            f"Seat {w} ({names.get(w, '?')}) wins — {g['outcome'].replace('_', ' ')}"
            + (f" by {g['claim']}" if g["claim"] else ""),
            icon="🏆",
        )
    if g["bao_seat"] is not None:
        bs = int(g["bao_seat"])
        st.error(
            ui.term(f"包牌: seat {bs} ({names.get(bs, '?')}) pays for the others (頂大 violation).")
        )
    if data.mart_exists("scores"):
        _result_tables()
    else:
        ui.table(seats[["seat", "player_id", "cards_left", "is_winner", "final_hand_text"]])
        st.caption(
            f"Points and money under the game's rules come from the scoring mart "
            f"`{data.MARTS['scores']}` (issue 6), not built in this warehouse yet."
        )

moments = actions[actions["obligation"].notna()]
with st.expander(
    ui.term("頂大") + f" moments in this game ({len(moments)})", expanded=bool(len(moments))
):
    if moments.empty:
        st.write("None: no seat was ever obliged to block.")
    for m in moments.itertuples():
        label = f"step {m.action_index + 1}: seat {m.seat} {m.obligation} → {m.block}"
        st.button(
            label,
            key=f"rp_jump_{m.action_index}",
            on_click=_move,
            kwargs={"to": m.action_index + 1},
        )

with st.expander("All actions"):
    cols_shown = [
        "step", "trick", "seat", "action_type", "cards_text", "kind",
        "top_before_text", "obligation", "block", "block_reason",
    ]  # fmt: skip
    ui.table(actions.assign(step=actions["action_index"] + 1)[cols_shown])
