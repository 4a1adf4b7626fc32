"""The game selector (Big Two / Dou Dizhu) and the Dou Dizhu pages' drawing helpers: cards
with the jokers (BJ 小王, RJ 大王), replay links to the Dou Dizhu replayer.

The selector sits at the top of the sidebar (key ``f_game``) and is kept in the URL as
``?game=ddz`` (no parameter = Big Two), so a link to a Dou Dizhu page opens with Dou Dizhu
chosen; ``app.py`` lists the chosen game's pages (:func:`pages`). The game terms (地主, 農民,
小王 …) read in the sidebar's locale (:mod:`dashboards.terms`), as on the Big Two pages.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboards import ddz_data, terms, ui
from pipeline.cards import cards_of as _cards_of

GAME_KEY = ddz_data.GAME_KEY
BIG2, DDZ = "big2", "ddz"
GAMES = {BIG2: "Big Two 鋤大D", DDZ: "Dou Dizhu 鬥地主"}
REPLAYER_PATH = "ddz_replayer"
#: The jokers' card ids (pipeline/doudizhu/cards.py's encoding, which never changes: 0..51 are
#: Big Two's cards; the dashboards import no rules engine, tests/test_architecture.py).
BLACK_JOKER, RED_JOKER = 52, 53

JOKER_CSS = """
<style>
.ddz-bj { color:#111; background:#f3f3f3; } .ddz-rj { color:#d32f2f; background:#fff1f1; }
.ddz-kitty { padding:0.35em 0.6em; border:1px dashed #b08d57; border-radius:0.5em;
  background:#fffaf0; margin-bottom:0.4em; }
.ddz-landlord { border:2px solid #b71c1c; background:#fff5f5; }
</style>
"""


def game_choice() -> str:
    """The game chosen in the sidebar (``big2`` or ``ddz``), first from ``?game=``."""
    if GAME_KEY not in st.session_state:
        wanted = st.query_params.get("game")
        st.session_state[GAME_KEY] = wanted if wanted in GAMES else BIG2
    locale = terms.chosen()  # fixed for this run: the labels are read again after it
    with st.sidebar:
        game = st.radio(
            "Game",
            list(GAMES),
            format_func=lambda g: terms.text(GAMES[g], locale),
            key=GAME_KEY,
            on_change=_new_game,
            horizontal=True,
            help="Every page shows the chosen game's games only",
        )
    if game == DDZ:
        st.query_params["game"] = DDZ
    elif "game" in st.query_params:
        del st.query_params["game"]
    return str(game)


def _new_game() -> None:
    """Another game: its own rulesets, matches and players, so the filters start afresh."""
    for key in ui.FILTER_KEYS:  # dropped, not set to None: the new options' widgets start at (all)
        st.session_state.pop(key, None)


def pages(game: str, big2: dict[str, list[Any]], ddz: dict[str, list[Any]],
          shared: dict[str, list[Any]]) -> dict[str, list[Any]]:  # fmt: skip
    """The navigation of ``game``: its own pages, then the shared ones (operations)."""
    return {**(ddz if game == DDZ else big2), **shared}


#: Characters that can start Markdown markup: escaped by :func:`plain` (as the Big Two replayer).
MARKUP = frozenset("\\`*_{}[]()<>#!|~:$.@&")


def plain(value: object) -> str:
    r"""``value`` (``?game_id=`` comes from any link) as literal text inside Markdown.

    >>> print(plain("[x](http://e.vil)"))
    \[x\]\(http\://e\.vil\)
    """
    text = " ".join(str(value).split())
    return "".join("\\" + c if c in MARKUP else c for c in text)


def card_html(c: int) -> str:
    """One Dou Dizhu card: a joker as ``BJ`` / ``RJ`` (小王 black, 大王 red; its name in the
    chosen locale), else as Big Two.

    >>> card_html(53)
    '<span class="b2-card ddz-rj" title="大王 red joker">RJ</span>'
    """
    if c == BLACK_JOKER:
        return f'<span class="b2-card ddz-bj" title="{terms.text("小王 black joker")}">BJ</span>'
    if c == RED_JOKER:
        return f'<span class="b2-card ddz-rj" title="{terms.text("大王 red joker")}">RJ</span>'
    return ui.card_html(c)


def cards_html(mask: int | None, *, count: int | None = None) -> str:
    """A Dou Dizhu card set as coloured HTML, low to high; unknown cards as ``count`` backs."""
    if mask is None:
        n = count or 0
        return '<span class="b2-card b2-back">?</span>' * n if n else "<i>unknown</i>"
    if mask == 0:
        return "<i>none</i>"
    return "".join(card_html(c) for c in sorted(_cards_of(mask), key=_order))


def _order(c: int) -> tuple[int, int]:
    return (13 if c == BLACK_JOKER else 14 if c == RED_JOKER else c >> 2), c


def paid_words(
    *,
    bid: int,
    stake: float,
    bombs_rockets: int,
    raw: int,
    paid: int,
    amount: float,
    spring: str | None,
) -> str:
    """What a played-out game paid per farmer, as the replayer says it at the last step: bid ×
    stake × the multiplier paid, and how that multiplier came from the bombs and rockets
    (``bombs_rockets`` = 2^(bombs + rockets)), the spring doubling (``raw``, ``spring``) and
    the cap (封頂).

    >>> paid_words(bid=3, stake=1, bombs_rockets=1, raw=2, paid=2, amount=6, spring="spring")
    'bid 3 × stake 1 × 2 = 6 per farmer (×1 from bombs and rockets, ×2 for the spring 春天)'
    >>> paid_words(bid=2, stake=1, bombs_rockets=4, raw=4, paid=1, amount=2, spring=None)
    'bid 2 × stake 1 × 1 = 2 per farmer (×4 from bombs and rockets, cap 封頂 ×1)'
    >>> paid_words(bid=1, stake=5, bombs_rockets=2, raw=2, paid=2, amount=10, spring=None)
    'bid 1 × stake 5 × 2 = 10 per farmer'
    """
    why = []
    if raw != bombs_rockets:
        name = "anti-spring 反春" if spring == "anti_spring" else "spring 春天"
        why.append(f"×{raw // max(bombs_rockets, 1)} for the {name}")
    if paid != raw:
        why.append(f"cap 封頂 ×{paid}")
    said = f"bid {bid} × stake {stake:g} × {paid} = {amount:g} per farmer"
    return said + (f" (×{bombs_rockets} from bombs and rockets, {', '.join(why)})" if why else "")


def role_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``role`` (``landlord``, ``farmer``) in words of the chosen locale
    (:data:`ddz_data.ROLE_WORDS`: ``地主 landlord``; in English ``landlord``)."""
    words = {r: terms.text(w) for r, w in ddz_data.ROLE_WORDS.items()}
    return frame.assign(role=frame["role"].map(lambda r: words.get(r, r)))


def with_replay_links(
    frame: pd.DataFrame, column: str = "game_id", *, step: str | None = None
) -> pd.DataFrame:
    """Add a ``replay`` link column opening the Dou Dizhu replayer on that game (at the step
    held in column ``step``), with ``game=ddz`` so the selector follows.

    >>> with_replay_links(pd.DataFrame({"game_id": ["g 1"], "step": [4]}), step="step")["replay"][0]
    'ddz_replayer?game_id=g+1&step=4&game=ddz'
    """
    out = frame.copy()
    games = out[column].tolist()
    steps = out[step].tolist() if step else [None] * len(games)
    links = [
        f"{REPLAYER_PATH}?"
        + urlencode({"game_id": g, **({"step": int(k)} if k is not None else {}), "game": DDZ})
        for g, k in zip(games, steps, strict=True)
    ]
    out.insert(0, "replay", pd.Series(links, index=out.index, dtype=object))
    return out
