"""The Dou Dizhu state machine: golden games, the 004 worked example, and mutations rejected
with their codes."""

from __future__ import annotations

import random

import pytest

from pipeline.doudizhu.cards import mask_of, parse_cards
from pipeline.doudizhu.combos import Kind
from pipeline.doudizhu.rules import load_ruleset
from pipeline.doudizhu.state import (
    Action,
    ActionType,
    Game,
    Outcome,
    Phase,
    Spring,
    deal,
    random_game,
    score,
)
from pipeline.errors import DealError, IllegalPlayError
from tests.doudizhu.golden import GAMES, Golden, lines, make_deal, parse_action, start


def replay(g: Golden) -> Game:
    game = start(g)
    for line in lines(g):
        game.do(parse_action(game, line))
    return game


@pytest.mark.parametrize("g", GAMES, ids=[g.name for g in GAMES])
def test_golden_game(g: Golden) -> None:
    game = replay(g)
    result = game.result
    assert result is not None
    expect = dict(g.expect)
    assert result.outcome == Outcome(expect.pop("outcome", "played_out"))
    for key, value in expect.items():
        assert getattr(result, key) == value, key
    assert sum(result.scores) == 0
    assert len(game.history) == len(lines(g))
    assert game.phase == Phase.OVER and game.turn is None


def test_golden_games_cover_every_kind_and_feature() -> None:
    kinds = set()
    for g in GAMES:
        kinds |= {r.kind for r in replay(g).history if r.kind is not None}
    assert kinds == set(Kind)
    results = [replay(g).result for g in GAMES]
    assert len(GAMES) >= 20
    assert any(r is not None and r.outcome == Outcome.REDEAL for r in results)
    assert {r.spring for r in results if r is not None} >= {Spring.SPRING, Spring.ANTI_SPRING}
    assert {g.preset for g in GAMES} == {"ddz", "ddz-2p"}
    assert {g.overrides.get("bid_reentry", True) for g in GAMES} == {True, False}


def test_the_004_worked_example_exactly() -> None:
    """Bid 3, two bombs and one rocket → 3 × 2³ = 24 per farmer, 48 in all (spec 2.5)."""
    rs = load_ruleset("ddz")
    for landlord_won, expected in ((True, (48, -24, -24)), (False, (-48, 24, 24))):
        mult, amount, scores = score(
            rs, landlord=0, base=3, landlord_won=landlord_won, bombs=2, rockets=1
        )
        assert (mult, amount, scores) == (8, 24, expected)
    game = replay(GAMES[0])
    assert game.result is not None and game.result.scores == (48, -24, -24)
    assert [r.multiplier for r in game.history if r.kind in (Kind.BOMB, Kind.ROCKET)] == [2, 4, 8]


def test_the_landlord_takes_the_kitty_and_leads() -> None:
    g = GAMES[0]
    hands, kitty, _ = make_deal(g.rs, g.seats, g.kitty)
    game = start(g)
    record = game.do(Action.bid(0, 3))
    assert record.ends_auction and record.landlord == 0 and record.bid == 3
    assert game.hand(0) == hands[0] | kitty and game.counts == [20, 17, 17]
    assert game.turn == 0 and game.leading


def test_reentry_off_ends_the_auction_where_reentry_on_goes_on() -> None:
    on = next(g for g in GAMES if g.name.startswith("re-entry off"))
    game_on = Game(load_ruleset("ddz"), hands=make_deal(on.rs, on.seats, on.kitty)[0])
    for a in (Action.bid(0, 0), Action.bid(1, 1), Action.bid(2, 0)):
        game_on.do(a)
    assert game_on.phase == Phase.AUCTION and game_on.turn == 0  # seat 0 may come back
    game_off = start(on)
    for a in (Action.bid(0, 0), Action.bid(1, 1), Action.bid(2, 0)):
        game_off.do(a)
    assert game_off.phase == Phase.PLAY and game_off.landlord == 1
    with pytest.raises(IllegalPlayError, match="E_DDZ_OUT_OF_TURN"):
        game_off.do(Action.bid(0, 2))
    # re-entry off, with a passer skipped: 0 passes, 1 bids 1, 2 bids 2, then seat 1 (not 0)
    skip = Game(load_ruleset("ddz", {"bid_reentry": False}), first_bidder=0)
    for a in (Action.bid(0, 0), Action.bid(1, 1), Action.bid(2, 2)):
        skip.do(a)
    assert skip.turn == 1


# ----- mutations: each rejected with its code ---------------------------------------------
def _mutated(g: Golden, index: int, line: str | None = None, swap: bool = False) -> str:
    """The code of the error replaying ``g`` with line ``index`` replaced (or swapped with the next)."""
    script = lines(g)
    if swap:
        script[index], script[index + 1] = script[index + 1], script[index]
    elif line is not None:
        script[index] = line
    game = start(g)
    with pytest.raises(IllegalPlayError) as info:
        for ln in script:
            game.do(parse_action(game, ln))
    return info.value.code


MUTATIONS = [
    # game, line index, replacement (None: swap with the next line), code
    (0, 1, "0 play 5 6 7 8 9 10 J Q K 2", "E_DDZ_NOT_IN_HAND"),  # cards not in hand
    (0, 1, "1 play 2", "E_DDZ_OUT_OF_TURN"),  # out of turn
    (9, 4, "1 play 3 3 3", "E_DDZ_NOT_HIGHER"),  # 3-3-3 on 4-4-4
    (10, 5, "1 play 3 3 3 4", "E_DDZ_NOT_HIGHER"),  # 3-3-3-4 on 9-9-9-3
    (10, 8, "1 play 4 4 4 4", "E_DDZ_NOT_IN_HAND"),
    (10, 3, "0 bid 2", "E_DDZ_BID_NOT_HIGHER"),  # not higher than seat 1's 2
    (10, 1, "1 bid 1", "E_DDZ_BID_NOT_HIGHER"),  # equal to seat 0's 1
    (10, 1, "1 bid 4", "E_DDZ_BID_VALUE"),
    (10, 1, "1 call", "E_DDZ_AUCTION"),
    (6, 1, "1 bid 1", "E_DDZ_AUCTION"),  # a 叫分 bid in a 叫地主 auction
    (10, 4, "0 pass", "E_DDZ_PASS_ON_LEAD"),
    (10, 5, "1 play 10 10", "E_DDZ_WRONG_KIND"),
    (10, 4, "0 play 9 9 3 4", "E_DDZ_NOT_A_COMBO"),
    (0, 0, "0 play 3 3 3 3", "E_DDZ_PHASE"),
    (11, 3, "0 play 3 3 3 4 4 4 5 5 5 6 6 6", "E_DDZ_WRONG_KIND"),  # read as a plain airplane
    (11, 3, "0 play 3 3 3 4 4 4 5 5 5 6 6 6 : airplane_pairs", "E_DDZ_KIND_NAMED"),
    (1, 1, None, "E_DDZ_OUT_OF_TURN"),  # swapped actions: two passes in the wrong order
    (1, 2, None, "E_DDZ_OUT_OF_TURN"),  # swapped: the landlord plays before seat 2 passes
    (9, 6, None, "E_DDZ_OUT_OF_TURN"),
    (16, 3, "0 play 8 8 8 8 3 4", "E_DDZ_NOT_A_COMBO"),  # four + two is off
    (17, 5, "0 play 9 9 9", "E_DDZ_WRONG_KIND"),  # a triple on a straight
    (17, 8, "0 play 10 10 J J", "E_DDZ_NOT_A_COMBO"),  # two pairs are no pair chain
]


@pytest.mark.parametrize(
    ("game", "index", "line", "code"),
    MUTATIONS,
    ids=[f"game {g} line {i}: {line or 'swapped'}" for g, i, line, _ in MUTATIONS],
)
def test_mutations_are_rejected_with_their_code(
    game: int, index: int, line: str | None, code: str
) -> None:
    got = _mutated(GAMES[game], index, line, swap=line is None)
    assert got == code


def test_swapped_bids_are_rejected() -> None:
    assert _mutated(GAMES[10], 1, swap=True) == "E_DDZ_OUT_OF_TURN"


def test_an_action_after_the_end_is_rejected() -> None:
    game = replay(GAMES[0])
    with pytest.raises(IllegalPlayError, match="E_DDZ_GAME_OVER"):
        game.do(Action.pass_(1))
    void = replay(GAMES[3])
    assert not void.can(Action.bid(0, 1))


def test_the_not_higher_message_quotes_the_evidence() -> None:
    rs = load_ruleset("ddz")
    game = Game(rs, first_bidder=0)
    game.do(Action.bid(0, 3))
    game.do(Action.play(0, mask_of(parse_cards("10d 10c 10h 4d"))))
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.play(1, mask_of(parse_cards("9d 9c 9h 3d"))))
    assert str(info.value) == "E_DDZ_NOT_HIGHER: seat 1 played 9-9-9-3 on 10-10-10-4 (round 1)"
    assert info.value.context["seat"] == 1


def test_deal_errors() -> None:
    rs = load_ruleset("ddz")
    hands, kitty, _aside = deal(rs, random.Random(3))
    with pytest.raises(DealError, match="E_DDZ_DEAL_COUNT"):
        Game(rs, hands=hands[:2], kitty=kitty)
    with pytest.raises(DealError, match="E_DDZ_DEAL_DUPLICATE"):
        Game(rs, hands=[hands[0], hands[0], hands[2]], kitty=kitty)
    with pytest.raises(DealError, match="E_DDZ_DEAL_COUNT"):
        Game(rs, hands=hands, kitty=kitty & (kitty - 1))
    face_up = (hands[2] & -hands[2]).bit_length() - 1
    assert Game(rs, hands=hands, kitty=kitty, face_up_card=face_up).turn == 2
    with pytest.raises(DealError, match="E_DDZ_FACE_UP"):
        Game(rs, hands=hands, kitty=kitty, face_up_card=face_up, first_bidder=0)
    two = load_ruleset("ddz-2p")
    h2, k2, a2 = deal(two, random.Random(4))
    assert Game(two, hands=h2, kitty=k2, set_aside=a2).counts == [20, 20]


def test_partial_information_checks_counts_and_rules() -> None:
    game = Game(load_ruleset("ddz"))  # no deal: the first seat to act bids first
    game.do(Action.bid(2, 1))
    game.do(Action.bid(0, 0))
    record = game.do(Action.bid(1, 0))
    assert record.landlord == 2 and record.unchecked == ("hand",) and game.counts == [17, 17, 20]
    game.do(Action.play(2, mask_of(parse_cards("3d 4d 5d 6d 7d"))))
    with pytest.raises(IllegalPlayError, match="E_DDZ_NOT_HIGHER"):
        game.do(Action.play(0, mask_of(parse_cards("3c 4c 5c 6c 7c"))))


@pytest.mark.parametrize("preset", ["ddz", "ddz-2p"])
def test_random_games_replay_and_score_zero_sum(preset: str) -> None:
    rs = load_ruleset(preset)
    rng = random.Random(11)
    for _ in range(30):
        (hands, kitty, aside), first, actions = random_game(rs, rng)
        game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, first_bidder=first)
        records = [game.do(a) for a in actions]
        assert game.result is not None and sum(game.result.scores) == 0
        assert [r.action_index for r in records] == list(range(len(actions)))
        plays = [r for r in records if r.type == ActionType.PLAY and not r.is_lead]
        assert all(r.beating_play_existed for r in plays)
        legal = game.legal_plays()
        assert len(legal) == 0


def test_legal_plays_is_a_view_of_the_seat_to_act() -> None:
    g = GAMES[0]
    game = start(g)
    assert len(game.legal_plays()) == 0  # the auction: no plays
    game.do(Action.bid(0, 3))
    legal = game.legal_plays()
    plays = list(legal)
    assert len(legal) == len(plays) == len(set(plays)) > 0
    rocket = next(p for p in plays if p.kind == Kind.ROCKET)
    assert rocket in legal and rocket.mask in legal
    hand = game.hand(0)
    assert hand is not None and all(p.mask & ~hand == 0 for p in plays)
    other = game.hand(1)
    assert other is not None and (other & -other) not in legal  # another seat's card
    game.do(Action.play(0, rocket.mask))
    assert len(game.legal_plays()) == 0  # nothing beats the rocket
    assert game.can(Action.pass_(1)) and not game.can(Action.play(1, other & -other))


def test_records_are_frozen() -> None:
    game = replay(GAMES[0])
    record = game.history[-1]
    with pytest.raises(AttributeError):
        record.seat = 2  # type: ignore[misc]
    assert record.wins_game and record.multiplier == 8 and record.landlord == 0
