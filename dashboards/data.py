"""The dashboards' data module: cached queries, each on its own short-lived read-only connection.

Pages call the functions here and hold no SQL. Every filter is a bound parameter
(``$ruleset``, ``$player_id`` ...), never text formatted into SQL; so is the what-if ruleset
JSON. Results are cached with ``st.cache_data`` keyed by the warehouse's *stamp* (its folder, its
manifest's and DuckDB file's size and time), so a new import or build shows up at the next rerun
without a restart. No connection stays open between queries: a running dashboard never blocks
``big2 ingest`` / ``big2 build`` (:func:`_connect`).

The leaderboard, player and 頂大 pages read the SQL marts (issues 6 and 7, ``big2 build``);
:func:`marts_built` tells whether they exist, and until then the pages show figures computed
straight from the warehouse tables (the functions without a mart in their SQL).

Speed at 10^6 games: under a ruleset or period filter (no match or player filter) the
overview, the sidebar's options, standings and the players of the filtered games read the
rollups (``rollup_games``, ``rollup_player_days``: a few rows per match or per player and day)
instead of every game or seat, when they are as fresh as the games table (:func:`_rollup`);
a period's days are UTC days, whatever the session's time zone. Tables of players are cut at
:data:`TABLE_ROWS` rows and selection lists at :data:`OPTION_LIMIT` options (any other id can
be typed).
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pipeline.warehouse import Warehouse, WarehouseError, reading
from pipeline.warehouse.store import MANIFEST

#: The marts (issues 6 and 7) the pages will read once they are built, by role.
MARTS = {
    "scores": "mart_game_scores",  # one row per seat per game: points / money under the game's rules
    "standings": "mart_player_standings",  # one row per player: totals, rank-ladder title
    "must_block_players": "audit_players",  # one row per player and ruleset: 頂大 record
    "collusion_pairs": "collusion_ranking",  # one row per ordered pair of players, ranked
}

#: SQL explorer limits.
MAX_ROWS = 10_000
TIMEOUT_S = 10.0

#: At most this many options in a player or match selection list (the most active players, the
#: most recent matches); any other id can be typed in.
OPTION_LIMIT = 1000
#: At most this many rows in a per-player table (standings, 頂大 per player), in its order.
TABLE_ROWS = 1000

#: The rollups (``sql/marts/rollup_*.sql``) the dashboards read when the filters allow;
#: ``False`` forces the detailed marts (the tests compare both paths).
ROLLUPS = True
ROLLUP_MARTS = (
    "rollup_games",
    "rollup_player_days",
    "rollup_player_rulesets",
    "rollup_leak_winners",
    "rollup_stats_player_days",
)


class State(StrEnum):
    """What the warehouse holds."""

    MISSING = "missing"  # no warehouse folder or no manifest: nothing was ever imported
    EMPTY = "empty"  # imports happened but no game is stored
    READY = "ready"
    BROKEN = "broken"  # the warehouse cannot be opened (message says why)


@dataclass(frozen=True)
class Filters:
    """The sidebar filters shared by every page; ``None`` means *all*."""

    ruleset: str | None = None
    match_id: str | None = None
    player_id: str | None = None
    date_from: date | None = None
    date_to: date | None = None

    def params(self) -> dict[str, Any]:
        return asdict(self)


NO_FILTERS = Filters()

#: A start time as UTC wall-clock time: a period's days are UTC days, whatever the session's
#: time zone (the rollups' ``day`` too).
UTC = "timezone('UTC', try_cast({} as timestamptz))"

#: The games the filters select (alias ``g``); used as ``where {GAMES_WHERE}``.
GAMES_WHERE = f"""
    ($ruleset is null or g.ruleset = $ruleset)
    and ($match_id is null or g.match_id = $match_id)
    and ($date_from is null or {UTC.format("g.started_at")} >= $date_from::date)
    and ($date_to is null or {UTC.format("g.started_at")} < $date_to::date + 1)
    and ($player_id is null or g.game_id in (select game_id from seats where player_id = $player_id))
"""

#: The filtered games as a CTE named ``fg``.
FILTERED = f"with fg as (select g.* from games g where {GAMES_WHERE})"


# ----- the warehouse and its connection ------------------------------------------------------


def warehouse() -> Warehouse:
    """The warehouse the app reads: ``$BIG2_WAREHOUSE`` (set by ``big2 dashboard``), else
    ``data/warehouse``."""
    return Warehouse()


def stamp(wh: Warehouse | None = None) -> str:
    """A key that changes whenever a batch is committed, the marts are rebuilt (the DuckDB
    file changes) or the warehouse appears: every cached query is keyed by it."""
    wh = wh or warehouse()
    try:
        st_ = (wh.root / MANIFEST).stat()
    except FileNotFoundError:
        return f"{wh.root}|missing"
    try:
        db = wh.db_path.stat()
        built = f"{db.st_size}|{db.st_mtime_ns}"
    except FileNotFoundError:
        built = "-"
    return f"{wh.root}|{st_.st_size}|{st_.st_mtime_ns}|{built}"


#: How long a query waits for a writer (``big2 ingest`` / ``big2 build``) to let go of the file.
BUSY_WAIT_S = 3.0


class Busy(WarehouseError):
    """The warehouse file is held by a writer (an import or a build is running)."""


def _is_lock_error(err: BaseException) -> bool:
    text = str(err).lower()
    return "lock" in text or "conflicting" in text


def _connect(key: str) -> duckdb.DuckDBPyConnection:
    """A fresh read-only connection (the caller closes it right after its query).

    :meth:`Warehouse.connect` attaches ``warehouse.duckdb`` read-only and never writes (base
    views made fresh in the session when an import committed since the build), and builds
    replace the file atomically, so a dashboard never blocks ``big2 ingest`` or ``big2 build``.
    Should a foreign process hold the file read-write, it is retried for up to
    :data:`BUSY_WAIT_S`, then :class:`Busy` is raised.
    """
    root = key.split("|", 1)[0]
    wh = Warehouse(root)
    deadline = time.monotonic() + BUSY_WAIT_S
    while True:
        try:
            return wh.connect(read_only=True)
        except (WarehouseError, duckdb.Error) as err:
            if not _is_lock_error(err):
                raise
            if time.monotonic() >= deadline:
                raise Busy(
                    "E_WAREHOUSE_BUSY",
                    f"{root} is being written (an import or a build is running); retry shortly",
                ) from err
            time.sleep(0.1)


def connection(key: str | None = None) -> duckdb.DuckDBPyConnection:
    """A new read-only connection for the current warehouse; **close it** after use."""
    return _connect(key or stamp())


_local = threading.local()


@contextlib.contextmanager
def one_connection_per_run() -> Iterator[None]:
    """Within this block (one script run of the app, see ``app.py``), the queries of this
    thread share one read-only connection, opened at the first cache miss and closed when the
    block ends: the first query on a fresh connection of a large file costs ~0.1 s (catalogue
    load), and nothing stays open between reruns."""
    _local.scoped = True
    try:
        yield
    finally:
        _local.scoped = False
        con, _local.con = getattr(_local, "con", None), None
        if con is not None:
            con.close()


def _df(key: str, sql: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
    """Run ``sql`` with the ``params`` it names (``$name``; the others are dropped: DuckDB
    refuses unused ones) on a read-only connection: the run's (:func:`one_connection_per_run`),
    else a fresh one closed right after."""
    used = {k: v for k, v in (params or {}).items() if re.search(rf"\${k}\b", sql)}
    if getattr(_local, "scoped", False):
        con = getattr(_local, "con", None)
        if con is None or getattr(_local, "key", None) != key:
            if con is not None:
                _local.con = None
                con.close()
            con = _connect(key)
            _local.con, _local.key = con, key
        return con.execute(sql, used).df()
    con = _connect(key)
    try:
        return con.execute(sql, used).df()
    finally:
        con.close()


def status() -> tuple[State, str]:
    """The warehouse's state and a line for people; never raises."""
    wh = warehouse()
    key = stamp(wh)
    if key.endswith("|missing"):
        return State.MISSING, f"No warehouse at {wh.root} yet."
    try:
        n = _count_games(key)
    except (WarehouseError, duckdb.Error, OSError) as err:
        return State.BROKEN, f"The warehouse at {wh.root} cannot be read: {err}"
    if n == 0:
        return State.EMPTY, f"The warehouse at {wh.root} holds no games yet."
    return State.READY, f"{n:,} games in {wh.root}"


@st.cache_data(show_spinner=False)
def _count_games(key: str) -> int:
    return int(_df(key, "select count(*) as n from games")["n"].iloc[0])


@st.cache_data(show_spinner=False)
def _mart_exists(key: str, name: str) -> bool:
    sql = "select count(*) as n from information_schema.tables where table_name = $name"
    return bool(_df(key, sql, {"name": name})["n"].iloc[0])


def mart_exists(role: str) -> bool:
    """Whether the mart for ``role`` (a key of :data:`MARTS`) is built in the warehouse."""
    return _mart_exists(stamp(), MARTS[role])


# ----- the rollups --------------------------------------------------------------------------

#: The filters on a rollup (alias ``r``) with ``ruleset`` and ``day`` (a UTC date) columns; the
#: same games as :data:`GAMES_WHERE` without match and player.
ROLLUP_WHERE = """
    ($ruleset is null or r.ruleset = $ruleset)
    and ($date_from is null or r.day >= $date_from::date)
    and ($date_to is null or r.day <= $date_to::date)
"""


@st.cache_data(show_spinner=False)
def _rollups_fresh(key: str) -> bool:
    """The rollups are built and count every game and seat the warehouse holds (an import
    since the last ``big2 build`` makes them stale: the detailed path answers then)."""
    if not all(_mart_exists(key, name) for name in ROLLUP_MARTS):
        return False
    sql = """
        select (select sum(n_games) from rollup_games) = (select count(*) from games)
           and (select sum(n_seats) from rollup_player_days) = (select count(*) from seats)
           as fresh
    """
    return bool(_df(key, sql)["fresh"].iloc[0])


def _rollup(key: str, f: Filters) -> bool:
    """Whether the rollups answer the filters ``f``: a ruleset and a period only."""
    if not ROLLUPS or f.match_id is not None or f.player_id is not None:
        return False
    return _rollups_fresh(key)


def _ruleset_rollup(key: str, f: Filters) -> bool:
    """Whether the per-ruleset rollups answer ``f``: one ruleset and nothing else."""
    return f.ruleset is not None and replace(f, ruleset=None) == NO_FILTERS and _rollup(key, f)


# ----- filters --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterOptions:
    """The sidebar's choices. ``matches`` and ``players`` hold at most :data:`OPTION_LIMIT`
    ids (the most recent matches, the most active players), sorted; ``n_matches`` and
    ``n_players`` count them all."""

    rulesets: list[str]
    matches: list[str]
    players: list[str]
    first: date | None
    last: date | None
    n_matches: int = 0
    n_players: int = 0


@st.cache_data(show_spinner=False)
def _filter_options(key: str) -> FilterOptions:
    if _rollup(key, NO_FILTERS):
        rulesets_sql = "select distinct ruleset from rollup_games order by 1"
        matches_sql = """
            select match_id, count(*) over () as n from rollup_games
            where match_id is not null
            group by 1 order by max(last_ts) desc nulls last, 1 limit $limit
        """
        players_sql = """
            select player_id, count(*) over () as n from rollup_player_days
            group by 1 order by sum(n_seats) desc, 1 limit $limit
        """
        span_sql = (
            "select timezone('UTC', min(first_ts))::date as first, "
            "timezone('UTC', max(last_ts))::date as last from rollup_games"
        )
    else:
        rulesets_sql = "select distinct ruleset from games order by 1"
        matches_sql = """
            select match_id, count(*) over () as n from games
            where match_id is not null
            group by 1 order by max(try_cast(started_at as timestamptz)) desc nulls last, 1
            limit $limit
        """
        players_sql = """
            select player_id, count(*) over () as n from seats
            group by 1 order by count(*) desc, 1 limit $limit
        """
        span_sql = (
            f"select min({UTC.format('started_at')})::date as first, "
            f"max({UTC.format('started_at')})::date as last from games"
        )
    rulesets = _df(key, rulesets_sql)["ruleset"].tolist()
    matches = _df(key, matches_sql, {"limit": OPTION_LIMIT})
    players = _df(key, players_sql, {"limit": OPTION_LIMIT})
    span = _df(key, span_sql).iloc[0]
    return FilterOptions(
        rulesets=rulesets,
        matches=sorted(matches["match_id"].tolist()),
        players=sorted(players["player_id"].tolist()),
        first=None if pd.isna(span["first"]) else pd.Timestamp(span["first"]).date(),
        last=None if pd.isna(span["last"]) else pd.Timestamp(span["last"]).date(),
        n_matches=int(matches["n"].iloc[0]) if len(matches) else 0,
        n_players=int(players["n"].iloc[0]) if len(players) else 0,
    )


def filter_options() -> FilterOptions:
    return _filter_options(stamp())


# ----- overview -------------------------------------------------------------------------------


#: The overview's counts from the rollups (ruleset and period filters only).
_OVERVIEW_ROLLUP = f"""
    with rg as (select * from rollup_games r where {ROLLUP_WHERE})
    select
        (select coalesce(sum(n_games), 0)::bigint from rg) as n_games,
        (select count(distinct r.player_id) from rollup_player_days r where {ROLLUP_WHERE})
            as n_players,
        (select count(distinct match_id) from rg) as n_matches,
        (select min(first_ts) from rg) as first_game,
        (select max(last_ts) from rg) as last_game,
        (select coalesce(sum(n_partial), 0)::bigint from rg) as n_partial,
        (select coalesce(sum(n_bao), 0)::bigint from rg) as n_bao
"""

_OVERVIEW_DETAILED = f"""{FILTERED}
    select
        (select count(*) from fg) as n_games,
        (select count(distinct s.player_id) from seats s join fg using (game_id)) as n_players,
        (select count(distinct match_id) from fg) as n_matches,
        (select min(try_cast(started_at as timestamptz)) from fg) as first_game,
        (select max(try_cast(started_at as timestamptz)) from fg) as last_game,
        (select count(*) from fg where not full_info) as n_partial,
        (select count(*) from fg where bao_seat is not null) as n_bao
"""


@st.cache_data(show_spinner=False)
def _overview(key: str, f: Filters) -> dict[str, Any]:
    sql = _OVERVIEW_ROLLUP if _rollup(key, f) else _OVERVIEW_DETAILED
    row = _df(key, sql, f.params()).iloc[0].to_dict()
    health = _df(
        key,
        "select (select count(*) from batches) as n_batches, "
        "(select count(*) from rejects) as n_rejects, "
        "(select max(committed_at) from batches) as last_import",
    ).iloc[0]
    row.update(health.to_dict())
    return row


def overview(f: Filters) -> dict[str, Any]:
    """Headline counts for the filtered games plus import health."""
    return _overview(stamp(), f)


#: The recent matches from ``rollup_games`` (the cells of a match summed; the games without a
#: match one by one, as the detailed query keys them).
_RECENT_ROLLUP = f"""
    summed as (
        select r.match_id as match, any_value(r.ruleset) as ruleset,
               sum(r.n_games)::bigint as games, min(r.first_started_at) as started,
               max(r.last_started_at) as ended,
               arg_max(r.last_game_id, r.last_game_number) as last_game
        from rollup_games r
        where r.match_id is not null and {ROLLUP_WHERE}
        group by 1
        union all
        select match, ruleset, 1::bigint, started_at, started_at,
               case when game_number is not null then game_id end
        from keyed where match_id is null
    ),
    recent as (select * from summed order by ended desc nulls last, match limit $limit),
"""

_RECENT_DETAILED = """
    recent as (
        select match, any_value(ruleset) as ruleset, count(*) as games,
               min(started_at) as started, max(started_at) as ended,
               arg_max(game_id, game_number) as last_game
        from keyed group by 1
        order by max(started_at) desc nulls last, 1
        limit $limit
    ),
"""


@st.cache_data(show_spinner=False)
def _recent_matches(key: str, f: Filters, limit: int) -> pd.DataFrame:
    # the recent matches first (games only), then the seats of just those (fast on 1M games)
    sql = f"""{FILTERED},
        keyed as (select coalesce(match_id, '(no match) ' || game_id) as match, * from fg),
        {_RECENT_ROLLUP if _rollup(key, f) else _RECENT_DETAILED}
        who as (
            select k.match, string_agg(distinct s.player_id, ', ' order by s.player_id) as players
            from keyed k join seats s using (game_id)
            where k.match in (select match from recent)
            group by 1
        )
        select r.match, r.ruleset, r.games, r.started, r.ended, w.players, r.last_game
        from recent r left join who w using (match)
        order by r.ended desc nulls last, r.match
    """
    return _df(key, sql, {**f.params(), "limit": limit})


def recent_matches(f: Filters, limit: int = 20) -> pd.DataFrame:
    return _recent_matches(stamp(), f, limit)


@st.cache_data(show_spinner=False)
def _games(key: str, f: Filters, limit: int) -> pd.DataFrame:
    # the newest games first, then only their winners' seats
    sql = f"""{FILTERED},
        newest as (select * from fg order by started_at desc nulls last, game_id limit $limit)
        select g.game_id, g.match_id, g.game_number, g.ruleset, g.started_at, g.players,
               g.outcome, w.player_id as winner, g.n_tricks, g.n_actions, g.full_info
        from newest g left join seats w on w.game_id = g.game_id and w.seat = g.winner
        order by g.started_at desc nulls last, g.game_id
    """
    return _df(key, sql, {**f.params(), "limit": limit})


def games(f: Filters, limit: int = 1000) -> pd.DataFrame:
    """The filtered games, newest first, with the winner's player id."""
    return _games(stamp(), f, limit)


# ----- import health ---------------------------------------------------------------------------


@st.cache_data(show_spinner=False)
def _batches(key: str) -> pd.DataFrame:
    sql = """
        select batch_id, committed_at,
               (counts->>'stored')::bigint as stored,
               (counts->>'duplicates')::bigint as duplicates,
               (counts->>'conflicts')::bigint as conflicts,
               (counts->>'rejects')::bigint as rejects,
               meta->>'inputs' as inputs
        from batches order by batch_id desc
    """
    return _df(key, sql)


def batches() -> pd.DataFrame:
    """Import batches, newest first."""
    return _batches(stamp())


@st.cache_data(show_spinner=False)
def _rejects_by(key: str, column: str) -> pd.DataFrame:
    sql = {
        "code": "select code, count(*) as rejects from rejects group by 1 order by 2 desc, 1",
        "file": "select file, count(*) as rejects, count(distinct code) as codes "
        "from rejects group by 1 order by 2 desc, 1",
        "file_code": "select file, code, count(*) as rejects from rejects group by 1, 2 "
        "order by 1, 3 desc",
    }[column]
    return _df(key, sql)


def rejects_by(column: str) -> pd.DataFrame:
    """Reject counts by ``code``, ``file`` or ``file_code``."""
    return _rejects_by(stamp(), column)


@st.cache_data(show_spinner=False)
def _rejects(key: str, code: str | None, file: str | None) -> pd.DataFrame:
    sql = """
        select row_number() over (order by batch_id, file, line, code) as reject_no,
               batch_id, file, line, game_id, action_index, code, message, raw
        from rejects
        where ($code is null or code = $code) and ($file is null or file = $file)
        order by reject_no
    """
    return _df(key, sql, {"code": code, "file": file})


def rejects(code: str | None = None, file: str | None = None) -> pd.DataFrame:
    """The rejected records (with the raw text), optionally of one code and/or file."""
    return _rejects(stamp(), code, file)


# ----- one game (the replayer) -----------------------------------------------------------------


@st.cache_data(show_spinner=False)
def _game(key: str, game_id: str) -> dict[str, Any] | None:
    df = _df(key, "select * from games where game_id = $game_id", {"game_id": game_id})
    return None if df.empty else record(df.iloc[0])


def game(game_id: str) -> dict[str, Any] | None:
    """The games row of one game, or ``None``."""
    return _game(stamp(), game_id)


@st.cache_data(show_spinner=False)
def _game_seats(key: str, game_id: str) -> pd.DataFrame:
    sql = "select * from seats where game_id = $game_id order by seat"
    return _df(key, sql, {"game_id": game_id})


def game_seats(game_id: str) -> pd.DataFrame:
    return _game_seats(stamp(), game_id)


@st.cache_data(show_spinner=False)
def _game_actions(key: str, game_id: str) -> pd.DataFrame:
    sql = "select * from actions where game_id = $game_id order by action_index"
    return _df(key, sql, {"game_id": game_id})


def game_actions(game_id: str) -> pd.DataFrame:
    return _game_actions(stamp(), game_id)


def hands_after(seats: pd.DataFrame, actions: pd.DataFrame) -> list[list[int | None]]:
    """Every seat's hand (a card mask, ``None`` when unknown) at each step of a game.

    Step 0 is the deal (before the first action); step ``k`` is after action ``k - 1``. A
    seat's hand after an action is its ``hand_before_mask`` at its next action, else its
    ``final_hand_mask``: read from the facts the engine stored, so draws and swaps need no rule
    here.
    """
    n_seats = len(seats)
    n = len(actions)
    final = [_mask(v) for v in seats.sort_values("seat")["final_hand_mask"]]
    by_seat: list[list[tuple[int, int | None]]] = [[] for _ in range(n_seats)]
    for idx, seat, before in zip(
        actions["action_index"], actions["seat"], actions["hand_before_mask"], strict=True
    ):
        by_seat[int(seat)].append((int(idx), _mask(before)))
    steps: list[list[int | None]] = []
    pointers = [0] * n_seats
    for step in range(n + 1):
        row: list[int | None] = []
        for s in range(n_seats):
            lst = by_seat[s]
            while pointers[s] < len(lst) and lst[pointers[s]][0] < step:
                pointers[s] += 1
            row.append(lst[pointers[s]][1] if pointers[s] < len(lst) else final[s])
        steps.append(row)
    return steps


def missing(value: Any) -> bool:
    """``None``, NaN, NA or NaT (pandas 3 spells a missing string NaN)."""
    return value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value)))


def record(row: pd.Series) -> dict[str, Any]:
    """One row as a dict with missing values as ``None``."""
    return {k: (None if missing(v) else v) for k, v in row.to_dict().items()}


def _mask(value: Any) -> int | None:
    return None if missing(value) else int(value)


# ----- SQL explorer ----------------------------------------------------------------------------


@st.cache_data(show_spinner=False)
def _catalogue(key: str) -> pd.DataFrame:
    sql = """
        select table_name, column_name, data_type
        from information_schema.columns
        where table_schema = 'main' and not starts_with(table_name, '_')
        order by table_name, ordinal_position
    """
    return _df(key, sql)


def catalogue() -> pd.DataFrame:
    """Tables and views with their columns (for the SQL explorer)."""
    return _catalogue(stamp())


class QueryError(ValueError):
    """A query the SQL explorer refuses or that failed."""


@dataclass(frozen=True)
class SqlResult:
    frame: pd.DataFrame
    truncated: bool
    seconds: float


def run_sql(sql: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
    """Run one read-only query with a row limit and a time limit (not cached: ad hoc), on the
    sandbox ``big2 sql`` uses (:mod:`pipeline.warehouse.reading`): one SELECT (or EXPLAIN
    [ANALYZE] of one), no file but the committed Parquet files, in a private database."""
    try:
        reading.check_query(sql)
    except reading.SqlRefused as err:
        raise QueryError(err.message) from err
    key = stamp()
    connection(key).close()  # the views are fresh (or Busy while a writer holds the file)
    try:
        cur = reading.open_readonly(Warehouse(key.split("|", 1)[0]))
    except WarehouseError as err:
        if _is_lock_error(err):
            raise Busy("E_WAREHOUSE_BUSY", f"{err.message}; retry shortly") from err
        raise
    started = time.perf_counter()
    try:
        with reading.time_limit(cur, timeout_s):
            cur.execute(sql)
            names = [d[0] for d in cur.description or []]
            rows = cur.fetchmany(max_rows + 1)
    except reading.SqlTimeout as err:
        raise QueryError(f"stopped after the time limit of {timeout_s:g} s") from err
    except duckdb.Error as err:
        raise QueryError(str(err)) from err
    finally:
        cur.close()
    seconds = time.perf_counter() - started
    frame = pd.DataFrame.from_records(rows[:max_rows], columns=names)
    return SqlResult(frame=frame, truncated=len(rows) > max_rows, seconds=seconds)


# ----- leaderboard and players (from the warehouse tables until the scoring marts exist) -------


@st.cache_data(show_spinner=False)
def _leaderboard(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED},
        ob as (
            select g.game_id, s.player_id,
                   count(*) filter (where a.obligation is not null) as obligations,
                   count(*) filter (where a.block = 'violated') as violations
            from fg g join actions a using (game_id)
            join seats s on s.game_id = a.game_id and s.seat = a.seat
            group by 1, 2
        )
        select s.player_id as player,
               count(*) as games,
               count(*) filter (where s.is_winner) as wins,
               round(100.0 * count(*) filter (where s.is_winner) / count(*), 1) as win_pct,
               round(avg(s.cards_left) filter (where not s.is_winner), 2) as avg_cards_left_losing,
               sum(s.cards_left) as total_cards_left,
               coalesce(sum(ob.obligations), 0) as ding_dai_obligations,
               coalesce(sum(ob.violations), 0) as ding_dai_violations,
               count(*) filter (where fg.bao_seat = s.seat) as bao_paid
        from fg join seats s using (game_id)
        left join ob on ob.game_id = s.game_id and ob.player_id = s.player_id
        where fg.outcome <> 'redeal'
        group by 1
        order by wins desc, win_pct desc, avg_cards_left_losing, player
    """
    return _df(key, sql, f.params())


def leaderboard(f: Filters) -> pd.DataFrame:
    """Per player: games, wins, win rate, cards left, 頂大 obligations/violations, 包牌."""
    return _leaderboard(stamp(), f)


@st.cache_data(show_spinner=False)
def _running_totals(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select s.player_id as player,
               row_number() over w as game_no,
               sum(s.is_winner::int) over w as cumulative_wins,
               -sum(s.cards_left) over w as cumulative_cards_left
        from fg join seats s using (game_id)
        where fg.outcome <> 'redeal'
        window w as (partition by s.player_id order by fg.started_at nulls last, fg.game_id)
        order by player, game_no
    """
    return _df(key, sql, f.params())


def running_totals(f: Filters) -> pd.DataFrame:
    """Per player and game (in order): cumulative wins and minus cumulative cards left."""
    return _running_totals(stamp(), f)


@st.cache_data(show_spinner=False)
def _player_seats(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    # position as stats_player_games defines it: steps after the first leader in the game's
    # direction of play, read off its first action (the warehouse tables only, so the page
    # works before `big2 build`)
    sql = f"""{FILTERED},
        mine as (
            select fg.game_id, fg.players, fg.first_leader, s.seat, s.is_winner, s.cards_left
            from fg join seats s using (game_id)
            where s.player_id = $player and fg.outcome <> 'redeal'
        ),
        steps as (
            select a.game_id,
                   case when a.next_seat = (a.seat + 1) % m.players then 1 else -1 end as step
            from mine m join actions a on a.game_id = m.game_id and a.action_index = 0
        )
        select ((m.seat - m.first_leader) * coalesce(st.step, 1) + m.players) % m.players
                   as position_after_leader,
               count(*) as games,
               count(*) filter (where m.is_winner) as wins,
               round(100.0 * count(*) filter (where m.is_winner) / count(*), 1) as win_pct,
               round(avg(m.cards_left), 2) as avg_cards_left
        from mine m left join steps st using (game_id)
        group by 1 order by 1
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def player_seats(f: Filters, player_id: str) -> pd.DataFrame:
    """One player's results by position after the first leader (0 = led the first trick)."""
    return _player_seats(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _player_kinds(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""{FILTERED},
        mine as (
            select a.* from fg join actions a using (game_id)
            join seats s on s.game_id = a.game_id and s.seat = a.seat
            where s.player_id = $player
        ),
        everyone as (select a.* from fg join actions a using (game_id))
        select kind,
               round(100.0 * count(*) filter (where src = 'player')
                     / nullif(sum(count(*) filter (where src = 'player')) over (), 0), 1)
                   as player_pct,
               round(100.0 * count(*) filter (where src = 'all')
                     / nullif(sum(count(*) filter (where src = 'all')) over (), 0), 1)
                   as everyone_pct
        from (
            select 'player' as src, kind from mine where action_type = 'play'
            union all
            select 'all' as src, kind from everyone where action_type = 'play'
        )
        group by kind order by everyone_pct desc
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def player_kinds(f: Filters, player_id: str) -> pd.DataFrame:
    """Share of each combination kind in the player's plays versus everyone's."""
    return _player_kinds(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _player_passes(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select case when s.player_id = $player then 'player' else 'everyone else' end as who,
               count(*) filter (where a.action_type = 'pass') as passes,
               count(*) filter (where a.action_type = 'pass' and a.beating_play_existed)
                   as voluntary_passes,
               round(100.0 * count(*) filter (where a.action_type = 'pass'
                                              and a.beating_play_existed)
                     / nullif(count(*) filter (where a.beating_play_existed), 0), 1)
                   as voluntary_pass_pct
        from fg join actions a using (game_id)
        join seats s on s.game_id = a.game_id and s.seat = a.seat
        where not a.is_lead
        group by 1 order by 1 desc
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def player_passes(f: Filters, player_id: str) -> pd.DataFrame:
    """Voluntary passes (a beating play existed) ÷ chances to beat, player versus the rest."""
    return _player_passes(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _player_games(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select fg.game_id, fg.match_id, fg.started_at, s.seat, s.is_winner, s.cards_left,
               coalesce(fg.bao_seat = s.seat, false) as paid_bao
        from fg join seats s using (game_id)
        where s.player_id = $player
        order by fg.started_at desc nulls last, fg.game_id
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def player_games(f: Filters, player_id: str) -> pd.DataFrame:
    return _player_games(stamp(), f, player_id)


# ----- 頂大 (must-block) and pairs --------------------------------------------------------------

_OBLIGATIONS = """
    obl as (
        select a.game_id, a.action_index, a.trick, a.seat, a.next_seat, a.obligation, a.block,
               a.block_reason, a.action_type, a.cards_text,
               s.player_id as player, n.player_id as next_player,
               coalesce(fg.winner = a.next_seat, false) as next_won,
               coalesce(fg.bao_seat = a.seat, false) as paid_bao
        from fg join actions a using (game_id)
        join seats s on s.game_id = a.game_id and s.seat = a.seat
        join seats n on n.game_id = a.game_id and n.seat = a.next_seat
        where a.obligation is not null
    )
"""


@st.cache_data(show_spinner=False)
def _must_block_players(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED}, {_OBLIGATIONS}
        select player,
               count(*) as obligations,
               count(*) filter (where block = 'met') as met,
               count(*) filter (where block = 'violated') as violated,
               count(*) filter (where block = 'unknown') as unknown,
               round(100.0 * count(*) filter (where block = 'violated')
                     / nullif(count(*) filter (where block <> 'unknown'), 0), 1) as violation_pct,
               count(distinct game_id) filter (where paid_bao) as bao_paid
        from obl group by 1
        order by violated desc, violation_pct desc nulls last, player
    """
    return _df(key, sql, f.params())


def must_block_players(f: Filters) -> pd.DataFrame:
    """Per player: 頂大 obligations, met / violated / unknown, violation rate, 包牌 paid."""
    return _must_block_players(stamp(), f)


@st.cache_data(show_spinner=False)
def _must_block_pairs(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED}, {_OBLIGATIONS},
        pairs as (
            select player, next_player,
                   count(*) filter (where block <> 'unknown') as known,
                   count(*) filter (where block = 'violated') as violated,
                   count(*) filter (where block = 'violated' and next_won) as violated_then_out
            from obl group by 1, 2
        ),
        base as (
            select player, sum(known) as known_all, sum(violated) as violated_all
            from pairs group by 1
        )
        select p.player as obliged, p.next_player as beneficiary, p.known as obligations,
               p.violated, p.violated_then_out,
               round(100.0 * p.violated / nullif(p.known, 0), 1) as violation_pct,
               round(100.0 * (b.violated_all - p.violated)
                     / nullif(b.known_all - p.known, 0), 1) as violation_pct_vs_others
        from pairs p join base b using (player)
        where p.known > 0
        order by p.violated desc, violation_pct desc nulls last, obliged, beneficiary
    """
    return _df(key, sql, f.params())


def must_block_pairs(f: Filters) -> pd.DataFrame:
    """Ordered pairs (obliged → next player): violations toward this player versus others."""
    return _must_block_pairs(stamp(), f)


@st.cache_data(show_spinner=False)
def _violations(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED}, {_OBLIGATIONS}
        select game_id, action_index, trick, player, next_player, obligation, block,
               block_reason, action_type, cards_text as played, next_won, paid_bao
        from obl where block in ('violated', 'unknown')
        order by game_id, action_index
    """
    return _df(key, sql, f.params())


def violations(f: Filters) -> pd.DataFrame:
    """Every 頂大 obligation violated (or unknown with partial information)."""
    return _violations(stamp(), f)


@st.cache_data(show_spinner=False)
def _mart(key: str, name: str, limit: int) -> pd.DataFrame:
    if not _mart_exists(key, name):
        raise QueryError(f"no mart {name!r}")
    # the name is one of MARTS (checked against the catalogue above), never user input
    return _df(key, f'select * from "{name}" limit $limit', {"limit": limit})


@st.cache_data(show_spinner=False)
def _game_scores(key: str, game_id: str) -> pd.DataFrame:
    name = MARTS["scores"]
    if not _mart_exists(key, name):
        raise QueryError(f"no mart {name!r}")
    sql = f'select * from "{name}" where game_id = $game_id order by seat'
    return _df(key, sql, {"game_id": game_id})


def game_scores(game_id: str) -> pd.DataFrame:
    """The scoring mart's rows of one game (raises :class:`QueryError` when not built)."""
    return _game_scores(stamp(), game_id)


def mart(role: str, limit: int = 1000) -> pd.DataFrame:
    """The first rows of the mart for ``role`` (raises :class:`QueryError` when not built)."""
    return _mart(stamp(), MARTS[role], limit)


def root() -> Path:
    return warehouse().root


# ----- the marts (issues 6 and 7): filters applied as bound parameters ---------------------------

#: The marts the mart-based views need; ``big2 build`` (also run by ``big2 ingest``) makes them.
SCORING_MARTS = ("mart_game_scores", "mart_match_standings", "rank_ladder", "rulesets")
AUDIT_MARTS = ("audit_obligations", "collusion_ranking", "collusion_evidence")
STATS_MARTS = ("stats_player_games", "stats_seat_positions", "luck_outcomes")


def marts_built(*names: str) -> bool:
    """Whether every table in ``names`` is built."""
    key = stamp()
    return all(_mart_exists(key, n) for n in names)


#: The filters on a mart that carries ``ruleset``, ``match_id`` and a start time itself (alias
#: ``m``, start column ``{ts}``): no join to ``games`` needed, except for the player filter.
def _mart_where(ts: str) -> str:
    return f"""
    ($ruleset is null or m.ruleset = $ruleset)
    and ($match_id is null or m.match_id = $match_id)
    and ($date_from is null or {UTC.format("m." + ts)} >= $date_from::date)
    and ($date_to is null or {UTC.format("m." + ts)} < $date_to::date + 1)
    and ($player_id is null or m.game_id in (select game_id from seats where player_id = $player_id))
"""


#: Scores (mart_match_standings.result, after the bankroll cap) carry no start time or preset:
#: they are restricted to the filtered games ``fg``.
_IN_FG = "m.game_id in (select game_id from fg)"

_TITLE = (
    "(select max_by(r.title, r.min_score) from rank_ladder r where r.min_score <= greatest({}, 0))"
)


@dataclass(frozen=True)
class RescoreOptions:
    presets: list[str]
    settlements: list[str]


@st.cache_data(show_spinner=False)
def _rescore_options(key: str) -> RescoreOptions:
    presets = _df(key, "select preset from rulesets where overrides = '{}' order by 1")
    settlements = _df(
        key,
        "select distinct params->>'settlement' as s from rulesets where s is not null order by 1",
    )
    return RescoreOptions(presets["preset"].tolist(), settlements["s"].tolist())


def rescore_options() -> RescoreOptions:
    """The presets and settlements the leaderboard can rescore as (from the ``rulesets`` table)."""
    return _rescore_options(stamp())


def whatif_json(preset: str | None, settlement: str | None) -> str | None:
    """The what-if ruleset JSON (``score_seats(whatif := json)``): a preset, optionally with
    another settlement; with only a settlement, ``hk`` with that settlement. ``None`` = own rules.
    """
    if preset is None and settlement is None:
        return None
    from pipeline.sqlbuild import ruleset_json  # the engine's presets, as `big2 rescore` uses

    return ruleset_json(preset or "hk", {"settlement": settlement} if settlement else {})


_STANDINGS_ALL = """
    with own as (
        select overall_rank as rank, player_id, n_games as games, n_wins as wins,
               total_score as score, title
        from mart_player_standings
    ),
    wi as ({})
    select own.rank, own.player_id as player, own.games, own.wins,
           round(100.0 * own.wins / nullif(own.games, 0), 1) as win_pct, own.score, own.title,
           wi.whatif_score, wi.whatif_rank, wi.whatif_title, own.rank - wi.whatif_rank as rank_change,
           sum(own.wins) over () as all_wins, sum(own.games) over () as all_games
    from own left join wi using (player_id)
"""

#: One ruleset's standings as built (rank and title within the ruleset).
_STANDINGS_RULESET = """
    select rank, player_id as player, n_games as games, n_wins as wins,
           round(100.0 * n_wins / nullif(n_games, 0), 1) as win_pct, score, title,
           null::double as whatif_score, null::bigint as whatif_rank,
           null::varchar as whatif_title, null::bigint as rank_change,
           sum(n_wins) over () as all_wins, sum(n_games) over () as all_games
    from rollup_player_rulesets
    where ruleset = $ruleset and n_standings > 0
"""

#: Per player over the filtered games: games, wins, score (``own``), from the rollup or from
#: ``mart_match_standings`` joined with the filtered games.
_OWN_ROLLUP = f"""own as (
    select r.player_id, sum(r.n_games)::bigint as games, sum(r.n_wins)::bigint as wins,
           sum(r.score) as score
    from rollup_player_days r where {ROLLUP_WHERE}
    group by 1 having sum(r.n_standings) > 0
),"""
_OWN_DETAILED = """own as (
    select m.player_id, count(*) filter (where fg.outcome <> 'redeal') as games,
           count(*) filter (where fg.outcome <> 'redeal' and fg.winner = m.seat) as wins,
           sum(m.result) as score
    from mart_match_standings m join fg using (game_id)
    group by 1
),"""


def _standings_sql(key: str, f: Filters, whatif: str | None) -> str:
    """Every player's standing under the filters (one row per player, unordered), with the
    totals of wins and games over all of them (``all_wins``, ``all_games``)."""
    if f == NO_FILTERS:  # every game: the marts as built, and the rescore_players macro
        wi = (
            "select player_id, whatif_score, whatif_rank, whatif_title "
            "from rescore_players($whatif::json)"
            if whatif
            else "select null::varchar as player_id, null::double as whatif_score, "
            "null::bigint as whatif_rank, null::varchar as whatif_title where false"
        )
        return _STANDINGS_ALL.format(wi)
    if whatif is None and _ruleset_rollup(key, f):  # ranked and titled per ruleset at build
        return _STANDINGS_RULESET
    whatif_cte = (
        f"""wi as (
            select m.player_id, sum(m.score) as whatif_score
            from score_seats(whatif := $whatif) m where {_IN_FG} group by 1
        ),"""
        if whatif
        else "wi as (select null::varchar as player_id, null::double as whatif_score where false),"
    )
    return f"""{FILTERED},
        {_OWN_ROLLUP if _rollup(key, f) else _OWN_DETAILED}
        {whatif_cte}
        ranked as (
            select own.*, wi.whatif_score,
                   rank() over (order by own.score desc) as rank,
                   case when wi.whatif_score is not null
                        then rank() over (order by wi.whatif_score desc nulls last) end
                       as whatif_rank
            from own left join wi using (player_id)
        )
        select rank, player_id as player, games, wins,
               round(100.0 * wins / nullif(games, 0), 1) as win_pct,
               score, {_TITLE.format("score")} as title,
               whatif_score, whatif_rank,
               case when whatif_score is not null
                    then {_TITLE.format("whatif_score")} end as whatif_title,
               rank - whatif_rank as rank_change,
               sum(wins) over () as all_wins, sum(games) over () as all_games
        from ranked
    """


def _whatif_params(f: Filters, whatif: str | None) -> dict[str, Any]:
    return {**f.params(), **({"whatif": whatif} if whatif else {})}


@st.cache_data(show_spinner=False)
def _standings(key: str, f: Filters, whatif: str | None, limit: int) -> pd.DataFrame:
    sql = f"""
        with board as ({_standings_sql(key, f, whatif)})
        select * exclude (all_wins, all_games) from board order by rank, player limit $limit
    """
    return _df(key, sql, {**_whatif_params(f, whatif), "limit": limit})


def standings(f: Filters, whatif: str | None = None, limit: int = TABLE_ROWS) -> pd.DataFrame:
    """Per player over the filtered games: games, wins, score under each game's own rules
    (after the bankroll cap), the rank-ladder title; with ``whatif`` (a ruleset JSON, bound as a
    parameter) the score, rank and title had every game been played under it. The first
    ``limit`` players by rank (then id)."""
    return _standings(stamp(), f, whatif, limit)


@st.cache_data(show_spinner=False)
def _player_standing(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""
        with board as ({_standings_sql(key, f, None)})
        select * exclude (whatif_score, whatif_rank, whatif_title, rank_change),
               100.0 * all_wins / greatest(all_games, 1) as all_win_pct
        from board where player = $player
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def player_standing(f: Filters, player_id: str) -> pd.DataFrame:
    """One player's row of :func:`standings` (none when the player has no scored game under
    the filters), with ``all_win_pct``: everyone's wins ÷ games over the same games."""
    return _player_standing(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _winnings(key: str, f: Filters, max_players: int, max_points: int) -> pd.DataFrame:
    if f == NO_FILTERS:
        top = "select player_id from mart_player_standings order by n_games desc, player_id"
    elif _ruleset_rollup(key, f):  # no player filter: the most seats first
        top = (
            "select player_id from rollup_player_rulesets where ruleset = $ruleset "
            "order by n_seats desc, player_id"
        )
    elif _rollup(key, f):
        top = (
            f"select r.player_id from rollup_player_days r where {ROLLUP_WHERE} "
            "group by 1 order by sum(r.n_seats) desc, 1"
        )
    else:
        top = (
            "select s.player_id from fg join seats s using (game_id) group by 1 "
            "order by (s.player_id = $player_id) desc nulls last, count(*) desc, 1"
        )
    sql = f"""{FILTERED},
        top as ({top} limit $max_players),
        per_game as (
            select m.player_id, fg.started_at, m.game_id, m.result,
                   coalesce(l.cards_vs_expected, 0) as luck
            from mart_match_standings m join fg using (game_id)
            left join luck_outcomes l on l.game_id = m.game_id and l.seat = m.seat
            where m.player_id in (select player_id from top)
        ),
        cum as (
            select player_id,
                   row_number() over w as game_no,
                   count(*) over (partition by player_id) as n,
                   sum(result) over w as cumulative_score,
                   sum(luck) over w as cumulative_cards_vs_expected
            from per_game
            window w as (partition by player_id order by started_at nulls last, game_id)
        )
        select player_id as player, game_no, cumulative_score,
               round(cumulative_cards_vs_expected, 2) as cumulative_cards_vs_expected
        from cum
        where game_no % greatest(1, n // $max_points) = 0 or game_no = n or game_no = 1
        order by player, game_no
    """
    params = {**f.params(), "max_players": max_players, "max_points": max_points}
    return _df(key, sql, params)


def winnings(f: Filters, max_players: int = 12, max_points: int = 400) -> pd.DataFrame:
    """The winnings graph: per player (the most active ``max_players``, the filtered player
    first) and game in order, the cumulative score (own rules, after the cap) and the
    cumulative luck-adjusted line (``luck_outcomes.cards_vs_expected``: expected − actual cards
    left, 0 when the deal is unknown); thinned to about ``max_points`` points per player."""
    return _winnings(stamp(), f, max_players, max_points)


# ----- the leak finder (stats_player_games) -----------------------------------------------------

#: Leak-finder stats: (label, actions column, opportunities column) of stats_player_games;
#: each is a rate = Σ actions ÷ Σ opportunities (docs/stats.md).
LEAK_STATS: tuple[tuple[str, str, str], ...] = (
    ("win rate", "n_wins", "n_games"),
    ("voluntary pass rate", "n_voluntary_passes", "n_could_beat"),
    ("forced-pass share", "n_forced_passes", "n_passes"),
    ("雙炒 rate (×2, of losses)", "n_chao_2", "n_losses"),
    ("三炒 rate (×3, of losses)", "n_chao_3", "n_losses"),
    ("四炒 rate (×4+, of losses)", "n_chao_4", "n_losses"),
    ("13 cards left (of losses)", "n_left_13", "n_losses"),
    ("lead singles (of leads)", "n_lead_single", "n_leads"),
    ("lead pairs (of leads)", "n_lead_pair", "n_leads"),
    ("lead triples (of leads)", "n_lead_triple", "n_leads"),
    ("lead five-card plays (of leads)", "n_lead_five", "n_leads"),
    ("wasted 2 rate", "n_two_wasted", "n_two_single_follows"),
    ("trick win rate", "n_tricks_won", "n_tricks"),
    ("control regained", "n_control_regained", "n_tricks_led_by_others"),
    ("2s left at the end", "n_twos_left", "n_twos_dealt"),
)


@st.cache_data(show_spinner=False)
def _leak_counts(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    cols = sorted({c for _, a, o in LEAK_STATS for c in (a, o)})
    sums = ", ".join(f"sum({c})::double as {c}" for c in cols)
    if replace(f, ruleset=None, player_id=None) == NO_FILTERS and _rollup(key, NO_FILTERS):
        # the winners' counts summed at build (rollup_leak_winners), less the player's own
        # when the player is one of them
        mine = "case when m.score > 0 then {} else 0 end"
        less = ", ".join(f"w.{c}::double - {mine.format('m.' + c)} as {c}" for c in cols)
        sql = f"""
            with m as (
                select sum(sum_score) as score, {sums}
                from stats_players
                where ($ruleset is null or ruleset = $ruleset) and player_id = $player
                having count(*) > 0
            ),
            w as (
                select w.n_players - {mine.format(1)} as n_players,
                       {less}
                from rollup_leak_winners w left join m on true
                where w.ruleset is not distinct from $ruleset
            )
            select 'player' as who, 1::bigint as n_players, {", ".join(cols)} from m
            union all
            select 'winners', n_players::bigint, {", ".join(cols)} from w where n_players > 0
        """
        return _df(key, sql, {"ruleset": f.ruleset, "player": player_id})
    if replace(f, ruleset=None, player_id=None) == NO_FILTERS:
        # only a ruleset: stats_players holds the same counts per (player, ruleset), summed
        source = "stats_players m where ($ruleset is null or m.ruleset = $ruleset)"
        score = "sum(m.sum_score)"
    elif _rollup(key, replace(f, player_id=None)):  # a period: the counts summed per day
        source = f"(select * from rollup_stats_player_days r where {ROLLUP_WHERE}) m"
        score = "sum(m.score)"
    else:
        source = f"stats_player_games m where {_mart_where('started_ts')}"
        score = "sum(m.score)"
    sql = f"""
        with per_player as (
            select m.player_id, {score} as score, {sums}
            from {source}
            group by 1
        )
        select case when player_id = $player then 'player' else 'winners' end as who,
               count(*) as n_players, {", ".join(f"sum({c}) as {c}" for c in cols)}
        from per_player
        where player_id = $player or score > 0
        group by 1
    """
    # the population is not narrowed to the player's own games
    return _df(key, sql, {**f.params(), "player_id": None, "player": player_id})


def leaks(f: Filters, player_id: str) -> pd.DataFrame:
    """Where the player differs most from the winning players (other players with a positive
    score over the filtered games), each stat a rate actions ÷ opportunities, with a two-
    proportion z-score (pooled) so that small samples weigh less; sorted by |z|, largest first.
    """
    return leak_table(_leak_counts(stamp(), f, player_id))


def leak_table(counts: pd.DataFrame) -> pd.DataFrame:
    """The leak finder from the summed counts (rows ``who`` = ``player`` / ``winners``).

    >>> c = pd.DataFrame({"who": ["player", "winners"], "n_players": [1, 2],
    ...                   "n_wins": [10.0, 60.0], "n_games": [100.0, 200.0]})
    >>> t = leak_table(c)
    >>> t[["stat", "player_rate", "winners_rate"]].iloc[0].tolist()
    ['win rate', 0.1, 0.3]
    >>> round(float(t["z"].iloc[0]), 2)
    -3.78
    """
    columns = ["stat", "player_rate", "winners_rate", "difference", "z",
               "player_opportunities", "winners_opportunities"]  # fmt: skip
    by = {str(r["who"]): r for _, r in counts.iterrows()}
    if "player" not in by or "winners" not in by:
        return pd.DataFrame(columns=columns)
    me, them = by["player"], by["winners"]
    rows = []
    for label, a, o in LEAK_STATS:
        if a not in me or o not in me:
            continue
        a1, n1, a2, n2 = (
            float(x) if not missing(x) else 0.0 for x in (me[a], me[o], them[a], them[o])
        )
        if n1 <= 0 or n2 <= 0:
            continue
        p1, p2 = a1 / n1, a2 / n2
        pooled = (a1 + a2) / (n1 + n2)
        se = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)) ** 0.5
        z = (p1 - p2) / se if se > 0 else 0.0
        rows.append((label, p1, p2, p1 - p2, z, int(n1), int(n2)))
    out = pd.DataFrame(rows, columns=columns)
    return out.reindex(out["z"].abs().sort_values(ascending=False).index).reset_index(drop=True)


# ----- one player: 炒 history, 頂大 record, seat effects -------------------------------------------


@st.cache_data(show_spinner=False)
def _chao_history(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select m.game_id, fg.started_at, m.own_ruleset_id as ruleset, m.cards_left, m.tier_name,
               m.multiplier, m.penalty, m.net, m.points
        from mart_game_scores m join fg using (game_id)
        where m.player_id = $player and m.is_loser and m.multiplier >= 2
        order by fg.started_at desc nulls last, m.game_id
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def chao_history(f: Filters, player_id: str) -> pd.DataFrame:
    """The player's 炒 losses (×2 or more) over the filtered games, newest first."""
    return _chao_history(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _chao_tiers(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select coalesce(nullif(m.tier_name, ''), '×' || m.multiplier) as tier, m.multiplier,
               count(*) as losses
        from mart_game_scores m join fg using (game_id)
        where m.player_id = $player and m.is_loser
        group by 1, 2 order by 2, 1
    """
    return _df(key, sql, {**f.params(), "player": player_id})


def chao_tiers(f: Filters, player_id: str) -> pd.DataFrame:
    """The player's losses by 炒 tier (multiplier 1 = no 炒)."""
    return _chao_tiers(stamp(), f, player_id)


_AUDIT_AGG = """
    count(*) as obligations,
    count(*) filter (where m.block = 'met') as met,
    count(*) filter (where m.is_violated) as violated,
    count(*) filter (where m.is_unknown) as unknown,
    round(100.0 * count(*) filter (where m.is_violated)
          / nullif(count(*) filter (where not m.is_unknown), 0), 1) as violation_pct,
    count(*) filter (where m.is_violated and m.is_next_out) as violated_then_out,
    count(*) filter (where m.is_bao) as bao,
    count(*) filter (where m.is_bao_possible) as bao_possible
"""


@st.cache_data(show_spinner=False)
def _audit_by_player(key: str, f: Filters, player_id: str | None, limit: int) -> pd.DataFrame:
    if replace(f, ruleset=None) == NO_FILTERS:  # only a ruleset: the audit_players mart
        sql = """
            select player_id as player, ruleset, n_obligations as obligations, n_met as met,
                   n_violations as violated, n_unknown as unknown,
                   round(100.0 * n_violations / nullif(n_known, 0), 1) as violation_pct,
                   n_violations_next_out as violated_then_out, n_bao as bao,
                   n_bao_possible as bao_possible, coalesce(bao_paid, 0) as bao_paid
            from audit_players
            where ($ruleset is null or ruleset = $ruleset) and ($player is null or player_id = $player)
            order by violated desc, violation_pct desc nulls last, player, ruleset
            limit $limit
        """
        return _df(key, sql, {"ruleset": f.ruleset, "player": player_id, "limit": limit})
    sql = f"""{FILTERED},
        paid as (
            select m.player_id, fg.ruleset, sum(m.bao_paid) as bao_paid
            from mart_game_scores m join fg using (game_id) where m.is_bao_payer group by 1, 2
        ),
        audit as (
            select m.player_id, m.ruleset, {_AUDIT_AGG}
            from audit_obligations m
            where {_mart_where("started_at")} and ($player is null or m.player_id = $player)
            group by 1, 2
        )
        select a.player_id as player, a.ruleset, a.* exclude (player_id, ruleset),
               coalesce(p.bao_paid, 0) as bao_paid
        from audit a left join paid p using (player_id, ruleset)
        order by violated desc, violation_pct desc nulls last, player, ruleset
        limit $limit
    """
    return _df(key, sql, {**f.params(), "player": player_id, "limit": limit})


def audit_by_player(
    f: Filters, player_id: str | None = None, limit: int = TABLE_ROWS
) -> pd.DataFrame:
    """頂大 record per player and ruleset over the filtered games (``audit_obligations``), with
    what 包牌 made each pay (``mart_game_scores.bao_paid``, the game's unit); the first
    ``limit`` rows, most violations first."""
    return _audit_by_player(stamp(), f, player_id, limit)


@st.cache_data(show_spinner=False)
def _obligations(
    key: str, f: Filters, player_id: str | None, next_player_id: str | None, only_failed: bool
) -> pd.DataFrame:
    sql = f"""
        select m.game_id, m.action_index, m.started_at, m.ruleset, m.trick, m.player_id as player,
               m.next_player_id as next_player, m.obligation, m.required, m.played, m.block,
               m.block_reason, m.is_next_out as next_went_out, m.is_bao as bao
        from audit_obligations m
        where {_mart_where("started_at")}
          and ($player is null or m.player_id = $player)
          and ($next is null or m.next_player_id = $next)
          and (not $only_failed or m.block in ('violated', 'unknown'))
        order by m.started_at desc nulls last, m.game_id, m.action_index
        limit 5000
    """
    params = {**f.params(), "player": player_id, "next": next_player_id, "only_failed": only_failed}
    return _df(key, sql, params)


def obligations(
    f: Filters,
    player_id: str | None = None,
    next_player_id: str | None = None,
    *,
    only_failed: bool = True,
) -> pd.DataFrame:
    """頂大 obligations (``audit_obligations``; violated or unknown only by default) over the
    filtered games, optionally of one obliged player and/or toward one next player."""
    return _obligations(stamp(), f, player_id, next_player_id, only_failed)


@st.cache_data(show_spinner=False)
def _bao_games(key: str, f: Filters) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select m.game_id, fg.started_at, m.own_ruleset_id as ruleset, m.player_id as payer,
               m.bao_paid, m.settlement
        from mart_game_scores m join fg using (game_id)
        where m.is_bao_payer
        order by fg.started_at desc nulls last, m.game_id
    """
    return _df(key, sql, f.params())


def bao_games(f: Filters) -> pd.DataFrame:
    """Every 包牌 paid in the filtered games: who paid, how much for the other losers."""
    return _bao_games(stamp(), f)


@st.cache_data(show_spinner=False)
def _pairs(key: str, player_id: str | None, limit: int) -> pd.DataFrame:
    sql = """
        select * from collusion_ranking
        where $player is null or player_id = $player or partner_id = $player
        order by rank limit $limit
    """
    return _df(key, sql, {"player": player_id, "limit": limit})


def pairs(f: Filters, limit: int = 200) -> pd.DataFrame:
    """The ranked pair list (``collusion_ranking``, computed over every game of the warehouse:
    its tests need the whole sample); the player filter keeps the pairs the player is in."""
    return _pairs(stamp(), f.player_id, limit)


@st.cache_data(show_spinner=False)
def _evidence(key: str, player_id: str, partner_id: str) -> pd.DataFrame:
    sql = """
        select signal, baseline, n_cell_actions, n_cell_opportunities, cell_rate,
               n_base_actions, n_base_opportunities, base_rate, p_value
        from collusion_evidence
        where player_id = $a and partner_id = $b
        order by p_value
    """
    return _df(key, sql, {"a": player_id, "b": partner_id})


def evidence(player_id: str, partner_id: str) -> pd.DataFrame:
    """One pair's signals (``collusion_evidence``): each 2×2 table and its Fisher p-value."""
    return _evidence(stamp(), player_id, partner_id)


@st.cache_data(show_spinner=False)
def _seat_effects(key: str, f: Filters, player_id: str) -> pd.DataFrame:
    sql = f"""
        with mine as (
            select m.players, m.position, sum(m.n_games) as games, sum(m.n_wins) as wins
            from stats_player_games m
            where {_mart_where("started_ts")} and m.player_id = $player
            group by 1, 2
        ),
        everyone as (
            select players, position, sum(n_games) as all_games, sum(n_wins) as all_wins
            from stats_seat_positions
            where $ruleset is null or ruleset = $ruleset
            group by 1, 2
        )
        select mine.players, mine.position, mine.games, mine.wins,
               round(100.0 * mine.wins / nullif(mine.games, 0), 1) as win_pct,
               round(100.0 * e.all_wins / nullif(e.all_games, 0), 1) as everyone_win_pct,
               e.all_games as everyone_games
        from mine left join everyone e using (players, position)
        order by players, position
    """
    return _df(key, sql, {**f.params(), "player_id": None, "player": player_id})


def seat_effects(f: Filters, player_id: str) -> pd.DataFrame:
    """The player's win rate by position after the first leader (0 = led first) over the
    filtered games, beside everyone's from ``stats_seat_positions`` (per ruleset filter)."""
    return _seat_effects(stamp(), f, player_id)


@st.cache_data(show_spinner=False)
def _players(key: str, f: Filters, limit: int) -> list[str]:
    f = replace(f, player_id=None)
    params = {**f.params(), "limit": limit}
    if f == NO_FILTERS and _mart_exists(key, "mart_player_standings"):
        sql = "select player_id from mart_player_standings order by n_games desc, player_id"
        return [str(p) for p in _df(key, f"{sql} limit $limit", params)["player_id"]]
    if _ruleset_rollup(key, f):
        sql = """
            select player_id from rollup_player_rulesets where ruleset = $ruleset
            order by n_seats desc, player_id limit $limit
        """
    elif _rollup(key, f):
        sql = f"""
            select r.player_id from rollup_player_days r where {ROLLUP_WHERE}
            group by 1 order by sum(r.n_seats) desc, 1 limit $limit
        """
    else:
        sql = f"""{FILTERED}
            select s.player_id from fg join seats s using (game_id)
            group by 1 order by count(*) desc, 1 limit $limit
        """
    return [str(p) for p in _df(key, sql, params)["player_id"]]


def players(f: Filters, limit: int = OPTION_LIMIT) -> list[str]:
    """Players of the filtered games (the player filter aside), most games first: the first
    ``limit``."""
    return _players(stamp(), f, limit)
