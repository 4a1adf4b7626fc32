"""The simulator: every preset and option plays and replays cleanly, the output is the same
whatever the number of workers, the planted truth is exact, and bots only make legal moves."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from isal import igzip
from typer.testing import CliRunner

from pipeline.big2.logformat import record_from_obj
from pipeline.big2.playout import deal
from pipeline.big2.rules import load_ruleset
from pipeline.big2.state import ActionType, Block, Game, Outcome
from pipeline.cli import app
from pipeline.errors import Big2Error
from pipeline.logs.model import Source
from pipeline.logs.records import content_hash
from pipeline.logs.writer import GZIP_LEVEL, LogWriter, stale_files
from pipeline.replay import ReplayedGame, replay
from pipeline.sim.bots import BotName, Turn, make_bot
from pipeline.sim.ladder import place_scores
from pipeline.sim.simulate import SPAN, SimConfig, blocks_in_order, simulate, simulate_to_file
from pipeline.warehouse import Warehouse

MIXED = ("heuristic", "greedy", "random", "heuristic")

# (preset, overrides) → every preset, each 3-player mode, 2 players, and each option that
# changes what is legal or how a game starts or ends.
OPTION_CASES: list[tuple[str, dict[str, Any]]] = [
    ("hk", {"players": 2}),
    ("hk", {"players": 3, "three_player_mode": "deal_17"}),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}),
    ("hk", {"players": 3, "three_player_mode": "swap_leftover"}),
    ("taiwan", {"players": 3, "three_player_mode": "swap_leftover"}),
    ("hk", {"bombs": True}),
    ("hk", {"royal_only_beats_quads": True, "bombs": True}),
    ("hk", {"allow_four_card_quads": True, "allow_two_pairs": True}),
    ("taiwan", {"four_of_a_kind": "alone"}),
    ("hk", {"four_of_a_kind": "off"}),
    ("hk", {"allow_two_pairs_plus_one": True, "allow_triples": False}),
    ("hk", {"straight_order": "big2_natural", "flush_compare": "suit_then_ranks"}),
    ("hk", {"straight_order": "poker"}),
    ("hk", {"straight_order": "a2345_top_poker"}),
    ("hk", {"straight_order": "akqjt_top_poker", "flush_compare": "highest_card"}),
    ("hk", {"direction": "alternate"}),
    ("hk", {"direction": "clockwise", "first_lead": "lowest_card_every_game"}),
    ("hk", {"first_play_must_contain_lowest": "single"}),
    ("hk", {"first_play_must_contain_lowest": "show"}),
    ("hk", {"first_play_must_contain_lowest": "none"}),
    ("hk", {"pass_locks_out": False}),
    ("hk", {"must_block": "enforced"}),
    ("hk", {"must_block": "off"}),
    ("hk", {"redeal_if": ["points_below_3", "no_card_above_10", "no_jqk"]}),
    ("hk", {"players": 2, "dragon_instant_win": True, "four_twos_instant_win": True}),
    ("hk", {"players": 3, "dragon_instant_win": True, "redeal_if": ["no_jqk"]}),
    ("hk", {"players": 5}),
    ("taiwan", {"players": 6, "must_block": "enforced"}),
    ("mainland", {"players": 7}),
    ("hk", {"players": 8, "direction": "alternate"}),
]


def replayed(obj: dict[str, Any]) -> ReplayedGame:
    record = record_from_obj(obj, source=Source("sim", 1), raw="", content_hash=content_hash(obj))
    done = replay(record)
    assert isinstance(done, ReplayedGame), done
    return done


def replay_all(games: Iterable[dict[str, Any]]) -> list[ReplayedGame]:
    return [replayed(g) for g in games]


def lineup(overrides: dict[str, Any]) -> tuple[str, ...]:
    return tuple(MIXED[s % 4] for s in range(overrides.get("players", 4)))


@pytest.mark.parametrize("preset", ["hk", "hk-classic", "mainland", "taiwan"])
def test_every_preset_simulates_and_replays(preset: str) -> None:
    cfg = SimConfig(games=200, seed=11, preset=preset, bots=MIXED)
    done = replay_all(simulate(cfg))
    assert len(done) == 200
    assert all(d.result.outcome != Outcome.REDEAL or d.result.winner is None for d in done)


@pytest.mark.parametrize(
    ("preset", "overrides"), OPTION_CASES, ids=[json.dumps(o) for _, o in OPTION_CASES]
)
def test_every_option_simulates_and_replays(preset: str, overrides: dict[str, Any]) -> None:
    cfg = SimConfig(
        games=40,
        seed=5,
        preset=preset,
        overrides=overrides,
        bots=lineup(overrides),
        must_block_discipline=0.7,
        match_games=5,
    )
    done = replay_all(simulate(cfg))
    assert len(done) == 40


def test_claims_swaps_and_draws_happen() -> None:
    def outcomes(overrides: dict[str, Any], games: int = 60) -> list[ReplayedGame]:
        cfg = SimConfig(games=games, seed=2, overrides=overrides, bots=lineup(overrides))
        return replay_all(simulate(cfg))

    wins = outcomes({"players": 2, "dragon_instant_win": True, "four_twos_instant_win": True})
    assert any(d.result.outcome == Outcome.INSTANT_WIN for d in wins)
    redeals = outcomes({"redeal_if": ["no_jqk", "points_below_3", "no_card_above_10"]}, 120)
    assert any(d.result.outcome == Outcome.REDEAL for d in redeals)
    swaps = outcomes({"players": 3, "three_player_mode": "swap_leftover"})
    assert any(a.type == ActionType.SWAP for d in swaps for a in d.actions)
    draws = outcomes({"players": 3, "three_player_mode": "stock_13"}, 10)
    assert any(a.drawn is not None for d in draws for a in d.actions)


def test_matches_chain_winners_and_numbers() -> None:
    games = list(simulate(SimConfig(games=10, seed=4, bots=MIXED, match_games=4)))
    assert [g["game_number"] for g in games] == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]
    assert len({g["match_id"] for g in games}) == 3
    assert len({g["game_id"] for g in games}) == 10
    for prev, nxt in itertools.pairwise(games):
        if nxt["game_number"] > 1:
            assert nxt["previous_winner"] == prev["result"]["winner"]
            assert replayed(nxt).result.first_leader == prev["result"]["winner"]
            assert nxt["started_at"] > prev["started_at"]
    for g in games:
        ts = [a["ts"] for a in g["actions"]]
        assert ts == sorted(ts) and len(set(ts)) == len(ts)


def test_same_seed_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    cfg = SimConfig(games=30, seed=9, bots=MIXED, match_games=4, colluders=(1, 2))
    one = simulate_to_file(cfg, tmp_path / "one.jsonl.gz", workers=1)
    two = simulate_to_file(cfg, tmp_path / "two.jsonl.gz", workers=2)
    assert (one.games, two.games) == (30, 30)
    assert one.path.read_bytes() == two.path.read_bytes()
    plain = simulate_to_file(cfg, tmp_path / "p.jsonl", workers=1)
    assert gzip.decompress(one.path.read_bytes()) == plain.path.read_bytes()
    other = simulate_to_file(
        SimConfig(games=30, seed=10, bots=MIXED, match_games=4), tmp_path / "o.jsonl", workers=1
    )
    assert other.path.read_bytes() != plain.path.read_bytes()


def test_the_gzip_log_is_written_at_the_fast_level(tmp_path: Path) -> None:
    """The writer deflates with ISA-L at GZIP_LEVEL (2, its default: 4.3x zlib's level 2 on a
    log; zlib's level 9 cost ~4x the native simulator's own time): a plain gzip file (no name,
    mtime 0, XFL 0) of the plain file's bytes, as small as ISA-L's level 2 makes it in one
    call (the writer's text layer hands it 8 KiB at a time), larger than its slower level 3's.
    """
    cfg = SimConfig(games=12, seed=3, bots=MIXED, match_games=4)
    gz = simulate_to_file(cfg, tmp_path / "f.jsonl.gz", workers=1).path.read_bytes()
    text = simulate_to_file(cfg, tmp_path / "f.jsonl", workers=1).path.read_bytes()
    assert GZIP_LEVEL == 2
    assert gz[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0, XFL 0
    assert gzip.decompress(gz) == text
    level_2, level_3 = (len(igzip.compress(text, compresslevel=k, mtime=0)) for k in (2, 3))
    # 6,865 bytes here; ISA-L's level 2 in one call 6,853, its level 3 6,761, zlib's 2 6,929
    assert level_3 < len(gz) <= level_2 * 1.005


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 40_000), max_size=40),
    seed=st.integers(0, 2**32),
    cuts=st.lists(st.integers(1, 6), max_size=30),
)
def test_the_gzip_file_does_not_depend_on_how_its_writes_were_cut(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], seed: int, cuts: list[int]
) -> None:
    """Deflate's output depends on its input's cuts: the same lines written one by one, or in
    blocks of any sizes (a worker's matches), must give the same file, byte for byte."""
    rng = random.Random(seed)
    lines = ["".join(rng.choices('{}[]:, "0123456789abcdefgs♠', k=size)) for size in sizes]
    folder = tmp_path_factory.mktemp("cuts")
    with LogWriter(folder / "one.jsonl.gz") as out:
        for line in lines:
            out.write_line(line)
    with LogWriter(folder / "blocks.jsonl.gz") as out:
        rest, sizes = list(lines), itertools.cycle(cuts or [1])
        while rest:
            size = next(sizes)
            block, rest = rest[:size], rest[size:]
            out.write_block("".join(f"{line}\n" for line in block).encode(), len(block))
    one, blocks = (folder / name for name in ("one.jsonl.gz", "blocks.jsonl.gz"))
    assert one.read_bytes() == blocks.read_bytes()
    assert gzip.decompress(one.read_bytes()).decode().split("\n") == [*lines, ""]
    assert out.count == len(lines)


class _Stop(Exception):
    pass


@pytest.mark.parametrize("name", ["out.jsonl", "out.jsonl.gz"])
@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_simulation_leaves_the_old_file_and_nothing_else(
    tmp_path: Path, name: str, workers: int
) -> None:
    """The output is written beside the file and renamed over it when whole: a run stopped
    part-way (Ctrl-C, a full disk) leaves the file as it was and no temporary file."""
    out = tmp_path / name
    out.write_bytes(b"the previous run\n")
    cfg = SimConfig(games=400, seed=4, bots=MIXED, match_games=2)

    def stop_after_some(games: int) -> None:
        if games >= 50:
            raise _Stop

    with pytest.raises(_Stop):
        simulate_to_file(cfg, out, workers=workers, on_progress=stop_after_some)
    assert out.read_bytes() == b"the previous run\n"
    assert [p.name for p in tmp_path.iterdir()] == [name]
    done = simulate_to_file(cfg, out, workers=workers)
    assert done.games == 400 and [p.name for p in tmp_path.iterdir()] == [name]


def test_simulate_into_a_pipe_whose_reader_left_ends_quietly(tmp_path: Path) -> None:
    """``big2 simulate … | head -1``: the table printed after the file is written met a closed
    pipe, and the writers' OS-error guard said ``E_IO: [Errno 32] Broken pipe``; it ends as
    every other command does then (Click's quiet exit 1), the file whole."""
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "simulate", "-n", "3", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # the reader left before anything was printed
    _, err = proc.communicate(timeout=120)
    assert err == b"" and proc.returncode == 1
    assert len(out.read_text().splitlines()) == 3


def test_a_terminated_simulation_is_interrupted_and_leaves_the_old_file(tmp_path: Path) -> None:
    """SIGTERM (``kill``, ``timeout``) stops a run as Ctrl-C does: ``E_INTERRUPTED``, exit 143,
    the old file as it was and no hidden file left (it died where it stood, leaving both)."""
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"the previous run\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "simulate", "-n", "10000000", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.iterdir())) < 2 and proc.poll() is None:  # its hidden file
            assert time.monotonic() < deadline, "the run wrote nothing in 60 s"
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "big2: error: E_INTERRUPTED: stopped by SIGTERM" in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    assert out.read_bytes() == b"the previous run\n"


def _match_number(cfg: SimConfig, k: int) -> list[str]:
    return [f"{k}:{i}" for i in range(k % 3)]  # 0-2 lines a match, as Dou Dizhu's void deals


@pytest.mark.parametrize("threads", [True, False])
@pytest.mark.parametrize(("games", "workers"), [(1, 2), (24, 2), (400, 2), (3000, 3), (57, 1)])
def test_blocks_cover_every_match_in_order(games: int, workers: int, threads: bool) -> None:
    """A run's blocks: every match once, in order, none longer than SPAN matches, and at least
    four a worker when the run has that many matches (so a short run spreads too)."""
    cfg = SimConfig(games=games, seed=1, bots=MIXED, match_games=2)
    blocks = list(blocks_in_order(cfg, _match_number, workers, threads=threads))
    assert [b.first for b in blocks] == [0] + [b.last for b in blocks[:-1]]
    assert blocks[-1].last == cfg.n_matches
    assert all(0 < b.last - b.first <= SPAN for b in blocks)
    assert len(blocks) >= min(cfg.n_matches, 4 * workers) or workers == 1
    text = b"".join(b.data for b in blocks).decode()
    assert text.splitlines() == [
        line for k in range(cfg.n_matches) for line in _match_number(cfg, k)
    ]
    assert sum(b.lines for b in blocks) == text.count("\n")


def violations(done: ReplayedGame) -> set[int]:
    return {a.action_index for a in done.actions if a.block == Block.VIOLATED}


def test_planted_truth_is_exactly_what_the_engine_sees() -> None:
    cfg = SimConfig(
        games=150, seed=3, bots=MIXED, must_block_discipline=0.4, colluders=(0, 1), match_games=6
    )
    reasons: set[str] = set()
    for game in simulate(cfg):
        truth = game["truth"]
        assert truth["bots"] == list(MIXED)
        assert truth["must_block_discipline"] == 0.4
        assert truth["colluders"] == [[0, 1]]
        flagged = {f["action_index"]: f for f in truth["deliberate_non_blocks"]}
        done = replayed(game)
        assert set(flagged) == violations(done)
        for index, flag in flagged.items():
            record = done.actions[index]
            assert (flag["seat"], flag["next_seat"]) == (record.seat, record.next_seat)
            reasons.add(flag["reason"])
            if flag["reason"] == "colluder":
                assert (record.seat, record.next_seat) == (0, 1)
        for record in done.actions:  # seat 0 never blocks seat 1 (unless its last card does)
            if record.seat == 0 and record.next_seat == 1 and record.obligation is not None:
                assert record.hand_before is not None
                last_card = record.is_lead and record.hand_before.bit_count() == 1
                assert record.block == (Block.MET if last_card else Block.VIOLATED)
    assert reasons == {"colluder", "discipline"}


def test_full_discipline_means_no_violation() -> None:
    cfg = SimConfig(games=100, seed=6, bots=("random",) * 4)
    for game in simulate(cfg):
        assert game["truth"]["deliberate_non_blocks"] == []
        assert violations(replayed(game)) == set()


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"bombs": True, "first_play_must_contain_lowest": "single"},
        {"must_block": "enforced", "pass_locks_out": False},
        {"players": 3, "three_player_mode": "swap_leftover", "allow_two_pairs": True},
    ],
    ids=["hk", "bombs-single", "enforced", "swap"],
)
def test_legal_moves_match_the_engine_view_and_bots_stay_inside(overrides: dict[str, Any]) -> None:
    rs = load_ruleset("hk", overrides)
    rng = random.Random(1)
    bots = [make_bot(b.value) for b in BotName]
    for _ in range(12):
        hands, stock = deal(rs, rng)
        game = Game(rs, hands=hands, stock=stock)
        while not game.finished:
            seat = game.turn
            assert seat is not None
            plays, can_pass = game.legal_moves()
            assert sorted(p.mask for p in plays) == sorted(p.mask for p in game.legal_plays())
            assert can_pass == game.can_pass()
            turn = Turn(game, seat, plays, can_pass)
            choices = [bot.choose(turn, rng) for bot in bots]
            for action in choices:
                assert game.can(action)
                assert action.type == ActionType.PASS or action.cards in {p.mask for p in plays}
            game.do(rng.choice(choices))


def test_place_scores_sum_to_zero() -> None:
    assert place_scores([5, 8, 0, 12]) == [37, -7, 57, -87]  # spec 1.10 example 2
    assert sum(place_scores([0, 13, 9, 2])) == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bots": ("heuristic", "nobody", "random", "greedy")},
        {"bots": ("heuristic", "greedy")},
        {"bots": MIXED, "must_block_discipline": 1.5},
        {"bots": MIXED, "colluders": (2, 2)},
        {"bots": MIXED, "colluders": (0, 4)},
        {"bots": MIXED, "match_games": 0},
    ],
)
def test_bad_configuration_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(Big2Error) as err:
        SimConfig(games=1, seed=1, **kwargs)
    assert err.value.code.startswith("E_SIM")


def test_cli_simulate_writes_and_ingests(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl.gz"
    args = ["simulate", "--games", "12", "--seed", "1", "--out", str(out), "--workers", "1"]
    args += ["--set", "bombs=true", "--must-block-discipline", "0.5", "--colluders", "0,1"]
    result = CliRunner().invoke(app, [*args, "--ingest", "--warehouse", str(tmp_path / "wh")])
    assert result.exit_code == 0, result.output
    assert "12 games" in result.output and "warehouse" in result.output
    # the table it printed, player by player, is what the warehouse holds
    printed = {line.split()[0]: line.split()[1:] for line in result.output.splitlines()}
    with Warehouse(tmp_path / "wh").connect() as con:
        standings = con.execute(
            "select s.player_id, s.n_games, s.n_wins, sum(t.cards_left) "
            "from mart_player_standings as s join seats as t using (player_id) group by all"
        ).fetchall()
    assert len(standings) == 4
    for player, games, wins, cards_left in standings:
        assert printed[player][:2] == [str(games), str(wins)]
        assert float(printed[player][3]) == round(cards_left / games, 2)
    lines = gzip.decompress(out.read_bytes()).decode().splitlines()
    assert len(lines) == 12
    first = json.loads(lines[0])
    assert first["ruleset"] == {"preset": "hk", "overrides": {"bombs": True}}
    three = CliRunner().invoke(
        app, ["simulate", "-n", "3", "--players", "3", "--out", str(tmp_path / "t.jsonl")]
    )
    assert three.exit_code == 0, three.output
    assert json.loads((tmp_path / "t.jsonl").read_text().splitlines()[0])["truth"]["bots"] == [
        "heuristic",
        "greedy",
        "random",
    ]
    assert json.loads((tmp_path / "t.jsonl").read_text().splitlines()[0])["ruleset"] == {
        "preset": "hk",
        "overrides": {"players": 3},
    }
    # the preset's own number stores no override (hk and hk {"players": 4} are the same rules)
    four = ["simulate", "-n", "2", "--players", "4", "--out", str(tmp_path / "f.jsonl")]
    assert CliRunner().invoke(app, four).exit_code == 0
    first = json.loads((tmp_path / "f.jsonl").read_text().splitlines()[0])
    assert first["ruleset"] == {"preset": "hk", "overrides": {}}
    both = CliRunner().invoke(app, [*four, "--set", "players=3"])
    assert both.exit_code == 2 and "E_SIM_OPTION" in both.output


@pytest.mark.parametrize(
    "extra",
    [["--colluders", "0"], ["--bots", "random"]],
)
def test_cli_simulate_refuses_bad_options(tmp_path: Path, extra: list[str]) -> None:
    result = CliRunner().invoke(
        app, ["simulate", "-n", "2", "--out", str(tmp_path / "x.jsonl"), *extra]
    )
    assert result.exit_code == 2
    assert "E_SIM" in result.output


def test_cli_simulate_bots_are_the_bot_enum_one_per_seat(tmp_path: Path) -> None:
    # `--bots` is a list of the bot enum, repeated once per seat; an unknown bot is a usage
    # error naming the choices.
    out = tmp_path / "b.jsonl"
    seats = ["--bots", "random", "--bots", "GREEDY", "--bots", "random", "--bots", "heuristic"]
    result = CliRunner().invoke(app, ["simulate", "-n", "2", "--out", str(out), *seats])
    assert result.exit_code == 0, result.output
    truth = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["truth"]
    assert truth["bots"] == ["random", "greedy", "random", "heuristic"]
    bad = CliRunner().invoke(app, ["simulate", "-n", "2", "--out", str(out), "--bots", "nobody"])
    assert bad.exit_code == 2
    assert "nobody" in bad.output and "heuristic" in bad.output
    one = CliRunner().invoke(app, ["simulate", "-n", "2", "--out", str(out), "--bots", "random"])
    assert one.exit_code == 2  # worded for one, as the Dou Dizhu simulation words it
    assert "E_SIM_OPTION: 1 bot (random) for hk's 4 players: give --bots once per seat" in (
        one.stderr
    )


def test_heuristic_plan_keeps_a_four_alone_together() -> None:
    # four_of_a_kind = alone: the four cards are one play, so the plan holds them as one unit
    # (with a kicker they go into a five-card unit or split into pairs, as before).
    from pipeline.big2.rules import load_ruleset
    from pipeline.cards import mask_of, parse_cards
    from pipeline.sim.bots import plan_hand

    hand = mask_of(parse_cards("3d 5c 5h 9d 9c 9h 9s Kd 2s"))
    alone = [str(p) for p in plan_hand(hand, load_ruleset("taiwan", {"four_of_a_kind": "alone"}))]
    assert "9♦9♣9♥9♠" in alone
    off = [str(p) for p in plan_hand(hand, load_ruleset("taiwan", {"four_of_a_kind": "off"}))]
    assert "9♦9♣9♥9♠" not in off and any(p.startswith("9") for p in off)


def test_simulate_command_plays_six_players(tmp_path: Path) -> None:
    # `big2 simulate --set players=6`: the default lineup repeats round the table, and the
    # file replays (spec 1.3: 8 cards each, 4 left over to the lowest-card holder).
    from typer.testing import CliRunner

    from pipeline.cli import app

    out = tmp_path / "six.jsonl"
    args = ["simulate", "--games", "6", "--seed", "2", "--set", "players=6", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    games = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(games) == 6
    for game in games:
        assert len(game["seats"]) == 6 and len(game["deal"]["stock"]) == 4
        done = replayed(game)
        assert len(done.result.cards_left) == 6
        first_hands = {}
        for record in done.actions:
            if record.hand_before is not None:
                first_hands.setdefault(record.seat, record.hand_before.bit_count())
        assert sorted(first_hands.values())[-1] == 12  # 8 + the 4 leftover cards


def test_cli_id_prefix_lets_runs_of_one_seed_under_other_rules_import_together(
    tmp_path: Path,
) -> None:
    # the same seed under two presets gives the same ids: with the default prefix the second
    # run's games are conflicts; with a prefix each they import side by side
    wh = str(tmp_path / "wh")
    runs = [("hk", "hk"), ("taiwan", "tw"), ("ddz", "dz")]
    for preset, prefix in runs:
        out = tmp_path / f"{prefix}.jsonl"
        args = ["simulate", "-n", "4", "--seed", "3", "-r", preset, "--out", str(out)]
        result = CliRunner().invoke(app, [*args, "--id-prefix", prefix, "--workers", "1"])
        assert result.exit_code == 0, result.output
        ids = [json.loads(line)["game_id"] for line in out.read_text().splitlines()]
        assert all(i.startswith(f"{prefix}-3-") for i in ids), ids
    paths = [str(tmp_path / f"{prefix}.jsonl") for _, prefix in runs]
    result = CliRunner().invoke(app, ["ingest", *paths, "--warehouse", wh, "--strict"])
    assert result.exit_code == 0, result.output
    bad = CliRunner().invoke(
        app, ["simulate", "-n", "1", "--out", str(tmp_path / "x.jsonl"), "--id-prefix", "a b"]
    )
    assert bad.exit_code == 2 and "E_SIM_OPTION" in bad.output and "--id-prefix" in bad.output


def test_default_ids_of_the_two_games_never_meet(tmp_path: Path) -> None:
    # a Big Two run and a Dou Dizhu run of one seed, default prefixes, imported together: no
    # match, table, player or game id is shared, so `report --match` of the Big Two match names
    # Big Two games only
    def ids(path: Path) -> dict[str, set[str]]:
        seen: dict[str, set[str]] = {"game": set(), "match": set(), "table": set(), "player": set()}
        for line in path.read_text().splitlines():
            game = json.loads(line)
            for key in ("game", "match", "table"):
                seen[key].add(game[f"{key}_id"])
            seen["player"].update(seat["player_id"] for seat in game["seats"])
        return seen

    runs = {"big2": [], "ddz": ["-r", "ddz"]}
    for name, args in runs.items():
        out = tmp_path / f"{name}.jsonl"
        result = CliRunner().invoke(
            app, ["simulate", "-n", "2", "--seed", "1", *args, "--out", str(out), "--workers", "1"]
        )
        assert result.exit_code == 0, result.output
    big2, ddz = ids(tmp_path / "big2.jsonl"), ids(tmp_path / "ddz.jsonl")
    assert big2["match"] == {"sim-1-m000000"} and ddz["match"] == {"sim-ddz-1-m000000"}
    assert all(not big2[key] & ddz[key] for key in big2), (big2, ddz)
    wh = str(tmp_path / "wh")
    paths = [str(tmp_path / f"{name}.jsonl") for name in runs]
    result = CliRunner().invoke(app, ["ingest", *paths, "--warehouse", wh, "--strict"])
    assert result.exit_code == 0, result.output
    report = CliRunner().invoke(app, ["report", "--match", "sim-1-m000000", "--warehouse", wh])
    assert report.exit_code == 0, report.output
    assert "Dou Dizhu" not in report.output and "sim-1-p0" in report.output


def test_a_killed_writers_file_is_removed_by_the_next(tmp_path: Path) -> None:
    """A simulation killed outright (SIGKILL) leaves its hidden file: the next run into the same
    path removes it, and leaves the file of a writer still running."""
    out = tmp_path / "out.jsonl"
    killed = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.DEVNULL
    )
    killed.kill()
    killed.wait()
    left = tmp_path / f".out.jsonl.{killed.pid}.tmp"
    left.write_bytes(b'{"half": ')
    running = tmp_path / f".out.jsonl.{os.getppid()}.tmp"  # pytest's parent: alive
    running.write_bytes(b"")
    other = tmp_path / f".other.jsonl.{killed.pid}.tmp"  # another path's: not this writer's
    other.write_bytes(b"")
    assert stale_files(out) == [left]
    done = simulate_to_file(SimConfig(games=8, seed=1, bots=MIXED, match_games=2), out, workers=1)
    assert done.games == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [out.name, running.name, other.name]
    )


def test_memory_limit_without_ingest_is_refused_before_simulating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it only limits the build after the import: without --ingest it was ignored, even "abc"
    out = tmp_path / "m.jsonl"
    args = ["simulate", "-n", "2", "--out", str(out), "--workers", "1"]
    for limit in ("abc", "1GB"):
        bad = CliRunner().invoke(app, [*args, "--memory-limit", limit])
        assert bad.exit_code == 2, bad.output
        assert f"E_SIM_OPTION: --memory-limit {limit} without --ingest" in bad.output
        assert not out.exists()  # refused before any game was played
    # the environment's BIG2_BUILD_MEMORY, which other commands read too, is not refused
    monkeypatch.setenv("BIG2_BUILD_MEMORY", "1GB")
    assert CliRunner().invoke(app, args).exit_code == 0
    assert out.exists()


@pytest.mark.parametrize("command", ["simulate", "demo"])
def test_ingest_into_a_file_is_refused_before_simulating(tmp_path: Path, command: str) -> None:
    # the check `big2 ingest` makes of its -w (Warehouse.make_folder), now before the run
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("not a warehouse\n")
    out = tmp_path / "w.jsonl"
    args = {
        "simulate": ["simulate", "-n", "2", "--out", str(out), "--workers", "1", "--ingest"],
        "demo": ["demo", "-n", "2", "--log", str(out), "--no-dashboard"],
    }[command]
    bad = CliRunner().invoke(app, [*args, "-w", str(not_a_folder)])
    assert bad.exit_code == 2, bad.output
    assert f"E_WAREHOUSE: cannot write to {not_a_folder}" in bad.output
    assert not out.exists()  # no game was simulated
    assert not_a_folder.read_text() == "not a warehouse\n"
