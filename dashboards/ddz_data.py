"""The Dou Dizhu pages' data: named queries of ``sql/queries/dash_ddz_*.sql`` (as
:mod:`dashboards.data` for Big Two: :func:`dashboards.data.query` runs them, cached by the
warehouse's stamp, the filters bound) and the replayer's pure helpers (the hands after each
step, the auction so far, the multiplier).

The queries read the Dou Dizhu staging views and marts (``stg_ddz_*``, ``ddz_*``; ``big2
build``), never a Big Two one: the Big Two pages and these never show each other's games.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import data
from dashboards.frames import FilterOptions, Filters, missing

#: The game selector's session key (``dashboards.ddz_ui``).
GAME_KEY = "f_game"

#: The marts every Dou Dizhu page reads (``big2 build``).
DDZ_MARTS = ("ddz_rulesets", "ddz_game_scores", "ddz_stats_player_games", "rank_ladder")
COOP_MARTS = ("ddz_coop_actions", "ddz_coop_players")
#: The Dou Dizhu bid words (spec 2.3): 叫分 values, 叫地主 calls (a page shows them in the
#: chosen locale: ``ui.term``).
BID_WORDS = {0: "不叫 (pass)", 1: "1 分", 2: "2 分", 3: "3 分"}
#: Column headers of the Dou Dizhu tables (added to ``ui.LABELS``).
LABELS = {"landlord_win_pct": "landlord win %", "farmer_win_pct": "farmer win %",
          "max_bid": "own highest bid", "table_play": "table play", "bid": "bid",
          "n_feeds": "feeds", "feed_z": "feed z", "landlord_cards_left": "landlord's cards left",
          "all_bid_rate": "everyone's bid rate", "others_rate": "other players"}  # fmt: skip
ROLE_WORDS = {"landlord": "地主 landlord", "farmer": "農民 farmer"}
#: The player page's games: the newest this many (a player of 1M games: 1.0-1.5 s for them and
#: their seats' bids and hands, docs/dashboards.md "Dou Dizhu at 1M games").
GAME_ROWS = 1000


def chosen() -> bool:
    """Whether the sidebar's game selector (``dashboards.ddz_ui``) has Dou Dizhu chosen."""
    return st.session_state.get(GAME_KEY) == "ddz"


@data.cached
def filter_options() -> FilterOptions:
    """The sidebar's choices from the Dou Dizhu games (as :func:`dashboards.data.filter_options`
    does from the Big Two ones), from the rollups when they are fresh."""
    fresh = data.rollup(data.NO_FILTERS, "ddz")
    name = "dash_ddz_filter_options_rollup" if fresh else "dash_ddz_filter_options"
    r = data.row(name, limit=data.OPTION_LIMIT)
    day = {k: None if r[k] is None else pd.Timestamp(r[k]).date() for k in ("first", "last")}
    return FilterOptions(
        rulesets=list(r["rulesets"] or []), matches=list(r["matches"] or []),
        players=list(r["players"] or []), first=day["first"], last=day["last"],
        n_matches=int(r["n_matches"] or 0), n_players=int(r["n_players"] or 0),
    )  # fmt: skip


def counts(f: Filters) -> dict[str, Any]:
    """The headline counts of the filtered Dou Dizhu games (one row of ``dash_ddz_counts``)."""
    return data.record(data.query("dash_ddz_counts", f).iloc[0])


def standings(f: Filters, limit: int = data.TABLE_ROWS) -> pd.DataFrame:
    """Per player: games, wins, landlord and farmer records, score, title, rank."""
    return data.query("dash_ddz_standings", f, limit=limit)


#: The leaderboard's what-if caps (封顶): ``None`` keeps the preset's own, ``"none"`` lifts it.
WHATIF_CAPS: tuple[int | str | None, ...] = (None, "none", 1, 2, 4, 8, 16, 32, 64)


@data.cached
def rescore_presets() -> list[str]:
    """The Dou Dizhu presets the leaderboard can rescore as (the ``ddz_rulesets`` table)."""
    return list(data.row("dash_ddz_rescore_options")["presets"] or [])


def whatif_json(preset: str | None, cap: int | str | None = None) -> str | None:
    """The what-if Dou Dizhu ruleset JSON: a preset, with another ``multiplier_cap`` when
    given; ``None`` = the games' own rules.

    >>> import json
    >>> json.loads(whatif_json("ddz", 8))["multiplier_cap"], whatif_json(None, 8)
    (8, None)
    """
    if preset is None:
        return None
    from pipeline.sqlbuild import whatif_json as ruleset_whatif  # as `big2 rescore`

    return ruleset_whatif(preset, {} if cap is None else {"multiplier_cap": cap})


def standings_whatif(f: Filters, whatif: str, limit: int = data.TABLE_ROWS) -> pd.DataFrame:
    """Per player: own rank and score beside the what-if ones (``whatif``, a Dou Dizhu ruleset
    JSON, bound), the rank change and both titles."""
    return data.query("dash_ddz_standings_whatif", f, whatif=whatif, limit=limit)


def win_rates(f: Filters, player: str | None = None) -> pd.DataFrame:
    """Win % per role by the game's bid and by hand strength (of ``player``, or everyone)."""
    return data.query("dash_ddz_win_rates", f, player=player)


def bidding(f: Filters, player: str) -> pd.DataFrame:
    """``player``'s bidding per hand strength beside everyone's bid rate: from the
    ``ddz_bidding`` mart when no filter but the ruleset is set and the Dou Dizhu rollups answer
    (:func:`dashboards.data.rollup`: built in the same build, they count every Dou Dizhu game;
    ``dash_ddz_bidding_mart``), else from the filtered games' seats (``dash_ddz_bidding``; 2.9 s
    at 1M games, each seat's dealt hand read again)."""
    by_ruleset = replace(f, ruleset=None) == data.NO_FILTERS
    if by_ruleset and data.rollup(f, "ddz") and data.marts_built("ddz_bidding"):
        return data.query("dash_ddz_bidding_mart", f, player=player)
    return data.query("dash_ddz_bidding", f, player=player)


def players(f: Filters, limit: int = data.OPTION_LIMIT) -> list[str]:
    """The players of the filtered Dou Dizhu games (the player filter aside), most seats first."""
    shown = replace(f, player_id=None)
    return [str(p) for p in data.query("dash_ddz_players", shown, limit=limit)["player_id"]]


def hands_after(
    seats: pd.DataFrame, actions: pd.DataFrame, kitty: int | None
) -> list[list[int | None]]:
    """Each seat's hand after each step (index 0 = the deal, before the auction): the dealt
    hand, the kitty joining the landlord's when the auction ends, each play's cards leaving;
    ``None`` for a hand the log does not hold (partial information).

    >>> seats = pd.DataFrame({"seat": [0, 1], "deal_mask": [0b0011, 0b1100]})
    >>> acts = pd.DataFrame({"seat": [0, 0], "action_type": ["call", "play"],
    ...     "cards_mask": [0, 0b10001], "ends_auction": [True, False], "landlord": [0, 0]})
    >>> [[bin(h) for h in step] for step in hands_after(seats, acts, 0b10000)]
    [['0b11', '0b1100'], ['0b10011', '0b1100'], ['0b10', '0b1100']]
    """
    hands: list[int | None] = [None if missing(m) else int(m) for m in seats["deal_mask"]]
    out = [list(hands)]
    for a in actions.itertuples():
        if a.action_type == "play" and not missing(a.cards_mask):
            h = hands[int(a.seat)]
            hands[int(a.seat)] = None if h is None else h & ~int(a.cards_mask)
        ended = not missing(a.ends_auction) and bool(a.ends_auction)
        if ended and not missing(a.landlord) and kitty is not None:
            h = hands[int(a.landlord)]
            hands[int(a.landlord)] = None if h is None else h | kitty
        out.append(list(hands))
    return out


def auction(actions: pd.DataFrame, step: int) -> list[tuple[int, str]]:
    """The auction's bids in order up to ``step`` (seat, words): ``2 分``, ``不叫``, ``叫地主``.

    >>> acts = pd.DataFrame({"seat": [1, 2], "phase": ["auction"] * 2,
    ...     "action_type": ["bid", "bid"], "bid": [0, 2]})
    >>> auction(acts, 2)
    [(1, '不叫 (pass)'), (2, '2 分')]
    """
    out = []
    for a in actions.head(step).itertuples():
        if a.phase != "auction":
            continue
        if a.action_type == "call":
            words = "叫地主 (call)"
        elif a.action_type == "no_call":
            words = "不叫 (pass)"
        else:
            words = BID_WORDS.get(int(a.bid), str(a.bid))
        out.append((int(a.seat), words))
    return out
