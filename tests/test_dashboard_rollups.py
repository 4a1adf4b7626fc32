"""The dashboards' rollups (``sql/marts/rollup_*.sql``): under every filter they answer, each
view gives the same figures from the rollups as from the detailed marts and tables.

The samples are ingested and built into a temporary warehouse (as ``tests/test_dashboard.py``);
``data.ROLLUPS = False`` forces the detailed path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import streamlit as st

from dashboards import data, rulesets
from dashboards.frames import FilterOptions
from pipeline.ingest import ingest
from pipeline.sim.simulate import SimConfig, simulate_to_file
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse, reading

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("dash-rollups") / "warehouse")
    ingest([str(SAMPLES / n) for n in ("games.jsonl", "bad.jsonl", "partial.jsonl")], wh)
    build(wh)
    return wh


def _pointed_at(wh: Warehouse, monkeypatch: pytest.MonkeyPatch) -> Iterator[Warehouse]:
    """The dashboards' reads on ``wh``, every cache cleared before and after."""
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    st.cache_data.clear()
    with reading.one_connection():  # the test's reads share one (as test_dashboard.use's)
        yield wh
    st.cache_data.clear()


@pytest.fixture
def point(built: Warehouse, monkeypatch: pytest.MonkeyPatch) -> Iterator[Warehouse]:
    yield from _pointed_at(built, monkeypatch)


def both(fn: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """``fn()`` from the rollups, then from the detailed marts (every cache cleared between)."""
    monkeypatch.setattr(data, "ROLLUPS", True)
    st.cache_data.clear()
    with reading.one_connection():  # as in the app: one connection for the queries
        rolled = fn()
    monkeypatch.setattr(data, "ROLLUPS", False)
    st.cache_data.clear()
    with reading.one_connection():
        detailed = fn()
    monkeypatch.setattr(data, "ROLLUPS", True)
    st.cache_data.clear()
    return rolled, detailed


def asked_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the named queries the dashboards run from now on (``data.frame``'s), in
    order, in the list returned (clear it between the steps a test tells apart)."""
    asked: list[str] = []
    frame = data.frame

    def spy(name: str, /, **params: Any) -> pd.DataFrame:
        asked.append(name)
        return frame(name, **params)

    monkeypatch.setattr(data, "frame", spy)
    return asked


def the_filters(opts: FilterOptions | None = None) -> list[data.Filters]:
    """Every filter the rollups answer, on the fixture's sidebar options (Big Two's unless
    ``opts``): none, each ruleset, whole periods, one day, a day without games, a ruleset
    within a period; then the period's second half, and a ruleset within its first half."""
    opts = data.filter_options() if opts is None else opts
    assert opts.first is not None and opts.last is not None and opts.first < opts.last
    mid = opts.first + (opts.last - opts.first) / 2
    out = [data.NO_FILTERS]
    out += [data.Filters(ruleset=r) for r in opts.rulesets]
    out += [
        data.Filters(date_from=opts.first, date_to=opts.last),
        data.Filters(date_from=opts.first),
        data.Filters(date_to=opts.first),
        data.Filters(date_from=opts.last, date_to=opts.last),
        data.Filters(date_from=opts.last + timedelta(days=1)),
        data.Filters(ruleset=opts.rulesets[0], date_from=opts.first, date_to=opts.last),
        data.Filters(date_from=mid),
        data.Filters(ruleset=opts.rulesets[0], date_to=mid),
    ]
    return out


def test_the_rollups_are_built_fresh_and_described(point: Warehouse) -> None:
    assert data.rollups_fresh()
    con = point.connect()
    try:
        comments = dict(
            con.execute(
                "select table_name, comment from duckdb_tables() where table_name like 'rollup_%'"
            ).fetchall()
        )
        (n_games, n_seats) = con.execute(
            "select (select sum(n_games) from rollup_games), "
            "(select sum(n_seats) from rollup_player_days)"
        ).fetchone() or (0, 0)
        assert (n_games, n_seats) == con.execute(
            "select (select count(*) from games), (select count(*) from seats)"
        ).fetchone()
    finally:
        con.close()
    assert set(comments) == {m for marts, _ in data.FRESHNESS.values() for m in marts}
    assert all(c and "grain" in c.lower() for c in comments.values()), comments


def test_overview_and_filter_options_agree(
    point: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = both(data.filter_options, monkeypatch)
    assert a == b
    for f in the_filters():
        a, b = both(lambda f=f: data.overview(f), monkeypatch)
        assert a == b, f
        a, b = both(lambda f=f: data.query("dash_recent_matches", f, limit=20), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))


def test_standings_players_and_winnings_agree(
    point: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    whatif = data.whatif_json("taiwan", None)
    n_rows = 0
    for f in the_filters()[1:]:  # every game: the pre-aggregated marts, neither path here
        a, b = both(lambda f=f: data.standings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
        n_rows += len(a)
        a, b = both(lambda f=f: data.standings(f, whatif), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
        a, b = both(lambda f=f: data.players(f), monkeypatch)
        assert a == b, f
        for player in a[:2]:
            a2, b2 = both(lambda f=f, p=player: data.player_standing(f, p), monkeypatch)
            pd.testing.assert_frame_equal(a2, b2, check_dtype=False, obj=f"{f} {player}")
        a, b = both(lambda f=f: data.winnings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
    assert n_rows > 20  # the filters select players


@pytest.mark.parametrize("warehouse", ["point", "simulated"])
def test_the_winnings_graph_agrees(
    warehouse: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rollup_winnings (no filter, a ruleset alone) gives the per-game queries' graph: on the
    samples (more players than the graph charts) and on 1,500 games of 4 players (more games
    than its points: the thinned line)."""
    request.getfixturevalue(warehouse)
    assert data.rollups_fresh()  # so the first of each pair read rollup_winnings
    filters = [data.NO_FILTERS, *(data.Filters(ruleset=r) for r in data.filter_options().rulesets)]
    for f in filters:
        a, b = both(lambda f=f: data.winnings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
        assert a["player"].nunique() == min(data.WINNINGS_PLAYERS, len(data.players(f)))
        if warehouse == "simulated":
            assert a.groupby("player").size().between(100, data.WINNINGS_POINTS + 2).all()
            assert a["game_no"].max() == 1500


def test_rates_per_hour_agree(point: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each game's time to the player's next game among the filtered games: from the sorted
    games, or read from rollup_player_gaps (the next game overall, within the ruleset, none
    after the period's last day)."""
    n_timed = 0
    for f in the_filters():
        for player in [None, *data.players(f)[:2]]:
            a, b = both(
                lambda f=f, p=player: data.query(
                    "dash_player_rates", f, player=p, gap_minutes=data.GAP_MINUTES, limit=50
                ),
                monkeypatch,
            )
            pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=f"{f} {player}")
            n_timed += int(a["timed_games"].sum())
    assert n_timed > 20  # games with a time: the gaps are compared, not only their absence


@pytest.fixture(scope="module")
def simulated_built(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """1,500 simulated games of 4 random bots (matches run across UTC midnight)."""
    tmp = tmp_path_factory.mktemp("dash-rollups-sim")
    log = tmp / "sim.jsonl"
    simulate_to_file(SimConfig(games=1500, seed=3, bots=("random",) * 4), log)
    wh = Warehouse(tmp / "warehouse")
    ingest([str(log)], wh, workers=1)
    build(wh)
    return wh


@pytest.fixture
def simulated(simulated_built: Warehouse, monkeypatch: pytest.MonkeyPatch) -> Iterator[Warehouse]:
    yield from _pointed_at(simulated_built, monkeypatch)


def test_a_next_game_after_the_periods_last_day_is_none(
    simulated: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game just before UTC midnight and the player's next one minutes after it: under a
    period that ends that day the next game is not among the filtered games, so the game takes
    the typical game's time on both paths (simulated games: matches run across midnight)."""
    wh = simulated
    con = wh.connect()
    days = [
        day
        for (day,) in con.execute(
            "select distinct day from rollup_player_gaps where timezone('UTC', next_t)::date > day "
            "and epoch_us(next_t) - epoch_us(t) between 1 and 60e6 * $gap order by 1",
            {"gap": data.GAP_MINUTES},
        ).fetchall()
    ]
    con.close()
    assert days  # games within the gap of a next game on the next UTC day
    for day in days[:3]:
        for f in (data.Filters(date_to=day), data.Filters(date_from=day, date_to=day)):
            a, b = both(
                lambda f=f: data.query(
                    "dash_player_rates", f, player=None, gap_minutes=data.GAP_MINUTES, limit=50
                ),
                monkeypatch,
            )
            pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))


def test_leak_finder_agrees(point: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a ruleset or none: the winners' counts summed at build less the player's own;
    under a period: the counts summed per player and day."""
    n_compared = 0
    for f in the_filters():
        for player in [*data.players(f)[:2], "nobody"]:
            a, b = both(lambda f=f, p=player: data.leaks(f, p), monkeypatch)
            pd.testing.assert_frame_equal(a, b, obj=f"{f} {player}")
            n_compared += len(a)
            a, b = both(lambda f=f, p=player: data.leak_counts(f, p), monkeypatch)
            a = a.sort_values("who").reset_index(drop=True)
            b = b.sort_values("who").reset_index(drop=True)
            pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=f"{f} {player}")
    assert n_compared > 20


def test_player_standing_is_the_row_of_the_standings(point: Warehouse) -> None:
    for f in the_filters()[:3]:
        board = data.standings(f)
        player = str(board["player"].iloc[0])
        mine = data.player_standing(f, player)
        assert len(mine) == 1
        cols = ["rank", "player", "games", "wins", "win_pct", "score", "title"]
        pd.testing.assert_frame_equal(
            mine[cols].reset_index(drop=True),
            board[board["player"] == player][cols].reset_index(drop=True),
            check_dtype=False,
        )
        expected = 100 * board["wins"].sum() / max(board["games"].sum(), 1)
        assert mine["all_win_pct"].iloc[0] == pytest.approx(expected)
    assert data.player_standing(data.NO_FILTERS, "nobody").empty


def test_cut_lists(point: Warehouse, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "OPTION_LIMIT", 3)
    st.cache_data.clear()
    opts = data.filter_options()
    assert len(opts.players) == 3 and opts.n_players > 3
    assert opts.players == sorted(opts.players)
    assert len(data.players(data.NO_FILTERS, limit=3)) == 3
    assert len(data.standings(data.NO_FILTERS, limit=2)) == 2


def test_an_import_after_the_build_makes_them_stale(tmp_path: Path, monkeypatch: Any) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(SAMPLES / "games.jsonl")], wh)
    build(wh)
    monkeypatch.setenv("BIG2_WAREHOUSE", str(wh.root))
    assert data.rollups_fresh()
    ingest([str(SAMPLES / "partial.jsonl")], wh)  # no build
    assert not data.rollups_fresh() and not data.rollup(data.NO_FILTERS)
    con = wh.connect()
    (n,) = con.execute("select count(*) from games").fetchone() or (0,)
    con.close()
    assert data.overview(data.NO_FILTERS)["n_games"] == n


def test_periods_are_utc_days_whatever_the_time_zone(
    point: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session in another time zone (the SQL explorer's sandbox locks the configuration,
    so the dashboards never SET one) selects the same games for a period, on both paths."""
    periods = [f for f in the_filters() if f.date_from or f.date_to]
    expected = {f: data.overview(f)["n_games"] for f in periods}
    assert len(set(expected.values())) > 2
    connect = reading.connect_waiting

    def in_los_angeles(wh: Warehouse, wait_s: float | None = None) -> Any:
        con = connect(wh, wait_s)
        con.execute("set TimeZone = 'America/Los_Angeles'")
        return con

    monkeypatch.setattr(reading, "connect_waiting", in_los_angeles)
    for f in periods:
        a, b = both(lambda f=f: data.overview(f)["n_games"], monkeypatch)
        assert a == b == expected[f], f
        a, b = both(lambda f=f: data.standings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
    a, b = both(data.filter_options, monkeypatch)
    assert a == b


def test_a_variant_is_its_own_games_on_every_path(
    point: Warehouse, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A variant of the ruleset filter (a preset with overrides, ``hk {"players": 2}``): the
    rollups and the per-ruleset marts are keyed by the preset, so the detailed queries answer
    it (they gave the preset's figures for a ruleset alone); the figures are the variant's
    games' own, on either setting of ``data.ROLLUPS``. The preset still answers from them."""
    con = point.connect()
    per = dict(con.execute(
        "select ruleset || ' ' || overrides, count(*) from games group by 1").fetchall())  # fmt: skip
    listed = rulesets.choices(data.filter_options().rulesets, rulesets.variants("big2"))
    variants = [v for v in listed if data.Filters(ruleset=v).variant]
    assert sorted(variants) == sorted(v for v in per if v.startswith("hk "))
    asked = asked_queries(monkeypatch)
    n_effects = 0
    for v in variants:
        f = data.Filters(ruleset=v)
        sql_filter = "where g.ruleset || ' ' || g.overrides = $v"
        seats = dict(con.execute("select s.player_id, count(*) filter (where g.outcome <> 'redeal') "
                                 f"from seats s join games g using (game_id) {sql_filter} group by 1",
                                 {"v": v}).fetchall())  # fmt: skip
        (n_obligations,) = con.execute(
            f"select count(*) from audit_obligations m join games g using (game_id) {sql_filter}",
            {"v": v}).fetchone() or (0,)  # fmt: skip
        asked.clear()
        a, b = both(lambda f=f: data.overview(f), monkeypatch)
        assert a == b and a["n_games"] == per[v], v
        a, b = both(lambda f=f: data.standings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=v)
        assert dict(zip(a["player"], a["games"], strict=True)) == seats, v
        a, b = both(lambda f=f: data.players(f), monkeypatch)
        assert a == b and set(a) == set(seats), v
        a, b = both(lambda f=f: data.audit_by_player(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=v)
        assert a["obligations"].sum() == n_obligations, v
        obligations = data.query("dash_obligations", f, player=None, next=None,
                                 only_failed=False, limit=10**6)  # fmt: skip
        assert len(obligations) == n_obligations, v
        everyone = {(r[0], r[1]): r[2] for r in con.execute(
            "select m.players, m.position, sum(m.n_games) from stats_player_games m "
            f"join games g using (game_id) {sql_filter} group by all", {"v": v}).fetchall()}  # fmt: skip
        for player in sorted(p for p, n in seats.items() if n)[:2]:
            a2, b2 = (
                x.sort_values("who").reset_index(drop=True)  # one row per side, in no order
                for x in both(lambda f=f, p=player: data.leak_counts(f, p), monkeypatch)
            )
            pd.testing.assert_frame_equal(a2, b2, check_dtype=False, obj=f"{v} {player}")
            mine = a2.set_index("who").loc["player"]
            assert mine["n_games"] == seats[player], (v, player)
            effects = data.query("dash_seat_effects", f, player_id=None, player=player)
            assert len(effects) > 0 and all(
                everyone[(r.players, r.position)] == r.everyone_games for r in effects.itertuples()
            ), (v, player)
            n_effects += len(effects)
        assert not [n for n in asked if n.endswith(("_rollup", "_ruleset", "_winners"))], asked
        assert "dash_audit_players" not in asked, asked
    con.close()
    assert n_effects >= len(variants)  # the players' seat effects were compared
    asked.clear()
    hk = data.Filters(ruleset="hk")  # the preset: every variant, from the rollups
    assert data.rollup(hk) and data.overview(hk)["n_games"] == sum(per[v] for v in variants)
    assert "dash_overview_rollup" in asked
