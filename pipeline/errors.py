"""The project's named errors, each with a stable machine-readable code.

Every error the project raises on purpose derives from :class:`Big2Error`. Each carries
``code`` (a stable ``E_*`` string listed in ``docs/errors.md``), a human message quoting
the evidence, and optional structured context (seat, trick, action index) that the
importer copies into the rejects table.

>>> err = IllegalPlayError("E_NOT_HIGHER", "seat 2 played 5♦5♣ on 9♥9♠ (trick 4)", seat=2, trick=4)
>>> str(err)
'E_NOT_HIGHER: seat 2 played 5♦5♣ on 9♥9♠ (trick 4)'
>>> err.code, err.context["seat"]
('E_NOT_HIGHER', 2)
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from typing import Any

# ----- codes of values a log may not hold (docs/log-format.md "Limits"), spelled once here -----
#: A number beyond what its field can hold: ``game_number`` ≥ 2**31, a balance beyond ±2**53.
E_NUMBER_RANGE = "E_NUMBER_RANGE"
#: A time (``ts``, ``started_at``) before 1990-01-01 or from 2100-01-01 on, NaN or infinite.
E_TS_RANGE = "E_TS_RANGE"
#: An action logged at an earlier time than the action before it.
E_TS_ORDER = "E_TS_ORDER"
#: A string or field name holding a lone UTF-16 surrogate escape (``"\\ud800"``).
E_SURROGATE = "E_SURROGATE"
#: A game with more actions (rows) than any legal game has.
E_GAME_TOO_LONG = "E_GAME_TOO_LONG"
#: A game whose warehouse rows cannot be built (the row builder's last line of defence).
E_ROW_BUILD = "E_ROW_BUILD"
#: A game that replays but whose game kind the warehouse does not store (Dou Dizhu, for now).
E_GAME_NOT_STORED = "E_GAME_NOT_STORED"
#: A CSV header column the reader does not know: ignored, the file imported (one reject row).
E_CSV_COLUMN = "E_CSV_COLUMN"

# ----- Dou Dizhu engine codes (pipeline.doudizhu; docs/errors.md "Dou Dizhu"), spelled once here -----
#: A deal with the wrong number of hands or cards, or cards missing (54 with the jokers).
E_DDZ_DEAL_COUNT = "E_DDZ_DEAL_COUNT"
#: A card dealt twice (two hands, a hand and the kitty, the set-aside cards).
E_DDZ_DEAL_DUPLICATE = "E_DDZ_DEAL_DUPLICATE"
#: The face-up card (翻开的牌) is not held by the first bidder.
E_DDZ_FACE_UP = "E_DDZ_FACE_UP"
#: An action by a seat whose turn it is not.
E_DDZ_OUT_OF_TURN = "E_DDZ_OUT_OF_TURN"
#: A bid during play, or a play or pass during the auction.
E_DDZ_PHASE = "E_DDZ_PHASE"
#: An auction action of the wrong form (a bid in a 叫地主 auction, a call in a 叫分 one).
E_DDZ_AUCTION = "E_DDZ_AUCTION"
#: A bid outside 0-3.
E_DDZ_BID_VALUE = "E_DDZ_BID_VALUE"
#: A bid not strictly higher than the current bid.
E_DDZ_BID_NOT_HIGHER = "E_DDZ_BID_NOT_HIGHER"
#: Cards played that the seat does not hold (or more cards than it holds).
E_DDZ_NOT_IN_HAND = "E_DDZ_NOT_IN_HAND"
#: Cards that are no combination (the explaining classifier says why).
E_DDZ_NOT_A_COMBO = "E_DDZ_NOT_A_COMBO"
#: A kind named by the log that the cards are not.
E_DDZ_KIND_NAMED = "E_DDZ_KIND_NAMED"
#: A play of the table's kind and length (or a bomb on a bomb) that is not higher.
E_DDZ_NOT_HIGHER = "E_DDZ_NOT_HIGHER"
#: A play of another kind or length than the table's, and no bomb.
E_DDZ_WRONG_KIND = "E_DDZ_WRONG_KIND"
#: A pass by the seat that leads the round.
E_DDZ_PASS_ON_LEAD = "E_DDZ_PASS_ON_LEAD"
#: An action after the game ended.
E_DDZ_GAME_OVER = "E_DDZ_GAME_OVER"


class Big2Error(ValueError):
    """Base of every deliberate error: a stable ``code`` plus a message with the evidence."""

    default_code = "E_BIG2"

    def __init__(self, code: str | None = None, message: str = "", **context: Any) -> None:
        self.code = code or self.default_code
        self.message = message
        self.context: dict[str, Any] = context
        super().__init__(f"{self.code}: {message}")


class CardParseError(Big2Error):
    """A card or card list that cannot be parsed (names the bad token)."""

    default_code = "E_BAD_CARD"


class RulesetError(Big2Error):
    """A ruleset (preset file or override) that is invalid (names the key)."""

    default_code = "E_RULESET"


class DealError(Big2Error):
    """A deal that cannot be right: duplicate cards, wrong counts, bad stock."""

    default_code = "E_DEAL"


class IllegalPlayError(Big2Error):
    """An action that the rules do not allow in the current state."""

    default_code = "E_ILLEGAL"


class ReplayError(Big2Error):
    """A log that cannot be replayed for a reason other than one illegal action."""

    default_code = "E_REPLAY"


class LogFormatError(Big2Error):
    """A log record that cannot be read: bad bytes, bad JSON, wrong shape (names the field)."""

    default_code = "E_LOG"
