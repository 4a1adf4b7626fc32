"""Dou Dizhu on the native core and in the Python engine give the same answers (issue 15's
differential test, extended to Dou Dizhu).

Games played by the Dou Dizhu bots (random, greedy, heuristic, and the engine's own random
legal games) under every preset and each ruleset parameter of spec section 2, in three card
notations, with full and partial information, and the same games mutated (actions swapped,
out of turn, cards not in hand, lower plays, a pass on the lead, bids out of range or not
higher, the wrong auction form, a named kind, a false result, a broken deal, a face-up card
nobody holds, an unfinished or overlong log, a bad token, a seat missing, a bad override) go
through both paths: the same record, ruleset, engine records and result (their ``repr``, so
enums and int/float too), or the same reject (code, message, file, line, game, action).
Any card set as a lead, or on a play, checks the classifier (airplanes with wings, bombs, the
rocket, four + two) and its explanations. Skipped only when the extension is not built.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.doudizhu.cards import format_cards
from pipeline.doudizhu.combos import Kind
from pipeline.doudizhu.rules import load_ruleset
from pipeline.doudizhu.state import random_game
from pipeline.logs.model import Reject, Source
from pipeline.replay import ReplayedGame
from pipeline.sim.ddz_play import action_dict, log_line, play_game, result_dict
from tests.native import MODULE, NEEDS_CORE

pytestmark = NEEDS_CORE

#: (preset, overrides): every Dou Dizhu preset, and each parameter of spec 2.2-2.6 on top.
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("ddz", {}),
    ("ddz-2p", {}),
    ("ddz", {"bid_reentry": False}),
    ("ddz", {"bidding": "call"}),
    ("ddz", {"four_with_two": False}),
    ("ddz", {"spring_doubles": True}),
    ("ddz", {"multiplier_cap": 4}),
    ("ddz", {"multiplier_cap": 1, "spring_doubles": True}),
    ("ddz", {"stake": 2.5}),
    ("ddz", {"stake": 3}),
    ("ddz", {"stake": 0.1, "spring_doubles": True}),
    ("ddz-2p", {"hand_size": 17}),
    ("ddz-2p", {"bidding": "points"}),
    ("ddz-2p", {"bidding": "points", "bid_reentry": False, "four_with_two": False}),
]
BOTS = ["random", "greedy", "heuristic", "engine"]
_SOURCE = Source("ddz-diff.jsonl", 11)
_COMPACT_RANK = {"10": "T"}
_JOKERS = {"BJ": ["BJ", "小王", "bj", "SJ"], "RJ": ["RJ", "大王", "rj", "大怪"]}
_SUIT_LETTER = {"♦": "d", "♣": "c", "♥": "h", "♠": "s"}


def _token(card: str, notation: str, rng: random.Random) -> str:
    if card in _JOKERS:
        return rng.choice(_JOKERS[card]) if notation != "pretty" else card
    if notation == "pretty":
        return card
    rank, suit = card[:-1], card[-1]
    return _COMPACT_RANK.get(rank, rank) + _SUIT_LETTER[suit]


def _cards(text: str, notation: str, rng: random.Random) -> Any:
    tokens = [_token(c, notation, rng) for c in text.split()]
    return tokens if notation == "list" else " ".join(tokens)


def _renotate(game: dict[str, Any], notation: str, rng: random.Random) -> dict[str, Any]:
    g = copy.deepcopy(game)
    if "deal" in g:
        deal = g["deal"]
        deal["hands"] = [_cards(h, notation, rng) for h in deal["hands"]]
        for key in ("kitty", "set_aside", "face_up_card"):
            if key in deal:
                deal[key] = _cards(deal[key], notation, rng)
    for a in g["actions"]:
        if "cards" in a:
            a["cards"] = _cards(a["cards"], notation, rng)
    return g


def _engine_line(seed: int, preset: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """A random legal game of the engine's own (:func:`random_game`) as a log line."""
    rs = load_ruleset(preset, overrides)
    (hands, kitty, aside), first, actions = random_game(rs, random.Random(seed))
    from pipeline.doudizhu.state import Game

    game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=first)
    for a in actions:
        game.do(a)
    assert game.result is not None
    record = {
        "hands": hands,
        "kitty": kitty,
        "set_aside": aside,
        "face_up_card": None,
        "first_bidder": first,
        "actions": [action_dict(a) for a in actions],
        "result": result_dict(game.result),
        "preset": preset,
        "overrides": overrides,
    }
    line = log_line(record, game_id=f"e-{seed}")
    line["first_bidder"] = first
    return line


def _game(seed: int, option: int, bots: str, notation: str, partial: bool) -> dict[str, Any]:
    preset, overrides = OPTIONS[option]
    rs = load_ruleset(preset, overrides)
    rng = random.Random(seed)
    if bots == "engine":
        line = _engine_line(seed, preset, overrides)
    else:
        names = [bots if k == 0 else rng.choice(BOTS[:3]) for k in range(rs.players)]
        deals = play_game(rs, names, seed=seed, index=seed % 7)
        record = deals[rng.randrange(len(deals))]  # a void deal now and then
        record = {**record, "preset": preset, "overrides": overrides}
        line = log_line(record, game_id=f"s-{seed}")
    clock = 1_785_000_000.0 + seed
    for a in line["actions"]:
        if rng.random() < 0.9:
            clock += rng.choice([0.5, 1.25, 2])
            a["ts"] = clock
    if partial:
        line.pop("deal", None)
        if rng.random() < 0.5:
            line.pop("first_bidder", None)
    return _renotate(line, notation, rng)


def _line(game: dict[str, Any]) -> str:
    return orjson.dumps(game).decode()


def _plays(game: dict[str, Any]) -> list[int]:
    return [i for i, a in enumerate(game["actions"]) if a["action"] == "play"]


def _bids(game: dict[str, Any]) -> list[int]:
    return [i for i, a in enumerate(game["actions"]) if a["action"] in ("bid", "call", "no_call")]


def _mutate(game: dict[str, Any], how: str, rng: random.Random) -> dict[str, Any]:
    """One kind of damage to a good Dou Dizhu log (some may still leave it legal)."""
    g = copy.deepcopy(game)
    actions = g["actions"]
    plays, bids = _plays(g), _bids(g)
    n = len(g["seats"])
    if how == "swap" and len(actions) > 2:
        i = rng.randrange(len(actions) - 1)
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    elif how == "out_of_turn" and actions:
        i = rng.randrange(len(actions))
        actions[i]["seat"] = (actions[i]["seat"] + 1) % n
    elif how == "not_in_hand" and plays and "deal" in g:
        i = rng.choice(plays)
        other = (actions[i]["seat"] + 1) % n
        hand = g["deal"]["hands"][other]
        tokens = hand.split() if isinstance(hand, str) else hand
        actions[i]["cards"] = rng.choice(tokens)
    elif how == "lower" and plays:
        actions[rng.choice(plays)]["cards"] = rng.choice(
            ["3d", "3d 3c", "3d 3c 3h", "3d 3c 3h 4s", "3d 4d 5d 6d 7d", "3d 3c 3h 3s", "BJ RJ"]
        )
    elif how == "not_a_combo" and plays:
        actions[rng.choice(plays)]["cards"] = rng.choice(
            [
                "3d 4d",
                "3d 3c 4d 4c",
                "Jd Qd Kd Ad 2d",
                "3d 3c 3h 3s BJ RJ",
                "3d 3c 3h 4d 4c 4h 7d 7c 6d",
            ]
        )
    elif how == "kind" and plays:
        actions[rng.choice(plays)]["kind"] = rng.choice([k.value for k in Kind])
    elif how == "pass_leading" and plays:
        i = rng.choice(plays)
        actions[i] = {"seat": actions[i]["seat"], "action": "pass"}
    elif how == "bid_value" and bids:
        i = rng.choice(bids)
        actions[i] = {
            "seat": actions[i]["seat"],
            "action": "bid",
            "value": rng.choice([-1, 4, 1, 2, 3]),
        }
    elif how == "auction_form" and bids:
        i = rng.choice(bids)
        form = rng.choice(
            [{"action": "call"}, {"action": "no_call"}, {"action": "bid", "value": 0}]
        )
        actions[i] = {"seat": actions[i]["seat"], **form}
    elif how == "phase" and plays:
        actions.insert(rng.choice(plays), {"seat": actions[plays[0]]["seat"], "action": "call"})
    elif how == "result":
        result = g.setdefault("result", {})
        key = rng.choice(
            ["winner", "landlord", "amount", "scores", "spring", "landlord_won", "bombs",
             "multiplier", "outcome", "base", "rockets"]
        )  # fmt: skip
        result[key] = rng.choice(
            {
                "winner": [0, 1], "landlord": [0, 1], "amount": [3.5, 2, 0.1, 1e-05, 1e16],
                "scores": [[1, 2, 3], [1.5, -3.0], [2, -1, -1], []], "spring": ["spring", "anti_spring"],
                "landlord_won": [True, False, 1], "bombs": [1, 2.0, True], "multiplier": [2, 16],
                "outcome": ["redeal", "played_out", 5], "base": [3, "3"], "rockets": [1, 0],
            }[key]
        )  # fmt: skip
    elif how == "deal" and "deal" in g:
        deal = g["deal"]
        choice = rng.randrange(4)
        if choice == 0:
            deal["hands"] = deal["hands"][:-1]
        elif choice == 1 and "kitty" in deal:
            deal["kitty"] = (
                deal["hands"][0][0]
                if isinstance(deal["hands"][0], list)
                else deal["hands"][0].split()[0]
            )
        elif choice == 2:
            deal["face_up_card"] = "RJ" if "RJ" in str(deal) else "BJ"
            deal.pop("set_aside", None)
        else:
            g["first_bidder"] = (g.get("first_bidder", 0) + 1) % n
    elif how == "unfinished" and actions:
        del actions[-rng.randrange(1, min(len(actions), 5) + 1) :]
    elif how == "after_end":
        actions.append({"seat": rng.randrange(n), "action": "pass"})
    elif how == "bad_token" and plays:
        actions[rng.choice(plays)]["cards"] = "11x"
    elif how == "seat_count":
        g["seats"] = g["seats"][:-1] if n > 2 else [*g["seats"], {"seat": 2, "player_id": "x"}]
    elif how == "bad_override":
        g["ruleset"] = rng.choice(
            [
                {"preset": "ddz", "overrides": {"spring_double": True}},
                {"preset": "ddz", "overrides": {"players": 4}},
                {"preset": "ddz", "overrides": {"hand_size": 20}},
                {"preset": "ddz-3p"},
                {"preset": "ddz", "overrides": {"stake": [1]}},
            ]
        )
    return g


MUTATIONS = [
    "swap", "out_of_turn", "not_in_hand", "lower", "not_a_combo", "kind", "pass_leading",
    "bid_value", "auction_form", "phase", "result", "deal", "unfinished", "after_end",
    "bad_token", "seat_count", "bad_override",
]  # fmt: skip


def _same(mine: ReplayedGame | Reject | None, reference: ReplayedGame | Reject) -> None:
    if mine is None:  # the core left the line to the Python reader: the same answer by design
        return
    if isinstance(reference, Reject):
        assert mine == reference
        return
    assert isinstance(mine, ReplayedGame)
    assert mine.record == reference.record
    assert mine.ruleset == reference.ruleset
    assert repr(mine.actions) == repr(reference.actions)
    assert repr(mine.result) == repr(reference.result)


@pytest.fixture(scope="module")
def core() -> native.DdzReplayer:
    assert MODULE is not None
    return native.DdzReplayer(MODULE)


def _both(line: str, core: native.DdzReplayer) -> tuple[Any, Any]:
    return core.replay_game(line, _SOURCE), native.replay_game_python(line, _SOURCE)


_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_SETTINGS
@given(
    seed=st.integers(0, 10**6),
    option=st.integers(0, len(OPTIONS) - 1),
    bots=st.sampled_from(BOTS),
    notation=st.sampled_from(["compact", "pretty", "list"]),
    partial=st.booleans(),
)
def test_ddz_games_give_the_same_replay(
    core: native.DdzReplayer, seed: int, option: int, bots: str, notation: str, partial: bool
) -> None:
    mine, reference = _both(_line(_game(seed, option, bots, notation, partial)), core)
    assert mine is not None  # a good line in a common notation: the core's own
    _same(mine, reference)


@_SETTINGS
@given(
    seed=st.integers(0, 10**6),
    option=st.integers(0, len(OPTIONS) - 1),
    bots=st.sampled_from(BOTS),
    how=st.sampled_from(MUTATIONS),
    partial=st.booleans(),
)
def test_mutated_ddz_games_give_the_same_answer(
    core: native.DdzReplayer, seed: int, option: int, bots: str, how: str, partial: bool
) -> None:
    game = _mutate(_game(seed, option, bots, "compact", partial), how, random.Random(seed))
    mine, reference = _both(_line(game), core)
    _same(mine, reference)


_ALL_CARDS = [*(f"{r}{s}" for r in "3456789TJQKA2" for s in "dchs"), "BJ", "RJ"]


@settings(max_examples=400, deadline=None)
@given(
    cards=st.lists(st.sampled_from(_ALL_CARDS), min_size=0, max_size=14, unique=True),
    top=st.one_of(
        st.none(), st.lists(st.sampled_from(_ALL_CARDS), min_size=1, max_size=12, unique=True)
    ),
    kind=st.one_of(st.none(), st.sampled_from([k.value for k in Kind])),
    option=st.integers(0, len(OPTIONS) - 1),
)
def test_any_card_set_gives_the_same_reading_or_reject(
    cards: list[str], top: list[str] | None, kind: str | None, option: int
) -> None:
    """Partial information (no deal): a card set as the lead, or on another play when that
    one is a combination (then the set follows it); the readings, beats and explanations."""
    assert MODULE is not None
    preset, overrides = OPTIONS[option]
    rs = load_ruleset(preset, overrides)
    landlord_first = (
        [{"seat": 0, "action": "call"}]
        if rs.bidding.value == "call"
        else [{"seat": 0, "action": "bid", "value": 3}]
    )
    actions: list[dict[str, Any]] = [*landlord_first]
    if top is not None:
        actions.append({"seat": 0, "action": "play", "cards": " ".join(top)})
        play_seat = 1
    else:
        play_seat = 0
    move: dict[str, Any] = {"seat": play_seat, "action": "play", "cards": " ".join(cards)}
    if kind is not None:
        move["kind"] = kind
    actions.append(move)
    game = {
        "format_version": 1,
        "game_kind": "doudizhu",
        "game_id": "cards-1",
        "ruleset": {"preset": preset, "overrides": overrides},
        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(rs.players)],
        "actions": actions,
    }
    line = _line(game)
    mine = native.DdzReplayer(MODULE).replay_game(line, _SOURCE)
    assert mine is not None
    _same(mine, native.replay_game_python(line, _SOURCE))


def test_every_option_and_mutation_is_judged_by_the_core_itself() -> None:
    """The comparison is not vacuous: compact lines are read and judged by the core (not
    handed back to the Python reader), for every option, and its rejects cover the codes."""
    assert MODULE is not None
    raw = MODULE.DdzCore(native.resolve_ddz_ruleset)
    codes: set[str] = set()
    left: set[str] = set()
    for option in range(len(OPTIONS)):
        for k, bots in enumerate(BOTS):
            game = _game(option * 10 + k, option, bots, "compact", False)
            got = raw.replay_line(_line(game))
            assert got is not None and got[0] == "ok", OPTIONS[option]
            for partial in (False, True):
                base = _game(option * 10 + k, option, bots, "compact", partial)
                for how in MUTATIONS:
                    for r in range(3):
                        bad = _mutate(base, how, random.Random(option * 100 + k * 10 + r))
                        answer = raw.replay_line(_line(bad))
                        if answer is None:
                            left.add(how)
                        if answer is not None and answer[0] == "reject":
                            codes.add(answer[3])
    expected = {
        "E_DDZ_OUT_OF_TURN", "E_DDZ_NOT_IN_HAND", "E_DDZ_NOT_HIGHER", "E_DDZ_WRONG_KIND",
        "E_DDZ_NOT_A_COMBO", "E_DDZ_KIND_NAMED", "E_DDZ_PASS_ON_LEAD", "E_DDZ_BID_VALUE",
        "E_DDZ_BID_NOT_HIGHER", "E_DDZ_AUCTION", "E_DDZ_PHASE", "E_DDZ_GAME_OVER",
        "E_DDZ_DEAL_COUNT", "E_DDZ_DEAL_DUPLICATE", "E_DDZ_FACE_UP", "E_RESULT_MISMATCH",
        "E_UNFINISHED", "E_SEAT_COUNT", "E_RULESET_KEY", "E_RULESET_VALUE", "E_RULESET_PRESET",
    }  # fmt: skip
    assert expected <= codes, expected - codes
    # the Python reader's: a bad token, a seat beyond the seats listed (schema errors) and a
    # mismatch message printing a number the core may read a unit off (1e16)
    assert left <= {"bad_token", "seat_count", "result"}, left


def test_a_ddz_reject_names_file_line_game_and_action(core: native.DdzReplayer) -> None:
    game = _game(5, 0, "greedy", "compact", False)
    game["game_id"] = "named-1"
    i = _plays(game)[1]
    game["actions"][i]["seat"] = (game["actions"][i]["seat"] + 1) % 3
    mine, reference = _both(_line(game), core)
    assert isinstance(mine, Reject) and mine == reference
    assert (mine.source.file, mine.source.line, mine.game_id, mine.action_index) == (
        "ddz-diff.jsonl", 11, "named-1", i,
    )  # fmt: skip
    assert mine.code == "E_DDZ_OUT_OF_TURN" and mine.message.startswith(f"actions[{i}]: seat ")


def test_a_deal_without_its_kitty_is_the_python_readers(core: native.DdzReplayer) -> None:
    """Hands without the kitty are refused (the landlord would take no cards): the core leaves
    the line to the Python reader, whose E_SCHEMA both paths give."""
    game = _game(3, 0, "greedy", "compact", False)
    del game["deal"]["kitty"]
    mine, reference = _both(_line(game), core)
    assert mine is None  # left to the Python reader
    assert isinstance(reference, Reject) and reference.code == "E_SCHEMA"
    assert reference.message.startswith("deal.kitty: missing")


def test_a_ddz_ruleset_is_resolved_once() -> None:
    calls: list[tuple[str, str]] = []

    def counting(preset: str, overrides: str) -> tuple[bool, str, str, str, str]:
        calls.append((preset, overrides))
        return native.resolve_ddz_ruleset(preset, overrides)

    assert MODULE is not None
    raw = MODULE.DdzCore(counting)
    for seed in range(3):
        assert raw.validate_line(_line(_game(seed, 5, "greedy", "pretty", False)))[0] == "ok"
    assert calls == [("ddz", '{"spring_doubles":true}')]


def test_the_big2_replayer_hands_ddz_lines_to_the_ddz_core() -> None:
    """``pipeline.native.replay_game`` (what the import calls for a line the Big Two core does
    not read) replays a Dou Dizhu line on the Dou Dizhu core, and a Big Two line as before."""
    assert MODULE is not None
    both = native.NativeReplayer(MODULE)
    line = _line(_game(9, 1, "heuristic", "pretty", False))
    mine = both.replay_game(line, _SOURCE)
    _same(mine, native.replay_game_python(line, _SOURCE))
    assert both._ddz is not None  # the Dou Dizhu core answered
    assert format_cards(1 << 52) == "BJ"
