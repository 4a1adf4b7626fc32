"""The sidebar: the shared filters (ruleset, match, player, period; under *More filters* the
player's seat, an opponent, the players at the table, the outcome and the 炒 tier), the saved
filters (in the page's link and as named sets beside the warehouse, :mod:`dashboards.saved`) and
the display settings (time zone, the locale of the game terms). :mod:`dashboards.ui`
re-exports what the pages use.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import streamlit as st

from dashboards import data, ddz_data, rulesets, saved, terms
from dashboards.tables import TZ_KEY

FILTERS_KEY = "filters"
#: Display time zones offered in the sidebar (UTC first, the default; any IANA name can be typed).
ZONES = ["UTC", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Shanghai", "Europe/London"]
#: The filter widgets' keys (kept across a page that does not draw them; in the link).
FILTER_KEYS = tuple(saved.FIELDS)
MORE_KEYS = ("f_seat", "f_opponent", "f_players", "f_outcome", "f_tier")
URL_READ_KEY = "f_url_read"


def sidebar_filters(*, shown: bool = True) -> data.Filters:
    """The shared filters and the display settings in the sidebar.

    Called by ``app.py`` on every page; the result is stored under
    ``st.session_state["filters"]`` and written to the page's link (query parameters: opening
    the link shows the same view). ``shown=False`` (a page that ignores the filters: SQL
    explorer, Import health) draws only the display settings and keeps the filters' values for
    the next page that shows them.
    """
    _from_link()
    if not shown:
        for key in (*FILTER_KEYS, TZ_KEY, terms.LOCALE_KEY):
            if key in st.session_state:  # a widget not drawn this run would lose its value
                st.session_state[key] = st.session_state[key]
        with st.sidebar:
            _zone_choice()
        return current_filters()
    state, _ = data.status()
    if state is not data.State.READY:
        st.session_state[FILTERS_KEY] = data.NO_FILTERS
        with st.sidebar:
            _zone_choice()
        return data.NO_FILTERS
    ddz = ddz_data.chosen()
    opts = ddz_data.filter_options() if ddz else data.filter_options()
    variants = rulesets.variants("doudizhu" if ddz else "big2")  # each preset's, under it
    choices = rulesets.choices(opts.rulesets, variants)
    for key, known in (("f_ruleset", choices),):
        if st.session_state.get(key) not in (None, *known):  # a link's value not in this warehouse
            st.session_state[key] = None
    with st.sidebar:
        st.markdown("### Filters")
        ruleset = st.selectbox(
            "Ruleset", [None, *choices], key="f_ruleset",
            format_func=lambda v: rulesets.label(v, variants),
            help="A preset keeps all its games; a variant under it (↳, the preset with house-rule "
            "overrides) exactly its own",
        )  # fmt: skip
        match_id = id_choice("Match", opts.matches, opts.n_matches, key="f_match",
                             kept="the most recent")  # fmt: skip
        player_id = id_choice("Player", opts.players, opts.n_players, key="f_player",
                              kept="the most active")  # fmt: skip
        bounds: dict[str, Any] = {"min_value": opts.first, "max_value": opts.last}
        date_from = st.date_input("From", value=None, key="f_from", **bounds)
        date_to = st.date_input("To", value=None, key="f_to", **bounds)
        seat = opponent = n_players = outcome = tier = None
        if not ddz:  # the more filters are Big Two's (seat 0-3, 炒 tier)
            seat, opponent, n_players, outcome, tier = _more_filters(opts, player_id)
        st.button("Clear filters", key="f_clear", on_click=_clear_filters)
        _saved_choice()
        _zone_choice()
    filters = data.Filters(
        ruleset=ruleset,
        match_id=match_id,
        player_id=player_id,
        date_from=date_from if isinstance(date_from, date) else None,
        date_to=date_to if isinstance(date_to, date) else None,
        seat=None if player_id is None else seat,
        opponent=opponent,
        n_players=n_players,
        outcome=outcome,
        chao_tier=tier,
    )
    st.session_state[FILTERS_KEY] = filters
    _to_link()
    return filters


def _more_filters(opts: data.FilterOptions, player_id: str | None) -> tuple[Any, ...]:
    """The "More filters" of the Big Two pages: seat, opponent, players, outcome, 炒 tier."""
    more = any(st.session_state.get(k) is not None for k in MORE_KEYS)
    with st.expander("More filters", expanded=more):
        seat = st.selectbox("Seat (the player's)", [None, 0, 1, 2, 3], key="f_seat",
                            format_func=all_label, disabled=player_id is None,
                            help="The seat the player sat in (0 = the first); needs a "
                            "player")  # fmt: skip
        opponent = id_choice("Opponent", opts.players, opts.n_players, key="f_opponent",
                             kept="the most active")  # fmt: skip
        n_players = st.selectbox("Players at the table", [None, 2, 3, 4], key="f_players",
                                 format_func=all_label)  # fmt: skip
        outcome = st.selectbox("Outcome", [None, *data.OUTCOMES], key="f_outcome",
                               format_func=all_label)  # fmt: skip
        tier = st.selectbox(terms.text("炒 tier"), [None, 1, 2, 3, 4], key="f_tier",
                            format_func=tier_label,
                            help=terms.text("Games where a loser (the player, when one "
                                            "is chosen) was caught at this 炒"))  # fmt: skip
    return seat, opponent, n_players, outcome, tier


def tier_label(value: int | None) -> str:
    """A 炒 tier's label (``None``: all).

    >>> tier_label(None), tier_label(1), tier_label(4)
    ('(all)', '×1 (no 炒)', '×4 or more (四炒)')
    """
    names = {1: "×1 (no 炒)", 2: "×2 (雙炒)", 3: "×3 (三炒)", 4: "×4 or more (四炒)"}
    return "(all)" if value is None else terms.text(names.get(value, f"×{value}"))


def _from_link() -> None:
    """On a session's first run, the filters of the link (its query parameters)."""
    if st.session_state.get(URL_READ_KEY):
        return
    st.session_state[URL_READ_KEY] = True
    for key, value in saved.from_query(st.query_params.to_dict()).items():
        st.session_state[key] = value


def _to_link() -> None:
    """The chosen filters into the page's link (other query parameters, e.g. the replayer's
    ``game_id``, kept)."""
    ours = {name for name, _ in saved.FIELDS.values()}
    now = st.query_params.to_dict()
    want = {k: v for k, v in now.items() if k not in ours} | saved.to_query(
        {k: st.session_state.get(k) for k in FILTER_KEYS}
    )
    if want != now:
        st.query_params.from_dict(want)


def _saved_choice() -> None:
    """Save the filters under a name, or load a saved set, in the file beside the warehouse."""
    path = saved.path_for(data.root())
    sets = saved.load(path)
    with st.expander("Saved filters"):
        name = st.text_input("Save these filters as", key="f_save_name")
        st.button("Save", key="f_save", on_click=_save, args=(path, name), disabled=not name)
        if sets:
            pick = st.selectbox("Saved sets", list(sets), key="f_saved_pick")
            st.button("Load", key="f_load", on_click=_load, args=(sets.get(pick, {}),))
        st.caption(f"Kept in `{path}`; the page's link holds the filters too.")


def _save(path: Any, name: str) -> None:
    saved.save(path, name, saved.to_query({k: st.session_state.get(k) for k in FILTER_KEYS}))


def _load(params: dict[str, str]) -> None:
    _clear_filters()
    for key, value in saved.from_query(params).items():
        st.session_state[key] = value


def _zone_choice() -> None:
    """The display settings: the time zone, and the locale of the game terms and titles."""
    st.selectbox("Display time zone", ZONES, key=TZ_KEY, accept_new_options=True,
                 help="Every time in the tables is shown in this zone, to the minute")  # fmt: skip
    st.selectbox("Game terms", list(terms.LOCALES), format_func=terms.LOCALES.__getitem__,
                 key=terms.LOCALE_KEY, help="The rank-ladder titles and the games' terms (炒, "
                 "包牌, 頂大; 地主, 農民, 春天 …) in Traditional or Simplified Chinese, or English, on "
                 "every page")  # fmt: skip


def id_choice(label: str, ids: list[str], n_all: int, *, key: str, kept: str) -> str | None:
    """A selection of one id among ``ids`` (or all). When ``ids`` is a cut of ``n_all`` (a
    list of 10^5 players is not sent to the browser on every rerun), any other id can be typed
    in, and the current choice stays listed."""
    cut = n_all > len(ids)
    current = st.session_state.get(key)
    options = [None, *ids, *([current] if cut and current and current not in ids else [])]
    help_text = (
        f"{kept} {len(ids):,} of {n_all:,}; type any other id and press Enter" if cut else None
    )
    value = st.selectbox(label, options, format_func=all_label, key=key, help=help_text,
                         accept_new_options=cut)  # fmt: skip
    return None if value is None else str(value)


def all_label(value: object) -> str:
    return "(all)" if value is None else str(value)


def _clear_filters() -> None:
    for key in FILTER_KEYS:
        st.session_state[key] = None


def current_filters() -> data.Filters:
    """The filters chosen in the sidebar (none when the page runs alone)."""
    value = st.session_state.get(FILTERS_KEY)
    return value if isinstance(value, data.Filters) else data.NO_FILTERS


#: The filters' names in the caption as the sidebar labels them (the others: their own name).
CAPTION_NAMES = {"match_id": "match", "player_id": "player", "date_from": "from",
                 "date_to": "to", "seat": "seat (the player's)",
                 "n_players": "players at the table", "chao_tier": "炒 tier"}  # fmt: skip


def caption_text(f: data.Filters) -> str:
    """The filters of ``f`` in words, as the sidebar shows them.

    >>> caption_text(data.Filters(player_id="p1", n_players=3, chao_tier=2))
    'Filters: player: p1; players at the table: 3; 炒 tier: ×2 (雙炒)'
    >>> caption_text(data.NO_FILTERS)
    'Filters: none (all games)'
    """
    parts = [
        f"{terms.text(CAPTION_NAMES.get(k, k))}: {tier_label(v) if k == 'chao_tier' else v}"
        for k, v in f.params().items()
        if v is not None
    ]
    return "Filters: " + ("; ".join(parts) if parts else "none (all games)")


def filters_caption(f: data.Filters) -> None:
    st.caption(caption_text(f))
