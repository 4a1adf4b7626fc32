"""The game state machine: every clause of spec 1.3-1.6, checked against ``pipeline.big2.state``.

Each test cites the spec clause (or the engine decision of docs/engine.md) it checks. Deals
are hand-crafted with :func:`tests.engine_helpers.fixed_deal`; scripts read
``"seat: cards | seat: pass"``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pipeline.big2.combos import Kind, classify
from pipeline.big2.rules import Ruleset, load_ruleset
from pipeline.big2.state import (
    Action,
    ActionType,
    Block,
    Claim,
    Game,
    Obligation,
    Outcome,
    claim_holds,
)
from pipeline.cards import FULL_DECK, parse_card
from pipeline.errors import DealError, IllegalPlayError, ReplayError
from tests.engine_helpers import action_of, deal, fixed_deal, m, play_random_game, replay, run

HK = load_ruleset("hk")
TAIWAN = load_ruleset("taiwan")


def rules(preset: str = "hk", **overrides: Any) -> Ruleset:
    return load_ruleset(preset, overrides)


THREE_17 = rules(players=3, three_player_mode="deal_17")
THREE_STOCK = rules(players=3, three_player_mode="stock_13")
THREE_SWAP = rules(players=3, three_player_mode="swap_leftover")
TWO = rules(players=2)


def new_game(rs: Ruleset, given: dict[int, str], *, stock: str = "", **kwargs: Any) -> Game:
    hands, stock_cards = fixed_deal(rs, given, stock=stock)
    return Game(rs, hands=hands, stock=stock_cards, **kwargs)


def action(seat: int, text: str) -> Action:
    if text == "pass":
        return Action.pass_(seat)
    if text == "swap":
        return Action.swap(seat)
    return Action.play(seat, m(text))


def rejects(game: Game, seat: int, text: str, code: str) -> IllegalPlayError:
    """The action is refused with ``code`` by both ``can`` and ``do``, and nothing changes."""
    act = action(seat, text)
    before = (len(game.history), game.turn, game.trick, list(game.counts))
    assert not game.can(act)
    with pytest.raises(IllegalPlayError) as info:
        game.do(act)
    assert info.value.code == code, str(info.value)
    assert (len(game.history), game.turn, game.trick, list(game.counts)) == before
    return info.value


# A full deal for following: seat 0 leads ♦3, ♦4, ♥5, then the pair 9♥9♠ in trick 4.
FOLLOW = {0: "3d 4d 5h 9h 9s", 2: "5d 5c Jd Jc 2c"}
FOLLOW_TO_TRICK_4 = (
    "0: 3d | 1: pass | 2: pass | 3: pass | 0: 4d | 1: pass | 2: pass | 3: pass"
    " | 0: 5h | 1: pass | 2: pass | 3: pass | 0: 9h 9s | 1: pass"
)

# A full deal for 頂大: seat 1 (seat 0's 下家) runs down to one card (♥A) by trick 4.
BLOCK = {
    0: "3d 3c 3h 4d 4s 9d 9s Jd Jc Qd Kh Ks 2s",
    1: "4c 5c 6c 7c 8c Tc 5h 6h 7h 8h Th 4h Ah",
    2: "3s 5d 5s 6d 6s 7d 7s 8d 8s Td Ts Qc Qh",
    3: "9c 9h Jh Js Qs Kd Kc Ad Ac As 2d 2c 2h",
}
# After this, seat 1 led ♥4 holding only ♥A, seats 2 and 3 passed: seat 0 is to act.
BLOCK_TO_TRICK_4 = (
    "0: 3d | 1: 4c | 2: pass | 3: pass | 0: pass"
    " | 1: 5c 6c 7c 8c Tc | 2: pass | 3: pass | 0: pass"
    " | 1: 5h 6h 7h 8h Th | 2: pass | 3: pass | 0: pass"
    " | 1: 4h | 2: pass | 3: pass"
)
# Then seat 0 beats ♥4 with ♠2 and leads trick 5 with seat 1 still on one card.
BLOCK_TO_TRICK_5 = BLOCK_TO_TRICK_4 + " | 0: 2s | 1: pass"


def block_game(rs: Ruleset = HK, script: str = BLOCK_TO_TRICK_4) -> Game:
    game = new_game(rs, BLOCK)
    run(game, script)
    return game


# ----- 1.3 deal ---------------------------------------------------------------------------


def test_deal_four_players_is_accepted() -> None:
    # spec 1.3 players: 4 by default, 13 cards each.
    hands, stock = deal(HK, random.Random(0))
    game = Game(HK, hands=hands, stock=stock)
    assert game.counts == [13, 13, 13, 13] and stock == []


@pytest.mark.parametrize(
    "rs", [HK, TWO, THREE_17, THREE_STOCK, THREE_SWAP], ids=lambda rs: str(rs.overrides)
)
def test_deal_with_a_duplicate_card_is_refused(rs: Ruleset) -> None:
    # spec 1.3: a deal is one deck; a card dealt to two seats cannot be right.
    hands, stock = deal(rs, random.Random(1))
    card0 = hands[0] & -hands[0]
    hands[1] = hands[1] & ~(hands[1] & -hands[1]) | card0
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands, stock=stock)
    assert info.value.code == "E_DEAL_DUPLICATE"


@pytest.mark.parametrize(
    "rs", [HK, TWO, THREE_17, THREE_STOCK, THREE_SWAP], ids=lambda rs: str(rs.overrides)
)
def test_deal_with_a_wrong_hand_size_is_refused(rs: Ruleset) -> None:
    # spec 1.3: 13 cards each (4 players), 26 (2 players), 17 (deal_17, swap_leftover), 13 (stock_13).
    hands, stock = deal(rs, random.Random(2))
    moved = hands[0] & -hands[0]
    hands[0] &= ~moved
    hands[1] |= moved
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands, stock=stock)
    assert info.value.code == "E_DEAL_COUNT"
    assert "expected" in info.value.message


@pytest.mark.parametrize(
    "rs", [HK, TWO, THREE_17, THREE_STOCK, THREE_SWAP], ids=lambda rs: str(rs.overrides)
)
def test_deal_with_the_wrong_number_of_hands_is_refused(rs: Ruleset) -> None:
    # spec 1.3: one hand per player.
    hands, stock = deal(rs, random.Random(3))
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands[:-1], stock=stock)
    assert info.value.code == "E_DEAL_COUNT"


@pytest.mark.parametrize(
    "rs", [THREE_17, THREE_STOCK, THREE_SWAP], ids=lambda rs: str(rs.overrides)
)
def test_three_player_deal_with_a_bad_stock_is_refused(rs: Ruleset) -> None:
    # spec 1.3 three_player_mode: one leftover (deal_17, swap_leftover) or a 13-card stock (stock_13).
    hands, stock = deal(rs, random.Random(4))
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands, stock=stock[:-1])
    assert info.value.code == "E_DEAL_STOCK"


@pytest.mark.parametrize("rs", [HK, TWO], ids=["4p", "2p"])
def test_two_and_four_player_deals_have_no_stock(rs: Ruleset) -> None:
    # spec 1.3: 4 × 13 and 2 × 26 deal the whole deck; a stock card is then dealt twice.
    hands, _ = deal(rs, random.Random(5))
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands, stock=[0])
    assert info.value.code == "E_DEAL_DUPLICATE"


def test_stock_duplicating_a_hand_card_is_refused() -> None:
    # spec 1.3 stock_13: the stock is the 13 undealt cards.
    hands, stock = deal(THREE_STOCK, random.Random(6))
    stock[0] = (hands[0] & -hands[0]).bit_length() - 1
    with pytest.raises(DealError) as info:
        Game(THREE_STOCK, hands=hands, stock=stock)
    assert info.value.code == "E_DEAL_DUPLICATE"


def test_deal_17_with_the_leftover_already_merged_is_refused() -> None:
    # Engine decision (deal_17): the deal is 17 + 17 + 17 plus the leftover as the stock.
    hands, stock = deal(THREE_17, random.Random(7))
    hands[0] |= 1 << stock[0]
    with pytest.raises(DealError) as info:
        Game(THREE_17, hands=hands, stock=[])
    assert info.value.code == "E_DEAL_COUNT"


def test_two_player_deal_is_26_each() -> None:
    # spec 1.3: 2 players: 26 each.
    hands, stock = deal(TWO, random.Random(8))
    game = Game(TWO, hands=hands, stock=stock)
    assert game.counts == [26, 26]


def test_partial_deal_17_needs_start_counts() -> None:
    # Engine decision (deal_17): a partial log must say who got the leftover.
    with pytest.raises(ReplayError) as info:
        Game(THREE_17)
    assert info.value.code == "E_PARTIAL_COUNTS"
    assert Game(THREE_17, start_counts=[17, 18, 17]).counts == [17, 18, 17]


# ----- 1.3 direction ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "game_number", "after_0"),
    [
        ("counterclockwise", 1, 1),
        ("counterclockwise", 2, 1),
        ("clockwise", 1, 3),
        ("clockwise", 2, 3),
        ("alternate", 1, 3),  # odd games clockwise (001)
        ("alternate", 2, 1),  # even games counter-clockwise
        ("alternate", 3, 3),
    ],
)
def test_direction(direction: str, game_number: int, after_0: int) -> None:
    # spec 1.3 direction; engine decision: seats numbered counter-clockwise (s → s+1).
    game = new_game(rules(direction=direction), FOLLOW, game_number=game_number)
    record = run(game, "0: 3d")[0]
    assert game.turn == after_0
    assert record.next_seat == after_0 == game.next_seat(0)


def test_clockwise_trick_goes_round_to_the_last_player() -> None:
    # spec 1.3 direction clockwise with spec 1.4 pass_locks_out.
    game = new_game(rules(direction="clockwise"), FOLLOW)
    records = run(game, "0: 3d | 3: pass | 2: 5d | 1: pass | 0: pass")
    assert records[-1].ends_trick and game.turn == 2 and game.trick == 2
    rejects(game, 1, "6c", "E_OUT_OF_TURN")


# ----- 1.4 who leads ----------------------------------------------------------------------


def test_hk_lowest_card_holder_leads() -> None:
    # spec 1.4 first_lead: the holder of ♦3 under hk.
    game = new_game(HK, {2: "3d", 1: "3c"})
    assert game.turn == 2 and game.first_leader == 2


def test_taiwan_lowest_card_is_the_three_of_clubs() -> None:
    # spec 1.4 first_lead: ♣3 under taiwan (spec 1.1: ♣ < ♦ < ♥ < ♠).
    game = new_game(TAIWAN, {2: "3d 4c", 1: "3c 4d"})
    assert game.turn == 1
    err = rejects(game, 1, "4d", "E_FIRST_PLAY_LOWEST")
    assert "3♣" in err.message
    run(game, "1: 3c")


def test_previous_winner_leads_under_lowest_card_then_winner() -> None:
    # spec 1.4 first_lead lowest_card_then_winner: the previous game's winner leads, freely.
    game = new_game(HK, {2: "3d", 3: "9s"}, previous_winner=3)
    assert game.turn == 3 and game.first_leader == 3
    rejects(game, 2, "3d", "E_OUT_OF_TURN")
    run(game, "3: 9s")  # no first-play rule: the winner is not the lowest-card holder


def test_lowest_card_every_game_ignores_the_previous_winner() -> None:
    # spec 1.4 first_lead lowest_card_every_game.
    game = new_game(
        rules(first_lead="lowest_card_every_game"), {2: "3d 4d", 3: "9s"}, previous_winner=3
    )
    assert game.turn == 2
    rejects(game, 3, "9s", "E_OUT_OF_TURN")
    rejects(game, 2, "4d", "E_FIRST_PLAY_LOWEST")
    run(game, "2: 3d")


def test_stock_13_lowest_card_in_the_stock_next_card_up_leads() -> None:
    # spec 1.4: when nobody holds the lowest card (3-player stock), the next card up leads (002).
    game = new_game(THREE_STOCK, {2: "3c 4c"}, stock="3d")
    assert game.turn == 2
    err = rejects(game, 2, "4c", "E_FIRST_PLAY_LOWEST")
    assert "3♣" in err.message
    assert run(game, "2: 3c")[0].is_lead


def test_stock_13_lowest_two_cards_in_the_stock() -> None:
    # spec 1.4 "the holder of the next card up" (♦3, ♣3 in the stock → ♥3).
    game = new_game(THREE_STOCK, {1: "3h"}, stock="3c 3d")
    assert game.turn == 1


# ----- 1.4 first play rules ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "lead", "code"),
    [
        ("contain", "4d", "E_FIRST_PLAY_LOWEST"),
        ("contain", "3c 3h", "E_FIRST_PLAY_LOWEST"),
        ("contain", "3d", None),
        ("contain", "3d 3c", None),
        ("contain", "3d 4d 5d 6d 7d", None),
        ("single", "3d 3c", "E_FIRST_PLAY_SINGLE"),
        ("single", "3d 4d 5d 6d 7d", "E_FIRST_PLAY_SINGLE"),
        ("single", "4d", "E_FIRST_PLAY_SINGLE"),
        ("single", "3d", None),
        ("show", "4d", None),
        ("show", "3c 3h", None),
        ("none", "4d", None),
        ("none", "3c 3h", None),
    ],
)
def test_first_play_rule(rule: str, lead: str, code: str | None) -> None:
    # spec 1.4 first_play_must_contain_lowest: contain / single / show / none.
    game = new_game(rules(first_play_must_contain_lowest=rule), {0: "3d 3c 3h 4d 5d 6d 7d"})
    if code is None:
        assert run(game, f"0: {lead}")[0].cards == m(lead)
    else:
        rejects(game, 0, lead, code)


def test_first_play_rule_does_not_apply_after_the_first_play() -> None:
    # spec 1.4: the rule binds the opening play only.
    game = new_game(HK, {0: "3d 4d 5d", 1: "6c"})
    run(game, "0: 3d | 1: pass | 2: pass | 3: pass | 0: 5d")


# ----- 1.4 following ----------------------------------------------------------------------


def test_following_with_a_wrong_size_is_refused() -> None:
    # spec 1.4 following: same number of cards.
    game = new_game(HK, FOLLOW)
    run(game, FOLLOW_TO_TRICK_4)
    err = rejects(game, 2, "2c", "E_WRONG_SIZE")
    assert err.message == "seat 2 played 2♣ on 9♥9♠ (trick 4)"


def test_following_with_a_lower_play_is_refused_quoting_the_evidence() -> None:
    # spec 1.4 following: strictly higher; errors quote the play, the top, the seat, the trick.
    game = new_game(HK, FOLLOW)
    run(game, FOLLOW_TO_TRICK_4)
    err = rejects(game, 2, "5d 5c", "E_NOT_HIGHER")
    assert str(err) == "E_NOT_HIGHER: seat 2 played 5♦5♣ on 9♥9♠ (trick 4)"
    assert err.context["seat"] == 2 and err.context["trick"] == 4
    assert err.context["action_index"] == len(game.history)
    record = run(game, "2: Jd Jc")[0]
    assert record.kind == Kind.PAIR and record.trick == 4


def test_following_must_be_strictly_higher_single() -> None:
    # spec 1.4 following: strictly higher (spec 1.1: rank, then suit).
    game = new_game(HK, {0: "3d 9c", 1: "9d 9h"})
    run(game, "0: 3d | 1: 9h | 2: pass | 3: pass")
    rejects(game, 0, "9c", "E_NOT_HIGHER")


def test_passing_while_leading_is_refused() -> None:
    # spec 1.4: a player may pass instead of playing, unless leading.
    game = new_game(HK, FOLLOW)
    rejects(game, 0, "pass", "E_LEAD_PASS")
    run(game, "0: 3d | 1: pass | 2: pass | 3: pass")
    assert game.turn == 0 and game.leading
    rejects(game, 0, "pass", "E_LEAD_PASS")


def test_acting_out_of_turn_is_refused() -> None:
    # spec 1.3: play goes round the seats in one direction.
    game = new_game(HK, FOLLOW)
    rejects(game, 1, "6c", "E_OUT_OF_TURN")
    rejects(game, 2, "pass", "E_OUT_OF_TURN")
    run(game, "0: 3d")
    rejects(game, 2, "5d", "E_OUT_OF_TURN")


def test_playing_a_card_not_held_is_refused() -> None:
    # spec 1.3 deal: a seat plays from its own hand.
    game = new_game(HK, FOLLOW)
    err = rejects(game, 0, "5d", "E_NOT_IN_HAND")
    assert "5♦" in err.message


def test_a_seat_not_at_the_table_is_refused() -> None:
    # spec 1.3: seats 0..n-1.
    game = new_game(HK, FOLLOW)
    rejects(game, 4, "pass", "E_BAD_SEAT")
    rejects(game, -1, "3d", "E_BAD_SEAT")


def test_a_play_that_is_no_combination_is_refused() -> None:
    # spec 1.2 (checked on every action).
    game = new_game(HK, FOLLOW)
    rejects(game, 0, "3d 4d", "E_NOT_A_COMBINATION")


def test_locked_out_seat_is_refused_and_skipped() -> None:
    # spec 1.4 pass_locks_out true: a player who passed may not play again until the trick is won;
    # engine decision: the locked-out seat is skipped (no action logged for it).
    game = new_game(HK, FOLLOW)
    run(game, "0: 3d | 1: pass | 2: 5d | 3: pass")
    assert game.turn == 0
    rejects(game, 1, "6c", "E_LOCKED_OUT")
    run(game, "0: 9s")
    assert game.turn == 2  # seat 1 skipped
    record = run(game, "2: pass")[0]
    assert record.ends_trick and game.turn == 0 and game.trick == 2 and game.leading


def test_with_lock_out_the_trick_ends_when_play_comes_back_to_the_last_player() -> None:
    # spec 1.4: the trick ends when every other player has passed after the last play.
    game = new_game(HK, FOLLOW)
    records = run(game, "0: 3d | 1: pass | 2: 5d | 3: pass | 0: pass")
    assert [r.ends_trick for r in records] == [False, False, False, False, True]
    assert game.turn == 2 and game.trick == 2 and game.leading
    assert records[-1].trick == 1


def test_without_lock_out_the_trick_ends_after_consecutive_passes() -> None:
    # spec 1.4 pass_locks_out false: passing does not forfeit the next turn; the trick ends when
    # the other players pass consecutively (n-1 passes).
    game = new_game(rules(pass_locks_out=False), FOLLOW)
    records = run(game, "0: 3d | 1: pass | 2: 5d | 3: pass | 0: pass")
    assert not any(r.ends_trick for r in records)
    assert game.turn == 1
    records = run(game, "1: 6c | 2: pass | 3: pass")
    assert not any(r.ends_trick for r in records)
    records = run(game, "0: pass")
    assert records[-1].ends_trick and game.turn == 1 and game.trick == 2


def test_mainland_has_no_lock_out() -> None:
    # spec 1.9: mainland pass_locks_out false.
    game = new_game(rules("mainland"), FOLLOW)
    run(game, "0: 3d | 1: pass | 2: 5d | 3: pass | 0: pass | 1: 6c")
    assert game.turn == 2


def test_trick_winner_leads_anything_even_three_of_diamonds_after_two_of_spades() -> None:
    # spec 1.4: the last player to play wins the trick and leads anything (even ♦3 after ♠2).
    game = new_game(HK, {0: "3d 2s"}, previous_winner=0)
    records = run(game, "0: 2s | 1: pass | 2: pass | 3: pass | 0: 3d")
    assert records[3].ends_trick
    assert records[-1].is_lead and records[-1].trick == 2


def test_trick_winner_leads_after_a_lower_lead() -> None:
    # spec 1.4: the trick winner (not the first leader) leads the next trick, any size.
    game = new_game(HK, FOLLOW)
    run(game, "0: 3d | 1: pass | 2: 2c | 3: pass | 0: pass")
    assert game.turn == 2 and game.leading
    assert run(game, "2: 5d 5c")[0].is_lead


# ----- 1.4 game end -----------------------------------------------------------------------


def test_game_ends_when_a_player_has_no_cards() -> None:
    # spec 1.4: the game ends the moment a player has no cards left; that player wins.
    game = block_game(script=BLOCK_TO_TRICK_5 + " | 0: 9d 9s | 1: pass | 2: Td Ts | 3: Jh Js")
    record = run(game, "0: pass | 2: pass | 3: Ad | 0: pass | 1: Ah")[-1]
    assert record.wins_game and record.cards_left == (9, 0, 11, 10)
    result = game.result
    assert result is not None and game.finished
    assert result.outcome == Outcome.PLAYED_OUT and result.winner == 1
    assert result.cards_left == (9, 0, 11, 10)
    assert result.final_hands[1] == 0
    assert result.final_hands[0] == m("3c 3h 4d 4s Jd Jc Qd Kh Ks")
    assert result.first_leader == 0 and result.n_tricks == 6
    assert result.bao_seat is None
    assert game.turn is None


def test_acting_after_the_game_ended_is_refused() -> None:
    # spec 1.4: the game ends the moment a player has no cards left.
    game = block_game(script=BLOCK_TO_TRICK_5 + " | 0: Ks | 1: Ah")
    assert game.finished
    rejects(game, 2, "pass", "E_GAME_OVER")
    rejects(game, 2, "3s", "E_GAME_OVER")
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.claim_(0, Claim.DRAGON))
    assert info.value.code == "E_GAME_OVER"


# ----- 1.3 three players ------------------------------------------------------------------


def test_deal_17_gives_the_leftover_to_the_lowest_card_holder() -> None:
    # spec 1.3 deal_17: the leftover goes to the holder of ♦3; engine decision: stock=[leftover].
    game = new_game(THREE_17, {1: "3d"}, stock="2s")
    assert game.counts == [17, 18, 17]
    assert game.hand(1) is not None and game.hand(1) & m("2s 3d") == m("2s 3d")
    assert game.stock == [] and game.turn == 1


def test_deal_17_leftover_three_of_diamonds_goes_to_the_three_of_clubs_holder() -> None:
    # spec 1.3 deal_17: "else ♣3, ♥3, ♠3, ♦4, … in single-card order".
    game = new_game(THREE_17, {2: "3c"}, stock="3d")
    assert game.counts == [17, 17, 18]
    assert game.turn == 2
    rejects(game, 2, "3c", "E_FIRST_PLAY_LOWEST")  # the lowest card is now ♦3, in seat 2
    run(game, "2: 3d")


def test_deal_17_plays_a_full_game() -> None:
    # spec 1.3 deal_17: 17 + 18 + 17 cards play out to one winner.
    played = play_random_game(THREE_17, random.Random(11))
    assert sorted(played.start_counts) == [17, 17, 18]
    assert played.game.result is not None and played.game.result.winner is not None


# ----- 1.3 five or more players --------------------------------------------------------

SIX = rules(players=6)


def test_six_players_deal_8_each_and_the_leftover_to_the_lowest_card_holder() -> None:
    # spec 1.3 (000 "in theory 2 to 52"): deal evenly, 8 each; the 4 leftover cards go to
    # the holder of the lowest card, as in deal_17, who leads.
    game = new_game(SIX, {4: "3d"}, stock="2s 2h 2c 2d")
    assert game.counts == [8, 8, 8, 8, 12, 8]
    assert game.hand(4) is not None and game.hand(4) & m("3d 2s 2h 2c 2d") == m("3d 2s 2h 2c 2d")
    assert game.stock == [] and game.turn == 4
    rejects(game, 4, "2s", "E_FIRST_PLAY_LOWEST")
    run(game, "4: 3d | 5: pass")


def test_five_players_leftover_three_of_diamonds_goes_to_the_three_of_clubs_holder() -> None:
    # spec 1.3: "the holder of the lowest card (♦3, else ♣3, …)"; the leftover may hold ♦3.
    five = rules(players=5)
    game = new_game(five, {3: "3c"}, stock="3d 2s")
    assert game.counts == [10, 10, 10, 12, 10]
    assert game.turn == 3
    rejects(game, 3, "3c", "E_FIRST_PLAY_LOWEST")  # the lowest card is now ♦3, in seat 3
    run(game, "3: 3d")


@pytest.mark.parametrize("players", [5, 6, 7, 8])
def test_more_players_deal_is_checked(players: int) -> None:
    # spec 1.3: n hands of 52 // n cards and 52 mod n leftover cards, every card once.
    rs = rules(players=players)
    hands, stock = deal(rs, random.Random(players))
    assert [h.bit_count() for h in hands] == [52 // players] * players
    assert len(stock) == 52 % players
    game = Game(rs, hands=hands, stock=stock)
    assert sorted(game.counts) == [52 // players] * (players - 1) + [52 // players + 52 % players]
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands, stock=stock[:-1])
    assert info.value.code == "E_DEAL_STOCK"
    with pytest.raises(DealError) as info:
        Game(rs, hands=hands[:-1], stock=stock)
    assert info.value.code == "E_DEAL_COUNT"
    played = play_random_game(rs, random.Random(players))
    result = played.game.result
    assert result is not None and result.winner is not None
    assert len(result.cards_left) == players


def test_partial_six_players_needs_start_counts() -> None:
    # Engine decision (as deal_17): a partial log of 5+ players must say who got the leftover.
    with pytest.raises(ReplayError) as info:
        Game(SIX)
    assert info.value.code == "E_PARTIAL_COUNTS"
    assert "6 players dealt 8 each and 4 left over" in info.value.message
    assert Game(SIX, start_counts=[8, 12, 8, 8, 8, 8], first_leader=1).counts[1] == 12
    # 13 players: 4 each and nothing left over, so no counts are needed
    assert Game(rules(players=13), first_leader=0).counts == [4] * 13


def test_stock_13_pass_draws_the_next_stock_card() -> None:
    # spec 1.3 stock_13: a player who passes draws one card while the stock lasts.
    game = new_game(THREE_STOCK, {0: "3d 4d"}, stock="2s 2h 2c 2d Ad Ac Ah As Kd Kc Kh Ks Qd")
    records = run(game, "0: 3d | 1: pass")
    assert records[-1].drawn == parse_card("2s")
    assert records[-1].cards_left == (12, 14, 13)
    assert game.hand(1) is not None and game.hand(1) & m("2s")
    assert game.stock[0] == parse_card("2h")
    record = run(game, "2: pass")[0]
    assert record.drawn == parse_card("2h") and record.cards_left == (12, 14, 14)
    assert record.ends_trick and game.turn == 0


def test_stock_13_a_stated_draw_must_match_the_stock() -> None:
    # spec 1.3 stock_13 (docs/engine.md: a full deal's stock order is checked, E_DRAW).
    game = new_game(THREE_STOCK, {0: "3d"}, stock="2s 2h 2c 2d Ad Ac Ah As Kd Kc Kh Ks Qd")
    run(game, "0: 3d")
    bad = Action.pass_(1, drawn=parse_card("2h"))
    assert not game.can(bad)
    with pytest.raises(IllegalPlayError) as info:
        game.do(bad)
    assert info.value.code == "E_DRAW"
    assert game.do(Action.pass_(1, drawn=parse_card("2s"))).drawn == parse_card("2s")


def test_stock_13_draws_stop_when_the_stock_is_empty() -> None:
    # spec 1.3 stock_13: "while the stock lasts".
    stock = "2s 2h 2c 2d Ad Ac Ah As Kd Kc Kh Ks Qd"
    game = new_game(THREE_STOCK, {0: "3d 3c 3h 3s 4d 4c 4h 4s 5d 5c 5h 5s 6d"}, stock=stock)
    drawn = []
    for lead in ("3d", "3c", "3h", "3s", "4d", "4c", "4h"):
        records = run(game, f"0: {lead} | 1: pass | 2: pass")
        drawn += [r.drawn for r in records[1:]]
    assert drawn == [parse_card(c) for c in stock.split()] + [None]
    assert game.stock == []
    assert game.counts == [6, 13 + 7, 13 + 6]


def test_stock_13_lock_out_and_draw_together() -> None:
    # spec 1.3 stock_13 with spec 1.4 pass_locks_out: a drawing seat is still locked out.
    game = new_game(
        THREE_STOCK, {0: "3d", 1: "2s", 2: "4d"}, stock="2h 2c 2d Ad Ac Ah As Kd Kc Kh Ks Qd Qc"
    )
    run(game, "0: 3d | 1: pass")
    assert game.hand(1) is not None and game.hand(1) & m("2h")
    run(game, "2: 4d")
    assert game.turn == 0
    rejects(game, 1, "2h", "E_LOCKED_OUT")


def test_swap_leftover_swap_shows_the_lowest_card_and_takes_the_leftover() -> None:
    # spec 1.3 swap_leftover: the ♦3 holder may swap ♦3 for the leftover (♦3 shown, card taken);
    # engine decision: the swapper leads and the first-play rule is waived.
    game = new_game(THREE_SWAP, {1: "3d 4d"}, stock="2s")
    assert game.turn == 1 and game.counts == [17, 17, 17]
    record = run(game, "1: swap")[0]
    assert record.type == ActionType.SWAP and record.cards == m("3d")
    assert record.hand_before is not None and record.hand_before & m("3d")
    hand = game.hand(1)
    assert hand is not None and hand & m("2s") and not hand & m("3d")
    assert game.counts == [17, 17, 17] and game.stock == []
    assert game.turn == 1
    rejects(game, 1, "3d", "E_NOT_IN_HAND")
    run(game, "1: 4d")  # no ♦3 needed any more


def test_swap_leftover_without_a_swap_keeps_the_first_play_rule() -> None:
    # spec 1.3 swap_leftover: the swap is optional; spec 1.4 contain applies without it.
    game = new_game(THREE_SWAP, {1: "3d 4d"}, stock="2s")
    rejects(game, 1, "4d", "E_FIRST_PLAY_LOWEST")
    run(game, "1: 3d")
    assert game.stock == [parse_card("2s")]


@pytest.mark.parametrize(
    ("rs", "seat", "script"),
    [
        (THREE_SWAP, 0, ""),  # not the lowest-card holder
        (THREE_SWAP, 1, "1: 3d | 2: pass | 0: pass"),  # after play began
        (THREE_SWAP, 1, "1: swap"),  # twice
        (THREE_17, 1, ""),  # another mode
        (HK, 1, ""),  # 4 players
    ],
)
def test_swap_is_refused_when_not_allowed(rs: Ruleset, seat: int, script: str) -> None:
    # spec 1.3 swap_leftover: only the ♦3 holder, once, before play.
    stock = "2s" if rs.players == 3 else ""
    game = new_game(rs, {1: "3d 4d"}, stock=stock)
    if script:
        run(game, script)
    rejects(game, seat, "swap", "E_SWAP")


# ----- 1.5 instant wins and redeals -------------------------------------------------------

DRAGON = "3c 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 2d"
FOUR_TWOS = "3c 4c 5c 6c 7c 8c 9c Tc Jc 2d 2c 2h 2s"


def test_dragon_instant_win() -> None:
    # spec 1.5 dragon_instant_win (hk-classic, spec 1.9): all 13 ranks win at once.
    rs = rules("hk-classic")
    game = new_game(rs, {2: DRAGON})
    record = game.do(Action.claim_(2, Claim.DRAGON))
    assert record.type == ActionType.CLAIM and record.claim == Claim.DRAGON
    result = game.result
    assert result is not None and result.outcome == Outcome.INSTANT_WIN
    assert result.winner == 2 and result.claim == Claim.DRAGON
    assert result.cards_left == (13, 13, 13, 13)


def test_four_twos_instant_win() -> None:
    # spec 1.5 four_twos_instant_win (四字D).
    game = new_game(rules(four_twos_instant_win=True), {3: FOUR_TWOS})
    game.do(Action.claim_(3, Claim.FOUR_TWOS))
    assert game.result is not None and game.result.winner == 3


@pytest.mark.parametrize(
    ("rs", "claim", "hand"),
    [(HK, Claim.DRAGON, DRAGON), (HK, Claim.FOUR_TWOS, FOUR_TWOS)],
)
def test_instant_win_disabled(rs: Ruleset, claim: Claim, hand: str) -> None:
    # spec 1.5: each a parameter, default off.
    game = new_game(rs, {1: hand})
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.claim_(1, claim))
    assert info.value.code == "E_CLAIM_DISABLED"
    assert not game.finished and game.history == []


@pytest.mark.parametrize(
    ("rs", "claim"),
    [
        (rules("hk-classic"), Claim.DRAGON),
        (rules(four_twos_instant_win=True), Claim.FOUR_TWOS),
        (rules(redeal_if=["points_below_3"]), Claim.POINTS_BELOW_3),
        (rules(redeal_if=["no_card_above_10"]), Claim.NO_CARD_ABOVE_10),
        (rules(redeal_if=["no_jqk"]), Claim.NO_JQK),
    ],
)
def test_false_claim_is_refused(rs: Ruleset, claim: Claim) -> None:
    # spec 1.5: the engine checks the claim against the dealt hand.
    game = new_game(rs, {1: "3c 3h 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac"})
    assert not claim_holds(claim, m("3c 3h 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac"))
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.claim_(1, claim))
    assert info.value.code == "E_CLAIM_FALSE"


def test_claim_after_play_began_is_late() -> None:
    # spec 1.5: before play; engine decision: claims only before the first play.
    game = new_game(rules("hk-classic"), {0: "3d", 2: DRAGON.replace("3c", "3h")})
    run(game, "0: 3d")
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.claim_(2, Claim.DRAGON))
    assert info.value.code == "E_CLAIM_LATE"


LOW12 = "3d 3c 3h 3s 4d 4c 4h 4s 5d 5c 5h 5s"
LOW11 = "3d 3c 3h 3s 4d 4c 4h 4s 5d 5c 5h"


@pytest.mark.parametrize(
    ("hand", "holds"),
    [
        (LOW12 + " 6d", True),  # 0 points
        (LOW12 + " Jd", True),  # J = 1
        (LOW12 + " Qd", True),  # Q = 2
        (LOW12 + " Kd", False),  # K = 3
        (LOW12 + " Ad", False),  # A = 4
        (LOW12 + " 2d", False),  # 2 = 5
        (LOW11 + " Jd Jc", True),  # 2
        (LOW11 + " Jd Qd", False),  # 3: not below 3
    ],
)
def test_redeal_points_below_3(hand: str, holds: bool) -> None:
    # spec 1.5 redeal_if points_below_3: J=1, Q=2, K=3, A=4, 2=5, others 0; below 3 may redeal.
    game = new_game(rules(redeal_if=["points_below_3"]), {0: hand})
    claim = Action.claim_(0, Claim.POINTS_BELOW_3)
    assert game.can(claim) is holds
    if holds:
        game.do(claim)
        result = game.result
        assert result is not None and result.outcome == Outcome.REDEAL
        assert result.winner is None and result.claim == Claim.POINTS_BELOW_3


@pytest.mark.parametrize(
    ("claim", "hand", "holds"),
    [
        (Claim.NO_CARD_ABOVE_10, LOW12 + " Td", True),
        (Claim.NO_CARD_ABOVE_10, LOW12 + " Jd", False),
        (Claim.NO_JQK, LOW11 + " Ad 2d", True),
        (Claim.NO_JQK, LOW12 + " Kd", False),
        (Claim.NO_JQK, LOW12 + " Qd", False),
        (Claim.NO_JQK, LOW12 + " Jd", False),
    ],
)
def test_redeal_no_card_above_10_and_no_jqk(claim: Claim, hand: str, holds: bool) -> None:
    # spec 1.5 redeal_if no_card_above_10 (000 HK), no_jqk (001).
    game = new_game(rules(redeal_if=[claim.value]), {0: hand})
    act = Action.claim_(0, claim)
    assert game.can(act) is holds
    if holds:
        assert game.do(act).claim == claim
        assert game.result is not None and game.result.outcome == Outcome.REDEAL


def test_redeal_claim_not_in_redeal_if_is_disabled() -> None:
    # spec 1.5: each a parameter, default off.
    game = new_game(rules(redeal_if=["no_jqk"]), {0: LOW12 + " 6d"})
    with pytest.raises(IllegalPlayError) as info:
        game.do(Action.claim_(0, Claim.POINTS_BELOW_3))
    assert info.value.code == "E_CLAIM_DISABLED"


def test_dragon_claim_with_three_players() -> None:
    # spec 1.5 dragon with spec 1.3 deal_17: 13 ranks among 17 cards.
    rs = rules("hk-classic", players=3)
    game = new_game(rs, {0: DRAGON + " 3d 3h 3s 4c"}, stock="2s")
    game.do(Action.claim_(0, Claim.DRAGON))
    assert game.result is not None and game.result.winner == 0


# ----- 1.6 頂大 and 包牌 --------------------------------------------------------------------


def test_no_obligation_while_the_next_seat_holds_more_than_one_card() -> None:
    # spec 1.6: only when the next player has exactly one card left.
    game = block_game()
    assert all(r.obligation is None and r.block is None for r in game.history)
    assert game.history[-4].next_on_one is False  # seat 1 led ♥4: seat 2 holds 13
    assert game.counts == [12, 1, 13, 13]


def test_follow_obligation_met_by_the_highest_single() -> None:
    # spec 1.6: following a single their highest single beats: play the highest single.
    game = block_game()
    record = run(game, "0: 2s")[0]
    assert record.next_seat == 1 and record.next_on_one
    assert record.obligation == Obligation.FOLLOW and record.block == Block.MET
    assert record.block_reason == ""


def test_follow_obligation_violated_by_passing() -> None:
    # spec 1.6: passing is a violation.
    game = block_game()
    record = run(game, "0: pass")[0]
    assert record.obligation == Obligation.FOLLOW and record.block == Block.VIOLATED
    assert "passed" in record.block_reason and "2♠" in record.block_reason


def test_follow_obligation_violated_by_a_lower_single() -> None:
    # spec 1.6: playing a lower single is a violation.
    game = block_game()
    record = run(game, "0: 9s")[0]
    assert record.obligation == Obligation.FOLLOW and record.block == Block.VIOLATED
    assert "9♠" in record.block_reason


def test_lead_obligation_met_by_a_non_single() -> None:
    # spec 1.6: if leading, play any non-single combination.
    game = block_game(script=BLOCK_TO_TRICK_5)
    assert game.leading and game.turn == 0
    record = run(game, "0: 9d 9s")[0]
    assert record.is_lead and record.obligation == Obligation.LEAD and record.block == Block.MET


def test_lead_obligation_met_by_the_highest_single() -> None:
    # spec 1.6: if leading, or their highest single (♠K once ♠2 is gone).
    game = block_game(script=BLOCK_TO_TRICK_5)
    record = run(game, "0: Ks")[0]
    assert record.highest_single == parse_card("Ks")
    assert record.obligation == Obligation.LEAD and record.block == Block.MET


@pytest.mark.parametrize("lead", ["9s", "Kh", "3c"])
def test_lead_obligation_violated_by_a_lower_single(lead: str) -> None:
    # spec 1.6: leading a single lower than the highest is a violation.
    game = block_game(script=BLOCK_TO_TRICK_5)
    record = run(game, f"0: {lead}")[0]
    assert record.obligation == Obligation.LEAD and record.block == Block.VIOLATED
    assert "K♠" in record.block_reason


def test_no_obligation_following_a_single_that_cannot_be_beaten() -> None:
    # spec 1.6: following a single they cannot beat: no obligation.
    game = block_game(script=BLOCK_TO_TRICK_5 + " | 0: 9d 9s | 1: pass | 2: Td Ts | 3: Jh Js")
    run(game, "0: pass | 2: pass | 3: Ad")
    record = run(game, "0: pass")[0]
    assert record.next_on_one and record.obligation is None and record.block is None


def test_no_obligation_following_a_pair() -> None:
    # spec 1.6: following a pair/triple/five-card play: no obligation.
    game = block_game(script=BLOCK_TO_TRICK_5 + " | 0: 9d 9s | 1: pass | 2: Td Ts | 3: Jh Js")
    record = run(game, "0: pass")[0]
    assert record.next_on_one and record.obligation is None and record.block is None
    assert record.beating_play_existed is True  # K♥K♠ beats J♥J♠


def test_bomb_meets_a_follow_obligation() -> None:
    # Engine decision: a bomb counts as meeting a follow obligation (spec 1.2 bombs).
    game = new_game(
        rules(bombs=True),
        {
            0: "3d 4d 4c 4h 4s 9d 9s Jd Jc Qd Kh Ks 2s",
            1: "3c 5c 6c 7c 8c Tc 5h 6h 7h 8h Th 3h Ah",
        },
    )
    run(game, BLOCK_TO_TRICK_4.replace("1: 4c", "1: 3c").replace("1: 4h", "1: 3h"))
    assert game.counts[1] == 1
    record = run(game, "0: 4d 4c 4h 4s 9s")[0]
    assert record.kind == Kind.FOUR_OF_A_KIND and record.highest_single == parse_card("2s")
    assert record.obligation == Obligation.FOLLOW and record.block == Block.MET


def test_must_block_enforced_rejects_violations() -> None:
    # spec 1.6 must_block enforced: an online table refuses the move: the engine rejects it.
    enforced = rules(must_block="enforced")
    game = block_game(enforced)
    err = rejects(game, 0, "pass", "E_MUST_BLOCK")
    assert "seat 1 holds one card" in err.message
    rejects(game, 0, "9s", "E_MUST_BLOCK")
    assert not game.can_pass()
    assert [p.mask for p in game.legal_plays()] == [m("2s")]
    run(game, "0: 2s | 1: pass")
    rejects(game, 0, "9s", "E_MUST_BLOCK")
    rejects(game, 0, "Kh", "E_MUST_BLOCK")
    assert all(p.size > 1 or p.mask == m("Ks") for p in game.legal_plays())
    run(game, "0: Ks")


def test_must_block_off_still_records_the_obligation() -> None:
    # spec 1.6 must_block off (mainland, spec 1.9): allowed, and audited as information.
    game = block_game(rules(must_block="off"))
    record = run(game, "0: pass")[0]
    assert record.obligation == Obligation.FOLLOW and record.block == Block.VIOLATED


@pytest.mark.parametrize(
    "violation",
    [
        "0: pass | 1: Ah",  # follow: passed; seat 1 leads its last card
        "0: 9s | 1: Ah",  # follow: a lower single, beaten by seat 1's last card
        "0: 2s | 1: pass | 0: 9s | 1: Ah",  # lead: a lower single
    ],
)
def test_bao_when_the_next_seat_goes_out_on_its_very_next_turn(violation: str) -> None:
    # spec 1.6 包牌: the violator is liable when the next player goes out on their very next turn.
    game = block_game()
    run(game, violation)
    result = game.result
    assert result is not None and result.winner == 1
    assert result.bao_seat == 0


@pytest.mark.parametrize(
    "script",
    [
        # a violation, but seat 1's very next turn is a pass; it goes out later
        "0: 2s | 1: pass | 0: 9s | 1: pass | 2: pass | 3: pass | 0: Ks | 1: Ah",
        # no violation at all
        "0: 2s | 1: pass | 0: Ks | 1: Ah",
    ],
)
def test_no_bao_otherwise(script: str) -> None:
    # spec 1.6 包牌: only on the very next turn after the violation.
    game = block_game()
    records = run(game, script)
    result = game.result
    assert result is not None and result.winner == 1
    assert result.bao_seat is None
    assert any(r.block == Block.MET for r in records)


def test_no_bao_when_must_block_is_off() -> None:
    # spec 1.6 must_block: the violator pays under `liability`; `off` only audits (mainland).
    game = block_game(rules(must_block="off"))
    records = run(game, "0: pass | 1: Ah")
    assert records[0].block == Block.VIOLATED
    assert game.result is not None and game.result.winner == 1
    assert game.result.bao_seat is None


# ----- records ----------------------------------------------------------------------------


def test_record_facts() -> None:
    # The facts later layers need (STYLE 3): kind, rank key, trick, lead, counts, hand, beating.
    game = new_game(HK, BLOCK)
    hands = list(game.hands or [])
    records = run(game, BLOCK_TO_TRICK_4)
    lead, follow, passed = records[0], records[1], records[2]
    assert lead.action_index == 0 and lead.seat == 0 and lead.type == ActionType.PLAY
    assert lead.cards == m("3d") and lead.kind == Kind.SINGLE
    assert lead.rank_key == classify(m("3d"), HK).order  # type: ignore[union-attr]
    assert lead.trick == 1 and lead.is_lead and lead.top_before == 0
    assert lead.cards_left == (12, 13, 13, 13)
    assert lead.hand_before == hands[0]
    assert lead.beating_play_existed is None  # leads: None
    assert lead.highest_single == parse_card("2s")
    assert lead.unchecked == () and not lead.ends_trick and not lead.wins_game
    assert follow.top_before == m("3d") and not follow.is_lead
    assert follow.beating_play_existed is True and follow.highest_single == parse_card("Ah")
    assert follow.cards_left == (12, 12, 13, 13)
    assert passed.type == ActionType.PASS and passed.cards == 0
    assert passed.kind is None and passed.rank_key is None
    assert passed.beating_play_existed is True
    assert passed.top_before == m("4c") and passed.hand_before == hands[2]
    flush = records[5]
    assert flush.kind == Kind.FLUSH and flush.trick == 2 and flush.is_lead
    assert flush.rank_key == classify(m("5c 6c 7c 8c Tc"), HK).order  # type: ignore[union-attr]
    assert [r.trick for r in records].count(4) == 3
    assert [r.action_index for r in game.history] == list(range(len(game.history)))
    # seat 1 passes on ♠2 holding only ♥A: no beating play existed
    record = run(game, "0: 2s | 1: pass")[1]
    assert record.beating_play_existed is False and record.hand_before == m("Ah")


def test_record_beating_play_existed_counts_bombs() -> None:
    # spec 1.2 bombs: a bomb beats a single, so a beating play existed.
    for bombs in (True, False):
        game = new_game(rules(bombs=bombs), {0: "2s", 1: "5d 5c 5h 5s 6d"}, previous_winner=0)
        record = run(game, "0: 2s | 1: pass")[1]
        assert record.beating_play_existed is bombs


# ----- partial information ----------------------------------------------------------------


def test_partial_information_checks_combinations_turns_and_beating() -> None:
    # spec 1.6 partial information; docs/engine.md "Partial information".
    game = Game(HK)
    assert game.hand(0) is None
    rejects(game, 0, "3d 4d", "E_NOT_A_COMBINATION")
    rejects(game, 0, "pass", "E_LEAD_PASS")
    rejects(game, 0, "4d", "E_FIRST_PLAY_LOWEST")  # every card is dealt with 4 players
    record = run(game, "0: 3d 3s")[0]
    assert game.turn == 1 and game.first_leader == 0
    assert record.unchecked == ("hand",)
    assert record.hand_before is None and record.highest_single is None
    rejects(game, 2, "5d 5c", "E_OUT_OF_TURN")
    rejects(game, 1, "3c 3h", "E_NOT_HIGHER")
    rejects(game, 1, "5d", "E_WRONG_SIZE")
    record = run(game, "1: pass")[0]
    assert record.beating_play_existed is None and record.unchecked == ("hand",)
    run(game, "2: pass | 3: pass")
    assert game.turn == 0 and game.leading
    rejects(game, 1, "6d 6c", "E_OUT_OF_TURN")


def test_partial_information_card_played_twice() -> None:
    # docs/engine.md partial information: no card is played twice.
    game = Game(HK)
    run(game, "0: 3d | 1: 5d")
    err = rejects(game, 2, "5d", "E_CARD_PLAYED_TWICE")
    assert "5♦" in err.message
    rejects(game, 2, "3d 3c", "E_CARD_PLAYED_TWICE")
    rejects(game, 2, "3d", "E_CARD_PLAYED_TWICE")


def test_partial_information_too_many_cards() -> None:
    # docs/engine.md partial information: no seat plays more cards than it holds.
    game = Game(HK)
    run(game, "0: 3d 4d 5d 6d 7d | 1: pass | 2: pass | 3: pass")
    run(game, "0: 8d 9d Td Jd Qd | 1: pass | 2: pass | 3: pass")
    assert game.counts[0] == 3
    err = rejects(game, 0, "4c 5c 6c 7c 8c", "E_TOO_MANY_CARDS")
    assert "5 cards holding 3" in err.message
    run(game, "0: 3c 3h 3s")
    assert game.result is not None and game.result.winner == 0


def test_partial_information_first_leader_and_locked_out() -> None:
    # spec 1.4 with partial information: a stated first leader; lock-out still checked.
    game = Game(HK, first_leader=2)
    rejects(game, 0, "3d", "E_OUT_OF_TURN")
    run(game, "2: 3d | 3: pass | 0: 5d | 1: pass")
    rejects(game, 3, "6d", "E_LOCKED_OUT")


def test_partial_information_first_play_unchecked_when_the_lowest_card_is_unknown() -> None:
    # docs/engine.md: in stock_13 nobody may hold ♦3, so the first-play rule is unchecked.
    game = Game(THREE_STOCK)
    record = run(game, "1: 5d")[0]
    assert record.unchecked == ("hand", "first_play_lowest")
    record = run(game, "2: pass")[0]
    assert record.cards_left == (13, 12, 14)


def test_partial_information_claims_and_swaps_are_unchecked_against_the_hand() -> None:
    # spec 1.5: the engine checks a claim against the dealt hand, when the log has it.
    game = Game(rules("hk-classic"))
    record = game.do(Action.claim_(2, Claim.DRAGON))
    assert record.unchecked == ("hand",) and record.hand_before is None
    assert game.result is not None and game.result.winner == 2
    game = Game(THREE_SWAP)
    record = run(game, "1: swap")[0]
    assert record.type == ActionType.SWAP and record.unchecked == ("hand",)
    assert game.turn == 1
    rejects(game, 1, "swap", "E_SWAP")
    record = run(game, "1: 9s")[0]  # the first-play rule is waived after a swap
    assert record.is_lead


def test_partial_information_has_no_legal_play_list() -> None:
    # docs/engine.md: legal plays need the deal.
    with pytest.raises(ReplayError) as info:
        Game(HK).legal_plays()
    assert info.value.code == "E_PARTIAL_MOVES"


def test_partial_information_block_unknown_where_the_hand_is_needed() -> None:
    # spec 1.6: a log that does not show the violator's hand makes a violation unknown, not "no".
    game = Game(HK)
    run(game, BLOCK_TO_TRICK_4)
    record = run(game, "0: pass")[0]
    assert record.obligation == Obligation.FOLLOW and record.block == Block.UNKNOWN
    assert record.block_reason == "hand not in the log"

    game = Game(HK)
    run(game, BLOCK_TO_TRICK_4)
    record = run(game, "0: 9s")[0]
    assert record.block == Block.UNKNOWN

    game = Game(HK)
    run(game, BLOCK_TO_TRICK_5)
    record = run(game, "0: 9s")[0]
    assert record.obligation == Obligation.LEAD and record.block == Block.UNKNOWN


def test_partial_information_block_met_when_a_non_single_is_led() -> None:
    # spec 1.6: a non-single lead meets the obligation whatever the hand.
    game = Game(HK)
    run(game, BLOCK_TO_TRICK_5)
    record = run(game, "0: 9d 9s")[0]
    assert record.obligation == Obligation.LEAD and record.block == Block.MET


def test_partial_information_block_met_by_the_highest_unplayed_card() -> None:
    # docs/engine.md: a single that is the highest card not yet played is known to meet it.
    game = Game(HK)
    run(game, BLOCK_TO_TRICK_4)
    record = run(game, "0: 2s")[0]
    assert record.obligation == Obligation.FOLLOW and record.block == Block.MET


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "rs",
    [HK, TAIWAN, rules("mainland"), TWO, THREE_STOCK, THREE_17],
    ids=["hk", "taiwan", "mainland", "2p", "stock_13", "deal_17"],
)
def test_full_and_partial_replays_agree(rs: Ruleset, seed: int) -> None:
    # spec 1.6 partial information: the same actions give the same winner and counts.
    played = play_random_game(rs, random.Random(seed))
    full = played.game
    assert full.result is not None
    partial = replay(
        rs,
        [action_of(r) for r in full.history],
        start_counts=played.start_counts,
        first_leader=full.first_leader,
    )
    assert partial.result is not None
    assert partial.result.winner == full.result.winner
    assert partial.result.cards_left == full.result.cards_left
    assert [r.cards_left for r in partial.history] == [r.cards_left for r in full.history]
    assert [r.trick for r in partial.history] == [r.trick for r in full.history]
    assert all("hand" in r.unchecked for r in partial.history)
    # where the full record knows the block, the partial one agrees or says unknown
    for f, p in zip(full.history, partial.history, strict=True):
        assert p.obligation == f.obligation or (f.obligation, p.obligation) == (
            None,
            Obligation.FOLLOW,
        )
        assert p.block != Block.VIOLATED
        if p.block == Block.MET:
            assert f.block == Block.MET


def test_deal_accounts_for_the_deck() -> None:
    # spec 1.1: one 52-card deck.
    for rs in (HK, TWO, THREE_17, THREE_STOCK, THREE_SWAP):
        hands, stock = deal(rs, random.Random(9))
        total = sum(h.bit_count() for h in hands) + len(stock)
        union = 0
        for h in hands:
            union |= h
        for c in stock:
            union |= 1 << c
        assert total == 52 and union == FULL_DECK
