"""``big2 simulate --ruleset ddz`` / ``ddz-2p``: seeded Dou Dizhu logs, the same bytes whatever
the worker count, every game replaying strictly, the plant's ground truth, the option errors."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.logs.model import GameRecord
from pipeline.logs.reader import read_log
from pipeline.replay import replay_strict

runner = CliRunner()
BIG2 = Path(sys.executable).with_name("big2")


def _big2(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIG2), *args], capture_output=True, text=True, env=os.environ.copy(), check=False
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _replays_strictly(path: Path) -> int:
    n = 0
    for record in read_log(path):
        assert isinstance(record, GameRecord), record
        replay_strict(record)
        n += 1
    return n


def test_the_file_is_the_same_with_one_and_two_workers(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl.gz"
    args = ["simulate", "--ruleset", "ddz", "-n", "40", "--seed", "9", "--match-games", "4"]
    a = _big2(*args, "--workers", "1", "-o", str(one))
    b = _big2(*args, "--workers", "2", "-o", str(two))
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert "40 Dou Dizhu games" in a.stdout
    assert one.read_bytes() == gzip.decompress(two.read_bytes())
    assert _replays_strictly(one) >= 40


@pytest.mark.parametrize(
    ("preset", "bots", "sets"),
    [
        ("ddz", ["random", "random", "random"], []),
        ("ddz", ["greedy", "heuristic", "random"], ["--set", "bid_reentry=false"]),
        ("ddz-2p", ["heuristic", "random"], ["--set", "multiplier_cap=4"]),
        ("ddz-2p", ["random", "random"], ["--set", "hand_size=17"]),
    ],
)
def test_every_simulated_game_replays_strict(
    tmp_path: Path, preset: str, bots: list[str], sets: list[str]
) -> None:
    out = tmp_path / "g.jsonl"
    bot_args = [x for b in bots for x in ("--bots", b)]
    result = runner.invoke(
        app,
        [
            "simulate",
            "-r",
            preset,
            "-n",
            "60",
            "--seed",
            "2",
            "-o",
            str(out),
            "--workers",
            "1",
            *bot_args,
            *sets,
        ],
    )
    assert result.exit_code == 0, result.output
    lines = _lines(out)
    assert _replays_strictly(out) == len(lines)
    overrides = dict(s.split("=") for s in sets[1::2])
    for line in lines:
        assert line["game_kind"] == "doudizhu" and line["ruleset"]["preset"] == preset
        assert {k: str(v).lower() for k, v in line["ruleset"].get("overrides", {}).items()} == {
            k: v for k, v in overrides.items()
        }
        assert [s["player_id"].rsplit("-", 1)[1] for s in line["seats"]] == bots
        assert line["truth"]["bots"] == bots
    indexes = [line["truth"]["game_index"] for line in lines]
    assert sorted(set(indexes)) == list(range(60))  # every game, void deals as extra lines
    played = [line for line in lines if line["result"]["outcome"] == "played_out"]
    assert len(played) == 60
    ids = [line["game_id"] for line in lines]
    assert len(set(ids)) == len(ids)


def test_void_deals_are_lines_of_their_own_and_dealt_again(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    result = runner.invoke(
        app,
        ["simulate", "-r", "ddz", "-n", "120", "--seed", "4", "-o", str(out), "--workers", "1"]
        + ["--bots", "random"] * 3,
    )
    assert result.exit_code == 0, result.output
    lines = _lines(out)
    void = [line for line in lines if line["result"]["outcome"] == "redeal"]
    assert void, "random bidders pass all round now and then"
    for line in void:
        following = [x for x in lines if x["truth"]["game_index"] == line["truth"]["game_index"]]
        assert following[-1]["result"]["outcome"] == "played_out"
        assert following[-1]["truth"]["deal_number"] == len(following)
    numbers = [(x["match_id"], x["game_number"]) for x in lines]
    assert len(set(numbers)) == len(numbers)  # each deal its own place in its match


def test_the_planted_feeder_is_in_the_truth_and_in_the_actions(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    result = runner.invoke(
        app,
        ["simulate", "-r", "ddz", "-n", "80", "--seed", "1", "-o", str(out), "--workers", "1"]
        + ["--bots", "heuristic"] * 3
        + ["--feeder", "2", "--feed-rate", "1"],
    )
    assert result.exit_code == 0, result.output
    fed = 0
    for line in _lines(out):
        truth = line["truth"]
        assert truth["feeder"] == 2 and truth["feed_rate"] == 1.0
        for chance in truth["feed_opportunities"]:
            assert chance["seat"] == 2 and chance["fed"] is True
            action = line["actions"][chance["action_index"]]
            assert action == {"seat": 2, "action": "pass", "ts": action["ts"]}
            fed += 1
    assert fed > 0
    honest = tmp_path / "h.jsonl"
    runner.invoke(
        app,
        ["simulate", "-r", "ddz", "-n", "5", "-o", str(honest), "--workers", "1"],
    )
    assert all(line["truth"]["feeder"] is None for line in _lines(honest))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-r", "ddz-2p", "--bots", "random", "--bots", "random", "--bots", "greedy"],
            "E_SIM_OPTION: 3 bots (random, random, greedy) for ddz-2p's 2 players",
        ),
        (["-r", "ddz", "--bots", "random"], "E_SIM_OPTION: 1 bot (random) for ddz's 3 players"),
        (["-r", "ddz", "--colluders", "0,1"], "--colluders is a Big Two option"),
        (["-r", "ddz", "--must-block-discipline", "0.5"], "--must-block-discipline is a Big Two"),
        (["-r", "hk", "--feeder", "1"], "--feeder is a Dou Dizhu option"),
        (["-r", "ddz", "--feed-rate", "0.5"], "--feed-rate 0.5 without --feeder SEAT"),
        (["-r", "ddz", "--feeder", "3"], "E_SIM_OPTION: feeder 3: a seat of 0..2"),
        (["-r", "ddz", "--set", "bidding=auction"], "E_RULESET"),
        (["-r", "ddz-3p"], "E_RULESET_PRESET"),
    ],
)
def test_bad_options_are_usage_errors_with_codes(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "x.jsonl"
    result = runner.invoke(app, ["simulate", "-n", "2", "-o", str(out), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not out.exists()


def test_help_names_the_dou_dizhu_options() -> None:
    result = runner.invoke(app, ["simulate", "--help"], terminal_width=200)
    assert result.exit_code == 0
    for text in ("ddz / ddz-2p", "--feeder", "--feed-rate", "Dou Dizhu"):
        assert text in result.stdout


def test_the_simulated_lines_meet_the_json_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    referencing = pytest.importorskip("referencing")
    from pipeline.logs import schema_path

    big2 = json.loads(schema_path("big2").read_text("utf-8"))
    ddz = json.loads(schema_path("doudizhu").read_text("utf-8"))
    registry = referencing.Registry().with_resource(
        big2["$id"], referencing.Resource.from_contents(big2)
    )
    validator = jsonschema.Draft202012Validator(ddz, registry=registry)
    for preset, n in (("ddz", 3), ("ddz-2p", 2)):
        out = tmp_path / f"{preset}.jsonl"
        args = ["simulate", "-r", preset, "-n", "12", "--seed", "1", "-o", str(out)]
        result = runner.invoke(app, [*args, "--workers", "1", "--feeder", str(n - 1)])
        assert result.exit_code == 0, result.output
        for line in _lines(out):
            assert [e.message for e in validator.iter_errors(line)] == []


def test_simulate_ingest_stores_every_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--ingest``: every simulated line (void deals included) replays and is stored as a
    Dou Dizhu game, nothing rejected, and the Dou Dizhu marts score them; the table simulate
    prints agrees with them."""
    import duckdb

    monkeypatch.setenv("COLUMNS", "200")  # the table on one block (it folds at 80)
    out, wh = tmp_path / "g.jsonl", tmp_path / "wh"
    args = ["simulate", "-r", "ddz-2p", "-n", "12", "--seed", "3", "-o", str(out)]
    result = _big2(*args, "--workers", "1", "--ingest", "--warehouse", str(wh))
    assert result.returncode == 0, result.stderr
    n_lines = len(_lines(out))
    con = duckdb.connect(str(wh / "warehouse.duckdb"), read_only=True)
    assert con.execute("select count(*) from rejects").fetchone() == (0,)
    kinds = con.execute("select game_kind, count(*) from games group by all").fetchall()
    assert kinds == [("doudizhu", n_lines)]
    (scored,) = con.execute("select count(distinct game_id) from ddz_game_scores").fetchone() or (
        0,
    )
    assert scored == n_lines
    # the table simulate printed, player by player, is what the warehouse holds
    standings = con.execute(
        "select player_id, n_games, n_wins, n_landlord, total_score from ddz_player_standings"
    ).fetchall()
    printed = {line.split()[0]: line.split() for line in result.stdout.splitlines()}
    assert len(standings) == 2
    for player, games, wins, landlord, score in standings:
        row = printed[player]
        assert [int(row[1]), int(row[2]), int(row[4]), int(row[7])] == [
            games, wins, landlord, score
        ]  # fmt: skip
    voids = n_lines - standings[0][1]
    assert (f"and {voids} void deal" in result.stdout) == (voids > 0)
