"""The Dou Dizhu dashboards under Streamlit's AppTest, on a real mixed warehouse: Dou Dizhu
games simulated by ``big2 simulate --ruleset ddz`` (a farmer planted at seat 2 who feeds the
landlord, as the demo) and ``ddz-2p``, Big Two games by ``big2 simulate``, and the sample logs
(their rejects), ingested and built as ``big2 ingest`` does.

- the game selector lists each game's pages and keeps ``?game=ddz`` in the URL; the Big Two
  pages count Big Two games only;
- the leaderboard, player and cooperation pages show the marts' values (the planted feeder
  ranks first, its feeds as evidence with the replayer's steps);
- the replayer draws the auction, the kitty, the roles and the jokers, and its last step
  shows the engine's scores (the log's declared result) and who paid whom.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dashboards import data, ddz_data, rulesets
from dashboards.frames import Filters
from pipeline.ingest import ingest
from pipeline.sqlbuild import build
from pipeline.warehouse import Warehouse
from tests.test_dashboard import (
    APP,
    SAMPLE_FILES,
    SAMPLES,
    Use,
    frame_with,
    frames,
    headers,
    metric,
    shown_first,
    texts,
    unformatted_shares,
)
from tests.test_dashboard import use as use  # the fixture pointing the app at a warehouse
from tests.test_dashboard_rollups import asked_queries, both, the_filters
from tests.test_sql_scoring import scored_alone_and_of_all

DDZ_PAGES = ["views/ddz_leaderboard.py", "views/ddz_player.py", "views/ddz_replayer.py",
             "views/ddz_coop.py"]  # fmt: skip
BIG2 = str(Path(sys.executable).with_name("big2"))
FEEDER = "sim-ddz-5-p2-random"  # `big2 simulate -r ddz --feeder 2 --seed 5`: seat 2's player


def simulate(out: Path, seed: int, *args: str) -> None:
    cmd = [BIG2, "simulate", "--seed", str(seed), "--workers", "1", "--out", str(out), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ddzdash-logs")
    paths = {"ddz": root / "ddz.jsonl", "ddz2": root / "ddz2.jsonl", "big2": root / "big2.jsonl"}
    simulate(paths["ddz"], 5, "--ruleset", "ddz", "--games", "60", "--feeder", "2")
    simulate(paths["ddz2"], 6, "--ruleset", "ddz-2p", "--games", "10")
    simulate(paths["big2"], 7, "--games", "20")
    return paths


@pytest.fixture(scope="module")
def mixed_wh(tmp_path_factory: pytest.TempPathFactory, logs: dict[str, Path]) -> Warehouse:
    root = tmp_path_factory.mktemp("ddzdash")
    wh = Warehouse(root / "warehouse")
    # three games that name no match (each a match of its own), besides the simulated matches
    solo = root / "solo.jsonl"
    solo.write_text(
        "".join(
            json.dumps(g | {"game_id": f"solo-{g['game_id']}", "match_id": None}) + "\n"
            for g in lines(logs["ddz2"])[:3]
        ),
        encoding="utf-8",
    )
    # one game under a cap of ×1 (封顶) with players of its own: it pays less than its bombs say
    capped = root / "capped.jsonl"
    game = next(g for g in lines(logs["ddz"]) if g["result"]["outcome"] == "played_out"
                and g["result"]["bombs"] + g["result"]["rockets"] >= 2)  # fmt: skip
    # and one game without its deal (partial information: no hand strength), players of its own
    seats = [s | {"player_id": PARTIAL + s["player_id"]} for s in game["seats"]]
    partial = {k: v for k, v in capped_game(game).items() if k != "deal"} | {
        "game_id": PARTIAL + game["game_id"], "match_id": PARTIAL + "m", "seats": seats,
        "ruleset": {"preset": "ddz"}}  # fmt: skip
    # and one void deal (荒牌) with players of its own: their only deal, which counts for bidding
    void = next(g for g in lines(logs["ddz2"]) if g["result"]["outcome"] == "redeal")
    void |= {"game_id": VOID + void["game_id"], "match_id": VOID + "m",
             "seats": [s | {"player_id": VOID + s["player_id"]} for s in void["seats"]]}  # fmt: skip
    capped.write_text("".join(json.dumps(g) + "\n" for g in (capped_game(game), partial, void)),
                      encoding="utf-8")  # fmt: skip
    paths = [*map(str, logs.values()), str(solo), str(capped),
             *(str(SAMPLES / n) for n in SAMPLE_FILES)]  # fmt: skip
    ingest(paths, wh)
    build(wh)
    return wh


CAPPED = "capped-"  # the id prefix of the capped game and its players
PARTIAL = "partial-"  # and of the game without its deal
VOID = "void-"  # and of the void deal whose players have no other deal


def capped_game(game: dict) -> dict:
    """``game`` under ``multiplier_cap = 1``, its id and players prefixed (:data:`CAPPED`), its
    declared result without the amounts (the replay scores it)."""
    seats = [s | {"player_id": CAPPED + s["player_id"]} for s in game["seats"]]
    result = {k: v for k, v in game["result"].items()
              if k not in ("multiplier", "amount", "scores")}  # fmt: skip
    return game | {"game_id": CAPPED + game["game_id"], "match_id": CAPPED + "m", "seats": seats,
                   "ruleset": {"preset": "ddz", "overrides": {"multiplier_cap": 1}},
                   "result": result}  # fmt: skip


def lines(path: Path) -> list[dict]:
    return [json.loads(s) for s in path.read_text(encoding="utf-8").splitlines()]


def ddz_app(page: str | None = None, **query: str) -> AppTest:
    """The app with Dou Dizhu chosen (``?game=ddz``), on ``page``."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.query_params["game"] = "ddz"
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None and page != "views/ddz_leaderboard.py":
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def one(wh: Warehouse, sql: str) -> tuple:
    row = wh.connect().execute(sql).fetchone()
    assert row is not None, sql
    return tuple(row)


@pytest.mark.parametrize("page", DDZ_PAGES)
def test_every_ddz_page_runs_with_the_filters(page: str, mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    at = ddz_app(page)
    assert at.sidebar.radio(key="f_game").value == "ddz"
    assert "f_ruleset" in {w.key for w in at.sidebar.selectbox}
    assert "Import some games" not in texts(at)
    for table in headers(at):  # readable headers, one step numbering, scores in money
        assert "action_index" not in table, page
        for column, config in table.items():
            shown = str(config["label"])
            assert "_" not in shown, (page, column, shown)
            if column == "score":
                assert shown == "score (money)", (page, shown)
            if column == "started_at":
                assert shown == "started (UTC)", (page, shown)


def test_selector_switches_the_pages_and_big_two_counts_big_two(
    mixed_wh: Warehouse, use: Use
) -> None:
    use(mixed_wh.root)
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    assert at.sidebar.radio(key="f_game").value == "big2"
    assert "game" not in at.query_params
    n_big2, n_ddz = one(mixed_wh, "select count(*) filter (where game_kind = 'big2'), "
                        "count(*) filter (where game_kind = 'doudizhu') from games")  # fmt: skip
    assert n_big2 > 0 and n_ddz > 0
    assert metric(at, "Games") == f"{n_big2:,}"  # the Big Two overview counts Big Two games
    at.sidebar.radio(key="f_game").set_value("ddz").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["game"] in ("ddz", ["ddz"])
    assert "Dou Dizhu leaderboard" in texts(at)
    assert metric(at, "Dou Dizhu games") == f"{n_ddz:,}"
    ruleset = at.sidebar.selectbox(key="f_ruleset")  # the Dou Dizhu games' rulesets, from (all)
    assert ruleset.value is None and {"ddz", "ddz-2p"} <= set(ruleset.options)
    assert "hk" not in ruleset.options
    ruleset.select("ddz-2p").run()
    (n_2p,) = one(mixed_wh, "select count(*) from games where ruleset = 'ddz-2p'")
    assert metric(at, "Dou Dizhu games") == f"{n_2p:,}" and 0 < n_2p < n_ddz
    at.sidebar.radio(key="f_game").set_value("big2").run()
    assert "game" not in at.query_params and metric(at, "Games") == f"{n_big2:,}"
    at.switch_page("views/leaderboard.py").run()  # from a Big Two page other than the first
    at.sidebar.radio(key="f_game").set_value("ddz").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Dou Dizhu leaderboard" in texts(at)


def test_leaderboard_is_the_marts(mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    at = ddz_app()
    board = frame_with(at, "player_id", "landlord_win_pct")
    con = mixed_wh.connect()
    want = con.execute(
        "select player_id, n_games, n_wins, n_landlord, n_landlord_wins, total_score "
        "from ddz_player_standings order by overall_rank, player_id"
    ).df()
    got = board[["player_id", "games", "wins", "landlord_games", "landlord_wins", "score"]]
    assert got.to_numpy().tolist() == want.to_numpy().tolist()
    assert set(board["player_id"]) == set(want["player_id"])  # no Big Two player here
    big2_players = {r[0] for r in con.execute(
        "select distinct player_id from stg_seats").fetchall()}  # fmt: skip
    assert not big2_players & set(board["player_id"])
    rates = frame_with(at, "role", "bid", "win_pct")
    ll = rates[rates["role"].str.startswith("地主")]
    (n_ll_bid3,) = one(mixed_wh, "select count(*) from ddz_stats_player_games "
                       "where is_landlord and bid = 3")  # fmt: skip
    assert int(ll.loc[ll["bid"] == 3, "games"].iloc[0]) == n_ll_bid3
    for chart in at.get("plotly_chart"):  # each bar's bid or strength has its tick
        assert json.loads(chart.proto.spec)["layout"]["xaxis"]["dtick"] == 1


def test_leaderboard_counts_are_whole_numbers(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the headline counts read as counts from either path ("91", never "91.0": a sum of
    # games added to a count of matches came back a HUGEINT, a float in pandas)
    use(mixed_wh.root)
    (n_matches,) = one(mixed_wh, "select count(distinct coalesce(match_id, game_id)) from games "
                       "where game_kind = 'doudizhu'")  # fmt: skip
    for rollups in (True, False):
        monkeypatch.setattr(data, "ROLLUPS", rollups)
        st.cache_data.clear()
        at = ddz_app()
        assert metric(at, "Matches") == f"{n_matches:,}", rollups
        assert metric(at, "Dou Dizhu games").replace(",", "").isdigit()


@pytest.mark.parametrize("page", DDZ_PAGES)
def test_ddz_shares_have_a_number_format(page: str, mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    assert unformatted_shares(ddz_app(page)) == [], page


def test_key_columns_come_first(mixed_wh: Warehouse, use: Use) -> None:
    # as on the Big Two pages: the score and title of the standings (and the what-if's ranks)
    # and a game's role, result and score are in the table's viewport at 1400 px
    use(mixed_wh.root)
    at = ddz_app()
    shown_first(at, "rank", "player_id", "score", "title", "games", "wins", "win_pct")
    at.selectbox(key="ddz_lb_preset").select("ddz").run()
    shown_first(at, "rank", "whatif_rank", "rank_change", "player_id", "score", "whatif_score",
                "title", "whatif_title")  # fmt: skip
    at = ddz_app()  # the roles' records, a table each (with the 13 columns "landlord wins" was cut)
    for role in ("landlord", "farmer"):
        shown_first(at, "rank", "player_id", f"{role}_games", f"{role}_wins", f"{role}_win_pct")
    at = ddz_app("views/ddz_player.py")  # the games' results, then the same games' auctions
    shown_first(at, "replay", "game_id", "role", "is_winner", "score")
    shown_first(at, "replay", "game_id", "seat", "max_bid", "hand_strength")
    at = ddz_app("views/ddz_coop.py")  # the partner beats were past the 11th column
    shown_first(at, "feed_rank", "player_id", "ruleset", "feed_z", "feed_rate", "baseline_rate",
                "n_feeds")  # fmt: skip
    shown_first(at, "partner_beat_rank", "player_id", "ruleset", "partner_beat_rate",
                "n_partner_beats", "n_partner_follows")  # fmt: skip


def test_leaderboard_whatif_rescores_as_a_preset_and_cap(mixed_wh: Warehouse, use: Use) -> None:
    # the what-if standings are ddz_rescore_players' (every game rescored), the rank change the
    # own rank less the what-if one; a lower cap changes some score; the cap needs a preset
    use(mixed_wh.root)
    at = ddz_app()
    assert at.selectbox(key="ddz_lb_cap").disabled
    assert {"ddz (what-if)", "ddz-2p (what-if)"} <= set(at.selectbox(key="ddz_lb_preset").options)
    at.selectbox(key="ddz_lb_preset").select("ddz").run()
    at.selectbox(key="ddz_lb_cap").select(1).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "rescored as **ddz**, cap **1**" in texts(at)
    board = frame_with(at, "player_id", "whatif_score", "whatif_rank", "rank_change")
    con = mixed_wh.connect()
    con.execute("set variable w = ?", [ddz_data.whatif_json("ddz", 1)])
    want = con.execute(
        "select player_id, own_score, own_rank, whatif_score, whatif_rank, whatif_title "
        "from ddz_rescore_players(getvariable('w')) order by player_id"
    ).df()
    con.close()
    got = board.sort_values("player_id").reset_index(drop=True)
    assert got["player_id"].tolist() == want["player_id"].tolist() and len(got) > 0
    assert got["score"].tolist() == want["own_score"].tolist()
    assert got["whatif_score"].tolist() == want["whatif_score"].tolist()
    assert got["whatif_rank"].tolist() == want["whatif_rank"].tolist()
    assert (got["rank_change"] == got["rank"] - got["whatif_rank"]).all()
    assert (got["score"] != got["whatif_score"]).any()  # a bomb or rocket paid more than ×1
    at.selectbox(key="ddz_lb_preset").select(None).run()
    assert at.selectbox(key="ddz_lb_cap").disabled
    assert "whatif_score" not in frame_with(at, "player_id", "landlord_win_pct").columns


def test_whatif_of_some_games_scores_them_as_scoring_all_does(mixed_wh: Warehouse) -> None:
    # ddz_score_seats(games := …), the filtered what-if leaderboard's: each game of the subset
    # gets the very rows that scoring every game gives it, under its own rules and a what-if
    con = mixed_wh.connect()
    for w in (None, ddz_data.whatif_json("ddz", 1)):
        query = scored_alone_and_of_all(
            "ddz_score_seats", "select * from stg_ddz_games where hash(game_id) % 3 = 0"
        )
        only_alone, only_of_all, n_chosen, _, n_all = con.execute(query, {"w": w}).fetchone() or (
            1,
            1,
            0,
            0,
            0,
        )
        assert (only_alone, only_of_all) == (0, 0), w
        assert 0 < n_chosen < n_all
    con.close()


def test_player_page_games_roles_bids(mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    at = ddz_app("views/ddz_player.py")
    at.selectbox(key="ddz_pl_player").select(FEEDER).run()
    assert not at.exception
    n, n_ll, feed = one(mixed_wh, "select n_games, n_landlord, feed_rate from ddz_stats_players "
                        f"where player_id = '{FEEDER}' and ruleset = 'ddz'")  # fmt: skip
    assert metric(at, "Games") == f"{n:,}" and metric(at, "As landlord") == f"{n_ll:,}"
    stats = frame_with(at, "stat", "player_rate")
    got = stats.set_index("stat")["player_rate"]
    assert got["feed rate (farmer, landlord on 1-2 cards)"] == pytest.approx(feed)
    bidding = frame_with(at, "hand_strength", "bid_rate", "all_bid_rate")
    (n_hands,) = one(mixed_wh, "select sum(n_hands) from ddz_bidding "
                     f"where player_id = '{FEEDER}'")  # fmt: skip
    assert bidding["hands"].sum() == n_hands
    games = frame_with(at, "replay", "role", "is_winner")
    assert len(games) == n and games["replay"].str.contains("game=ddz").all()
    auctions = frame_with(at, "replay", "seat", "max_bid")  # the same games, in the same order
    assert auctions["game_id"].tolist() == games["game_id"].tolist()


def test_player_page_says_when_its_games_are_cut(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the games list holds the newest ddz_data.GAME_ROWS and says when there are more (it was
    # cut at 1,000 in the SQL without a word, beside a "Games" metric of more)
    use(mixed_wh.root)
    monkeypatch.setattr(ddz_data, "GAME_ROWS", 5)
    at = ddz_app("views/ddz_player.py", player=FEEDER)
    games = frame_with(at, "replay", "role", "is_winner")
    newest = [r[0] for r in mixed_wh.connect().execute(
        "select game_id from stg_ddz_seats join stg_ddz_games using (game_id) "
        f"where player_id = '{FEEDER}' order by started_ts desc, game_id limit 5").fetchall()]  # fmt: skip
    assert games["game_id"].tolist() == newest
    assert "The first 5 games, newest first; there are more" in texts(at)


def test_player_page_without_hands_says_so(mixed_wh: Warehouse, use: Use) -> None:
    # a player of partial-information games only: no hand strength, a sentence (as the
    # leaderboard's) instead of an empty table
    use(mixed_wh.root)
    at = ddz_app("views/ddz_player.py", match=PARTIAL + "m")
    assert at.selectbox(key="ddz_pl_player").value.startswith(PARTIAL)
    assert "No full-information game (the hands are not in the logs)." in texts(at)
    assert not [f for f in frames(at) if "hand_strength" in f.columns and f.empty]
    assert len(frame_with(at, "role", "bid", "win_pct")) > 0


def test_player_page_names_the_sidebar_player_without_games(mixed_wh: Warehouse, use: Use) -> None:
    # the sidebar's player has no game under the other filters: the page says so of that
    # player, not of the first one of the list
    use(mixed_wh.root)
    at = ddz_app("views/ddz_player.py", ruleset="ddz-2p", player=FEEDER)
    said = [str(i.value) for i in at.info]
    assert said == [f"{FEEDER} played no Dou Dizhu game that the other filters select."], said
    assert not at.metric and not at.dataframe


def test_a_player_of_void_deals_only_has_its_bidding(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a player whose only deal was void (荒牌) had no ddz_stats_players row and a page saying
    # "played out none" without its bidding, though void deals count for bidding (stats.md)
    (player, n_void) = one(mixed_wh, "select min(player_id), count(*) from ddz_game_scores "
                           f"where player_id like '{VOID}%' and seat = 0 and not is_scored")  # fmt: skip
    assert n_void == 1
    row = one(mixed_wh, "select n_games, n_wins, sum_score, n_asked, n_bids, bid_rate, win_rate "
              f"from ddz_stats_players where player_id = '{player}'")  # fmt: skip
    assert row == (0, 0, 0, 1, 0, 0.0, None)
    assert one(mixed_wh, "select sum(n_asked), sum(n_bids) from ddz_stats_players "
               f"where player_id like '{VOID}%'") == one(mixed_wh, "select count(*), 0 from "
               f"stg_ddz_seats where player_id like '{VOID}%' and max_bid is not null")  # fmt: skip
    use(mixed_wh.root)
    for rollups in (True, False):  # the rollup's twin and the detailed query
        monkeypatch.setattr(data, "ROLLUPS", rollups)
        st.cache_data.clear()
        at = ddz_app("views/ddz_player.py", player=player)
        assert metric(at, "Games") == "0", rollups
        assert "its deals were void" in " ".join(str(i.value) for i in at.info), rollups
        assert stat(at, "bid rate") == 0.0, rollups
        bidding = frame_with(at, "hand_strength", "bid_rate", "all_bid_rate")
        assert bidding["hands"].sum() == 1 and bidding["bid_rate"].tolist() == [0.0], rollups
        assert len(frame_with(at, "replay", "seat", "max_bid")) == 1, rollups


VOID_PLAYER = "sim-ddz-6-p0-heuristic"  # `big2 simulate -r ddz-2p --seed 6`: a void deal, 2 players


def stat(at: AppTest, name: str, column: str = "player_rate") -> float:
    """The strategy stat whose label starts with ``name``, of the player or the others."""
    stats = frame_with(at, "stat", "player_rate", "others_rate").set_index("stat")[column]
    return float(stats[next(s for s in stats.index if s.startswith(name))])


def test_player_page_bid_rate_is_one_definition(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the strategy stats' bid rate counted the played-out games' auctions only, the bidding
    # discipline's every auction (a void deal 荒牌 too: passing a hand is a decision): one
    # definition now, every auction the player spoke in (docs/stats.md)
    use(mixed_wh.root)
    (n_void,) = one(mixed_wh, "select count(*) from ddz_game_scores where not is_scored "
                    f"and player_id = '{VOID_PLAYER}'")  # fmt: skip
    (n_partial,) = one(mixed_wh, "select count(*) from stg_ddz_seats where hand_strength is null "
                       f"and player_id = '{VOID_PLAYER}'")  # fmt: skip
    assert n_void > 0 and n_partial == 0  # every hand known: the two tables count the same
    for rollups in (True, False):  # the rollup's twin and the detailed query
        monkeypatch.setattr(data, "ROLLUPS", rollups)
        st.cache_data.clear()
        at = ddz_app("views/ddz_player.py", player=VOID_PLAYER)
        bidding = frame_with(at, "hand_strength", "bid_rate", "all_bid_rate")
        n_bids = (bidding["bid_rate"] * bidding["hands"]).sum()
        assert stat(at, "bid rate") == pytest.approx(n_bids / bidding["hands"].sum()), rollups
    (mart,) = one(mixed_wh, "select bid_rate from ddz_stats_players "
                  f"where player_id = '{VOID_PLAYER}'")  # fmt: skip
    assert stat(at, "bid rate") == pytest.approx(mart)  # the mart's is the page's


def test_player_page_yardsticks_compare_like_with_like(mixed_wh: Warehouse, use: Use) -> None:
    # a player of 2-player games only, chosen on the page (no filter: the yardsticks read every
    # Dou Dizhu game): its yardsticks (the other players' stats, everyone's bid rate by hand
    # strength) are those of the 2-player games, as under the ddz-2p filter; they pooled the
    # 3-player games' seats in
    use(mixed_wh.root)
    at, alone = ddz_app("views/ddz_player.py"), ddz_app("views/ddz_player.py")
    for a in (at, alone):
        a.selectbox(key="ddz_pl_player").select(VOID_PLAYER).run()
    alone.sidebar.selectbox(key="f_ruleset").select("ddz-2p").run()
    assert not alone.exception, [e.value for e in alone.exception]
    assert alone.selectbox(key="ddz_pl_player").value == VOID_PLAYER
    assert "Filters: ruleset: ddz-2p" in texts(alone) and "Filters: none" in texts(at)
    for name in ("win rate", "landlord share", "bid rate", "feed rate"):
        assert stat(at, name, "others_rate") == pytest.approx(stat(alone, name, "others_rate"))
    pooled = one(mixed_wh, "select sum(n_wins) / sum(n_games) from ddz_stats_players "
                 f"where player_id <> '{VOID_PLAYER}'")[0]  # fmt: skip
    assert stat(at, "win rate", "others_rate") != pytest.approx(pooled)  # what it was
    everyone, everyone_2p = (
        frame_with(a, "hand_strength", "all_bid_rate").set_index("hand_strength")["all_bid_rate"]
        for a in (at, alone)
    )
    assert everyone.to_dict() == pytest.approx(everyone_2p.to_dict())
    assert "compared like with like" in texts(at)


def test_yardstick_weights_each_ruleset_by_the_players_own_opportunities(
    mixed_wh: Warehouse,
) -> None:
    # ddz_yardstick (the player page's two stats queries) on a player of both rulesets: the
    # 2-player one's and the feeder's rows as one 'player', everyone else as 'others'; the
    # others' rate is each ruleset's weighted by the player's opportunities under it (its games
    # for the win rate, its auctions for the bid rate), not the pooled one
    con = mixed_wh.connect()
    rows = con.execute(
        f"""with sums as (
            select case when player_id in ('{VOID_PLAYER}', '{FEEDER}') then 'player'
                        else 'others' end as who,
                ruleset, sum(columns('^n_'))::bigint, sum(sum_score) as score
            from (select player_id, ruleset, columns('^n_'), sum_score from ddz_stats_players)
            where ruleset in ('ddz', 'ddz-2p') group by all)
        select who, win_rate, bid_rate from ddz_yardstick(sums) order by who desc"""
    ).fetchall()
    per = {r[:2]: r[2:] for r in con.execute(
        f"""select ruleset, player_id in ('{VOID_PLAYER}', '{FEEDER}'), sum(n_games),
               sum(n_wins) / sum(n_games), sum(n_asked), sum(n_bids) / sum(n_asked)
        from ddz_stats_players where ruleset in ('ddz', 'ddz-2p') group by all""").fetchall()}  # fmt: skip
    con.close()
    (_, mine_win, mine_bid), (_, win, bid) = rows
    games, asked = (sum(per[(r, True)][k] for r in ("ddz", "ddz-2p")) for k in (0, 2))
    assert win == pytest.approx(sum(per[(r, True)][0] * per[(r, False)][1]
                                    for r in ("ddz", "ddz-2p")) / games)  # fmt: skip
    assert bid == pytest.approx(sum(per[(r, True)][2] * per[(r, False)][3]
                                    for r in ("ddz", "ddz-2p")) / asked)  # fmt: skip
    pooled = sum(per[(r, False)][1] * per[(r, False)][0] for r in ("ddz", "ddz-2p")) / sum(
        per[(r, False)][0] for r in ("ddz", "ddz-2p")
    )
    assert win != pytest.approx(pooled)  # the pooled others' rate: what it was
    assert mine_win == pytest.approx(sum(per[(r, True)][1] * per[(r, True)][0]
                                         for r in ("ddz", "ddz-2p")) / games)  # fmt: skip
    assert mine_bid == pytest.approx(sum(per[(r, True)][3] * per[(r, True)][2]
                                         for r in ("ddz", "ddz-2p")) / asked)  # fmt: skip


def test_bidding_from_the_mart_is_the_seats_own(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under no filter or a ruleset alone, the bidding table comes from the ddz_bidding mart
    (``dash_ddz_bidding_mart``): the very rows of the detailed query over the games' seats;
    under another filter, and with the marts stale, from the seats."""
    use(mixed_wh.root)
    st.cache_data.clear()
    asked: list[str] = []
    query = data.query

    def spy(name: str, /, f: Filters | None = None, **params: object) -> pd.DataFrame:
        asked.append(name)
        return query(name, f, **params)

    monkeypatch.setattr(data, "query", spy)
    assert data.rollups_fresh("ddz")
    for f in (data.NO_FILTERS, Filters(ruleset="ddz"), Filters(ruleset="ddz-2p")):
        for player in (FEEDER, "sim-ddz-6-p0-heuristic"):
            asked.clear()
            got = ddz_data.bidding(f, player)
            assert asked == ["dash_ddz_bidding_mart"]
            seats = query("dash_ddz_bidding", f, player=player)
            pd.testing.assert_frame_equal(got, seats, check_exact=True)
    assert not ddz_data.bidding(Filters(ruleset="ddz"), FEEDER).empty
    asked.clear()
    ddz_data.bidding(Filters(match_id="sim-ddz-5-m000000"), FEEDER)
    assert asked == ["dash_ddz_bidding"]


def test_an_import_after_the_build_makes_the_ddz_marts_stale(
    logs: dict[str, Path], tmp_path: Path, use: Use
) -> None:
    wh = Warehouse(tmp_path / "warehouse")
    ingest([str(logs["ddz"])], wh)
    build(wh)
    use(wh.root)
    st.cache_data.clear()
    assert data.rollups_fresh("ddz")
    ingest([str(logs["ddz2"])], wh)  # no build
    st.cache_data.clear()
    assert not data.rollups_fresh("ddz")
    asked = ddz_data.bidding(data.NO_FILTERS, "sim-ddz-6-p0-heuristic")
    assert asked["hands"].sum() > 0  # the new games, from their seats


def test_the_ddz_rollups_count_every_game_and_seat(mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    st.cache_data.clear()
    assert data.rollups_fresh("ddz")
    assert one(mixed_wh, "select sum(n_games) from rollup_ddz_games") == one(
        mixed_wh, "select count(*) from games where game_kind = 'doudizhu'"
    )
    assert one(mixed_wh, "select sum(n_seats) from rollup_ddz_player_days") == one(
        mixed_wh,
        "select count(*) from seats join games using (game_id) where game_kind = 'doudizhu'",
    )
    # the void deals are rows of their own: no role, no games, their seats counted
    n_void, void_games = one(
        mixed_wh, "select count(*), sum(n_games) from rollup_ddz_player_days where role is null"
    )
    assert n_void > 0 and void_games == 0
    assert one(mixed_wh, "select count(*) from rollup_ddz_games where match_id is null") > (0,)
    comments = dict(
        mixed_wh.connect()
        .execute(
            "select table_name, comment from duckdb_tables() where table_name like 'rollup_ddz%'"
        )
        .fetchall()
    )
    assert set(comments) == set(data.FRESHNESS["ddz"][0])
    assert all(c and "grain" in c.lower() for c in comments.values()), comments


def test_every_ddz_view_gives_the_same_figures_from_the_rollups(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headline counts, players, standings, a player's stats and win rates, the sidebar's
    choices, the cooperation evidence: the rollups' figures (the evidence: the mart's own
    ruleset and start) are the detailed queries' under every filter they answer."""
    use(mixed_wh.root)
    a, b = both(ddz_data.filter_options, monkeypatch)
    assert a == b
    asked = asked_queries(monkeypatch)
    n_rows = n_events = 0
    for f in the_filters(ddz_data.filter_options()):
        a, b = both(lambda f=f: ddz_data.counts(f), monkeypatch)
        assert a == b, f
        a, b = both(lambda f=f: ddz_data.players(f), monkeypatch)
        assert a == b, f
        a, b = both(lambda f=f: ddz_data.standings(f), monkeypatch)
        pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=str(f))
        n_rows += len(a)
        for player in [*ddz_data.players(f)[:3], "nobody", None]:
            a, b = both(lambda f=f, p=player: ddz_data.win_rates(f, p), monkeypatch)
            pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=f"{f} {player}")
            if player is None:
                continue
            a, b = both(
                lambda f=f, p=player: data.query("dash_ddz_player_stats", f, player=p),
                monkeypatch,
            )
            pd.testing.assert_frame_equal(a, b, check_dtype=False, obj=f"{f} {player}")
        for signal in ("feed", "partner"):
            a, b = both(
                lambda f=f, s=signal: data.query(
                    "dash_ddz_coop_evidence", f, player=FEEDER, signal=s
                ),
                monkeypatch,
            )
            pd.testing.assert_frame_equal(a, b, obj=f"{f} {signal}")
            n_events += len(a)
    assert n_rows > 10  # the filters select players
    assert n_events > 10  # and the planted feeder's events
    assert {"dash_ddz_counts_rollup", "dash_ddz_player_stats_rollup"} <= set(asked)
    assert {"dash_ddz_counts", "dash_ddz_player_stats"} <= set(asked)
    asked.clear()
    ddz_data.counts(Filters(match_id="sim-ddz-5-m000000"))  # a match: the games themselves
    assert asked == ["dash_ddz_counts"]


def test_cooperation_audit_ranks_the_planted_feeder_first(
    mixed_wh: Warehouse, use: Use, logs: dict[str, Path]
) -> None:
    use(mixed_wh.root)
    at = ddz_app("views/ddz_coop.py")
    ranked = frame_with(at, "feed_rank", "player_id", "feed_z")
    assert ranked.iloc[0]["player_id"] == FEEDER and ranked.iloc[0]["feed_rank"] == 1
    assert FEEDER in " ".join(str(e.value) for e in at.error)  # the red flag names it
    assert "the match and period filters narrow the evidence below only" in texts(at)
    evidence = frame_with(at, "replay", "step", "table_play", "hand")
    assert "action_index" not in evidence.columns
    # every row is one of the simulator's planted feeds (ground truth in the log's truth)
    con = mixed_wh.connect()
    got = con.execute(
        "select game_id, action_index from ddz_coop_actions "
        f"where player_id = '{FEEDER}' and signal = 'feed' and is_event"
    ).fetchall()
    assert len(evidence) == len(got) > 0
    first = evidence.iloc[0]
    assert f"game_id={first['game_id']}" in first["replay"]
    assert f"step={int(first['step'])}" in first["replay"]
    truth = {ln["game_id"]: ln["truth"] for ln in lines(logs["ddz"])}
    fed = truth[first["game_id"]]["feed_opportunities"]
    assert fed, truth[first["game_id"]]  # the simulator logged the planted feed there


def test_replayer_draws_the_auction_kitty_roles_and_ends_with_the_engine_scores(
    mixed_wh: Warehouse, use: Use, logs: dict[str, Path]
) -> None:
    use(mixed_wh.root)
    game = next(
        ln
        for ln in lines(logs["ddz"])
        if ln["result"]["outcome"] == "played_out" and "BJ" in " ".join(ln["deal"]["hands"])
    )
    gid = game["game_id"]
    at = ddz_app("views/ddz_replayer.py", game_id=gid, step="1")
    assert at.selectbox(key="ddz_replayer_game").value == gid
    shown = texts(at)
    assert "Step 1" in shown and "bids" in shown and "Auction" in shown
    first = game["actions"][0]
    assert f"seat {first['seat']}" in shown
    assert "face down until the auction ends" in shown  # the kitty before the landlord takes it
    assert 'ddz-bj" title="小王 black joker">BJ' in shown  # the joker drawn as a joker
    at.button(key="ddz_rp_last").click().run()
    assert not at.exception
    assert at.query_params["step"] in (str(len(game["actions"])), [str(len(game["actions"]))])
    shown = texts(at)
    landlord = game["result"]["landlord"]
    assert "地主 landlord" in shown and "農民 farmer" in shown
    assert "face down" not in shown
    scores = frame_with(at, "seat", "player_id", "score")
    assert scores["score"].tolist() == game["result"]["scores"]  # the engine's own amounts
    assert scores.loc[scores["role"] == "landlord", "seat"].tolist() == [landlord]
    paid = frame_with(at, "payer", "receiver", "amount")
    assert paid["amount"].tolist() == [game["result"]["amount"]] * (len(game["seats"]) - 1)
    ids = [s["player_id"] for s in game["seats"]]
    payer = paid["payer"] if game["result"]["landlord_won"] else paid["receiver"]
    assert set(payer) == set(ids) - {ids[landlord]}
    assert f"×{game['result']['multiplier']}" in [str(m.value) for m in at.metric]


def test_replayer_a_two_player_game_shows_the_set_aside_cards(
    mixed_wh: Warehouse, use: Use, logs: dict[str, Path]
) -> None:
    use(mixed_wh.root)
    game = next(ln for ln in lines(logs["ddz2"]) if ln["result"]["outcome"] == "played_out")
    at = ddz_app("views/ddz_replayer.py", game_id=game["game_id"])
    at.button(key="ddz_rp_last").click().run()
    assert "Set aside" in texts(at)
    scores = frame_with(at, "seat", "player_id", "score")
    assert scores["score"].tolist() == game["result"]["scores"]


def test_replayer_last_step_shows_the_multiplier_the_table_paid(
    mixed_wh: Warehouse, use: Use
) -> None:
    # a game of bombs and a rocket under a cap of ×1: at its end the replayer shows ×1 and the
    # amount paid (ddz_game_scores), not 2^(bombs + rockets) and its "so far" amount
    use(mixed_wh.root)
    gid, raw, paid, amount = one(mixed_wh, "select game_id, multiplier_raw, multiplier, amount "
                                 f"from ddz_game_scores where game_id like '{CAPPED}%' limit 1")  # fmt: skip
    assert raw >= 4 and paid == 1
    at = ddz_app("views/ddz_replayer.py", game_id=gid)
    at.button(key="ddz_rp_last").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [str(m.value) for m in at.metric] == ["×1"]
    shown = texts(at)
    assert f"× 1 = {amount:g} per farmer (×{raw} from bombs and rockets, cap 封頂 ×1)" in shown
    assert "so far" not in shown


def test_replayer_unknown_game_is_a_message(mixed_wh: Warehouse, use: Use) -> None:
    use(mixed_wh.root)
    at = ddz_app("views/ddz_replayer.py", game_id="[x](http://e.vil)")
    assert any("No Dou Dizhu game" in str(w.value) for w in at.warning)
    assert pd.notna(at.selectbox(key="ddz_replayer_game").value)


def test_the_jokers_are_the_engines() -> None:
    """The dashboards import no rules engine: their joker ids must be the engine's."""
    from dashboards import ddz_ui
    from pipeline.doudizhu import cards

    assert (ddz_ui.BLACK_JOKER, ddz_ui.RED_JOKER) == (cards.BLACK_JOKER, cards.RED_JOKER)
    assert ddz_ui.cards_html(cards.mask_of(cards.parse_cards("RJ 3d BJ"))).count("joker") == 2


# ----- the game terms in the sidebar's locale (繁 / 简 / English), as on the Big Two pages -------

#: Per locale, what no Dou Dizhu page may show: in English any Chinese at all (this warehouse's
#: player names and ids are ASCII); in 简 a Traditional-only spelling; in 繁 a Simplified-only one.
NOT_IN_LOCALE = {
    "en": re.compile("[\u3400-\u9fff]"),
    "简": re.compile("[農頂彈鬥雙鋤]"),
    "繁": re.compile("[农顶弹斗双锄]"),
}
#: Per page and locale, words it must show (the terms translated, not dropped).
SHOWN_IN_LOCALE = {
    "views/ddz_leaderboard.py": {"en": ["Void deals", "Multiplier cap", "as farmer"],
                                 "简": ["农民", "封顶", "荒牌"], "繁": ["農民", "封頂", "荒牌"]},
    "views/ddz_player.py": {"en": ["games as landlord", "or call)"],
                            "简": ["3 分", "叫地主"], "繁": ["3 分", "叫地主"]},
    "views/ddz_replayer.py": {"en": ["landlord", "farmer", "Kitty"],
                              "简": ["农民", "底牌"], "繁": ["農民", "底牌"]},
    "views/ddz_coop.py": {"en": ["against the landlord:"], "简": ["(地主)"], "繁": ["(地主)"]},
    "views/report.py": {"en": [], "简": [], "繁": []},
}  # fmt: skip


def everything_shown(at: AppTest) -> list[str]:
    """Every text a Dou Dizhu page shows: headings, captions, alerts, markdown (HTML too),
    metrics, widget labels and choices (the sidebar's game selector among them; not the locale
    selector, which names the locales), table headers and string cells, chart legends."""
    out = texts(at).splitlines()
    out += [str(m.label) for m in at.metric]
    for kind in ("selectbox", "radio"):
        for w in [*getattr(at, kind), *getattr(at.sidebar, kind)]:
            if w.key != "f_locale":
                out += [str(w.label), *map(str, w.options)]
    out += [str(e.label) for e in at.expander]
    for table in headers(at):
        out += [str(c["label"]) for c in table.values()]
    for d in at.dataframe:
        for column in d.value.columns:
            out += [str(column), *(v for v in d.value[column] if isinstance(v, str))]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out += [str(t.get("name", "")) for t in spec["data"]]
        out += [str(spec["layout"].get("legend", {}).get("title", {}).get("text", ""))]
    return out


@pytest.mark.parametrize("page", SHOWN_IN_LOCALE)
def test_ddz_pages_follow_the_locale_of_the_game_terms(
    page: str, mixed_wh: Warehouse, use: Use, logs: dict[str, Path]
) -> None:
    """Dou Dizhu's terms (地主, 農民, 封頂, 荒牌, 底牌, 叫地主, 小王 …) follow the sidebar's
    "Game terms" as Big Two's do: none in Chinese in English, each in the chosen script."""
    use(mixed_wh.root)
    game = next(ln for ln in lines(logs["ddz"])
                if ln["result"]["outcome"] == "played_out" and "BJ" in " ".join(ln["deal"]["hands"]))  # fmt: skip
    auction = sum(a["action"] in ("bid", "call", "no_call") for a in game["actions"])
    for locale, wanted in SHOWN_IN_LOCALE[page].items():
        query = {"game_id": game["game_id"], "step": str(auction)}
        at = ddz_app(page, **(query if page == "views/ddz_replayer.py" else {}))
        at.sidebar.selectbox(key="f_locale").set_value(locale).run()
        shown = everything_shown(at)
        if page == "views/ddz_replayer.py":  # the auction's end, then the result
            at.button(key="ddz_rp_last").click().run()
            shown += everything_shown(at)
        assert not at.exception, [e.value for e in at.exception]
        bad = [s for s in shown if NOT_IN_LOCALE[locale].search(s)]
        assert not bad, (page, locale, bad[:5])
        missing = [w for w in wanted if not any(w in s for s in shown)]
        assert not missing, (page, locale, missing)


def test_a_ruleset_variant_keeps_exactly_its_games(
    mixed_wh: Warehouse, use: Use, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the capped game is `ddz` with an override (multiplier_cap 1): the sidebar offers that
    # variant under ddz; choosing it keeps that game only on every path (the rollups, keyed by
    # the preset, are not read), choosing ddz keeps it with the others
    use(mixed_wh.root)
    st.cache_data.clear()
    variant = 'ddz {"multiplier_cap": 1}'
    listed = rulesets.variants("doudizhu")
    assert listed == {"ddz {}": "ddz, no overrides", variant: variant}
    assert rulesets.choices(ddz_data.filter_options().rulesets, listed)[:3] == [
        "ddz", "ddz {}", variant]  # fmt: skip
    f, preset = Filters(ruleset=variant), Filters(ruleset="ddz")
    (n_ddz,) = one(mixed_wh, "select count(*) from games where ruleset = 'ddz'")
    for rollups in (True, False):
        monkeypatch.setattr(data, "ROLLUPS", rollups)
        st.cache_data.clear()
        assert ddz_data.counts(f)["n_games"] == 1 and ddz_data.counts(preset)["n_games"] == n_ddz
        assert all(p.startswith(CAPPED) for p in ddz_data.players(f)), rollups
        board = ddz_data.standings(f)
        assert set(board["player_id"]) == set(ddz_data.players(f)) and board["games"].sum() == 3
        player = str(board["player_id"].iloc[0])
        stats = data.query("dash_ddz_player_stats", f, player=player).set_index("who")
        assert stats.loc["player", "n_games"] == 1 and stats.loc["others", "n_games"] == 2
        assert ddz_data.bidding(f, player)["hands"].sum() == 1, rollups
    at = ddz_app("views/ddz_player.py", ruleset=variant)  # each game's own ruleset, readable
    assert set(frame_with(at, "replay", "role", "is_winner")["ruleset"]) == {variant}
    assert {variant, "ddz"} == set(data.query("dash_ddz_games", preset, limit=5000)["ruleset"])
    at = ddz_app("views/ddz_coop.py", ruleset=variant)
    assert at.sidebar.selectbox(key="f_ruleset").value == variant
    assert "The ranking is per preset" in " ".join(str(i.value) for i in at.info)
    assert set(frame_with(at, "feed_rank", "player_id", "feed_z")["ruleset"]) == {"ddz"}
