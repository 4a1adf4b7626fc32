"""Dou Dizhu marts on real ingested warehouses: simulated games (3 players with a planted
feeding farmer, 2 players, rulesets with overrides), the golden games and Big Two games in one
mixed warehouse, ingested and built by ``big2 build``, then queried.

- the Big Two staging views and marts see only the Big Two games;
- ``ddz_game_scores`` equals the engine's scores for every game (004's example: 24 per farmer);
- standings, win rates, bidding, bombs, springs agree with the logs;
- the planted feeder ranks first in ``ddz_coop_players``, with evidence;
- ``big2 rescore --as ddz …`` rescores the Dou Dizhu games;
- every ``sql/tests/ddz_*`` query returns no rows.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline import sqlbuild
from pipeline.cli import app
from pipeline.doudizhu.rules import KEYS, DdzRuleset, load_ruleset
from pipeline.doudizhu.state import Spring, score
from pipeline.ingest import ingest
from pipeline.sim.ddz_play import log_line, play_game
from pipeline.warehouse import Warehouse
from tests.doudizhu.golden import GAMES
from tests.doudizhu.test_log import golden_line
from tests.marts_helpers import (
    assert_whatif_reads_only_scoring_keys,
    golden_game,
    rows,
    sql_test_failures,
)

#: The simulated runs: (prefix, ruleset, bots per seat, games, feeder seat, feed rate).
RUNS: list[tuple[str, DdzRuleset, tuple[str, ...], int, int | None, float]] = [
    # seat 1 (player a1) feeds the landlord 80 % of its chances; seat 2 plays greedy (it beats
    # whatever is on the table, its partner's play included)
    ("a", load_ruleset("ddz"), ("heuristic", "heuristic", "greedy"), 240, 1, 0.8),
    ("b", load_ruleset("ddz-2p"), ("heuristic", "random"), 40, None, 0.0),
    (
        "c",
        load_ruleset("ddz", {"spring_doubles": True, "multiplier_cap": 4, "stake": 2}),
        ("greedy", "heuristic", "random"),
        40,
        None,
        0.0,
    ),
]
FEEDER = "a1"
MATCH_SIZE = 10


def simulated_lines() -> list[dict[str, Any]]:
    """Every run's deals as log lines (matches of MATCH_SIZE games; a void deal is a game of
    its match), each with the engine's result and the simulator's truth."""
    out: list[dict[str, Any]] = []
    for prefix, rs, bots, games, feeder, rate in RUNS:
        ids = [f"{prefix}{s}" for s in range(rs.players)]
        number: Counter[str] = Counter()
        for index in range(games):
            for deal in play_game(rs, bots, seed=7, index=index, feeder=feeder, feed_rate=rate):
                match = f"{prefix}-m{index // MATCH_SIZE}"
                number[match] += 1
                line = log_line(
                    deal, game_id=f"{prefix}-{index}-{deal['deal_number']}", player_ids=ids
                )
                line.update(match_id=match, game_number=number[match])
                line["started_at"] = f"2026-11-0{1 + index % 9}T10:00:00+00:00"
                out.append(line)
    return out


@pytest.fixture(scope="module")
def logs() -> list[dict[str, Any]]:
    lines = simulated_lines()
    for i, g in enumerate(GAMES):  # the golden games, 004's worked example first
        line = golden_line(g, game_id=f"golden-ddz-{i}")
        line["seats"] = [{"seat": s["seat"], "player_id": f"g{s['seat']}"} for s in line["seats"]]
        lines.append(line)
    partial = dict(lines[0], game_id="partial-ddz")  # the same game without the deal
    del partial["deal"]
    lines.append(partial)
    return lines


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory, logs: list[dict[str, Any]]) -> Warehouse:
    root = tmp_path_factory.mktemp("ddzmarts")
    log = root / "mixed.jsonl"
    big2 = [golden_game("big2-1"), golden_game("big2-2", preset="mainland")]
    with log.open("w", encoding="utf-8") as fh:
        for obj in [*big2, *logs]:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
    warehouse = Warehouse(root / "wh")
    summary = ingest([str(log)], warehouse, workers=1)
    assert summary.total().rejected == 0, summary.reasons
    sqlbuild.build(warehouse)
    return warehouse


@pytest.fixture(scope="module")
def con(wh: Warehouse) -> duckdb.DuckDBPyConnection:
    return wh.connect()


def test_big_two_staging_and_marts_read_big_two_games_only(con: duckdb.DuckDBPyConnection) -> None:
    big2 = {"big2-1", "big2-2"}
    for view in (
        "stg_games",
        "stg_seats",
        "stg_actions",
        "stg_tricks",
        "mart_game_scores",
        "stats_player_games",
        "audit_obligations",
    ):
        (ids,) = con.execute(f"select list(distinct game_id) from {view}").fetchone() or ([],)
        assert set(ids) == big2, view
    (kinds,) = con.execute("select list(distinct game_kind) from games").fetchone() or ([],)
    assert set(kinds) == {"big2", "doudizhu"}  # a mixed warehouse indeed
    (n,) = con.execute(
        "select count(*) from stg_ddz_games where game_id like 'big2%'"
    ).fetchone() or (1,)
    assert n == 0


def test_every_sql_test_passes_on_a_mixed_warehouse(con: duckdb.DuckDBPyConnection) -> None:
    assert sql_test_failures(con, ("",)) == {}


def test_ddz_game_scores_equal_the_engines(
    con: duckdb.DuckDBPyConnection, logs: list[dict[str, Any]]
) -> None:
    got: dict[str, list[float]] = defaultdict(list)
    amounts = {}
    for r in rows(
        con,
        "select game_id, seat, score, amount, multiplier from ddz_game_scores order by game_id, seat",
    ):
        got[r["game_id"]].append(r["score"])
        amounts[r["game_id"]] = (r["amount"], r["multiplier"])
    assert set(got) == {line["game_id"] for line in logs}
    for line in logs:
        result = line["result"]
        assert got[line["game_id"]] == pytest.approx(result["scores"]), line["game_id"]
        assert amounts[line["game_id"]] == (result["amount"], result["multiplier"])
    # 004's worked example, end to end: bid 3, two bombs and a rocket → 24 per farmer, 48 in all
    example = rows(
        con, "select * from ddz_game_scores where game_id = 'golden-ddz-0' order by seat"
    )
    assert {(r["bid"], r["bombs"], r["rockets"]) for r in example} == {(3, 2, 1)}
    assert [r["score"] for r in example] == [48, -24, -24]
    # every parameter met the engine: 2 players, spring doubling, the cap, the stake, redeals
    seen = rows(
        con,
        """select count(distinct players) as n_players,
                               count(*) filter (where spring is not null and spring_doubles) as n_doubled,
                               count(*) filter (where multiplier < multiplier_raw) as n_capped,
                               count(*) filter (where not is_scored) as n_void
                        from ddz_game_scores""",
    )[0]
    assert seen["n_players"] == 2 and seen["n_capped"] > 0 and seen["n_void"] > 0
    assert seen["n_doubled"] > 0


def test_standings_add_up_the_engines_scores(
    con: duckdb.DuckDBPyConnection, logs: list[dict[str, Any]]
) -> None:
    totals: Counter[str] = Counter()
    per_match: Counter[tuple[str, str]] = Counter()
    for line in logs:
        for seat, s in zip(line["seats"], line["result"]["scores"], strict=True):
            totals[seat["player_id"]] += s
            per_match[(line.get("match_id") or line["game_id"], seat["player_id"])] += s
    players = {r["player_id"]: r for r in rows(con, "select * from ddz_player_standings")}
    assert {p: r["total_score"] for p, r in players.items()} == pytest.approx(dict(totals))
    best = max(totals, key=lambda p: totals[p])
    assert players[best]["overall_rank"] == 1
    final = rows(
        con,
        """select match_key, player_id, arg_max(running_score, game_number) as total
                         from ddz_match_standings group by all""",
    )
    assert {(r["match_key"], r["player_id"]): r["total"] for r in final} == pytest.approx(
        dict(per_match)
    )


def python_hand(mask: int) -> tuple[int, int, int, int]:
    """(bombs, rocket, 2s, jokers) of a card mask, the Python way."""
    by_rank = Counter(c // 4 for c in range(52) if mask >> c & 1)
    jokers = (mask >> 52 & 1) + (mask >> 53 & 1)
    return sum(1 for n in by_rank.values() if n == 4), int(jokers == 2), by_rank[12], jokers


def test_hands_bombs_and_springs_agree_with_the_logs(
    con: duckdb.DuckDBPyConnection, logs: list[dict[str, Any]]
) -> None:
    from pipeline.doudizhu.cards import mask_of, parse_cards

    seats = {(r["game_id"], r["seat"]): r for r in rows(con, "select * from stg_ddz_seats")}
    n_springs: Counter[str] = Counter()
    played = 0
    for line in logs:
        if line["result"]["outcome"] == "played_out":
            played += line["result"]["bombs"] + line["result"]["rockets"]
            n_springs[line["result"]["spring"] or "none"] += 1
        if "deal" not in line:
            assert seats[(line["game_id"], 0)]["hand_strength"] is None
            continue
        for s, hand in enumerate(line["deal"]["hands"]):
            b, rocket, twos, jokers = python_hand(mask_of(parse_cards(hand)))
            r = seats[(line["game_id"], s)]
            assert (
                r["n_bombs_dealt"],
                r["has_rocket_dealt"],
                r["n_twos_dealt"],
                r["n_jokers_dealt"],
            ) == (
                b,
                bool(rocket),
                twos,
                jokers,
            )
            assert r["hand_strength"] == b + rocket + twos + jokers
    bombs = rows(
        con, "select sum(n_bombs_played)::int as n, sum(n_bombs_held)::int as held from ddz_bombs"
    )[0]
    partial = rows(
        con, "select bombs + rockets as n from stg_ddz_games where game_id = 'partial-ddz'"
    )[0]
    assert bombs["n"] == played - partial["n"]  # ddz_bombs: full information only
    assert bombs["held"] >= bombs["n"]
    springs = rows(
        con,
        "select sum(n_springs)::int as s, sum(n_anti_springs)::int as a, sum(n_games)::int as n from ddz_springs",
    )[0]
    assert (springs["s"], springs["a"], springs["n"]) == (
        n_springs["spring"],
        n_springs["anti_spring"],
        sum(n_springs.values()),
    )


def test_win_rates_and_bidding_count_every_seat(con: duckdb.DuckDBPyConnection) -> None:
    by = {
        (r["role"], r["dimension"]): r
        for r in rows(
            con,
            """select role, dimension, sum(n_games)::int as n, sum(n_wins)::int as w
                               from ddz_win_rates group by all""",
        )
    }
    games = rows(
        con,
        """select count(*) filter (where is_landlord)::int as l,
                                count(*) filter (where not is_landlord)::int as f,
                                count(*) filter (where is_landlord and is_winner)::int as lw
                         from ddz_game_scores where is_scored""",
    )[0]
    assert by[("landlord", "bid")]["n"] == games["l"] and by[("farmer", "bid")]["n"] == games["f"]
    assert by[("landlord", "bid")]["w"] == games["lw"]
    # by hand strength: every full-information seat (the partial game's three seats left out)
    assert by[("landlord", "hand_strength")]["n"] == games["l"] - 1
    # bidding discipline: the hands bid more often, and higher, as they get stronger
    curve = rows(
        con,
        """select hand_strength, sum(n_bids) / sum(n_hands) as bid_rate
                         from ddz_bidding where ruleset = 'ddz' group by all
                         having sum(n_hands) >= 30 order by hand_strength""",
    )
    assert len(curve) >= 3
    assert curve[-1]["bid_rate"] > curve[0]["bid_rate"]


def test_the_planted_feeder_ranks_first(
    con: duckdb.DuckDBPyConnection, logs: list[dict[str, Any]]
) -> None:
    ranked = rows(con, "select * from ddz_coop_players order by feed_rank, player_id")
    top = ranked[0]
    assert top["player_id"] == FEEDER and top["feed_rank"] == 1
    assert top["feed_z"] > 3 > max(r["feed_z"] or 0 for r in ranked[1:])
    # its feeds are the simulator's (ground truth in the logs): same actions, same count
    truth = {
        (line["game_id"], o["action_index"] + 1)
        for line in logs
        if line["game_id"].startswith("a-")
        for o in line["truth"]["feed_opportunities"]
        if o["fed"]
    }
    found = rows(
        con,
        """select game_id, step from ddz_coop_actions
                         where player_id = $p and signal = 'feed' and is_event""",
        p=FEEDER,
    )
    assert {(r["game_id"], r["step"]) for r in found} >= truth
    assert top["n_feeds"] >= len(truth) > 10
    evidence = top["evidence"][0]
    assert (evidence["game_id"], evidence["step"]) in truth
    assert evidence["landlord_cards_left"] in (1, 2) and evidence["hand"] and evidence["table_play"]
    # the greedy farmer beats its partner's play: first on that signal
    partner = rows(con, "select player_id from ddz_coop_players where partner_beat_rank = 1")
    assert [r["player_id"] for r in partner] == ["a2"]


def test_strategy_stats_are_actions_over_opportunities(con: duckdb.DuckDBPyConnection) -> None:
    stats = {r["player_id"]: r for r in rows(con, "select * from ddz_stats_players")}
    a1 = stats[FEEDER]
    assert a1["feed_rate"] == a1["n_feeds"] / a1["n_feed_opportunities"]
    assert a1["feed_rate"] > 0.5 > stats["a0"]["feed_rate"]
    assert stats["a2"]["partner_beat_rate"] > stats["a0"]["partner_beat_rate"]
    assert 0 < a1["bomb_use_rate"] <= 1
    sums = rows(con, "select sum(n_games)::int as n from ddz_stats_players")[0]
    (scored,) = con.execute("select count(*) from ddz_game_scores where is_scored").fetchone() or (
        0,
    )
    assert sums["n"] == scored


def engine_totals(logs: list[dict[str, Any]], money: dict[str, Any]) -> Counter[str]:
    """Every player's total if each game had been scored under the money parameters ``money``
    (the engine's score; the game's own number of players)."""
    out: Counter[str] = Counter()
    for line in logs:
        r = line["result"]
        if r["outcome"] != "played_out":
            continue
        what = load_ruleset("ddz" if len(line["seats"]) == 3 else "ddz-2p", money)
        _, _, scores = score(
            what,
            landlord=r["landlord"],
            base=r["base"],
            landlord_won=r["landlord_won"],
            bombs=r["bombs"],
            rockets=r["rockets"],
            spring=None if r["spring"] is None else Spring(r["spring"]),
        )
        for seat, s in zip(line["seats"], scores, strict=True):
            out[seat["player_id"]] += s
    return out


@pytest.mark.parametrize("preset", ["ddz", "ddz-2p"])
def test_the_whatif_reads_no_ruleset_key_but_the_scoring_ones(
    con: duckdb.DuckDBPyConnection, preset: str
) -> None:
    # `big2 rescore --as ddz` refuses an override of any other key (E_RESCORE_KEY): the what-if
    # JSON without those keys gives every player's and match's what-if as the whole JSON does
    whole = json.loads(sqlbuild.ruleset_json(preset, {"multiplier_cap": 4, "stake": 3}))
    macros = ("ddz_rescore_players", "ddz_rescore_matches")
    left = assert_whatif_reads_only_scoring_keys(
        con, "doudizhu", whole, KEYS, macros, "ddz_ruleset_fields"
    )
    assert {"players", "bidding", "hand_size", "four_with_two"} <= left


def test_big2_rescore_rescores_the_dou_dizhu_games(
    wh: Warehouse, logs: list[dict[str, Any]]
) -> None:
    runner = CliRunner()
    args = [
        "rescore",
        "--as",
        "ddz",
        "--set",
        "multiplier_cap=2",
        "--set",
        "spring_doubles=true",
        "--format",
        "json",
        "--limit",
        "100",
        "--warehouse",
        str(wh.root),
    ]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    got = {r["player_id"]: r for r in json.loads(done.output)}
    want = engine_totals(logs, {"multiplier_cap": 2, "spring_doubles": True})
    assert {p: r["whatif_score"] for p, r in got.items()} == pytest.approx(dict(want))
    assert FEEDER in got and "b1" in got  # 3- and 2-player games
    # under the games' own rules, the what-if gives the own totals back
    own = runner.invoke(
        app,
        [
            "rescore",
            "--as",
            "ddz",
            "--format",
            "json",
            "--limit",
            "100",
            "--by",
            "match",
            "--warehouse",
            str(wh.root),
        ],
    )
    assert own.exit_code == 0, own.output
    for r in json.loads(own.output):
        if r["match_key"].startswith(("a-", "b-")):  # the runs scored by the plain presets
            assert r["whatif_score"] == pytest.approx(r["own_score"]), r


def test_every_ddz_mart_is_documented() -> None:
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "stats.md").read_text() + (root / "docs" / "scoring.md").read_text()
    marts = sorted(p.stem for p in (root / "sql" / "marts").glob("ddz_*.sql"))
    assert len(marts) >= 10
    missing = [m for m in marts if f"`{m}`" not in docs]
    assert not missing, missing


#: The columns issue 14 added to the warehouse tables (NULL on Big Two rows).
DDZ_COLUMNS = {
    "games": [
        "landlord", "bid", "bombs", "rockets", "spring", "landlord_won", "first_bidder",
        "kitty_mask", "kitty_text", "set_aside_mask", "set_aside_text", "face_up_card",
        "face_up_card_text",
    ],
    "seats": ["role", "max_bid"],
    "actions": ["phase", "bid", "units", "top_kind", "top_seat", "landlord", "multiplier",
                "ends_auction"],
}  # fmt: skip


def as_written_before_dou_dizhu(wh: Warehouse) -> None:
    """Rewrite every file without the Dou Dizhu columns and restate the manifest (sha256,
    bytes), as a Big Two warehouse committed before issue 14."""
    import hashlib

    import pyarrow.parquet as pq

    for table, columns in DDZ_COLUMNS.items():
        for path in wh.files(table):
            pq.write_table(pq.read_table(path).drop_columns(columns), path)
    lines = []
    for line in wh.manifest_path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        for f in entry["files"]:
            data = (wh.root / f["path"]).read_bytes()
            f["sha256"], f["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
            f.pop("schema", None)  # committed before the schema tags, as before issue 14
        lines.append(json.dumps(entry) + "\n")
    wh.manifest_path.write_text("".join(lines), encoding="utf-8")


def test_a_warehouse_written_before_dou_dizhu_builds(tmp_path: Path) -> None:
    from tests.marts_helpers import warehouse_of

    def scores(w: Warehouse) -> list[tuple[Any, ...]]:
        sqlbuild.build(w)
        c = w.connect()
        try:
            return c.execute("select * from mart_game_scores order by game_id, seat").fetchall()
        finally:
            c.close()

    new = scores(warehouse_of(tmp_path / "new", [golden_game("g-1")]))
    old = warehouse_of(tmp_path / "old", [golden_game("g-1")])
    as_written_before_dou_dizhu(old)
    assert old.verify(marts=False) == []  # the stored data, before its build
    assert scores(old) == new
    c = old.connect()
    try:
        for mart in (
            "stg_ddz_games",
            "stg_ddz_seats",
            "stg_ddz_actions",
            "ddz_game_scores",
            "ddz_coop_players",
            "ddz_stats_players",
        ):
            assert c.execute(f"select count(*) from {mart}").fetchone() == (0,), mart
        assert sqlbuild.run_tests(c) == dict.fromkeys(sqlbuild.sql_files("tests"), 0)
    finally:
        c.close()


def test_the_catalogue_describes_the_dou_dizhu_views_and_marts(
    con: duckdb.DuckDBPyConnection,
) -> None:
    described = {(t, c.split(" ")[0]): d for t, _, c, d in sqlbuild.catalogue(con)}
    for table in (
        "stg_ddz_games",
        "stg_ddz_seats",
        "stg_ddz_actions",
        "ddz_game_scores",
        "ddz_coop_players",
        "ddz_stats_players",
        "ddz_win_rates",
    ):
        assert "Grain: one row per" in described[(table, "*")], table
    assert described[("stg_ddz_games", "landlord")].startswith("Dou Dizhu: the landlord")
    assert described[("stg_ddz_seats", "role")].startswith("Dou Dizhu")
    assert described[("stg_ddz_seats", "hand_strength")].startswith("hand strength at bidding")
    assert described[("stg_ddz_actions", "step")].startswith("action_index + 1")
    assert described[("ddz_coop_players", "feed_z")].startswith("two-proportion z")
