"""The dashboards' data module: every page's data is a named query of ``sql/queries/dash_*.sql``.

Pages call :func:`query` with a query's name (or a function here that picks among a query's
variants: the rollups, ``dash_*_rollup``, answer a ruleset and a period when they are as fresh
as the games table, :func:`rollup`, with the same figures as the detailed query). Queries run
through :func:`pipeline.warehouse.reading.execute`, the runner of ``big2 report``; filters are
bound parameters, never formatted SQL. :func:`cached` keys results by the warehouse's
:func:`stamp`, so an import or a build shows at the next rerun. The mart pages need ``big2
build`` (``big2 ingest`` runs it) and say so when it has not run (:func:`marts_built`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

import duckdb
import pandas as pd
import streamlit as st

from dashboards.frames import MIN_GAMES as MIN_GAMES
from dashboards.frames import NO_FILTERS as NO_FILTERS
from dashboards.frames import OUTCOMES as OUTCOMES
from dashboards.frames import WINNINGS_BY as WINNINGS_BY
from dashboards.frames import FilterOptions as FilterOptions
from dashboards.frames import Filters as Filters
from dashboards.frames import RescoreOptions as RescoreOptions
from dashboards.frames import State as State
from dashboards.frames import hands_after as hands_after
from dashboards.frames import leak_table as leak_table
from dashboards.frames import missing as missing
from dashboards.frames import record as record
from dashboards.frames import winnings_by as winnings_by
from pipeline.warehouse import Warehouse, WarehouseError, reading

#: The marts the pages read, by role.
MARTS = {"scores": "mart_game_scores", "standings": "mart_player_standings"}
SCORING_MARTS = ("mart_game_scores", "mart_match_standings", "rank_ladder", "rulesets")
AUDIT_MARTS = ("audit_obligations", "collusion_ranking", "collusion_evidence")
#: The rollups read when the filters allow; ``ROLLUPS = False`` forces the detailed queries.
ROLLUPS = True
ROLLUP_MARTS = ("rollup_games", "rollup_player_days", "rollup_player_rulesets", "rollup_winnings",
                "rollup_leak_winners", "rollup_stats_player_days", "rollup_player_gaps")  # fmt: skip
#: Each game's rollups and the query telling whether they count its every game and seat.
FRESHNESS = {"big2": (ROLLUP_MARTS, "dash_rollups_fresh"),
             "ddz": (("rollup_ddz_games", "rollup_ddz_player_days"), "dash_ddz_marts_fresh")}  # fmt: skip
#: Options in a selection list; rows in a per-player table.
OPTION_LIMIT = 1000
TABLE_ROWS = 1000
#: Rows in a list of games or events (a player's games, 炒 losses, 包牌 payments, 頂大
#: obligations, rejected records): the first ones (newest games); the page says when there
#: are more (``ui.first_rows``; a player of 1M games sent the browser 1M rows: 20 s a render).
LIST_ROWS = 5000
#: Rate figures: a game's time is the time to the player's next game when that starts at most
#: this many minutes later, else the typical game (``dash_player_rates``).
GAP_MINUTES = 30
#: The winnings graph's players at most (the most active) and points a player about: as
#: ``rollup_winnings`` holds the graph under no filter and under each ruleset alone.
WINNINGS_PLAYERS, WINNINGS_POINTS = 12, 400


QueryError = reading.NamedQueryError  # a named query failed (E_SQL_NOT_BUILT: run big2 build)


def warehouse() -> Warehouse:
    """``$BIG2_WAREHOUSE`` (set by ``big2 dashboard``), else ``data/warehouse``."""
    return Warehouse()


def root() -> Path:
    return warehouse().root


def stamp() -> str:
    """The current warehouse's :func:`pipeline.warehouse.reading.stamp`."""
    return reading.stamp(warehouse())


P = ParamSpec("P")
R = TypeVar("R")


def cached(fn: Callable[P, R]) -> Callable[P, R]:
    """``st.cache_data`` on ``fn``, keyed by the warehouse's :func:`stamp` too."""

    def keyed(key: str, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    keyed.__module__, keyed.__qualname__ = fn.__module__, fn.__qualname__  # one cache per fn
    store = st.cache_data(show_spinner=False)(keyed)

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return cast(R, store(stamp(), *args, **kwargs))

    return call


def frame(name: str, /, **params: Any) -> pd.DataFrame:
    """The named query ``sql/queries/<name>.sql`` with ``params`` bound, as a frame."""
    key = stamp()
    with reading.reader(Warehouse(key.split("|", 1)[0]), key) as con:
        return reading.execute(con, name, **params).df()


def row(name: str, /, **params: Any) -> dict[str, Any]:
    """The first row of the named query, as Python values (lists as lists, null as None)."""
    key = stamp()
    with reading.reader(Warehouse(key.split("|", 1)[0]), key) as con:
        return reading.run_query(con, name, **params)[0]


def status() -> tuple[State, str]:
    """The warehouse's state and a line for people; never raises."""
    wh = warehouse()
    if stamp().endswith("|missing"):
        return State.MISSING, f"No warehouse at {wh.root} yet."
    try:
        n = count_games()
    except (WarehouseError, QueryError, duckdb.Error, OSError) as err:
        return State.BROKEN, f"The warehouse at {wh.root} cannot be read: {err}"
    if n == 0:
        return State.EMPTY, f"The warehouse at {wh.root} holds no games yet."
    return State.READY, f"{n:,} games in {wh.root}"


@cached
def query(name: str, /, f: Filters | None = None, **params: Any) -> pd.DataFrame:
    """The named query ``sql/queries/<name>.sql`` (cached) with the filters ``f`` and
    ``params`` bound, ``query("dash_bao_games", f)``; its ``<name>_rollup`` twin when there is
    one and the rollups answer ``f``."""
    if f is not None and (reading.queries_dir() / f"{name}_rollup.sql").is_file():
        name = _by(f, name)
    return frame(name, **(f.params() if f else {}) | params)


def listing(name: str, /, f: Filters | None = None, **params: Any) -> pd.DataFrame:
    """The named list query (``$limit``) with one row more than :data:`LIST_ROWS`, for
    :func:`dashboards.ui.first_rows` to show its first rows and say whether there are more."""
    return query(name, f, limit=LIST_ROWS + 1, **params)


@cached
def count_games() -> int:
    return int(row("dash_count_games")["n"])


@cached
def table_exists(name: str) -> bool:
    return bool(row("dash_table_exists", table=name)["n"])


def marts_built(*names: str) -> bool:
    """Whether every table in ``names`` is built."""
    return all(table_exists(n) for n in names)


def mart_exists(role: str) -> bool:
    return table_exists(MARTS[role])


@cached
def rollups_fresh(game: str = "big2") -> bool:
    """``game``'s rollups (:data:`FRESHNESS`) are built and count its every game and seat (an
    import since the last build makes them stale: the detailed queries answer then, as when
    the SQL layers are older than this check, E_SQL_NOT_BUILT)."""
    marts, check = FRESHNESS[game]
    if not marts_built(*marts):
        return False
    try:
        return bool(row(check)["fresh"])
    except QueryError as err:
        if err.code != "E_SQL_NOT_BUILT":
            raise
        return False


def rollup(f: Filters, game: str = "big2") -> bool:
    """Whether ``game``'s rollups answer ``f``: a ruleset (a preset, not a variant) and a period."""
    rest = replace(f, ruleset=f.ruleset if f.variant else None, date_from=None, date_to=None)
    return ROLLUPS and rest == NO_FILTERS and rollups_fresh(game)


def ruleset_rollup(f: Filters) -> bool:
    """Whether the per-ruleset rollups answer ``f``: one ruleset and nothing else."""
    return f.ruleset is not None and replace(f, ruleset=None) == NO_FILTERS and rollup(f)


@cached
def filter_options() -> FilterOptions:
    name = "dash_filter_options_rollup" if rollup(NO_FILTERS) else "dash_filter_options"
    r = row(name, limit=OPTION_LIMIT)
    day = {k: None if r[k] is None else pd.Timestamp(r[k]).date() for k in ("first", "last")}
    return FilterOptions(
        rulesets=list(r["rulesets"] or []), matches=list(r["matches"] or []),
        players=list(r["players"] or []), first=day["first"], last=day["last"],
        n_matches=int(r["n_matches"] or 0), n_players=int(r["n_players"] or 0),
    )  # fmt: skip


def _by(f: Filters, query: str) -> str:
    """``query``, or its ``_rollup`` twin when the rollups of its game (``dash_ddz_*``: Dou
    Dizhu) answer ``f``."""
    return f"{query}_rollup" if rollup(f, "ddz" if "_ddz_" in query else "big2") else query


@cached
def overview(f: Filters) -> dict[str, Any]:
    """Headline counts for the filtered games plus import health."""
    return cast(dict[str, Any], query("dash_overview", f).iloc[0].to_dict())


@cached
def rescore_options() -> RescoreOptions:
    """The presets and settlements the leaderboard can rescore as (the ``rulesets`` table)."""
    r = row("dash_rescore_options")
    return RescoreOptions(list(r["presets"] or []), list(r["settlements"] or []))


def whatif_json(preset: str | None, settlement: str | None) -> str | None:
    """The what-if ruleset JSON: a preset, optionally with another settlement; with only a
    settlement, ``hk`` with that settlement. ``None`` = the games' own rules."""
    if preset is None and settlement is None:
        return None
    from pipeline.sqlbuild import whatif_json as ruleset_whatif  # as `big2 rescore`

    return ruleset_whatif(preset or "hk", {"settlement": settlement} if settlement else {})


def _board(f: Filters, whatif: str | None, player: str | None, limit: int) -> pd.DataFrame:
    """The standings query for ``f`` (every game, one ruleset, a rollup, the detailed one)."""
    if f == NO_FILTERS:
        name = "dash_standings_all"
    elif whatif is None and ruleset_rollup(f):
        name = "dash_standings_ruleset"
    else:
        name = _by(f, "dash_standings")
    name += "_whatif" if whatif else ""
    return frame(name, **f.params(), whatif=whatif, player=player, limit=limit)


@cached
def standings(f: Filters, whatif: str | None = None, limit: int = TABLE_ROWS) -> pd.DataFrame:
    """Per player over the filtered games: games, wins, score (own rules, after the bankroll
    cap), rank-ladder title; with ``whatif`` (a ruleset JSON, bound) the what-if score, rank
    and title. The first ``limit`` players by rank (then id)."""
    return _board(f, whatif, None, limit).drop(columns=["all_wins", "all_games"])


@cached
def player_standing(f: Filters, player_id: str) -> pd.DataFrame:
    """One player's row of :func:`standings`, with ``all_win_pct`` (everyone's wins ÷ games)."""
    mine = _board(f, None, player_id, 1)
    mine = mine.drop(columns=["whatif_score", "whatif_rank", "whatif_title", "rank_change"])
    return mine.assign(all_win_pct=100.0 * mine["all_wins"] / mine["all_games"].clip(lower=1))


def _most_active(f: Filters, query: str) -> str:
    """``query``'s variant picking the most active players for ``f``."""
    if f == NO_FILTERS:
        return f"{query}_all"
    return f"{query}_ruleset" if ruleset_rollup(f) else _by(f, query)


@cached
def winnings(f: Filters, whatif: str | None = None) -> pd.DataFrame:
    """Per player (the most active :data:`WINNINGS_PLAYERS`) and game in order, with its start
    time and match: the cumulative score (the what-if's with ``whatif``, a ruleset JSON) and the
    luck-adjusted line, thinned to about :data:`WINNINGS_POINTS` points per player."""
    if whatif is None and (f == NO_FILTERS or ruleset_rollup(f)) and rollup(f):
        return frame("dash_winnings_lines", ruleset=f.ruleset)  # rollup_winnings
    if whatif is None:
        name, extra = _most_active(f, "dash_winnings"), {}
    else:
        name, extra = "dash_winnings_whatif", {"whatif": whatif}
    shape = {"max_players": WINNINGS_PLAYERS, "max_points": WINNINGS_POINTS}
    return frame(name, **f.params(), **extra, **shape)


@cached
def players(f: Filters, limit: int = OPTION_LIMIT) -> list[str]:
    """Players of the filtered games, most games first (the player page drops the player
    filter: its list offers every player)."""
    name = _most_active(f, "dash_players")
    if name == "dash_players_all" and not table_exists("mart_player_standings"):
        name = _by(f, "dash_players")
    return [str(p) for p in frame(name, **f.params(), limit=limit)["player_id"]]


@cached
def leak_counts(f: Filters, player_id: str) -> pd.DataFrame:
    """The leak finder's summed counts (``who`` = player / winners), by the fastest query."""
    if replace(f, ruleset=None, player_id=None) == NO_FILTERS and not f.variant:
        name = "dash_leak_counts_winners" if rollup(NO_FILTERS) else "dash_leak_counts_ruleset"
    else:
        name = _by(replace(f, player_id=None), "dash_leak_counts")
    return frame(name, **f.params() | {"player_id": None}, player=player_id)


def leaks(f: Filters, player_id: str) -> pd.DataFrame:
    """Where the player differs most from the winning players (:func:`frames.leak_table`)."""
    return leak_table(leak_counts(f, player_id))


@cached
def audit_by_player(
    f: Filters, player_id: str | None = None, limit: int = TABLE_ROWS
) -> pd.DataFrame:
    """頂大 record per player and ruleset with 包牌 paid; most violations first."""
    whole = replace(f, ruleset=None) == NO_FILTERS and not f.variant  # audit_players as built
    return frame(
        "dash_audit_players" + ("" if whole else "_filtered"),
        **f.params(),
        player=player_id,
        limit=limit,
    )
