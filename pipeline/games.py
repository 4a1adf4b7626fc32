"""The seam between the games and the layers above them: one small interface per ``game_kind``.

A log names its game (``game_kind``); the layers above the engines (the log reader's
dispatch in :mod:`pipeline.logs.jsonl`, :mod:`pipeline.replay`) reach that game through
:func:`game_for` and the :class:`Game` interface only, never through an engine package.
Each game is one package beside the other (``pipeline/big2/``, ``pipeline/doudizhu/``) that
implements the interface in its ``game`` module; :data:`GAMES` says where, and the module is
imported on first use (so this module imports no game, and a game costs nothing until a log
asks for it). A score sheet names no ``game_kind``: :data:`SHEETS` registers each sheet shape
with the game whose sheets they are, as :data:`GAMES` does each game.

>>> game_for("big2").kind
'big2'
>>> game_for("big2").classify(1, game_for("big2").load_ruleset("hk", {})).kind.value
'single'
>>> game_for("chess")
Traceback (most recent call last):
...
pipeline.errors.ReplayError: E_GAME_KIND: game_kind 'chess' cannot be replayed yet
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import import_module
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from pipeline.errors import ReplayError, RulesetError

#: ``game_kind`` → ``"module:attribute"`` of the game's :class:`Game` (a registered game).
GAMES: dict[str, str] = {
    "big2": "pipeline.big2.game:GAME",
    "doudizhu": "pipeline.doudizhu.game:GAME",
}

#: The score-sheet shapes (files of result-only games, which name no ``game_kind``): the
#: ``--format`` name → ``"module:attribute"`` of the game's :class:`SheetShape`, in the order
#: the log reader tries them on a file whose shape its content tells.
SHEETS: dict[str, str] = {
    "sheet": "pipeline.big2.scoresheet:CSV_SHEET",
    "scorer": "pipeline.big2.scoresheet:SCORER",
}


class Replayed(NamedTuple):
    """What a game's replay of one record gives: the ruleset it was played under, the
    engine's record of each action (one warehouse row each) and how the game ended. The
    types are the game's own (Big Two: ``Ruleset``, ``ActionRecord``, ``GameResult``)."""

    ruleset: Any
    actions: tuple[Any, ...]
    result: Any


class CsvColumns(NamedTuple):
    """A game's own columns of the CSV logs (docs/log-format.md) and how they become the
    game object: the CSV reader reads the shared columns itself and leaves these to the game,
    so it knows no game. A column of another game on a row is ``E_SCHEMA``, naming it."""

    #: The game's name in messages ("Big Two").
    title: str
    #: The games-CSV columns only this game has.
    game_columns: tuple[str, ...]
    #: The actions-CSV columns only this game has.
    action_columns: tuple[str, ...]
    #: ``fill(cell, obj)``: this game's columns of one games-CSV row (``cell(name)`` the
    #: stripped text, empty when absent) into the JSON Lines game object ``obj``, as a line of
    #: this game has them; raises ``LogFormatError``.
    fill: Callable[[Callable[[str], str], dict[str, Any]], None]


class Game(Protocol):
    """One game as the layers above its engine see it."""

    @property
    def kind(self) -> str:
        """The ``game_kind`` of its logs."""

    def load_ruleset(self, preset: str, overrides: Mapping[str, Any]) -> Any:
        """A preset plus overrides, validated (a named error naming the key)."""

    def parse_record(self, obj: Any, *, source: Any, raw: str, content_hash: str) -> Any:
        """One game object of a log (the envelope already read: a dict with this
        ``game_kind``) → the record the replay takes; raises ``LogFormatError``."""

    def replay(self, record: Any) -> Replayed:
        """Replay a parsed record; raise a ``Big2Error`` (code, message, ``action_index`` in
        its context when one action is at fault) for a log the rules do not accept."""

    def legal_moves(self, state: Any) -> Any:
        """The legal moves of the seat to act in an engine state (for bots and reviews)."""

    def classify(self, cards: int, ruleset: Any) -> Any:
        """The play a set of cards makes under a ruleset, or None (the explaining classifier)."""

    @property
    def sql_prefix(self) -> str:
        """The prefix of the game's own SQL objects (``sql/``): its staging views, marts and
        named queries, and the rulesets table ``big2 build`` writes (``<prefix>rulesets``)."""

    def preset_names(self) -> tuple[str, ...]:
        """The game's presets (``big2 build`` writes each into its rulesets table)."""

    def sql_params(self, ruleset: Any) -> dict[str, Any]:
        """A ruleset as the JSON the game's SQL reads: its parameters plus what its scoring
        needs."""

    def sql_seeds(self) -> dict[str, tuple[str, list[tuple[Any, ...]]]]:
        """Constant tables the game's SQL reads: name → (column definitions, rows)."""

    @property
    def scoring_keys(self) -> frozenset[str]:
        """The ruleset keys the game's SQL scoring reads: the only ones a what-if (``big2
        rescore --set``, the leaderboards) changes, since it scores the games as played again
        and replays none; every other key is a rule of the play."""

    @property
    def csv(self) -> CsvColumns:
        """The game's own CSV log columns and how its games-CSV row is read."""


class SheetShape(Protocol):
    """A score-sheet shape as the log reader sees it: told by a file's name and content, read
    into the game's records (and a reject per line that cannot be read)."""

    def looks_like(self, path: Path) -> bool:
        """Whether a file is of this shape (its name, then its first lines)."""

    def read(self, path: Path, rules: Any) -> Iterator[Any]:
        """A record or a reject per game; ``rules`` the preset and overrides of a sheet
        that names none (``pipeline.logs.scoresheet.SheetRules``)."""


#: The game of the stored games written before ``game_kind`` was a column value other than
#: Big Two's (their ``game_kind`` reads NULL), and of a preset name no game knows.
DEFAULT_KIND = "big2"

_LOADED: dict[str, Game] = {}
_SHEETS_LOADED: dict[str, SheetShape] = {}


def check_seat_count(seats: int, ruleset_name: str, players: int) -> None:
    """Refuse a record whose seats are not the ruleset's number of players (every game's
    replay checks it first).

    >>> check_seat_count(3, "hk", 4)
    Traceback (most recent call last):
    ...
    pipeline.errors.ReplayError: E_SEAT_COUNT: 3 seats listed; ruleset 'hk' plays 4 players
    """
    if seats != players:
        raise ReplayError(
            "E_SEAT_COUNT",
            f"{seats} seats listed; ruleset {ruleset_name!r} plays {players} players",
        )


def find_game(kind: object) -> Game | None:
    """The registered game of a ``game_kind``, or None (no such game, or not a string).

    >>> find_game("big2") is game_for("big2"), find_game("chess"), find_game(None)
    (True, None, None)
    """
    if not isinstance(kind, str):
        return None
    game = _LOADED.get(kind)
    if game is None:
        where = GAMES.get(kind)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        game = _LOADED[kind] = getattr(import_module(module), attribute)
    return game


def sheet_shape(name: str) -> SheetShape:
    """The score-sheet shape ``name`` of :data:`SHEETS` (its game's module imported on first use).

    >>> sheet_shape("scorer").looks_like(Path("club.csv"))
    False
    """
    shape = _SHEETS_LOADED.get(name)
    if shape is None:
        module, _, attribute = SHEETS[name].partition(":")
        shape = _SHEETS_LOADED[name] = getattr(import_module(module), attribute)
    return shape


def kinds() -> tuple[str, ...]:
    """Every registered ``game_kind``, in registration order.

    >>> kinds()
    ('big2', 'doudizhu')
    """
    return tuple(GAMES)


def preset_game(preset: str) -> Game:
    """The game whose preset ``preset`` is; for a name no game has, :data:`DEFAULT_KIND`'s
    (whose ruleset loader then refuses it, naming its presets).

    >>> preset_game("ddz-2p").kind, preset_game("hk").kind, preset_game("nonesuch").kind
    ('doudizhu', 'big2', 'big2')
    """
    for kind in GAMES:
        game = game_for(kind)
        if preset in game.preset_names():
            return game
    return game_for(DEFAULT_KIND)


def presets_named(games: Iterable[Game]) -> str:
    """The presets of ``games``, game by game, as messages name them.

    >>> presets_named([game_for("doudizhu")])
    'Dou Dizhu ddz, ddz-2p'
    """
    return "; ".join(f"{game.csv.title} {', '.join(game.preset_names())}" for game in games)


def check_preset(preset: str) -> None:
    """``E_RULESET_PRESET`` naming every game's presets when no game has ``preset``: a command
    that takes any game's preset (``big2 simulate -r``, ``big2 rules show``, ``big2 rescore
    --as``) says them all, where the game it falls back to would name its own only.

    >>> check_preset("ddz-2p")
    >>> check_preset("nonesuch")
    Traceback (most recent call last):
    ...
    pipeline.errors.RulesetError: E_RULESET_PRESET: unknown preset 'nonesuch'; presets: Big Two hk, hk-classic, mainland, taiwan; Dou Dizhu ddz, ddz-2p
    """
    games = [game_for(kind) for kind in GAMES]
    if any(preset in game.preset_names() for game in games):
        return
    named = presets_named(games)
    raise RulesetError(
        "E_RULESET_PRESET",
        f"unknown preset {preset!r}; presets: {named}",
        key="preset",
        value=preset,
    )


def game_for(kind: str) -> Game:
    """The registered game of a ``game_kind``; :class:`ReplayError` ``E_GAME_KIND`` if none."""
    game = find_game(kind)
    if game is None:
        raise ReplayError("E_GAME_KIND", f"game_kind {kind!r} cannot be replayed yet")
    return game
