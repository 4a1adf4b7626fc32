"""Dou Dizhu hand replayer: pick a game (selection or ``?game_id=…&step=…``) and step through
it: the deal (jokers BJ 小王 / RJ 大王 drawn as such), the auction (every bid in order), the
kitty (底牌) face down until the landlord takes it, the roles (地主 / 農民), the multiplier as
bombs and the rocket double it, then each play; at the end the result under the game's ruleset
and who paid whom (``ddz_game_scores``).

Keyboard: ← / → previous / next action, Home / End first / last.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboards import data, ddz_data, ddz_ui, ui
from pipeline.wording import plural

GAME_KEY = "ddz_replayer_game"
STEP_KEY = "ddz_replayer_step"
#: The last step's scores: whose seat and the score first, then how the amount came (13
#: columns ran past 1400 px: the score was cut at the edge); the amount's unit (the score's
#: beside it) and the uncapped multiplier's wording in their help.
SCORES = ["seat", "player_id", "role", "is_winner", "score", "amount", "multiplier",
          "multiplier_raw", "bid", "bombs", "rockets", "stake", "spring"]  # fmt: skip
SCORE_HEADERS = {
    "amount": st.column_config.NumberColumn(
        "amount", format=ui.SCORE_FORMAT, help="Money each farmer pays or is paid: bid × stake × "
        "the multiplier paid (the landlord pays or is paid the farmers' total)"),
    "multiplier_raw": st.column_config.NumberColumn(
        "uncapped", help=ui.term("The multiplier before the cap (封頂): 2^(bombs + rockets), "
                                 "the spring doubling applied")),
    "multiplier": st.column_config.NumberColumn(
        "multiplier", help=ui.term("The multiplier paid: the cap (封頂) applied")),
}  # fmt: skip

st.title("🃏 Dou Dizhu replayer")
if not ui.require_games() or not ui.marts_ready(*ddz_data.DDZ_MARTS):
    st.stop()

f = ui.current_filters()
options = data.query("dash_ddz_games", f, limit=5000)["game_id"].tolist()

wanted = st.query_params.get("game_id")
if wanted and st.session_state.get("_ddz_rp_qp") != wanted:
    st.session_state["_ddz_rp_qp"] = wanted
    if not data.query("dash_ddz_game", game_id=wanted).empty:
        st.session_state[GAME_KEY] = wanted
        step_param = st.query_params.get("step") or ""
        st.session_state["_ddz_rp_start"] = int(step_param) if step_param.isdigit() else 0
    else:
        st.warning(f"No Dou Dizhu game {ddz_ui.plain(wanted)} in the warehouse.")
current = st.session_state.get(GAME_KEY)
if current and current not in options:
    options = [current, *options]
if not options:
    st.info("No Dou Dizhu game matches the filters in the sidebar.", icon="🀄")
    st.stop()

game_id = st.selectbox("Game", options, key=GAME_KEY)
st.session_state["_ddz_rp_qp"] = game_id
st.query_params["game_id"] = game_id

found = data.query("dash_ddz_game", game_id=game_id)
if found.empty:
    st.warning(f"No Dou Dizhu game {ddz_ui.plain(game_id)} in the warehouse.")
    st.stop()
g = data.record(found.iloc[0])
seats = data.query("dash_ddz_game_seats", game_id=game_id)
actions = data.query("dash_ddz_game_actions", game_id=game_id)
kitty = None if g["kitty_mask"] is None else int(g["kitty_mask"])
hands = ddz_data.hands_after(seats, actions, kitty)
n = len(actions)

if st.session_state.get("_ddz_rp_step_game") != game_id:
    st.session_state["_ddz_rp_step_game"] = game_id
    st.session_state[STEP_KEY] = min(st.session_state.pop("_ddz_rp_start", 0), n)


def _move(delta: int | None = None, to: int | None = None) -> None:
    step = int(st.session_state.get(STEP_KEY, 0))
    step = to if to is not None else step + (delta or 0)
    st.session_state[STEP_KEY] = max(0, min(n, step))


names = {int(r.seat): str(r.name if isinstance(r.name, str) and r.name else r.player_id)
         for r in seats.itertuples()}  # fmt: skip
cap = "no cap" if g["multiplier_cap"] is None else f"cap ×{g['multiplier_cap']}"
st.caption(
    f"ruleset **{g['ruleset']}** · {g['players']} players · bidding {g['bidding']} · stake "
    f"{g['stake']:g} · {cap} · spring doubles: {'yes' if g['spring_doubles'] else 'no'} · match "
    f"{g['match_id'] or '—'} game {g['game_number']} · started {ui.when(g['started_at'])} · "
    f"{n} actions · {g['info_level']} information · source {g['source_file']}:{g['source_line']}"
)

bar = st.container(horizontal=True, vertical_alignment="center")
bar.button("⏮ First", on_click=_move, kwargs={"to": 0}, shortcut="Home", key="ddz_rp_first")
bar.button("◀ Previous", on_click=_move, kwargs={"delta": -1}, shortcut="Left", key="ddz_rp_prev")
bar.button("Next ▶", on_click=_move, kwargs={"delta": 1}, shortcut="Right", key="ddz_rp_next")
bar.button("Last ⏭", on_click=_move, kwargs={"to": n}, shortcut="End", key="ddz_rp_last")
step_label = bar.empty()
if n:
    st.slider("Step", min_value=0, max_value=n, key=STEP_KEY, help="← / → keys step too")
step = int(st.session_state.get(STEP_KEY, 0))
st.query_params["step"] = str(step)  # the link opens this step (read when the game changes)
step_label.markdown(f"**Step {step} / {n}** " + ("(the deal)" if step == 0 else ""))


def _row(i: int) -> dict[str, Any]:
    return data.record(actions.iloc[i])


act = _row(step - 1) if step else None
landlord: int | None = None if act is None or act["landlord"] is None else int(act["landlord"])
in_play = act is not None and act["phase"] == "play"
multiplier = 1 if act is None or act["multiplier"] is None else int(act["multiplier"])


def _who(seat: Any) -> str:
    return f"seat {int(seat)} ({ui.text(names.get(int(seat), '?'))})"


def _describe(a: dict[str, Any]) -> str:
    if a["phase"] == "auction":
        words = dict(ddz_data.auction(actions.iloc[[step - 1]], 1)).get(int(a["seat"]), "")
        end = ""
        if a["ends_auction"]:
            end = (f" — the auction ends: {_who(a['landlord'])} is the "
                   + ui.term("landlord (地主) and takes the kitty") if a["landlord"] is not None
                   else " — everyone passed: void deal")  # fmt: skip
        return f"{_who(a['seat'])} bids <b>{ui.text(ui.term(words))}</b>{end}"
    if a["action_type"] == "pass":
        return f"{_who(a['seat'])} passes" + (" — the round ends" if a["ends_trick"] else "")
    label = (a["kind"] or "play").replace("_", " ")
    mask = None if a["cards_mask"] is None else int(a["cards_mask"])
    bang = " 💣 the multiplier doubles" if a["kind"] in ("bomb", "rocket") else ""
    return (f"{_who(a['seat'])} plays {label} {ddz_ui.cards_html(mask)}{bang}"
            + (" and <b>goes out</b> 🏁" if a["wins_game"] else ""))  # fmt: skip


st.markdown(ui.CARD_CSS + ddz_ui.JOKER_CSS, unsafe_allow_html=True)
if act is None:
    st.info("The deal. Press **Next ▶** (or →) to start the auction.")
else:
    phase = "auction" if act["phase"] == "auction" else f"round {act['trick']}"
    st.markdown(f"**Step {step}** · {phase}: {_describe(act)}", unsafe_allow_html=True)

# the auction so far, the kitty, the multiplier
bids = ddz_data.auction(actions, step)
top = st.columns([3, 2, 2])
with top[0]:
    said = " → ".join(f"{_who(s)}: <b>{ui.text(ui.term(w))}</b>" for s, w in bids)
    said = said or "<i>not started</i>"
    st.markdown(f"**Auction** (first bidder seat {g['first_bidder']}): {said}",
                unsafe_allow_html=True)  # fmt: skip
with top[1]:
    shown = kitty if landlord is not None else None
    size = int(g["kitty_size"] or 0)
    st.markdown(
        f'<div class="ddz-kitty"><b>{ui.term("Kitty (底牌)")}</b>: '
        f"{ddz_ui.cards_html(shown, count=size)}"
        + ("" if landlord is not None else " <small>(face down until the auction ends)</small>")
        + "</div>",
        unsafe_allow_html=True,
    )
    if g["set_aside_mask"] is not None:
        st.markdown(f"**Set aside**: {ddz_ui.cards_html(int(g['set_aside_mask']))}",
                    unsafe_allow_html=True)  # fmt: skip
# at the last step of a played-out game: what the table paid (spring doubling and cap applied)
ended = step == n and g["landlord"] is not None
scores = data.query("dash_ddz_game_scores", game_id=game_id) if ended else None
paid_row = None if scores is None or scores.empty else data.record(scores.iloc[0])
with top[2]:
    bid = g["bid"] if landlord is not None else None
    if paid_row is None:
        st.metric(
            "Multiplier", f"×{multiplier}", help="2^(bombs + rockets) so far, before spring and cap"
        )
        if bid:
            st.caption(
                f"bid {bid} × stake {g['stake']:g} × {multiplier} = "
                f"{bid * g['stake'] * multiplier:g} per farmer so far"
            )
    else:
        paid = int(paid_row["multiplier"])
        st.metric("Multiplier", f"×{paid}", help=ui.term(
            "What the table paid: 2^(bombs + rockets), ×2 for a spring (春天) or anti-spring "
            "(反春) when the ruleset doubles it, capped at the multiplier cap (封頂)"))  # fmt: skip
        st.caption(ui.term(ddz_ui.paid_words(
            bid=int(paid_row["bid"]), stake=float(paid_row["stake"]), bombs_rockets=multiplier,
            raw=int(paid_row["multiplier_raw"]), paid=paid, amount=float(paid_row["amount"]),
            spring=paid_row["spring"])))  # fmt: skip

# the round on the table after this step
round_rows: list[dict[str, Any]] = []
if in_play and act is not None and not act["ends_trick"]:
    round_rows = [_row(i) for i in range(step) if actions["trick"].iat[i] == act["trick"]]
last_by_seat: dict[int, str] = {}
for r in round_rows:
    if r["action_type"] == "play":
        mask = None if r["cards_mask"] is None else int(r["cards_mask"])
        last_by_seat[int(r["seat"])] = ddz_ui.cards_html(mask)
    elif r["action_type"] == "pass":
        last_by_seat[int(r["seat"])] = "<i>pass</i>"

left_counts = list(act["cards_left"]) if act is not None else None
cols = st.columns(len(seats))
for s, row in enumerate(seats.itertuples()):
    mask = hands[step][s]
    count = int(left_counts[s]) if left_counts is not None else int(row.cards_left or 0)
    if left_counts is None and mask is not None:
        count = mask.bit_count()
    css = "b2-seat"
    if landlord == s:
        css += " ddz-landlord"
    if act is not None and int(act["seat"]) == s:
        css += " b2-turn"
    if step == n and row.is_winner is True:
        css += " b2-winner"
    role = (
        ""
        if landlord is None
        else ui.term(" · 地主 landlord" if landlord == s else " · 農民 farmer")
    )
    badge = " 🏆" if step == n and bool(row.is_winner) else ""
    on_table = last_by_seat.get(s, "")
    cols[s].markdown(
        f'<div class="{css}"><b>Seat {s}</b> · {ui.text(names[s])}{role}{badge}<br>'
        f"<small>{count} card{'s' if count != 1 else ''} left</small><br>"
        f"{ddz_ui.cards_html(mask, count=count)}"
        + (f"<br><small>this round:</small> {on_table}" if on_table else "")
        + "</div>",
        unsafe_allow_html=True,
    )

if step == n:
    st.subheader("Result")
    if g["landlord"] is None:
        st.info(ui.term("Void deal (荒牌): every seat passed; nobody pays, the cards are dealt "
                        "again."))  # fmt: skip
    else:
        ll = int(g["landlord"])
        side = "The landlord wins" if g["landlord_won"] else "The farmers win"
        springs = {"spring": " — spring 春天", "anti_spring": " — anti-spring 反春"}
        spring = ui.term(springs.get(g["spring"] or "", ""))
        bangs = f"{plural(int(g['bombs']), 'bomb')}, {plural(int(g['rockets']), 'rocket')}"
        st.success(f"{side} ({_who(ll)} was the landlord, bid {g['bid']}, {bangs}){spring}.",
                   icon="🏆")  # fmt: skip
    st.markdown("**Scores under the game's own ruleset** (money, + won / − lost)")
    ui.table(data.query("dash_ddz_game_scores", game_id=game_id), unit="money",
             key="ddz_rp_scores", first=SCORES, column_config=SCORE_HEADERS)  # fmt: skip
    paid = data.query("dash_ddz_game_payments", game_id=game_id)
    if paid.empty:
        st.caption("Nobody paid anybody in this game.")
    else:
        st.markdown("**Who paid whom** (money)")
        ui.table(paid, unit="money", key="ddz_rp_payments")

with st.expander("All actions"):
    cols_shown = ["step", "phase", "trick", "seat", "action_type", "bid", "cards_text", "kind",
                  "top_before_text", "landlord", "multiplier"]  # fmt: skip
    ui.table(actions[cols_shown], key="ddz_rp_actions")
