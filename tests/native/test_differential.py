"""The native core and the Python engine give the same answers (issue 15's differential test).

Random simulated games under every preset and the rare options, in every card notation, with
full and partial information, and the same games mutated (actions swapped, cards not in hand,
out of turn, lower plays, a pass while leading, a false result, a broken deal, an unfinished or
overlong log, a time going backwards, a bad token) go through both paths: identical facts, or
identical reject codes, messages and action indexes. Skipped only when the extension is not built.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import native
from pipeline.big2.rules import load_ruleset
from pipeline.logs.model import Reject, Source
from pipeline.sim.sample import sample_game, to_partial
from tests.native import MODULE, NEEDS_CORE

pytestmark = NEEDS_CORE

#: (preset, overrides): every preset, and each rare option on top of one.
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("hk", {}),
    ("hk-classic", {}),
    ("taiwan", {}),
    ("mainland", {}),
    ("hk", {"players": 2}),
    ("hk", {"players": 3}),
    ("hk", {"players": 3, "three_player_mode": "stock_13"}),
    ("hk", {"players": 3, "three_player_mode": "swap_leftover"}),
    ("hk", {"players": 5}),
    ("hk", {"players": 7}),
    ("hk", {"direction": "clockwise"}),
    ("hk", {"direction": "alternate"}),
    ("hk", {"first_play_must_contain_lowest": "single"}),
    ("hk", {"first_play_must_contain_lowest": "none"}),
    ("hk", {"first_lead": "lowest_card_every_game"}),
    ("hk", {"pass_locks_out": False}),
    ("hk", {"must_block": "enforced"}),
    ("hk", {"must_block": "off"}),
    ("hk", {"last_card_call": "required"}),
    ("hk", {"bombs": True, "four_of_a_kind": "alone"}),
    ("hk", {"four_of_a_kind": "off"}),
    ("hk", {"allow_four_card_quads": True, "allow_two_pairs": True}),
    ("hk", {"allow_two_pairs_plus_one": True, "allow_triples": False}),
    ("hk", {"straight_order": "big2_natural", "flush_compare": "suit_then_ranks"}),
    ("hk", {"straight_order": "poker", "flush_compare": "highest_card"}),
    ("hk", {"straight_order": "a2345_top_poker"}),
    ("hk", {"straight_order": "akqjt_top_poker", "suit_order": "taiwan"}),
    ("taiwan", {"royal_only_beats_quads": True}),
    ("hk", {"dragon_instant_win": True, "four_twos_instant_win": True}),
    ("hk", {"redeal_if": ["no_jqk", "points_below_3", "no_card_above_10"]}),
]


def _plays(game: dict[str, Any]) -> list[int]:
    return [i for i, a in enumerate(game["actions"]) if a["action"] == "play"]


def _mutate(game: dict[str, Any], how: str, rng: random.Random) -> dict[str, Any]:
    """One kind of damage to a good game log (some may still leave it legal)."""
    g = copy.deepcopy(game)
    actions = g["actions"]
    plays = _plays(g)
    if how == "swap" and len(actions) > 2:
        i = rng.randrange(len(actions) - 1)
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    elif how == "out_of_turn" and actions:
        i = rng.randrange(len(actions))
        actions[i]["seat"] = (actions[i]["seat"] + 1 + rng.randrange(3)) % len(g["seats"])
    elif how == "not_in_hand" and plays and "deal" in g:
        i = rng.choice(plays)
        other = (actions[i]["seat"] + 1) % len(g["seats"])
        hand = g["deal"]["hands"][other]
        tokens = hand.split() if isinstance(hand, str) else hand
        if tokens:
            actions[i]["cards"] = rng.choice(tokens)
    elif how == "lower" and plays:
        i = rng.choice(plays)
        actions[i]["cards"] = rng.choice(["3d", "3c", "4d", "3d 3c", "3h 3s"])
    elif how == "pass_leading" and plays:
        i = rng.choice(plays)
        actions[i] = {"seat": actions[i]["seat"], "action": "pass"}
    elif how == "result":
        if g.get("result") and g["result"].get("winner") is not None:
            g["result"]["winner"] = (g["result"]["winner"] + 1) % len(g["seats"])
        g.setdefault("result", {})["cards_left"] = [1] * len(g["seats"])
    elif how == "deal" and "deal" in g:
        hands = g["deal"]["hands"]
        if isinstance(hands[0], str):
            hands[1] = " ".join([hands[0].split()[0], *hands[1].split()[1:]])
    elif how == "unfinished" and actions:
        del actions[-rng.randrange(1, min(len(actions), 5) + 1) :]
    elif how == "after_end":
        actions.append({"seat": 0, "action": "pass"})
    elif how == "ts_back" and len(actions) > 3 and "ts" in actions[2]:
        actions[2]["ts"] = actions[1]["ts"] - 5
    elif how == "bad_token" and plays:
        actions[rng.choice(plays)]["cards"] = "11x"
    elif how == "announce" and actions:
        actions.insert(
            rng.randrange(len(actions)), {"seat": actions[0]["seat"], "action": "announce"}
        )
    elif how == "claim":
        actions.insert(0, {"seat": 0, "action": "claim", "claim": rng.choice(["dragon", "no_jqk"])})
    elif how == "seat_count":
        g["seats"] = g["seats"][:-1] if len(g["seats"]) > 2 else g["seats"]
    elif how == "bad_override":
        g["ruleset"] = {"preset": "hk", "overrides": {"bomb": True}}
    return g


MUTATIONS = [
    "swap", "out_of_turn", "not_in_hand", "lower", "pass_leading", "result", "deal",
    "unfinished", "after_end", "ts_back", "bad_token", "announce", "claim", "seat_count",
    "bad_override",
]  # fmt: skip


def _both(line: str, core: native.NativeReplayer) -> tuple[Any, Any]:
    source = Source("diff.jsonl", 7)
    return core.replay_line(line, source), native.replay_line_python(line, source)


def _line(game: dict[str, Any]) -> str:
    return orjson.dumps(game).decode()


@pytest.fixture(scope="module")
def core() -> native.NativeReplayer:
    assert MODULE is not None
    return native.NativeReplayer(MODULE)


def _game(seed: int, option: int, notation: str, partial: bool) -> dict[str, Any]:
    preset, overrides = OPTIONS[option]
    players = load_ruleset(preset, overrides).players
    game = sample_game(
        seed=seed,
        game_id=f"d-{seed}",
        preset=preset,
        overrides=overrides,
        notation=notation,
        game_number=1 + seed % 2,  # direction = alternate turns on it
        previous_winner=seed % players if seed % 3 == 0 else None,  # a match's later game
    )
    return to_partial(game) if partial else game


_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_SETTINGS
@given(
    seed=st.integers(0, 10**6),
    option=st.integers(0, len(OPTIONS) - 1),
    notation=st.sampled_from(["compact", "pretty", "list"]),
    partial=st.booleans(),
)
def test_simulated_games_give_the_same_facts(
    core: native.NativeReplayer, seed: int, option: int, notation: str, partial: bool
) -> None:
    mine, reference = _both(_line(_game(seed, option, notation, partial)), core)
    assert mine == reference


@_SETTINGS
@given(
    seed=st.integers(0, 10**6),
    option=st.integers(0, len(OPTIONS) - 1),
    how=st.sampled_from(MUTATIONS),
    partial=st.booleans(),
)
def test_mutated_games_give_the_same_answer(
    core: native.NativeReplayer, seed: int, option: int, how: str, partial: bool
) -> None:
    game = _mutate(_game(seed, option, "compact", partial), how, random.Random(seed))
    mine, reference = _both(_line(game), core)
    assert mine == reference


def test_every_option_and_mutation_replays_on_the_core_itself() -> None:
    """The comparison is not vacuous: compact lines are read and judged by the core (not handed
    back to the Python reader), for every option, and its rejects include the engine's codes."""
    assert MODULE is not None
    raw = MODULE.Core(native.resolve_ruleset)
    codes = set()
    for option in range(len(OPTIONS)):
        game = _game(option, option, "compact", False)
        got = raw.replay_line(_line(game))
        assert got is not None and got[0] == "ok", OPTIONS[option]
        for how in MUTATIONS:
            answer = raw.replay_line(_line(_mutate(game, how, random.Random(option))))
            if answer is not None and answer[0] == "reject":
                codes.add(answer[3])
    assert {
        "E_OUT_OF_TURN", "E_NOT_IN_HAND", "E_NOT_HIGHER", "E_LEAD_PASS", "E_RESULT_MISMATCH",
        "E_DEAL_DUPLICATE", "E_UNFINISHED", "E_ACTIONS_AFTER_END", "E_SEAT_COUNT",
        "E_RULESET_KEY", "E_CALL_NOT_LAST",
    } <= codes, codes  # fmt: skip


def test_a_reject_names_file_line_game_and_action(core: native.NativeReplayer) -> None:
    game = sample_game(seed=5, game_id="named-1")
    game["actions"][1]["seat"] = (game["actions"][1]["seat"] + 2) % 4
    mine, reference = _both(_line(game), core)
    assert isinstance(mine, Reject) and mine == reference
    assert (mine.source.file, mine.source.line, mine.game_id, mine.action_index) == (
        "diff.jsonl", 7, "named-1", 1,
    )  # fmt: skip
    assert mine.code == "E_OUT_OF_TURN" and mine.message.startswith("actions[1]: seat ")


@pytest.mark.parametrize("name", ["Ann", 'A "quoted" name'])
def test_a_struct_written_as_a_list_is_the_readers(core: native.NativeReplayer, name: str) -> None:
    """A seat or an action written as the list of its values is a schema error (the Python
    reader's E_SCHEMA), also on a line the core's serde path reads (an escaped name)."""
    for part in ("seats", "actions"):
        game = sample_game(seed=6, game_id="listed-1")
        game["seats"][1]["name"] = name
        game[part][0] = list(game[part][0].values())
        mine, reference = _both(_line(game), core)
        assert isinstance(reference, Reject) and reference.code == "E_SCHEMA"
        assert mine == reference


def test_the_sample_files_give_the_same_answers(core: native.NativeReplayer) -> None:
    from pipeline.logs.jsonl import iter_jsonl_lines, open_log

    for name in ("games.jsonl", "bad.jsonl", "partial.jsonl"):
        with open_log(f"data/samples/{name}") as fh:
            for item in iter_jsonl_lines(fh, name):
                if not isinstance(item, Reject):
                    source, text = item
                    assert core.replay_line(text, source) == native.replay_line_python(text, source)


def test_a_ruleset_is_resolved_once(core: native.NativeReplayer) -> None:
    calls: list[tuple[str, str]] = []

    def counting(preset: str, overrides: str) -> tuple[bool, str, str, str, str]:
        calls.append((preset, overrides))
        return native.resolve_ruleset(preset, overrides)

    assert MODULE is not None
    raw = MODULE.Core(counting)
    for seed in range(3):
        raw.validate_line(
            _line(sample_game(seed=seed, game_id=f"r{seed}", overrides={"bombs": True}))
        )
    assert calls == [("hk", json.dumps({"bombs": True}, separators=(",", ":")))]


def test_a_game_timed_in_iso_replays_to_the_records_python_gives(
    core: native.NativeReplayer,
) -> None:
    """``replay_game`` (the core's replay, the reader's metadata: a repeat's, a line whose rows
    Python builds) of a game whose ``ts`` are ISO times gives the record the Python reader and
    engine give, each action's ``ts`` the reader's seconds."""
    from tests.native.test_rows import _as_iso

    source = Source("iso.jsonl", 3)
    for seed in range(6):
        game = _as_iso(
            _game(seed, seed % len(OPTIONS), "compact", False), ("milliseconds", 480, "offset")
        )
        line = _line(game)
        mine, reference = core.replay_game(line, source), native.replay_game_python(line, source)
        assert not isinstance(mine, Reject) and not isinstance(reference, Reject)
        assert [a.ts for a in mine.record.actions] == [a.ts for a in reference.record.actions]
        assert mine.record == reference.record


#: Each suit's spellings ``pipeline.cards`` reads, and each rank's (ten: ``10``, ``T``, ``t``).
_SUIT_SPELLINGS = [
    ["d", "D", "♦", "♢", "階磚", "阶砖", "方块", "方塊"],
    ["c", "C", "♣", "♧", "梅花"],
    ["h", "H", "♥", "♡", "紅心", "红心", "紅桃", "红桃"],
    ["s", "S", "♠", "♤", "葵扇", "黑桃", "黑心"],
]
_RANK_SPELLINGS = [[t, t.lower()] for t in ("3", "4", "5", "6", "7", "8", "9")] + [
    ["10", "T", "t"], ["J", "j"], ["Q", "q"], ["K", "k"], ["A", "a"], ["2"]
]  # fmt: skip
_GAPS = ["", "", " ", ",", ", ", ";", "/", "|", "-", " - ", "\u3000", "\u00a0", "\x1c", "]["]
#: What no notation holds (a case-folded long s or Kelvin sign, an em space, a lone rank).
_NOISE = ["3ſ", "\u212a♠", "\u20033d", "1d", "10", "紅3"]


def _spell(card: int, rng: random.Random) -> str:
    rank = rng.choice(_RANK_SPELLINGS[card >> 2])
    suit = rng.choice(_SUIT_SPELLINGS[card & 3])
    return rank + suit if rng.random() < 0.5 else suit + rank


def _notate(game: dict[str, Any], rng: random.Random, noise: float) -> dict[str, Any]:
    """``game`` with every card string (hands, stock, plays) in a random notation: each card
    spelled its own way, run together or apart by any separator, the whole maybe bracketed;
    a list's tokens each spelled so, maybe padded; with probability ``noise`` a card of a
    string or list is something no notation reads."""
    from pipeline.cards import parse_cards

    def text(value: Any) -> Any:
        if isinstance(value, list):
            out = [_spell(c, rng) for c in parse_cards(value)]
            out = [rng.choice(["", " ", "\u3000"]) + t if rng.random() < 0.2 else t for t in out]
            if out and rng.random() < noise:
                out[rng.randrange(len(out))] = rng.choice(_NOISE)
            return out
        pieces = [_spell(c, rng) for c in parse_cards(value)]
        if pieces and rng.random() < noise:
            pieces[rng.randrange(len(pieces))] = rng.choice(_NOISE)
        out = "".join(p + rng.choice(_GAPS) for p in pieces).rstrip("][")
        return f"[{out}]" if rng.random() < 0.2 else out

    g = copy.deepcopy(game)
    if "deal" in g:
        g["deal"]["hands"] = [text(h) for h in g["deal"]["hands"]]
        if "stock" in g["deal"]:
            g["deal"]["stock"] = text(g["deal"]["stock"])
    for a in g["actions"]:
        if a.get("cards"):
            a["cards"] = text(a["cards"])
    return g


@_SETTINGS
@given(
    seed=st.integers(0, 10**6),
    option=st.integers(0, len(OPTIONS) - 1),
    notation=st.sampled_from(["compact", "list"]),
    noise=st.sampled_from([0.0, 0.0, 0.05, 0.5]),
)
def test_cards_in_any_notation_give_the_same_answer(
    core: native.NativeReplayer, seed: int, option: int, notation: str, noise: float
) -> None:
    """Cards spelled in every notation ``pipeline.cards`` reads (run together, Chinese suit
    names, any separator, suit first, any case), with a card no notation reads now and then:
    the core gives the records, or the reject, Python gives."""
    game = _notate(_game(seed, option, notation, seed % 5 == 0), random.Random(seed), noise)
    mine, reference = _both(_line(game), core)
    assert mine == reference


def test_cards_in_any_notation_are_read_by_the_core_itself() -> None:
    """The comparison is not vacuous: games in those notations are read by the core (not
    handed back to the Python reader), under every option."""
    assert MODULE is not None
    raw = MODULE.Core(native.resolve_ruleset)
    for option in range(len(OPTIONS)):
        for notation in ("compact", "list"):
            rng = random.Random(option)
            game = _notate(_game(option, option, notation, False), rng, 0.0)
            got = raw.replay_line(_line(game))
            assert got is not None and got[0] == "ok", (OPTIONS[option], _line(game)[:300])
