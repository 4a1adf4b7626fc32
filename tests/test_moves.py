"""Legal move generation against brute force (spec 1.2, 1.4, 1.6).

The reference enumerates every 1-5 card subset of the hand to act, classifies it and keeps
it when the rules of spec 1.4 (and 1.6 with ``must_block = enforced``) allow it in the
position. ``Game.legal_plays()`` must give exactly that set, count it, and answer ``in``
for every subset. Positions come from random deals played forward with random legal
actions; every random choice comes from a seeded ``random.Random``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from pipeline.big2.combos import Kind, Play, table_for
from pipeline.big2.moves import beating_plays, can_beat, plays_from
from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.big2.state import Action, Game
from pipeline.cards import cards_of, format_cards, mask_of, parse_cards
from pipeline.errors import ReplayError

#: Suit strength (0 weakest) by suit index ♦ ♣ ♥ ♠ (spec 1.1).
SUIT_STRENGTH = {"hk": (0, 1, 2, 3), "taiwan": (1, 0, 2, 3)}


def single_strength(c: int, rs: Ruleset) -> tuple[int, int]:
    """spec 1.1: a single compares by rank, then suit under ``suit_order``."""
    return c >> 2, SUIT_STRENGTH[rs.suit_order.value][c & 3]


def is_bomb(p: Play, rs: Ruleset) -> bool:
    """spec 1.2 bombs: four of a kind and straight flush, when ``bombs`` is on."""
    return rs.bombs and p.kind in (Kind.FOUR_OF_A_KIND, Kind.STRAIGHT_FLUSH)


def follows(p: Play, top: Play, rs: Ruleset) -> bool:
    """spec 1.4 following: same number of cards, strictly higher; bombs beat any non-bomb
    trick, and only a higher bomb beats a bomb (spec 1.2). ``order`` ranks plays of one
    size (checked against the spec in test_combos)."""
    if is_bomb(p, rs):
        return not is_bomb(top, rs) or p.order > top.order
    return p.size == top.size and not is_bomb(top, rs) and p.order > top.order


# ---------------------------------------------------------------------------------------
# a position, tracked independently of the engine's bookkeeping
# ---------------------------------------------------------------------------------------


@dataclass
class Position:
    rs: Ruleset
    game: Game
    hands: list[int]  # our own bookkeeping: dealt, minus played, plus drawn
    lowest: int  # the lowest dealt card (spec 1.4 first lead)
    started: bool = False  # a card has been played
    trace: list[str] = field(default_factory=list)

    def describe(self) -> str:
        seat = self.game.turn
        assert seat is not None
        top = self.game.top
        return (
            f"{self.rs.name} {dict(self.rs.overrides)} seat {seat} "
            f"hand {format_cards(self.hands[seat])} top {top and format_cards(top.mask)} "
            f"after {' / '.join(self.trace[-8:])}"
        )


def deal(rs: Ruleset, rng: random.Random) -> Position:
    """A random deal per spec 1.3: 13 each (4 players), 26 each (2), 17 each plus the
    leftover to the lowest-card holder (3, deal_17), 13 each plus a 13-card stock (3, stock_13),
    52 // n each plus the 52 mod n leftover to the lowest-card holder (5+ players)."""
    deck = list(range(52))
    rng.shuffle(deck)
    size = rs.hand_size
    hands = [mask_of(deck[i * size : (i + 1) * size]) for i in range(rs.players)]
    stock = deck[size * rs.players :]
    game = Game(rs, hands=hands, stock=stock)
    dealt = 0
    for h in hands:
        dealt |= h
    order = sorted(range(52), key=lambda c: single_strength(c, rs))
    mine = list(hands)
    if rs.players >= 5 or (rs.players == 3 and rs.three_player_mode.value == "deal_17"):
        # spec 1.3 deal_17, and 5+ players: the leftover goes to the holder of ♦3 (else the
        # next card up)
        low = next(c for c in order if dealt >> c & 1)
        holder = next(s for s in range(rs.players) if hands[s] >> low & 1)
        mine[holder] |= mask_of(stock)
        dealt |= mask_of(stock)
    lowest = next(c for c in order if dealt >> c & 1)
    pos = Position(rs=rs, game=game, hands=mine, lowest=lowest)
    # spec 1.4 first_lead: the holder of the lowest card (the next card up if undealt) leads
    assert game.turn == next(s for s in range(rs.players) if mine[s] >> lowest & 1)
    return pos


def step_of(rs: Ruleset) -> int:
    """Play order: counter-clockwise is seat + 1 (seats are numbered counter-clockwise)."""
    return -1 if rs.direction.value == "clockwise" else 1


def obligation(pos: Position) -> tuple[str | None, int]:
    """spec 1.6 頂大, as enforced: ('lead' | 'follow' | None, the seat's highest single)."""
    game, rs = pos.game, pos.rs
    seat = game.turn
    assert seat is not None
    hand = pos.hands[seat]
    highest = max(cards_of(hand), key=lambda c: single_strength(c, rs))
    if rs.must_block.value != "enforced":
        return None, highest
    nxt = (seat + step_of(rs)) % rs.players
    if pos.hands[nxt].bit_count() != 1:
        return None, highest
    top = game.top
    if top is None:
        return "lead", highest
    if top.kind == Kind.SINGLE and single_strength(highest, rs) > single_strength(
        cards_of(top.mask)[0], rs
    ):
        return "follow", highest
    return None, highest


def subsets(hand: int) -> Iterator[int]:
    cs = [1 << c for c in cards_of(hand)]
    for k in range(1, 6):
        for combo in itertools.combinations(cs, k):
            yield sum(combo)


def brute_force(pos: Position) -> tuple[set[int], list[int], bool]:
    """Every legal play of the seat to act, by brute force; every subset tried; and
    whether any subset beats the top (spec 1.4, before any 頂大 duty)."""
    game, rs = pos.game, pos.rs
    table = table_for(rs)
    seat = game.turn
    assert seat is not None
    top = game.top
    duty, highest = obligation(pos)
    legal: set[int] = set()
    beatable = False
    tried = list(subsets(pos.hands[seat]))
    for mask in tried:
        p = table.get(mask)
        if p is None:
            continue
        if top is None:
            # spec 1.4 first_play_must_contain_lowest, on the game's first play
            rule = rs.first_play_must_contain_lowest.value
            if not pos.started and rule == "contain" and not mask >> pos.lowest & 1:
                continue
            if not pos.started and rule == "single" and mask != 1 << pos.lowest:
                continue
            # spec 1.6 leading: any non-single combination, or the highest single
            if duty == "lead" and p.size == 1 and mask != 1 << highest:
                continue
        else:
            if not follows(p, top, rs):
                continue
            beatable = True
            # spec 1.6 following a single the highest single beats: play that single
            # (a bomb is neither a pass nor a lower single)
            if duty == "follow" and mask != 1 << highest and not is_bomb(p, rs):
                continue
        legal.add(mask)
    return legal, tried, beatable


def check_position(pos: Position) -> None:
    game = pos.game
    assert game.hands == pos.hands, pos.describe()
    expected, tried, beatable = brute_force(pos)
    view = game.legal_plays()
    got = [p.mask for p in view]
    assert len(got) == len(set(got)), f"duplicate legal plays: {pos.describe()}"
    missing = sorted(format_cards(m) for m in expected - set(got))
    extra = sorted(format_cards(m) for m in set(got) - expected)
    assert not missing and not extra, f"missing {missing} extra {extra}: {pos.describe()}"
    assert len(view) == len(expected), pos.describe()
    for mask in tried:
        assert (mask in view) == (mask in expected), (format_cards(mask), pos.describe())
    for p in view:
        assert p in view
    # spec 1.4: a player may pass unless leading; spec 1.6 enforced: not when bound to block
    duty, _ = obligation(pos)
    assert game.can_pass() == (game.top is not None and duty != "follow"), pos.describe()
    # moves.can_beat (the record's beating_play_existed) agrees with the brute force
    if game.top is not None:
        seat = game.turn
        assert seat is not None
        assert can_beat(pos.hands[seat], game.top, pos.rs) == beatable, pos.describe()


def advance(pos: Position, rng: random.Random) -> bool:
    """Play one random legal action; False (the walk ends) when the seat could go out."""
    game = pos.game
    seat = game.turn
    assert seat is not None
    plays = list(game.legal_plays())
    if any(p.size == pos.hands[seat].bit_count() for p in plays):
        return False
    # prefer plays (hands shrink) and bigger plays, but pass often enough to end tricks
    can_pass = game.can_pass()
    if plays and (not can_pass or rng.random() < 0.6):
        # leads favour five-card plays, so that five-card tricks are followed often
        fives = [p for p in plays if p.size == 5]
        big = [p for p in plays if p.size >= 2]
        if fives and game.top is None and rng.random() < 0.5:
            chosen = rng.choice(fives)
        else:
            chosen = rng.choice(big if big and rng.random() < 0.5 else plays)
        action = Action.play(seat, chosen.mask)
    elif can_pass:
        action = Action.pass_(seat)
    else:  # pragma: no cover - a leader always has a play
        raise AssertionError(f"no action: {pos.describe()}")
    record = game.do(action)
    if record.cards:
        pos.hands[seat] &= ~record.cards
        pos.started = True
        pos.trace.append(f"{seat}:{format_cards(record.cards)}")
    else:
        pos.trace.append(f"{seat}:pass")
    if record.drawn is not None:
        pos.hands[seat] |= 1 << record.drawn
    return True


def positions(rs: Ruleset, seed: int, n: int, max_hand: int) -> Iterator[Position]:
    """``n`` positions of random games: four random moments per game, plus some of the
    moments when the next seat holds one card (spec 1.6)."""
    rng = random.Random(seed)
    found = 0
    while True:
        pos = deal(rs, rng)
        checkpoints = set(rng.sample(range(60), 4))
        for i in range(400):
            seat = pos.game.turn
            assert seat is not None
            next_on_one = pos.hands[(seat + step_of(rs)) % rs.players].bit_count() == 1
            wanted = i in checkpoints or (next_on_one and rng.random() < 0.2)
            if wanted and pos.hands[seat].bit_count() <= max_hand:
                yield pos
                found += 1
                if found >= n:
                    return
            if not advance(pos, rng):
                break


CONFIGS: list[tuple[str, dict[str, Any], int]] = [
    ("hk", {}, 500),
    ("hk-classic", {}, 400),
    ("taiwan", {}, 500),
    ("mainland", {}, 500),
    ("hk", {"allow_two_pairs": True}, 200),
    ("hk", {"allow_two_pairs_plus_one": True}, 200),
    ("hk", {"allow_four_card_quads": True, "allow_two_pairs": True, "bombs": True}, 200),
    ("hk", {"bombs": True}, 200),
    ("taiwan", {"royal_only_beats_quads": True}, 200),
    ("hk", {"royal_only_beats_quads": True, "straight_order": "poker"}, 100),
    ("hk", {"players": 2}, 150),
    ("hk", {"players": 3}, 200),
    ("taiwan", {"players": 3, "three_player_mode": "stock_13"}, 150),
    ("hk", {"must_block": "enforced"}, 300),
    ("taiwan", {"must_block": "enforced"}, 200),
    ("hk", {"must_block": "enforced", "direction": "clockwise", "players": 3}, 200),
    ("mainland", {"must_block": "enforced", "bombs": True, "allow_triples": False}, 200),
    ("hk", {"first_play_must_contain_lowest": "single"}, 100),
    ("hk", {"first_play_must_contain_lowest": "show", "straight_order": "big2_natural"}, 100),
    ("taiwan", {"first_play_must_contain_lowest": "none", "flush_compare": "suit_then_ranks"}, 100),
    ("taiwan", {"four_of_a_kind": "alone"}, 200),
    ("taiwan", {"four_of_a_kind": "alone", "royal_only_beats_quads": True}, 150),
    ("taiwan", {"four_of_a_kind": "off"}, 150),
    ("hk", {"four_of_a_kind": "alone", "allow_two_pairs": True}, 150),
    ("hk", {"four_of_a_kind": "off", "allow_four_card_quads": True, "bombs": True}, 150),
    ("hk", {"four_of_a_kind": "alone", "must_block": "enforced", "bombs": True}, 200),
    ("hk", {"players": 6}, 150),
    ("taiwan", {"players": 5, "must_block": "enforced"}, 150),
    ("mainland", {"players": 8, "must_block": "enforced"}, 150),
]


@pytest.mark.parametrize(
    ("preset", "overrides", "n"),
    CONFIGS,
    ids=[f"{p}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'preset'}" for p, o, _ in CONFIGS],
)
def test_legal_plays_match_brute_force(preset: str, overrides: dict[str, Any], n: int) -> None:
    # spec 1.2 (combinations), 1.4 (leading, first play, following), 1.6 (must_block).
    rs = load_ruleset(preset, overrides)
    max_hand = 13 if rs.players == 4 else 14
    seed = 1000 + CONFIGS.index((preset, overrides, n))
    checked = leads = follows_ = obligations = 0
    for pos in positions(rs, seed, n, max_hand):
        check_position(pos)
        checked += 1
        leads += pos.game.top is None
        follows_ += pos.game.top is not None
        obligations += obligation(pos)[0] is not None
    assert checked == n
    assert leads and follows_  # both kinds of position were seen
    if rs.must_block.value == "enforced":
        assert obligations, "no 頂大 position was reached"


def test_first_play_positions_are_checked() -> None:
    # spec 1.4 first_play_must_contain_lowest: the opening position of many deals, where the
    # lowest-card rule applies (contain / single / show / none).
    for i, rule in enumerate(["contain", "single", "show", "none"]):
        for preset in ("hk", "taiwan"):
            rs = load_ruleset(preset, {"first_play_must_contain_lowest": rule})
            rng = random.Random(77 + i)
            for _ in range(15):
                pos = deal(rs, rng)
                check_position(pos)
                low = 1 << pos.lowest
                view = pos.game.legal_plays()
                if rule == "single":
                    assert [p.mask for p in view] == [low]
                elif rule == "contain":
                    assert all(p.mask & low for p in view)
                else:
                    assert len(view) == len(list(plays_from(pos.hands[pos.game.turn], rs)))


@pytest.mark.parametrize("first_lead", ["lowest_card_then_winner", "lowest_card_every_game"])
def test_later_games_first_lead(first_lead: str) -> None:
    # spec 1.4 first_lead: lowest_card_then_winner lets the previous game's winner lead
    # anything; lowest_card_every_game gives the lead to the lowest-card holder, whose
    # opening play must contain that card (first_play_must_contain_lowest = contain).
    rs = load_ruleset("hk", {"first_lead": first_lead})
    rng = random.Random(8)
    for _ in range(20):
        fresh = deal(rs, rng)
        holder = fresh.game.turn
        assert holder is not None
        winner = (holder + rng.randrange(1, 4)) % 4
        game = Game(rs, hands=list(fresh.hands), previous_winner=winner, game_number=2)
        pos = Position(rs=rs, game=game, hands=list(fresh.hands), lowest=fresh.lowest)
        if first_lead == "lowest_card_then_winner":
            assert game.turn == winner
            pos.started = True  # no lowest-card rule: the reference allows any play
        else:
            assert game.turn == holder
        check_position(pos)


def test_legal_plays_need_the_deal() -> None:
    # spec 1.4 via the engine contract: without the hands there is no legal-move view.
    game = Game(load_ruleset("hk"), first_leader=0)
    with pytest.raises(ReplayError):
        game.legal_plays()


# ---------------------------------------------------------------------------------------
# plays_from: every combination of a hand, once
# ---------------------------------------------------------------------------------------

PLAYS_FROM_RULESETS = [
    load_ruleset("hk"),
    load_ruleset("taiwan"),
    load_ruleset("mainland"),
    load_ruleset("hk", {"allow_two_pairs": True, "allow_four_card_quads": True}),
    load_ruleset("hk", {"allow_two_pairs_plus_one": True, "allow_triples": False}),
    load_ruleset("hk", {"straight_order": "big2_natural", "royal_only_beats_quads": True}),
    load_ruleset("hk", {"straight_order": "akqjt_top_poker", "bombs": True}),
    load_ruleset("taiwan", {"four_of_a_kind": "alone"}),
    load_ruleset("hk", {"four_of_a_kind": "off", "allow_two_pairs": True}),
]


@pytest.mark.parametrize("index", range(len(PLAYS_FROM_RULESETS)))
def test_plays_from_yields_each_combination_once(index: int) -> None:
    # spec 1.2: every subset of the hand that is a combination, exactly once; by size too.
    rs = PLAYS_FROM_RULESETS[index]
    table = table_for(rs)
    rng = random.Random(500 + index)
    for i in range(120):
        n = rng.choice((1, 2, 5, 8, 13, 13, 15, 17)) if i % 10 else 20
        hand = mask_of(rng.sample(range(52), n))
        got = [p.mask for p in plays_from(hand, rs)]
        assert len(got) == len(set(got)), f"duplicates in {format_cards(hand)}"
        expected = {m for m in subsets(hand) if m in table}
        assert set(got) == expected, (
            format_cards(hand),
            sorted(format_cards(m) for m in expected - set(got)),
            sorted(format_cards(m) for m in set(got) - expected),
        )
        for size in range(1, 6):
            by_size = [p.mask for p in plays_from(hand, rs, size=size)]
            assert len(by_size) == len(set(by_size))
            assert set(by_size) == {m for m in expected if m.bit_count() == size}
        for p in plays_from(hand, rs):
            assert p == table[p.mask]


def test_plays_from_full_suits_and_quads() -> None:
    # spec 1.2: hands dense in one rank or one suit (many overlapping flushes, straights,
    # four of a kinds and full houses) still give each combination once.
    rs = load_ruleset("hk", {"allow_two_pairs": True, "allow_four_card_quads": True})
    table = table_for(rs)
    for text in (
        "3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 2d",
        "3d 3c 3h 3s 4d 4c 4h 4s 5d 5c 5h 5s 6d",
        "Ad 2d 3d 4d 5d Ac 2c 3c 4c 5c As 2s 3s",
    ):
        hand = mask_of(parse_cards(text))
        got = [p.mask for p in plays_from(hand, rs)]
        assert len(got) == len(set(got)), text
        assert set(got) == {m for m in subsets(hand) if m in table}, text


# ---------------------------------------------------------------------------------------
# four_of_a_kind = alone / off: hands holding fours, against brute force
# ---------------------------------------------------------------------------------------

FOUR_RULESETS = [
    load_ruleset("taiwan", {"four_of_a_kind": "alone"}),
    load_ruleset("taiwan", {"four_of_a_kind": "alone", "royal_only_beats_quads": True}),
    load_ruleset("taiwan", {"four_of_a_kind": "off"}),
    load_ruleset("hk", {"four_of_a_kind": "alone", "allow_two_pairs": True}),
    load_ruleset("hk", {"four_of_a_kind": "off", "allow_four_card_quads": True, "bombs": True}),
]


@pytest.mark.parametrize("index", range(len(FOUR_RULESETS)))
def test_fours_follow_and_are_followed_as_the_rules_say(index: int) -> None:
    # spec 1.2 four_of_a_kind and bombs, spec 1.4 following: for hands that hold one or two
    # fours, every subset that may be played on a top (of every size, bombs included) is
    # exactly what beating_plays lists, and can_beat agrees.
    rs = FOUR_RULESETS[index]
    table = table_for(rs)
    rng = random.Random(900 + index)
    tops = [p for p in table.values() if p.kind in (Kind.FOUR_OF_A_KIND, Kind.STRAIGHT_FLUSH)]
    tops += rng.sample(list(table.values()), 60)
    for _ in range(40):
        ranks = rng.sample(range(13), 2)
        hand = sum(15 << (r * 4) for r in ranks[: rng.choice((1, 2))])
        rest = [c for c in range(52) if not hand >> c & 1]
        hand |= mask_of(rng.sample(rest, rng.choice((1, 4, 8))))
        for top in rng.sample(tops, 30):
            if top.mask & hand:
                continue
            expected = {m for m in subsets(hand) if m in table and follows(table[m], top, rs)}
            got = [p.mask for p in beating_plays(hand, top, rs)]
            assert len(got) == len(set(got)), (format_cards(hand), str(top))
            assert set(got) == expected, (format_cards(hand), str(top))
            assert can_beat(hand, top, rs) == bool(expected), (format_cards(hand), str(top))


def test_a_four_alone_bomb_answers_a_five_card_trick() -> None:
    # bombs + alone: a four alone may be played on a straight (a five-card trick), and a
    # straight flush on the four alone; with_kicker needs the fifth card for both.
    rs = load_ruleset("taiwan", {"four_of_a_kind": "alone"})
    table = table_for(rs)
    straight = table[mask_of(parse_cards("3d 4c 5h 6s 7d"))]
    hand = mask_of(parse_cards("9d 9c 9h 9s"))
    assert [str(p) for p in list(beating_plays(hand, straight, rs))] == ["9♦9♣9♥9♠"]
    four = table[hand]
    sf = mask_of(parse_cards("3c 4c 5c 6c 7c"))
    assert [p.mask for p in list(beating_plays(sf, four, rs))] == [sf]
    assert not can_beat(mask_of(parse_cards("2s 2h 2c As")), four, rs)
    kicker = load_ruleset("taiwan")
    assert not can_beat(hand, table_for(kicker)[straight.mask], kicker)
