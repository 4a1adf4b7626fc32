"""Dou Dizhu scoring in SQL (spec 2.5): the ``ddz_score`` macro against 004's worked example,
every parameter, and the engine's own :func:`pipeline.doudizhu.state.score` on random facts;
the ``ddz_rulesets`` table / ``stg_ddz_rulesets`` view against :class:`DdzRuleset`."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import sqlbuild
from pipeline.doudizhu.rules import load_ruleset, preset_names
from pipeline.doudizhu.state import Spring, score
from tests.marts_helpers import golden_game, marts, rows, warehouse_of


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    """An in-memory connection with the scalar macros (no warehouse needed)."""
    c = duckdb.connect()
    macros = sqlbuild.sql_files("macros")
    for name in sqlbuild.SCALAR_MACROS:
        c.execute(macros[name])
    return c


def sql_score(
    con: duckdb.DuckDBPyConnection,
    *,
    preset: str = "ddz",
    overrides: dict[str, Any] | None = None,
    bid: int,
    bombs: int,
    rockets: int,
    landlord_won: bool | None,
    spring: str | None = None,
) -> dict[str, Any]:
    """ddz_score over the facts and a ruleset typed from its JSON (as the marts and the what-if
    read it)."""
    (result,) = con.execute(
        """
        with r as (select unnest(ddz_ruleset_fields($params::json)))
        select ddz_score($bid, $bombs, $rockets, $spring, $won, r.players, r.stake,
                         r.spring_doubles, r.multiplier_cap)
        from r
        """,
        {
            "params": sqlbuild.ruleset_json(preset, overrides),
            "bid": bid,
            "bombs": bombs,
            "rockets": rockets,
            "spring": spring,
            "won": landlord_won,
        },
    ).fetchone() or (None,)
    assert isinstance(result, dict)
    return result


def seat_scores(s: dict[str, Any], landlord: int, players: int) -> list[float]:
    return [
        s["landlord_score"] if seat == landlord else s["farmer_score"] for seat in range(players)
    ]


def test_004_worked_example(con: duckdb.DuckDBPyConnection) -> None:
    # bid 3, two bombs and a rocket → 3 × 2³ = 24 per farmer, 48 in all (spec 2.5, 004)
    s = sql_score(con, bid=3, bombs=2, rockets=1, landlord_won=True)
    assert (s["multiplier"], s["amount"], s["landlord_score"], s["farmer_score"]) == (
        8,
        24,
        48,
        -24,
    )
    lost = sql_score(con, bid=3, bombs=2, rockets=1, landlord_won=False)
    assert (lost["amount"], lost["landlord_score"], lost["farmer_score"]) == (24, -48, 24)


@pytest.mark.parametrize(
    ("preset", "overrides", "facts", "expected"),
    [
        # multiplier_cap (封顶): 2^3 = 8 paid as 4
        ("ddz", {"multiplier_cap": 4}, (3, 2, 1, True, None), (8, 4, 12, 24, -12)),
        ("ddz", {"multiplier_cap": 16}, (3, 2, 1, True, None), (8, 8, 24, 48, -24)),
        # spring_doubles off: a spring pays nothing more; on: ×2 (春天, 反春)
        ("ddz", {}, (2, 0, 0, True, "spring"), (1, 1, 2, 4, -2)),
        ("ddz", {"spring_doubles": True}, (2, 0, 0, True, "spring"), (2, 2, 4, 8, -4)),
        ("ddz", {"spring_doubles": True}, (1, 1, 0, False, "anti_spring"), (4, 4, 4, -8, 4)),
        # the cap applies after the spring doubling
        (
            "ddz",
            {"spring_doubles": True, "multiplier_cap": 2},
            (1, 1, 0, True, "spring"),
            (4, 2, 2, 4, -2),
        ),
        # stake (底注)
        ("ddz", {"stake": 5}, (3, 1, 0, False, None), (2, 2, 30, -60, 30)),
        # 2 players (叫地主, base 1): the landlord wins or pays one farmer's amount
        ("ddz-2p", {}, (1, 1, 1, True, None), (4, 4, 4, 4, -4)),
        ("ddz-2p", {"spring_doubles": True}, (1, 0, 0, False, "anti_spring"), (2, 2, 2, -2, 2)),
    ],
)
def test_every_parameter(
    con: duckdb.DuckDBPyConnection,
    preset: str,
    overrides: dict[str, Any],
    facts: tuple[int, int, int, bool, str | None],
    expected: tuple[int, int, float, float, float],
) -> None:
    bid, bombs, rockets, won, spring = facts
    s = sql_score(
        con,
        preset=preset,
        overrides=overrides,
        bid=bid,
        bombs=bombs,
        rockets=rockets,
        landlord_won=won,
        spring=spring,
    )
    got = (
        s["multiplier_raw"],
        s["multiplier"],
        s["amount"],
        s["landlord_score"],
        s["farmer_score"],
    )
    assert got == expected
    players = load_ruleset(preset, overrides).players
    assert s["landlord_score"] + (players - 1) * s["farmer_score"] == 0


def test_a_void_deal_scores_nothing(con: duckdb.DuckDBPyConnection) -> None:
    s = sql_score(con, bid=0, bombs=0, rockets=0, landlord_won=None)
    assert (s["multiplier"], s["amount"], s["landlord_score"], s["farmer_score"]) == (1, 0, 0, 0)


@settings(max_examples=300, deadline=None)
@given(
    preset=st.sampled_from(preset_names()),
    spring_doubles=st.booleans(),
    cap=st.none() | st.integers(1, 64),
    stake=st.sampled_from([1, 2, 0.5, 10]),
    bid=st.integers(1, 3),
    bombs=st.integers(0, 7),
    rockets=st.integers(0, 1),
    won=st.booleans(),
    spring=st.sampled_from([None, Spring.SPRING, Spring.ANTI_SPRING]),
    data=st.data(),
)
def test_the_macro_scores_as_the_engine(
    con: duckdb.DuckDBPyConnection,
    preset: str,
    spring_doubles: bool,
    cap: int | None,
    stake: float,
    bid: int,
    bombs: int,
    rockets: int,
    won: bool,
    spring: Spring | None,
    data: st.DataObject,
) -> None:
    overrides: dict[str, Any] = {"spring_doubles": spring_doubles, "stake": stake}
    overrides["multiplier_cap"] = "none" if cap is None else cap
    rs = load_ruleset(preset, overrides)
    landlord = data.draw(st.integers(0, rs.players - 1))
    mult, amount, scores = score(
        rs,
        landlord=landlord,
        base=bid,
        landlord_won=won,
        bombs=bombs,
        rockets=rockets,
        spring=spring,
    )
    s = sql_score(
        con,
        preset=preset,
        overrides=overrides,
        bid=bid,
        bombs=bombs,
        rockets=rockets,
        landlord_won=won,
        spring=None if spring is None else spring.value,
    )
    assert (s["multiplier"], s["amount"]) == (mult, amount)
    assert seat_scores(s, landlord, rs.players) == list(scores)
    assert sum(seat_scores(s, landlord, rs.players)) == 0


def test_stg_ddz_rulesets_holds_every_parameter(tmp_path: Any) -> None:
    wh = warehouse_of(tmp_path, [golden_game()])
    found = {r["ruleset_id"]: r for r in rows(marts(wh), "select * from stg_ddz_rulesets")}
    assert set(found) == {f"{p} {{}}" for p in preset_names()}
    for preset in preset_names():
        rs, row = load_ruleset(preset), found[f"{preset} {{}}"]
        assert row["preset"] == preset and json.loads(row["params"])["name"] == preset
        for key in (
            "players",
            "bid_reentry",
            "hand_size",
            "four_with_two",
            "spring_doubles",
            "multiplier_cap",
            "stake",
            "kitty_size",
            "set_aside_size",
        ):
            assert row[key] == getattr(rs, key), (preset, key)
        assert row["bidding"] == rs.bidding.value
    # the Big Two rulesets table holds Big Two presets only
    big2 = {r["preset"] for r in rows(marts(wh), "select preset from stg_rulesets")}
    assert not big2 & set(preset_names())
