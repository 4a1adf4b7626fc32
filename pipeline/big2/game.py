"""Big Two behind the game seam (:class:`pipeline.games.Game`): the ruleset loader, the log
record's parser, the record replay, legal moves and the classifier.

One of the engine package's adapter modules, with :mod:`pipeline.big2.logformat` (the log
parser), :mod:`pipeline.big2.logwriter` and :mod:`pipeline.big2.scoresheet`: the only modules
of the package that see log records (:mod:`pipeline.logs`); the engine itself (rules, combos,
moves, state) stays pure. :func:`replay_record` builds the ruleset (preset + overrides) and
the :class:`~pipeline.big2.state.Game` (full deal or partial information), applies every
action with :meth:`~pipeline.big2.state.Game.do` and cross-checks the declared result; a log
the rules do not accept raises a named error whose context holds the action index.

>>> from pipeline.sim.sample import sample_game
>>> from pipeline.logs.model import Source
>>> obj = sample_game(seed=1, game_id="doc-1")
>>> record = GAME.parse_record(obj, source=Source("doc", 1), raw="", content_hash="")
>>> done = GAME.replay(record)
>>> done.result.winner == obj["result"]["winner"], len(done.actions) == len(obj["actions"])
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.big2.combos import Play, classify
from pipeline.big2.logformat import CSV, Big2Record, record_from_obj
from pipeline.big2.rules import (
    HUANLE_MIN_PLAYS,
    HUANLE_TABLE,
    RANK_LADDER,
    TIER_NAMES,
    Ruleset,
    load_ruleset,
    preset_names,
)
from pipeline.big2.state import Action, Game, GameResult, LegalMoves, Outcome, new_tuple
from pipeline.errors import Big2Error, ReplayError
from pipeline.games import CsvColumns, Replayed, check_seat_count
from pipeline.logs.model import GameRecord


def _seats_text(values: tuple[int, ...] | None) -> str:
    return "none" if values is None else "[" + ", ".join(map(str, values)) + "]"


def _check_result(record: GameRecord, result: GameResult) -> None:
    declared = record.declared
    if declared is None:
        return
    problems = []
    if declared.winner is not None and declared.winner != result.winner:
        replayed = "no winner" if result.winner is None else f"seat {result.winner}"
        problems.append(f"declared winner seat {declared.winner}, replay: {replayed}")
    if declared.cards_left is not None and declared.cards_left != result.cards_left:
        problems.append(
            f"declared cards_left {_seats_text(declared.cards_left)}, "
            f"replay: {_seats_text(result.cards_left)}"
        )
    if problems:
        raise ReplayError("E_RESULT_MISMATCH", "; ".join(problems))


def _overrides_text(record: GameRecord) -> str:
    text = ", ".join(f"{key}={value!r}" for key, value in record.overrides)
    return text if len(text) <= 200 else text[:200] + "…"


def _build_game(record: Big2Record, rs: Ruleset) -> Game:
    check_seat_count(len(record.seats), rs.name, rs.players)
    game = Game(
        rs,
        hands=record.hands,
        stock=record.stock,
        start_counts=record.start_counts,
        game_number=record.game_number,
        previous_winner=record.previous_winner,
        first_leader=record.first_leader,
    )
    if (
        record.first_leader is not None
        and game.turn is not None
        and game.turn != record.first_leader
    ):
        raise ReplayError(
            "E_FIRST_LEADER_MISMATCH",
            f"the log says seat {record.first_leader} leads first; under the rules seat {game.turn} does",
        )
    return game


def sheet_result(record: GameRecord, rs: Ruleset) -> GameResult:
    """Check a result-only game against its ruleset and return its result (the replay of
    information level ``result``): exactly one winner at 0 cards, each count within the
    deal, the 包牌 seat a seat of the game. Raises :class:`ReplayError` with the code.

    >>> from pipeline.big2.scoresheet import parse_scorer_text
    >>> from pipeline.logs.scoresheet import SheetRules
    >>> rec = next(parse_scorer_text("a b c d\\n0 3 1t 14", "x.txt", SheetRules()))
    >>> try:
    ...     sheet_result(rec, load_ruleset("hk"))
    ... except ReplayError as err:
    ...     print(err.code, err.message)
    E_SHEET_COUNT seat 3 (d) has 14 cards left; the deal gives at most 13
    """
    sheet = record.sheet
    assert sheet is not None
    n = rs.players
    check_seat_count(len(record.seats), rs.name, n)
    names = [s.name or s.player_id for s in record.seats]
    if sheet.bao_seat is not None and not 0 <= sheet.bao_seat < n:
        raise ReplayError("E_SHEET_BAO", f"包牌 seat {sheet.bao_seat} is not a seat 0-{n - 1}")
    if sheet.redeal:
        return GameResult(
            outcome=Outcome.REDEAL,
            winner=None,
            claim=None,
            cards_left=(rs.hand_size,) * n,
            final_hands=(None,) * n,
            first_leader=None,
            n_tricks=0,
            bao_seat=None,
        )
    most = rs.hand_size + (rs.stock_size if rs.leftover_to_lowest else 0)
    for seat, count in enumerate(sheet.cards_left):
        if count > most:
            raise ReplayError(
                "E_SHEET_COUNT",
                f"seat {seat} ({names[seat]}) has {count} cards left; the deal gives at most {most}",
            )
    winners = [seat for seat, count in enumerate(sheet.cards_left) if count == 0]
    if len(winners) != 1:
        raise ReplayError(
            "E_SHEET_WINNER",
            f"cards left {' '.join(map(str, sheet.cards_left))}: "
            f"{len(winners)} seats at 0, a game has exactly one winner",
        )
    return GameResult(
        outcome=Outcome.PLAYED_OUT,
        winner=winners[0],
        claim=None,
        cards_left=sheet.cards_left,
        final_hands=(None,) * n,
        first_leader=None,
        n_tricks=0,
        bao_seat=sheet.bao_seat,
    )


def replay_record(record: GameRecord) -> Replayed:
    """Replay a Big Two record; raise a named error (``action_index`` in its context when
    one action is at fault) for a log the rules do not accept."""
    if record.sheet is None and not isinstance(record, Big2Record):
        raise TypeError(f"a Big Two replay of a {type(record).__name__}, not a Big2Record")
    try:
        rs = load_ruleset(record.ruleset, dict(record.overrides))
        if record.sheet is not None:  # information level "result": no actions to replay
            return Replayed(rs, (), sheet_result(record, rs))
        assert isinstance(record, Big2Record)
        game = _build_game(record, rs)
    except Big2Error:
        raise
    except (TypeError, ValueError, OverflowError) as err:  # an override value of no known shape
        raise ReplayError(
            "E_RULESET_VALUE",
            f"ruleset overrides {_overrides_text(record)} cannot be read "
            f"({type(err).__name__}: {err})",
        ) from None
    for i, logged in enumerate(record.actions):
        if game.finished:
            raise ReplayError(
                "E_ACTIONS_AFTER_END",
                f"{len(record.actions) - i} action(s) follow the end of the game "
                f"(first: seat {logged.seat} {logged.type.value})",
                action_index=i,
            )
        # the logged action's first five fields are the engine's Action (seat, type, cards,
        # claim, drawn), built without the named tuple's Python-level __new__ (new_tuple)
        action: Action = new_tuple(Action, logged[:5])
        try:
            game.do(action)
        except Big2Error as err:
            raise ReplayError(err.code, f"actions[{i}]: {err.message}", action_index=i) from None
    result = game.result
    if result is None:
        left = _seats_text(tuple(game.counts))
        raise ReplayError(
            "E_UNFINISHED",
            f"the log ends after {len(record.actions)} action(s) with no winner (cards left {left})",
        )
    _check_result(record, result)
    return Replayed(rs, tuple(game.history), result)


class Big2:
    """Big Two as a :class:`pipeline.games.Game`."""

    @property
    def kind(self) -> str:
        return "big2"

    def load_ruleset(self, preset: str, overrides: Mapping[str, Any]) -> Ruleset:
        return load_ruleset(preset, overrides)

    def parse_record(self, obj: Any, *, source: Any, raw: str, content_hash: str) -> GameRecord:
        return record_from_obj(obj, source=source, raw=raw, content_hash=content_hash)

    def replay(self, record: Any) -> Replayed:
        return replay_record(record)

    def legal_moves(self, state: Any) -> LegalMoves:
        game: Game = state
        return game.legal_moves()

    def classify(self, cards: int, ruleset: Any) -> Play | None:
        return classify(cards, ruleset)

    @property
    def sql_prefix(self) -> str:
        return ""

    def preset_names(self) -> tuple[str, ...]:
        return tuple(preset_names())

    def sql_params(self, ruleset: Any) -> dict[str, Any]:
        """``Ruleset.to_dict()`` plus the engine's scoring tables.

        >>> p = GAME.sql_params(load_ruleset("hk"))
        >>> p["settlement"], p["huanle_table"]["four_of_a_kind"], p["tier_names"][4]
        ('place', 4, '四炒')
        """
        rs: Ruleset = ruleset
        params = rs.to_dict()
        params["huanle_table"] = dict(HUANLE_TABLE)
        params["huanle_min_plays"] = HUANLE_MIN_PLAYS
        top = max(TIER_NAMES)
        # tier_names[multiplier] (0-based list; SQL indexes it with multiplier + 1)
        params["tier_names"] = [TIER_NAMES.get(m, "") for m in range(top + 1)]
        # mult_by_cards[n]: the 炒 multiplier of a loser with n cards (Ruleset.tier, one rule)
        params["mult_by_cards"] = [rs.tier(n) for n in range(27)]
        return params

    def sql_seeds(self) -> dict[str, tuple[str, list[tuple[Any, ...]]]]:
        """The rank ladder (spec 1.8): each title and its minimum cumulative score, the top
        title from the default ruleset's ``rank_ladder_top`` (spec 1.8 Decision).

        >>> _, ladder = GAME.sql_seeds()["rank_ladder"]
        >>> ladder[-1][1], ladder[-1][2] == load_ruleset().rank_ladder_top
        ('主席', True)
        """
        ladder: list[tuple[Any, ...]] = [
            (i, title, score) for i, (title, score) in enumerate(RANK_LADDER)
        ]
        ladder.append((len(RANK_LADDER), TOP_TITLE, load_ruleset().rank_ladder_top))
        return {"rank_ladder": ("level integer, title varchar, min_score bigint", ladder)}

    @property
    def scoring_keys(self) -> frozenset[str]:
        return SCORING_KEYS

    @property
    def csv(self) -> CsvColumns:
        return CSV


#: The ruleset keys Big Two's SQL scoring reads (spec 1.6-1.8; ``sql/macros/ruleset_fields.sql``
#: types them, ``score_seats`` and ``whatif_results`` use them): the 炒 tiers and doublings,
#: the settlement, 包牌 and the missed call's penalty, the stake, the bankroll cap. The
#: ruleset's other keys decide what the play was (``rank_ladder_top`` and
#: ``dragon_instant_win`` are typed but no score reads them).
SCORING_KEYS = frozenset(
    {
        "multiplier_tiers",
        "spade_two_doubles",
        "first_leader_seven_doubles",
        "card_points",
        "winner_bonus",
        "stake",
        "bonus_multipliers",
        "settlement",
        "bao_place",
        "must_block",
        "missed_call_penalty",
        "bankroll",
        "bankroll_start",
    }
)
#: The title above the last threshold of RANK_LADDER (spec 1.8 Decision: threshold configurable).
TOP_TITLE = "主席"
#: The registered game (:data:`pipeline.games.GAMES`).
GAME = Big2()
