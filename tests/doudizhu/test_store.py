"""Dou Dizhu games in the warehouse (the contract /work/wt/_notes/ddz_tables.md, docs/warehouse.md):
real imports into temporary warehouses (Parquet files, DuckDB views), the stored facts checked
on known games (the documented example, the golden games, simulated games with a planted
feeder), mixed files, re-imports, partial information, batches written before the Dou Dizhu
columns, and `big2 verify`."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipeline.doudizhu.cards import format_cards, parse_cards
from pipeline.ingest import IngestSummary, ingest
from pipeline.sim.ddz_play import log_line, simulate
from pipeline.sim.sample import dumps, sample_game
from pipeline.warehouse import Warehouse
from pipeline.warehouse.store import MANIFEST, sha256_file
from tests.doudizhu.golden import GAMES
from tests.doudizhu.test_log import doc_example, golden_line

#: The columns the contract adds, per table (NULL on Big Two rows).
DDZ_COLUMNS = {
    "games": (
        "landlord", "bid", "bombs", "rockets", "spring", "landlord_won", "first_bidder",
        "kitty_mask", "kitty_text", "set_aside_mask", "set_aside_text", "face_up_card",
        "face_up_card_text",
    ),
    "seats": ("role", "max_bid"),
    "actions": (
        "phase", "bid", "units", "top_kind", "top_seat", "landlord", "multiplier", "ends_auction",
    ),
}  # fmt: skip
#: Big Two-only columns, NULL on Dou Dizhu rows.
BIG2_ONLY = {
    "games": ("claim", "bao_seat", "bao_unknown_seat"),
    "actions": (
        "highest_single", "highest_single_text", "next_on_one", "obligation", "block",
        "block_reason", "drawn", "drawn_text", "claim", "last_call",
    ),
}  # fmt: skip


def write_log(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), "utf-8")
    return path


def imported(tmp_path: Path, objs: list[dict[str, Any]], name: str = "log") -> Warehouse:
    wh = Warehouse(tmp_path / f"wh-{name}")
    summary = ingest([str(write_log(tmp_path / f"{name}.jsonl", objs))], wh)
    total = summary.total()
    assert (total.stored, total.rejected) == (len(objs), 0), summary.reasons
    return wh


def rows(wh: Warehouse, sql: str, *params: Any) -> list[dict[str, Any]]:
    with wh.connect() as con:
        cur = con.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def big2(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=300,
    )


# ----- the documented example ---------------------------------------------------------------
def test_the_documented_example_stores_the_contracts_facts(tmp_path: Path) -> None:
    """004's worked example: seat 0 bids 3, two bombs and the rocket; every contract column."""
    wh = imported(tmp_path, [doc_example()])
    (game,) = rows(wh, "select * from games")
    assert {k: game[k] for k in ("game_id", "game_kind", "ruleset", "players", "outcome")} == {
        "game_id": "ddz-004-worked",
        "game_kind": "doudizhu",
        "ruleset": "ddz",
        "players": 3,
        "outcome": "played_out",
    }
    assert (game["winner"], game["first_leader"], game["n_tricks"], game["n_actions"]) == (
        0,
        0,
        4,
        14,
    )
    assert (game["landlord"], game["bid"], game["bombs"], game["rockets"]) == (0, 3, 2, 1)
    assert (game["spring"], game["landlord_won"], game["first_bidder"]) == (None, True, 0)
    assert game["kitty_text"] == "Q♦ K♦ A♦" == format_cards(game["kitty_mask"])
    assert game["face_up_card"] == parse_cards("3♠")[0] and game["face_up_card_text"] == "3♠"
    assert (game["set_aside_mask"], game["set_aside_text"]) == (None, None)
    assert (game["claim"], game["bao_seat"], game["full_info"], game["info_level"]) == (
        None,
        None,
        True,
        "full",
    )

    seats = rows(wh, "select * from seats order by seat")
    assert [s["role"] for s in seats] == ["landlord", "farmer", "farmer"]
    assert [s["is_winner"] for s in seats] == [True, False, False]
    assert [s["max_bid"] for s in seats] == [3, None, None]  # seats 1 and 2 were never asked
    assert [s["cards_left"] for s in seats] == [0, 16, 17]
    assert [bin(s["deal_mask"]).count("1") for s in seats] == [17, 17, 17]  # without the kitty
    assert seats[0]["deal_text"].endswith("J♦ BJ RJ") and "Q♦" not in seats[0]["deal_text"]
    assert seats[0]["final_hand_mask"] == 0
    assert seats[1]["final_hand_text"] == "5♣ 5♥ 5♠ 6♣ 6♥ 6♠ 7♣ 7♥ 7♠ 8♣ 8♥ 8♠ 9♣ 9♥ 9♠ 10♣"

    acts = rows(wh, "select * from actions order by action_index")
    bid = acts[0]
    assert (bid["action_type"], bid["phase"], bid["bid"], bid["trick"]) == ("bid", "auction", 3, 0)
    assert (bid["ends_auction"], bid["landlord"], bid["multiplier"], bid["cards_text"]) == (
        True,
        0,
        1,
        "",
    )
    assert all(a["phase"] == "play" and a["bid"] is None for a in acts[1:])
    assert [a["multiplier"] for a in acts] == [1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 4, 4, 4, 8]
    assert [a["kind"] for a in acts if a["action_type"] == "play"] == [
        "straight", "bomb", "bomb", "single", "single", "rocket",
    ]  # fmt: skip
    straight = acts[1]
    assert (straight["units"], straight["rank_key"], straight["is_lead"]) == (9, 10, True)
    assert straight["cards_text"] == "5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ K♦"
    after_bomb = acts[5]
    assert (after_bomb["action_type"], after_bomb["top_kind"], after_bomb["top_seat"]) == (
        "pass",
        "bomb",
        0,
    )
    assert after_bomb["top_before_text"] == "3♦ 3♣ 3♥ 3♠"
    rocket = acts[13]
    assert (rocket["cards_text"], rocket["wins_game"], rocket["top_kind"]) == (
        "BJ RJ",
        True,
        "single",
    )
    assert rocket["cards_left"] == [0, 16, 17] and rocket["next_seat"] == 1
    assert acts[11]["hand_before_text"].endswith("10♣ 2♦")  # seat 1 beat the A♦ with its 2
    assert all(a[c] is None for a in acts for c in BIG2_ONLY["actions"])

    tricks = rows(wh, "select * from tricks order by trick")
    assert [(t["trick"], t["leader"], t["winner"], t["lead_kind"]) for t in tricks] == [
        (1, 0, 0, "straight"),
        (2, 0, 0, "bomb"),
        (3, 0, 0, "bomb"),
        (4, 0, 0, "single"),
    ]
    assert [t["ends_game"] for t in tricks] == [False, False, False, True]
    assert wh.verify(marts=False) == []


# ----- the golden games ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def golden_wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    objs = [golden_line(g, game_id=f"golden-{i}") for i, g in enumerate(GAMES)]
    return imported(tmp_path_factory.mktemp("golden"), objs)


#: The golden games' expected result keys and the games column of each.
GOLDEN_KEYS = {
    "landlord": "landlord",
    "base": "bid",
    "winner": "winner",
    "bombs": "bombs",
    "rockets": "rockets",
    "spring": "spring",
}


def test_golden_games_store_their_results(golden_wh: Warehouse) -> None:
    games = {g["game_id"]: g for g in rows(golden_wh, "select * from games")}
    assert len(games) == len(GAMES)
    for i, g in enumerate(GAMES):
        row, want = games[f"golden-{i}"], g.expect
        assert row["ruleset"] == g.preset and row["players"] == g.rs.players, g.name
        assert row["outcome"] == want.get("outcome", "played_out"), g.name
        for key, column in GOLDEN_KEYS.items():
            if key in want:
                value = want[key]
                assert row[column] == getattr(value, "value", value), (g.name, key)
        if g.rs.players == 2:
            assert row["set_aside_mask"] is not None, g.name
            assert row["set_aside_text"] == format_cards(row["set_aside_mask"]), g.name


def test_both_farmers_win_together(golden_wh: Warehouse) -> None:
    """is_winner is the winning side: both farmers when a farmer goes out first."""
    seats = rows(
        golden_wh,
        "select g.game_id, g.landlord, g.winner, s.seat, s.role, s.is_winner from games g "
        "join seats s using (game_id) where g.landlord_won = false order by 1, s.seat",
    )
    farmers_games = {s["game_id"] for s in seats}
    assert len(farmers_games) >= 3  # 反春, a bomb over four + two, the triple + pair war ...
    for s in seats:
        assert s["is_winner"] == (s["role"] == "farmer"), s
        assert s["role"] == ("landlord" if s["seat"] == s["landlord"] else "farmer")
    springs = rows(
        golden_wh,
        "select spring, bool_and(landlord_won) as won, count(*) as n from games "
        "where spring is not null group by 1 order by 1",
    )
    assert [(s["spring"], s["won"]) for s in springs] == [("anti_spring", False), ("spring", True)]


def test_void_deals_and_the_call_auction(golden_wh: Warehouse) -> None:
    void = rows(
        golden_wh,
        "select * from games where outcome = 'redeal' order by players desc",
    )
    assert len(void) == 2  # 3 players all pass; 2 players nobody calls
    for g in void:
        assert (g["landlord"], g["bid"], g["winner"], g["first_leader"]) == (None, 0, None, None)
        assert (g["landlord_won"], g["n_tricks"], g["bombs"], g["spring"]) == (None, 0, 0, None)
    ids = [g["game_id"] for g in void]
    seats = rows(golden_wh, "select * from seats where game_id in (?, ?)", *ids)
    assert all(s["role"] is None and s["is_winner"] is False for s in seats)
    assert all(s["max_bid"] == 0 for s in seats)  # everyone spoke, nobody bid
    tricks = rows(golden_wh, "select count(*) as n from tricks where game_id in (?, ?)", *ids)
    assert tricks == [{"n": 0}]
    # 叫地主: a call is a bid of 1, a no call of 0
    calls = rows(
        golden_wh,
        "select action_type, bid, count(*) as n from actions "
        "where action_type in ('call', 'no_call') group by all order by 1",
    )
    assert [(c["action_type"], c["bid"]) for c in calls] == [("call", 1), ("no_call", 0)]
    called = rows(
        golden_wh,
        "select g.bid, s.max_bid, s.role from games g join seats s using (game_id) "
        "where g.players = 2 and g.outcome = 'played_out'",
    )
    assert {c["bid"] for c in called} == {1}
    assert all(c["max_bid"] == 1 for c in called if c["role"] == "landlord")


# ----- simulated games ----------------------------------------------------------------------
def simulated(preset: str, bots: list[str], games: int, seed: int, prefix: str) -> list[Any]:
    out = []
    for i, deals in enumerate(
        simulate(preset, bots, games=games, seed=seed, feeder=1, feed_rate=1.0, rotate_seats=True)
    ):
        for d in deals:
            out.append((d, log_line(d, game_id=f"{prefix}{i}-{d['deal_number']}")))
    return out


def test_simulated_games_store_the_engines_facts(tmp_path: Path) -> None:
    """Simulated games of both presets (a planted feeding farmer): each games row says what
    the simulator's engine said; the actions rows add up to it."""
    sims = simulated("ddz", ["heuristic", "greedy", "random"], 30, 11, "s")
    sims += simulated("ddz-2p", ["heuristic", "greedy"], 10, 12, "t")
    wh = imported(tmp_path, [line for _, line in sims])
    games = {g["game_id"]: g for g in rows(wh, "select * from games")}
    for record, line in sims:
        got, want = games[line["game_id"]], record["result"]
        assert got["outcome"] == want["outcome"]
        assert got["landlord"] == want["landlord"]
        assert got["bid"] == want["base"]
        assert (got["bombs"], got["rockets"]) == (want["bombs"], want["rockets"])
        assert got["spring"] == want["spring"]
        assert got["landlord_won"] == want["landlord_won"]
        assert got["winner"] == want["winner"]
        assert got["n_actions"] == len(record["actions"])
    checks = rows(
        wh,
        """
        with plays as (
            select game_id,
                   count(*) filter (where kind = 'bomb') as n_bombs,
                   count(*) filter (where kind = 'rocket') as n_rockets,
                   max(multiplier) as last_multiplier,
                   max(trick) as rounds
            from actions group by game_id
        ), sides as (
            select game_id, count(*) filter (where is_winner) as n_winners,
                   count(*) filter (where role = 'landlord') as n_landlords
            from seats group by game_id
        )
        select g.game_id, g.players, g.outcome, g.landlord_won, g.bombs, g.rockets, g.n_tricks,
               p.n_bombs, p.n_rockets, p.last_multiplier, p.rounds, s.n_winners, s.n_landlords
        from games g join plays p using (game_id) join sides s using (game_id)
        """,
    )
    assert len(checks) == len(sims)
    for c in checks:
        assert (c["n_bombs"], c["n_rockets"]) == (c["bombs"], c["rockets"]), c
        assert c["last_multiplier"] == 2 ** (c["bombs"] + c["rockets"]), c
        assert c["n_tricks"] == c["rounds"], c
        if c["outcome"] == "redeal":
            assert (c["n_winners"], c["n_landlords"]) == (0, 0), c
        else:
            assert c["n_landlords"] == 1, c
            assert c["n_winners"] == (1 if c["landlord_won"] else c["players"] - 1), c
    # a bomb doubles the multiplier of the action before it
    doubled = rows(
        wh,
        "select multiplier, lag(multiplier) over (partition by game_id order by action_index) "
        "as before, kind from actions qualify kind in ('bomb', 'rocket')",
    )
    assert doubled and all(d["multiplier"] == 2 * d["before"] for d in doubled)
    # the auction: bid values 0-3 on bid actions, the landlord known from the action ending it
    auction = rows(
        wh,
        "select a.action_type, a.bid, a.landlord, a.ends_auction, g.landlord as game_landlord "
        "from actions a join games g using (game_id) where a.phase = 'auction'",
    )
    assert {a["bid"] for a in auction if a["action_type"] == "bid"} <= {0, 1, 2, 3}
    assert all(a["landlord"] == a["game_landlord"] for a in auction if a["ends_auction"])
    assert all(a["landlord"] is None for a in auction if not a["ends_auction"])
    assert wh.verify(marts=False) == []


# ----- mixed files, re-import, verify ---------------------------------------------------------
def test_a_mixed_file_imports_both_games_and_a_reimport_adds_nothing(tmp_path: Path) -> None:
    big_two = [sample_game(seed=s, game_id=f"b{s}") for s in range(1, 4)]
    ddz = [doc_example(), *(line for _, line in simulated("ddz", ["greedy"] * 3, 3, 5, "m"))]
    lines = []
    for i, d in enumerate(ddz):  # the two games interleaved
        lines.append(json.dumps(d, ensure_ascii=False))
        if i < len(big_two):
            lines.append(dumps(big_two[i]))
    log = tmp_path / "mixed.jsonl"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    wh_dir = tmp_path / "wh"
    first = big2("ingest", str(log), "-w", str(wh_dir), "--no-build", "--workers", "1")
    assert first.returncode == 0, first.stderr
    wh = Warehouse(wh_dir)
    kinds = rows(wh, "select game_kind, count(*) as n from games group by 1 order by 1")
    assert kinds == [{"game_kind": "big2", "n": 3}, {"game_kind": "doudizhu", "n": len(ddz)}]
    counts = {t: rows(wh, f"select count(*) as n from {t}") for t in ("seats", "actions", "tricks")}
    # Big Two rows keep their meaning: the Dou Dizhu columns are NULL there, and the reverse
    for table, columns in DDZ_COLUMNS.items():
        nulls = " and ".join(f"t.{c} is null" for c in columns)
        got = rows(
            wh,
            f"select bool_and({nulls}) as ok from {table} t join games g using (game_id) "
            "where g.game_kind = 'big2'",
        )
        assert got == [{"ok": True}], table
    for table, columns in BIG2_ONLY.items():
        nulls = " and ".join(f"t.{c} is null" for c in columns)
        got = rows(
            wh,
            f"select bool_and({nulls}) as ok from {table} t join games g using (game_id) "
            "where g.game_kind = 'doudizhu'",
        )
        assert got == [{"ok": True}], table
    again = big2("ingest", str(log), "-w", str(wh_dir), "--no-build", "--workers", "1")
    assert again.returncode == 0, again.stderr
    summary = wh.entries()[-1].counts
    assert summary.get("stored", 0) == 0 and summary.get("duplicates", 0) == 3 + len(ddz)
    for table, before in counts.items():
        assert rows(wh, f"select count(*) as n from {table}") == before, table
    # the stored data is sound; imported with --no-build, no marts are built (exit 1)
    verify = big2("verify", "-w", str(wh_dir))
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert verify.stdout.startswith("E_MARTS_STALE: no marts are built"), verify.stdout
    assert verify.stdout.count("\n") == 1, verify.stdout


def test_parallel_import_stores_the_same_rows(tmp_path: Path) -> None:
    """Workers build the rows (RowBuffer.take in another process): the same tables."""
    objs = [doc_example(), *(line for _, line in simulated("ddz-2p", ["random"] * 2, 4, 9, "p"))]
    log = write_log(tmp_path / "p.jsonl", [sample_game(seed=7, game_id="b7"), *objs])
    one, two = Warehouse(tmp_path / "one"), Warehouse(tmp_path / "two")
    ingest([str(log)], one, workers=1)
    summary: IngestSummary = ingest([str(log)], two, workers=2)
    assert summary.total().stored == len(objs) + 1
    sql = "select * exclude (batch_id) from games order by game_id"
    assert rows(one, sql) == rows(two, sql)
    sql = "select * from actions order by game_id, action_index"
    assert rows(one, sql) == rows(two, sql)


# ----- partial information ------------------------------------------------------------------
def test_a_game_without_its_deal_stores_null_hands(tmp_path: Path) -> None:
    obj = copy.deepcopy(doc_example())
    del obj["deal"]
    obj["game_id"] = "ddz-partial"
    wh = imported(tmp_path, [obj])
    (game,) = rows(wh, "select * from games")
    assert (game["full_info"], game["info_level"]) == (False, "partial")
    assert (game["kitty_mask"], game["kitty_text"], game["face_up_card"]) == (None, None, None)
    assert (game["landlord"], game["bid"], game["bombs"], game["rockets"]) == (0, 3, 2, 1)
    seats = rows(wh, "select * from seats order by seat")
    assert all(s["deal_mask"] is None and s["final_hand_mask"] is None for s in seats)
    assert all(s["deal_text"] is None and s["final_hand_text"] is None for s in seats)
    assert [s["cards_left"] for s in seats] == [0, 16, 17]  # known from the plays
    assert [s["is_winner"] for s in seats] == [True, False, False]
    acts = rows(wh, "select * from actions order by action_index")
    assert all(a["hand_before_mask"] is None and a["beating_play_existed"] is None for a in acts)
    assert all(a["unchecked"] == ["hand"] for a in acts)
    assert acts[-1]["multiplier"] == 8
    assert wh.verify(marts=False) == []


# ----- batches written before the Dou Dizhu columns -------------------------------------------
def _as_an_old_batch(wh: Warehouse) -> None:
    """Rewrite every committed file without the Dou Dizhu columns (as the import wrote them
    before), and the manifest's checksums and sizes with them."""
    entries = []
    for entry in wh.entries():
        files = []
        for f in entry.files:
            path = wh.root / f.path
            table = pq.read_table(path)
            drop = [c for c in DDZ_COLUMNS.get(f.table, ()) if c in table.column_names]
            pq.write_table(table.drop_columns(drop), path)
            files.append(
                dataclasses.replace(
                    f, sha256=sha256_file(path), bytes=path.stat().st_size, schema=""
                )
            )
        entries.append(dataclasses.replace(entry, files=tuple(files)))
    (wh.root / MANIFEST).write_text("".join(e.to_json() + "\n" for e in entries), "utf-8")
    (wh.root / "ledger.jsonl").unlink(missing_ok=True)


def test_batches_written_before_the_columns_still_read_and_verify(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    ingest([str(write_log(tmp_path / "old.jsonl", [sample_game(seed=3, game_id="old")]))], wh)
    _as_an_old_batch(wh)
    first = wh.entries()[0].files[0]
    assert "landlord" not in pq.read_schema(wh.root / first.path).names
    assert wh.verify(marts=False) == []
    ingest([str(write_log(tmp_path / "new.jsonl", [doc_example()]))], wh)
    assert wh.verify(marts=False) == []
    got = rows(wh, "select game_id, game_kind, landlord, bid from games order by game_id")
    assert got == [
        {"game_id": "ddz-004-worked", "game_kind": "doudizhu", "landlord": 0, "bid": 3},
        {"game_id": "old", "game_kind": "big2", "landlord": None, "bid": None},
    ]
    roles = rows(wh, "select game_id, count(role) as n from seats group by 1 order by 1")
    assert roles == [{"game_id": "ddz-004-worked", "n": 3}, {"game_id": "old", "n": 0}]


def test_action_times_and_think_seconds(tmp_path: Path) -> None:
    obj = copy.deepcopy(doc_example())
    for i, action in enumerate(obj["actions"]):
        action["ts"] = 1_700_000_000 + 1.5 * i
    wh = imported(tmp_path, [obj])
    acts = rows(wh, "select epoch_ms(ts) as ms, think_seconds from actions order by action_index")
    assert [a["ms"] for a in acts[:3]] == [1_700_000_000_000, 1_700_000_001_500, 1_700_000_003_000]
    assert [a["think_seconds"] for a in acts] == [None] + [1.5] * (len(acts) - 1)


def test_a_game_kind_without_a_row_filling_is_rejected_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """E_GAME_NOT_STORED stays for a game registered in pipeline.games before its storage
    (as Dou Dizhu was): here Dou Dizhu's row filling taken out of tables.ROWS."""
    from pipeline.warehouse import tables

    monkeypatch.delitem(tables.ROWS, "doudizhu")
    monkeypatch.delitem(tables._LOADED, "doudizhu", raising=False)
    wh = Warehouse(tmp_path / "wh")
    log = write_log(tmp_path / "l.jsonl", [sample_game(seed=2, game_id="b2"), doc_example()])
    summary = ingest([str(log)], wh)
    assert (summary.total().stored, summary.reasons) == (1, {"E_GAME_NOT_STORED": 1})
    (reject,) = rows(wh, "select game_id, code, message from rejects")
    assert reject == {
        "game_id": "ddz-004-worked",
        "code": "E_GAME_NOT_STORED",
        "message": "the warehouse does not store 'doudizhu' games "
        "(no row filling in pipeline.warehouse.tables.ROWS)",
    }
