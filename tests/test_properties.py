"""Properties of random legal games over seeds and house rules (spec 1.3-1.6).

Random games choose uniformly among ``list(game.legal_plays())`` plus a pass when
``game.can_pass()``. Over presets, player counts, 3-player modes, lock-out and bombs:
every game ends with one winner and every card accounted for, every generated play is
accepted, mutated moves are refused with an ``E_*`` code, and replays are deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.big2.combos import Play, classify, table_for
from pipeline.big2.moves import plays_from
from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.big2.state import Action, ActionType, Game, Outcome
from pipeline.cards import FULL_DECK, cards_of
from pipeline.errors import IllegalPlayError
from tests.engine_helpers import RandomGame, action_of, play_random_game, replay

#: name → (preset, overrides): the presets, 2, 3 and 5-13 players, each 3-player mode, lock-out both
#: ways, bombs on and off, and a few more rules that change who may do what.
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "hk": ("hk", {}),
    "hk-classic": ("hk-classic", {}),
    "taiwan": ("taiwan", {}),
    "mainland": ("mainland", {}),
    "hk-2p": ("hk", {"players": 2}),
    "taiwan-2p": ("taiwan", {"players": 2}),
    "hk-3p-deal_17": ("hk", {"players": 3, "three_player_mode": "deal_17"}),
    "hk-3p-stock_13": ("hk", {"players": 3, "three_player_mode": "stock_13"}),
    "hk-3p-swap": ("hk", {"players": 3, "three_player_mode": "swap_leftover"}),
    "taiwan-3p-stock_13": ("taiwan", {"players": 3, "three_player_mode": "stock_13"}),
    "mainland-3p-swap": ("mainland", {"players": 3, "three_player_mode": "swap_leftover"}),
    "mainland-3p-deal_17": ("mainland", {"players": 3, "three_player_mode": "deal_17"}),
    "hk-no-lock-out": ("hk", {"pass_locks_out": False}),
    "mainland-lock-out": ("mainland", {"pass_locks_out": True}),
    "hk-bombs": ("hk", {"bombs": True}),
    "taiwan-no-bombs": ("taiwan", {"bombs": False}),
    "taiwan-no-lock-out": ("taiwan", {"pass_locks_out": False}),
    "hk-enforced": ("hk", {"must_block": "enforced"}),
    "hk-2p-enforced-bombs": ("hk", {"players": 2, "must_block": "enforced", "bombs": True}),
    "hk-alternate": ("hk", {"direction": "alternate"}),
    "hk-clockwise-3p": ("hk", {"direction": "clockwise", "players": 3}),
    "hk-first-single": ("hk", {"first_play_must_contain_lowest": "single"}),
    "hk-every-game": ("hk", {"first_lead": "lowest_card_every_game"}),
    "mainland-enforced": ("mainland", {"must_block": "enforced"}),
    "taiwan-3p-deal_17": ("taiwan", {"players": 3, "three_player_mode": "deal_17"}),
    "hk-poker-straights": (
        "hk",
        {"straight_order": "poker", "flush_compare": "suit_then_ranks", "bombs": True},
    ),
    "hk-natural-royal": (
        "hk",
        {"straight_order": "big2_natural", "bombs": True, "royal_only_beats_quads": True},
    ),
    "taiwan-four-alone": ("taiwan", {"four_of_a_kind": "alone"}),
    "taiwan-four-off": ("taiwan", {"four_of_a_kind": "off", "royal_only_beats_quads": True}),
    "hk-four-alone-two-pairs": ("hk", {"four_of_a_kind": "alone", "allow_two_pairs": True}),
    "hk-four-off-quads": ("hk", {"four_of_a_kind": "off", "allow_four_card_quads": True}),
    "hk-5p": ("hk", {"players": 5}),
    "taiwan-6p": ("taiwan", {"players": 6}),
    "mainland-7p": ("mainland", {"players": 7}),
    "hk-8p-enforced-clockwise": (
        "hk",
        {"players": 8, "must_block": "enforced", "direction": "clockwise"},
    ),
    "hk-13p": ("hk", {"players": 13}),
    "hk-extra-kinds": (
        "hk",
        {"allow_two_pairs": True, "allow_four_card_quads": True, "allow_two_pairs_plus_one": True},
    ),
}

PROPERTY_SETTINGS = settings(
    deadline=None,
    max_examples=80,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


@dataclass(frozen=True)
class Setup:
    """One random game's inputs: the rules, the seed, and the match context."""

    name: str
    rs: Ruleset
    seed: int
    game_number: int
    previous_winner: int | None

    def play(self, on_step: Any = None) -> RandomGame:
        return play_random_game(
            self.rs,
            random.Random(self.seed),
            game_number=self.game_number,
            previous_winner=self.previous_winner,
            on_step=on_step,
        )


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    name = draw(st.sampled_from(sorted(CONFIGS)))
    preset, overrides = CONFIGS[name]
    rs = load_ruleset(preset, overrides)
    seed = draw(st.integers(0, 2**32 - 1))
    game_number = draw(st.integers(1, 4))
    previous_winner = draw(st.none() | st.integers(0, rs.players - 1))
    return Setup(name, rs, seed, game_number, previous_winner)


def played_mask(game: Game) -> int:
    """Every card played or shown (a swap shows the lowest card) in the game's history."""
    out = 0
    for record in game.history:
        assert not out & record.cards, f"record {record.action_index} plays a card twice"
        out |= record.cards
    return out


# ----- games end, and every card is accounted for (spec 1.1, 1.3, 1.4) ---------------------


@PROPERTY_SETTINGS
@given(setups())
def test_random_games_end_with_one_winner_and_every_card_accounted_for(setup: Setup) -> None:
    played = setup.play()
    game = played.game
    result = game.result
    assert result is not None and game.finished and game.turn is None
    # spec 1.4: the game ends the moment a player has no cards left; that player wins
    assert result.outcome == Outcome.PLAYED_OUT
    assert result.winner is not None
    assert result.cards_left[result.winner] == 0
    assert [s for s, n in enumerate(result.cards_left) if n == 0] == [result.winner]
    assert [r.wins_game for r in game.history] == [False] * (len(game.history) - 1) + [True]
    assert game.history[-1].seat == result.winner
    # spec 1.1: one 52-card deck: played + every final hand + undrawn stock
    hands = result.final_hands
    assert all(h is not None for h in hands)
    assert [h.bit_count() for h in hands if h is not None] == list(result.cards_left)
    parts = [played_mask(game), *(h for h in hands if h is not None), *(1 << c for c in game.stock)]
    union = 0
    for part in parts:
        assert not union & part, "a card is in two places"
        union |= part
    assert union == FULL_DECK
    # spec 1.3: the first leader, tricks numbered from 1 without gaps
    first = next(r for r in game.history if r.type == ActionType.PLAY)
    assert first.is_lead and first.trick == 1 and first.seat == result.first_leader
    tricks = [r.trick for r in game.history]
    assert tricks == sorted(tricks) and set(tricks) == set(range(1, result.n_tricks + 1))
    for before, after in zip(game.history, game.history[1:], strict=False):
        assert after.trick == before.trick + before.ends_trick
        assert after.is_lead == (before.ends_trick or before.type == ActionType.SWAP)


# ----- every generated legal play is accepted (STYLE 3-4) ----------------------------------


@PROPERTY_SETTINGS
@given(setups())
def test_every_generated_legal_play_is_accepted(setup: Setup) -> None:
    checks: list[tuple[list[Action], Action]] = []
    actions: list[Action] = []
    rng = random.Random(setup.seed ^ 0x5EED)

    def on_step(game: Game, chosen: Action) -> None:
        seat = game.turn
        assert seat is not None
        legal = game.legal_plays()
        plays = list(legal)
        assert len(legal) == len(plays) == len({p.mask for p in plays})
        for p in plays:
            assert p in legal and p.mask in legal
            assert game.can(Action.play(seat, p.mask)), f"{p} is generated but refused"
        assert game.can_pass() == game.can(Action.pass_(seat))
        assert game.can(chosen)
        if plays and rng.random() < 0.1:
            checks.append((list(actions), Action.play(seat, rng.choice(plays).mask)))
        actions.append(chosen)

    played = setup.play(on_step)
    # Game.do accepts other generated plays too, on a fresh game brought to the same state
    for prefix, alternative in checks[:4]:
        game = replay(
            setup.rs,
            prefix,
            hands=played.hands,
            stock=played.stock,
            game_number=setup.game_number,
            previous_winner=setup.previous_winner,
        )
        record = game.do(alternative)
        assert record.cards == alternative.cards and record.seat == alternative.seat


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_legal_plays_are_complete_for_small_hands(setup: Setup) -> None:
    # every card set of 1-5 cards from a small hand that Game.can accepts is a generated play
    def on_step(game: Game, chosen: Action) -> None:
        seat = game.turn
        hand = game.hand(seat) if seat is not None else None
        if seat is None or hand is None or hand.bit_count() > 8:
            return
        table = table_for(game.rs)
        want = {
            mask
            for k in range(1, 6)
            for cs in combinations(cards_of(hand), k)
            if (mask := sum(1 << c for c in cs)) in table and game.can(Action.play(seat, mask))
        }
        assert {p.mask for p in game.legal_plays()} == want

    setup.play(on_step)


# ----- mutated moves are refused with a named code (spec 1.4) ------------------------------


@cache
def plays_of_size(rs: Ruleset, size: int) -> tuple[Play, ...]:
    """Every legal play of one size under the ruleset."""
    return tuple(p for p in table_for(rs).values() if p.size == size)


def passed_this_trick(game: Game) -> set[int]:
    """Seats that passed since the current trick began (from the records)."""
    seats: set[int] = set()
    for record in reversed(game.history):
        if record.ends_trick:
            break
        if record.type == ActionType.PASS:
            seats.add(record.seat)
    return seats


def mutations(game: Game, rng: random.Random) -> list[tuple[str, Action, set[str]]]:
    """Illegal variants of the seat to act's options: (what, action, acceptable codes)."""
    seat = game.turn
    assert seat is not None
    hand = game.hand(seat)
    assert hand is not None
    rs = game.rs
    out: list[tuple[str, Action, set[str]]] = []
    not_held = [c for c in range(52) if not hand >> c & 1]
    out.append(("a card not held", Action.play(seat, 1 << rng.choice(not_held)), {"E_NOT_IN_HAND"}))
    other = rng.choice([s for s in range(rs.players) if s != seat])
    locked = rs.pass_locks_out and other in passed_this_trick(game)
    wrong_seat_codes = {"E_LOCKED_OUT"} if locked else {"E_OUT_OF_TURN"}
    other_hand = game.hand(other) or 0
    if other_hand:
        low = other_hand & -other_hand
        out.append(("the wrong seat plays", Action.play(other, low), wrong_seat_codes))
    out.append(("the wrong seat passes", Action.pass_(other), wrong_seat_codes))
    ranks = {c >> 2: c for c in cards_of(hand)}
    if len(ranks) >= 2:
        a, b = rng.sample(sorted(ranks.values()), 2)
        out.append(("no combination", Action.play(seat, 1 << a | 1 << b), {"E_NOT_A_COMBINATION"}))
    top = game.top
    if top is None:
        out.append(("a pass when leading", Action.pass_(seat), {"E_LEAD_PASS"}))
        return out
    lower = [p for p in plays_from(hand, rs, size=top.size) if not p.beats(top)]
    if lower:
        play = rng.choice(lower)
        out.append(("a lower play from the hand", Action.play(seat, play.mask), {"E_NOT_HIGHER"}))
    table_lower = [p for p in plays_of_size(rs, top.size) if not p.beats(top)]
    if table_lower:
        play = rng.choice(table_lower)
        codes = {"E_NOT_HIGHER"} if play.mask & ~hand == 0 else {"E_NOT_IN_HAND"}
        out.append(("a lower play", Action.play(seat, play.mask), codes))
    wrong_size = [p for p in plays_from(hand, rs) if p.size != top.size and not p.is_bomb]
    if wrong_size:
        play = rng.choice(wrong_size)
        out.append(("a wrong-size play", Action.play(seat, play.mask), {"E_WRONG_SIZE"}))
    return out


@PROPERTY_SETTINGS
@given(setups())
def test_mutated_moves_are_refused_with_a_code(setup: Setup) -> None:
    rng = random.Random(setup.seed ^ 0xBAD)
    seen: set[str] = set()

    def on_step(game: Game, chosen: Action) -> None:
        if chosen.type == ActionType.SWAP:
            return
        before = (len(game.history), game.turn, game.trick, list(game.counts), game.top)
        for what, action, codes in mutations(game, rng):
            assert not game.can(action), f"{what}: {action} accepted"
            with pytest.raises(IllegalPlayError) as info:
                game.do(action)
            code = info.value.code
            assert code.startswith("E_") and str(info.value).startswith(code + ": ")
            assert code in codes, f"{what}: {action} refused with {info.value}, expected {codes}"
            assert (len(game.history), game.turn, game.trick, list(game.counts), game.top) == before
            seen.add(what)

    setup.play(on_step)
    assert {"a card not held", "the wrong seat passes", "a pass when leading"} <= seen


# ----- determinism and partial information (spec 1.6) -------------------------------------


@PROPERTY_SETTINGS
@given(setups())
def test_replaying_the_recorded_actions_reproduces_the_records(setup: Setup) -> None:
    played = setup.play()
    game = played.game
    kwargs = {"game_number": setup.game_number, "previous_winner": setup.previous_winner}
    again = replay(setup.rs, played.actions, hands=played.hands, stock=played.stock, **kwargs)
    assert again.history == game.history
    assert again.result == game.result
    from_records = replay(
        setup.rs,
        [action_of(r) for r in game.history],
        hands=played.hands,
        stock=played.stock,
        **kwargs,
    )
    assert from_records.history == game.history and from_records.result == game.result


@PROPERTY_SETTINGS
@given(setups())
def test_partial_information_replay_agrees_with_the_full_replay(setup: Setup) -> None:
    played = setup.play()
    full = played.game
    assert full.result is not None
    partial = replay(
        setup.rs,
        [action_of(r) for r in full.history],
        start_counts=played.start_counts,
        game_number=setup.game_number,
        previous_winner=setup.previous_winner,
        first_leader=full.first_leader,
    )
    result = partial.result
    assert result is not None
    assert result.winner == full.result.winner
    assert result.cards_left == full.result.cards_left
    assert result.n_tricks == full.result.n_tricks
    for f, p in zip(full.history, partial.history, strict=True):
        assert (p.seat, p.type, p.kind, p.rank_key, p.trick, p.is_lead) == (
            f.seat,
            f.type,
            f.kind,
            f.rank_key,
            f.trick,
            f.is_lead,
        )
        assert p.cards_left == f.cards_left and p.ends_trick == f.ends_trick
        assert "hand" in p.unchecked and p.hand_before is None
        if f.type == ActionType.PLAY:
            assert p.cards == f.cards
            assert classify(p.cards, setup.rs) is not None


# ----- records agree with an independent reading of the spec -------------------------------

#: Suit strength by suit index ♦ ♣ ♥ ♠ (spec 1.1), written out again on purpose.
SUIT_STRENGTH = {"hk": (0, 1, 2, 3), "taiwan": (1, 0, 2, 3)}


def strength(card: int, rs: Ruleset) -> int:
    """A single card's strength: rank, then suit (spec 1.1)."""
    return (card >> 2) * 4 + SUIT_STRENGTH[rs.suit_order.value][card & 3]


def highest(hand: int, rs: Ruleset) -> int:
    return max(cards_of(hand), key=lambda c: strength(c, rs))


def expected_first_leader(setup: Setup, hands: list[int]) -> int:
    """spec 1.4 first_lead: the previous winner, or the holder of the lowest dealt card."""
    rs = setup.rs
    if setup.previous_winner is not None and rs.first_lead.value == "lowest_card_then_winner":
        return setup.previous_winner
    dealt = [c for h in hands for c in cards_of(h)]
    lowest = min(dealt, key=lambda c: strength(c, rs))
    return next(s for s, h in enumerate(hands) if h >> lowest & 1)


def beating_exists(hand: int, top: Play, rs: Ruleset) -> bool:
    """Whether any combination in the hand may be played on ``top`` (spec 1.2, 1.4)."""
    sizes = {top.size, 4, 5} if rs.bombs else {top.size}  # a four of a kind alone: 4 cards
    return any(
        p.mask & ~hand == 0 and p.beats(top) for size in sizes for p in plays_of_size(rs, size)
    )


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
# 包牌 corner: seat 2 passes holding 10♥ while seat 3 (locked out) is on one card, then blocks
# with 10♥ in the next trick, and seat 3 goes out over it: no 包牌 (the last obligation decides)
@example(Setup("hk", load_ruleset("hk"), 336, 1, None))
def test_records_agree_with_an_independent_reading_of_the_spec(setup: Setup) -> None:
    played = setup.play()
    game, rs, n = played.game, setup.rs, setup.rs.players
    clockwise = rs.direction.value == "clockwise" or (
        rs.direction.value == "alternate" and setup.game_number % 2 == 1
    )
    step = -1 if clockwise else 1  # seats are numbered counter-clockwise (engine decision)
    start_hands = list(played.hands)
    if rs.players >= 5 or (rs.players == 3 and rs.three_player_mode.value == "deal_17"):
        # spec 1.3: the leftover card(s) go to the holder of the lowest dealt card
        low = min((c for h in start_hands for c in cards_of(h)), key=lambda c: strength(c, rs))
        holder = next(s for s, h in enumerate(start_hands) if h >> low & 1)
        for c in played.stock:
            start_hands[holder] |= 1 << c
    expected = expected_first_leader(setup, start_hands)
    lowest = min((c for h in start_hands for c in cards_of(h)), key=lambda c: strength(c, rs))
    counts = list(played.start_counts)
    top: int | None = None  # mask of the trick's top play
    top_seat: int | None = None
    passed: set[int] = set()
    consecutive = 0
    obligations: list[tuple[int, int, int, str]] = []  # (record index, seat, next seat, block)
    for r in game.history:
        if r.type == ActionType.SWAP:  # only the lowest-card holder swaps, showing that card
            assert r.cards == 1 << lowest and start_hands[r.seat] >> lowest & 1
            continue
        assert r.seat == expected, (
            f"record {r.action_index}: seat {r.seat} acted, expected {expected}"
        )
        assert r.is_lead == (top is None) and r.top_before == (top or 0)
        hand = r.hand_before
        assert hand is not None and hand.bit_count() == counts[r.seat]
        assert r.highest_single == highest(hand, rs)
        top_play = classify(top, rs) if top is not None else None
        if top_play is None:
            assert r.beating_play_existed is None
        else:
            assert r.beating_play_existed == beating_exists(hand, top_play, rs)
        # spec 1.6 頂大
        nxt = (r.seat + step) % n
        assert r.next_seat == nxt
        best = highest(hand, rs)
        obligation = block = None
        if counts[nxt] == 1:
            if top_play is None:
                obligation = "lead_non_single_or_highest_single"
                met = r.cards.bit_count() > 1 or r.cards == 1 << best
                block = "met" if met else "violated"
            elif top_play.size == 1 and strength(best, rs) > strength(cards_of(top)[0], rs):
                obligation = "follow_with_highest_single"
                is_bomb = r.kind is not None and r.kind.value in (
                    "four_of_a_kind",
                    "straight_flush",
                )
                met = r.cards == 1 << best or (rs.bombs and is_bomb)
                block = "met" if met else "violated"
        assert (r.obligation, r.block) == (obligation, block), f"record {r.action_index}"
        if block is not None:
            obligations.append((r.action_index, r.seat, nxt, block))
        # spec 1.3-1.4 turn order, lock-out and trick ends
        if r.type == ActionType.PLAY:
            counts[r.seat] -= r.cards.bit_count()
            top, top_seat, consecutive = r.cards, r.seat, 0
            assert not r.ends_trick
        else:
            if r.drawn is not None:
                counts[r.seat] += 1
            passed.add(r.seat)
            consecutive += 1
            if rs.pass_locks_out:
                ends = passed == set(range(n)) - {top_seat}
            else:
                ends = consecutive == n - 1
            assert r.ends_trick == ends, f"record {r.action_index}"
        assert list(r.cards_left) == counts
        if r.ends_trick:
            expected = top_seat  # type: ignore[assignment]
            top, top_seat, passed, consecutive = None, None, set(), 0
        else:
            expected = (r.seat + step) % n
            while rs.pass_locks_out and expected in passed:
                expected = (expected + step) % n
    # spec 1.6 包牌: the violator, when the next seat goes out on its very next turn after it.
    # Decision (docs/engine.md): a seat locked out of a trick can see several obligations
    # toward it before that turn; the last one decides (a proper block after an earlier
    # violation clears it: the winning turn came after the block).
    result = game.result
    assert result is not None and result.winner is not None
    bao = None
    last = game.history[-1].action_index
    toward_winner = [o for o in obligations if o[2] == result.winner]
    if toward_winner:
        index, seat, victim, block = toward_winner[-1]
        next_turn = next(r.action_index for r in game.history[index + 1 :] if r.seat == victim)
        if next_turn == last and block == "violated":
            bao = seat
    if rs.must_block.value == "off":  # spec 1.6: liability pays 包牌; `off` only audits
        bao = None
    assert result.bao_seat == bao
