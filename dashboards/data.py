"""The dashboards' data module: one cached read-only DuckDB connection, cached queries.

Pages call the functions here and hold no SQL. Every filter is a bound parameter
(``$ruleset``, ``$player_id`` ...), never text formatted into SQL. Results are cached with
``st.cache_data`` keyed by the warehouse's *stamp* (its folder and manifest size and time), so
a new import shows up at the next rerun without a restart.

The scoring and audit marts (issues 6 and 7) do not exist yet: :data:`MARTS` names the ones the
pages will read, :func:`mart_exists` tells whether one is built, and until then the pages show
figures computed straight from the warehouse tables.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pipeline.warehouse import Warehouse, WarehouseError
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

#: The games the filters select (alias ``g``); used as ``where {GAMES_WHERE}``.
GAMES_WHERE = """
    ($ruleset is null or g.ruleset = $ruleset)
    and ($match_id is null or g.match_id = $match_id)
    and ($date_from is null or try_cast(g.started_at as timestamptz) >= $date_from::date)
    and ($date_to is null or try_cast(g.started_at as timestamptz) < $date_to::date + 1)
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
    """A key that changes whenever a batch is committed (or the warehouse appears)."""
    wh = wh or warehouse()
    try:
        st_ = (wh.root / MANIFEST).stat()
    except FileNotFoundError:
        return f"{wh.root}|missing"
    return f"{wh.root}|{st_.st_size}|{st_.st_mtime_ns}"


_lock = threading.Lock()
_open: dict[str, tuple[str, duckdb.DuckDBPyConnection]] = {}


@st.cache_resource(show_spinner=False)
def _connection(key: str) -> duckdb.DuckDBPyConnection:
    root = key.split("|", 1)[0]
    with _lock:
        old = _open.pop(root, None)
        if old is not None:  # a newer import: the old read-only handle must go before the refresh
            old[1].close()
        con = Warehouse(root).connect(read_only=True)
        _open[root] = (key, con)
    return con


def connection(key: str | None = None) -> duckdb.DuckDBPyConnection:
    """The cached read-only connection for the current warehouse stamp (a cursor per caller)."""
    return _connection(key or stamp()).cursor()


def _df(key: str, sql: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
    cur = connection(key)
    try:
        return cur.execute(sql, params or {}).df()
    finally:
        cur.close()


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


# ----- filters --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterOptions:
    rulesets: list[str]
    matches: list[str]
    players: list[str]
    first: date | None
    last: date | None


@st.cache_data(show_spinner=False)
def _filter_options(key: str) -> FilterOptions:
    rulesets = _df(key, "select distinct ruleset from games order by 1")["ruleset"].tolist()
    matches = _df(key, "select distinct match_id from games where match_id is not null order by 1")[
        "match_id"
    ].tolist()
    players = _df(key, "select distinct player_id from seats order by 1")["player_id"].tolist()
    span = _df(
        key,
        "select min(try_cast(started_at as timestamptz))::date as first, "
        "max(try_cast(started_at as timestamptz))::date as last from games",
    ).iloc[0]
    return FilterOptions(
        rulesets=rulesets,
        matches=matches,
        players=players,
        first=None if pd.isna(span["first"]) else pd.Timestamp(span["first"]).date(),
        last=None if pd.isna(span["last"]) else pd.Timestamp(span["last"]).date(),
    )


def filter_options() -> FilterOptions:
    return _filter_options(stamp())


# ----- overview -------------------------------------------------------------------------------


@st.cache_data(show_spinner=False)
def _overview(key: str, f: Filters) -> dict[str, Any]:
    sql = f"""{FILTERED}
        select
            (select count(*) from fg) as n_games,
            (select count(distinct s.player_id) from seats s join fg using (game_id)) as n_players,
            (select count(distinct match_id) from fg) as n_matches,
            (select min(try_cast(started_at as timestamptz)) from fg) as first_game,
            (select max(try_cast(started_at as timestamptz)) from fg) as last_game,
            (select count(*) from fg where not full_info) as n_partial,
            (select count(*) from fg where bao_seat is not null) as n_bao
    """
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


@st.cache_data(show_spinner=False)
def _recent_matches(key: str, f: Filters, limit: int) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select coalesce(fg.match_id, '(no match) ' || fg.game_id) as match,
               any_value(fg.ruleset) as ruleset,
               count(*) as games,
               min(fg.started_at) as started,
               max(fg.started_at) as ended,
               string_agg(distinct s.player_id, ', ' order by s.player_id) as players,
               arg_max(fg.game_id, fg.game_number) as last_game
        from fg join seats s using (game_id)
        group by 1
        order by max(fg.started_at) desc nulls last, 1
        limit $limit
    """
    return _df(key, sql, {**f.params(), "limit": limit})


def recent_matches(f: Filters, limit: int = 20) -> pd.DataFrame:
    return _recent_matches(stamp(), f, limit)


@st.cache_data(show_spinner=False)
def _games(key: str, f: Filters, limit: int) -> pd.DataFrame:
    sql = f"""{FILTERED}
        select fg.game_id, fg.match_id, fg.game_number, fg.ruleset, fg.started_at, fg.players,
               fg.outcome, w.player_id as winner, fg.n_tricks, fg.n_actions, fg.full_info
        from fg left join seats w on w.game_id = fg.game_id and w.seat = fg.winner
        order by fg.started_at desc nulls last, fg.game_id
        limit $limit
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


READ_STATEMENTS = {"SELECT", "EXPLAIN"}


def run_sql(sql: str, *, max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> SqlResult:
    """Run one read-only query with a row limit and a time limit (not cached: ad hoc)."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as err:
        raise QueryError(str(err)) from err
    if len(statements) != 1:
        raise QueryError(f"give exactly one statement (got {len(statements)})")
    kind = statements[0].type.name
    if kind not in READ_STATEMENTS:
        raise QueryError(f"only SELECT queries run here (got {kind})")
    cur = connection()
    timer = threading.Timer(timeout_s, cur.interrupt)
    started = time.perf_counter()
    timer.start()
    try:
        cur.execute(sql)
        names = [d[0] for d in cur.description or []]
        rows = cur.fetchmany(max_rows + 1)
    except duckdb.InterruptException as err:
        raise QueryError(f"stopped after the time limit of {timeout_s:g} s") from err
    except duckdb.Error as err:
        raise QueryError(str(err)) from err
    finally:
        timer.cancel()
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
    sql = f"""{FILTERED}
        select (s.seat - fg.first_leader + fg.players) % fg.players as position_after_leader,
               count(*) as games,
               count(*) filter (where s.is_winner) as wins,
               round(100.0 * count(*) filter (where s.is_winner) / count(*), 1) as win_pct,
               round(avg(s.cards_left), 2) as avg_cards_left
        from fg join seats s using (game_id)
        where s.player_id = $player and fg.outcome <> 'redeal'
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
