"""Hand-built legal games for the scoring tests (spec 1.10), and the script that writes them.

Each fixture is a full-information game whose final cards left match a worked example of
spec 1.10. The games are found by a small depth-first search over the engine's legal
moves (:class:`pipeline.big2.state.Game`): every loser stops playing once it is down to its
target count, the winner goes out last, and a game that ends with the wrong 包牌 seat (or a
♠2 left where the example has none) is backtracked. The output is plain log lines
(docs/log-format.md), written once to ``tests/data/scoring/*.jsonl`` by

    .venv/bin/python -m tests.scoring_fixtures

and read by ``tests/test_scoring_examples.py`` through the real pipeline (ingest → build).
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.big2.playout import deal, random_playout
from pipeline.big2.rules import load_ruleset
from pipeline.big2.state import Action, Game
from pipeline.cards import format_card, format_cards
from pipeline.sim import sample

DATA = Path(__file__).resolve().parent / "data" / "scoring"
SPADE_TWO = 1 << (12 * 4 + 3)

EndCheck = Callable[[Game], bool]


class _Budget(Exception):
    pass


@dataclass
class Spec:
    """What one fixture game must look like."""

    game_id: str
    preset: str
    cards_left: Sequence[int]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    bao_seat: int | None = None
    no_spade_two: bool = False  # no loser with >= 8 cards keeps ♠2 (the example has no doubling)
    spade_two_seat: int | None = None  # this seat ends holding ♠2
    match_id: str | None = None
    game_number: int = 1
    previous_winner: int | None = None
    balances: Sequence[float] | None = None
    players: Sequence[str] = ("east", "south", "west", "north")
    tournament: Mapping[str, Any] | None = None


def _ok_end(game: Game, spec: Spec) -> bool:
    result = game.result
    assert result is not None and game.hands is not None
    if list(result.cards_left) != list(spec.cards_left) or result.bao_seat != spec.bao_seat:
        return False
    if spec.spade_two_seat is not None and not game.hands[spec.spade_two_seat] & SPADE_TWO:
        return False
    if spec.no_spade_two:
        return not any(
            h & SPADE_TWO and n >= 8 for h, n in zip(game.hands, result.cards_left, strict=True)
        )
    return True


def _clone(game: Game) -> Game:
    child = copy.copy(game)
    child.history = list(game.history)
    child.hands = list(game.hands) if game.hands is not None else None
    child.counts = list(game.counts)
    child.locked = list(game.locked)
    child.stock = list(game.stock)
    return child


def _search(
    game: Game, spec: Spec, rng: random.Random, path: list[Action], budget: list[int]
) -> list[Action] | None:
    if game.finished:
        return list(path) if _ok_end(game, spec) else None
    budget[0] -= 1
    if budget[0] < 0:
        raise _Budget
    seat = game.turn
    assert seat is not None
    target = spec.cards_left
    quota = game.counts[seat] - target[seat]
    losers_done = all(game.counts[s] == target[s] for s in range(game.n) if target[s] > 0)
    options: list[Action] = []
    plays = [p for p in game.legal_plays() if p.size <= quota]
    if target[seat] == 0 and not losers_done:
        plays = [p for p in plays if p.size < game.counts[seat]]
    rng.shuffle(plays)
    if target[seat] == 0 and losers_done:
        plays.sort(key=lambda p: -p.size)
    options = [Action.play(seat, p.mask) for p in plays[:4]]
    if game.can_pass():
        passing = Action.pass_(seat)
        if quota == 0 or rng.random() < 0.3:
            options.insert(0, passing)
        else:
            options.append(passing)
    for action in options:
        child = _clone(game)
        child.do(action)
        path.append(action)
        found = _search(child, spec, rng, path, budget)
        path.pop()
        if found is not None:
            return found
    return None


def build(spec: Spec, *, seed: int = 1, tries: int = 400) -> dict[str, Any]:
    """A log object for ``spec`` (searching deals from ``seed`` until one works)."""
    rs = load_ruleset(spec.preset, dict(spec.overrides))
    rng = random.Random(seed)
    for _ in range(tries):
        hands, stock = deal(rs, rng)
        game = Game(rs, hands=hands, stock=stock, previous_winner=spec.previous_winner)
        try:
            actions = _search(game, spec, rng, [], [3000])
        except _Budget:
            continue
        if actions is not None:
            return _log(spec, hands, actions, stock)
    raise RuntimeError(f"no game found for {spec.game_id}")


def _log(
    spec: Spec, hands: Sequence[int], actions: Sequence[Action], stock: Sequence[int] = ()
) -> dict[str, Any]:
    seats: list[dict[str, Any]] = []
    for s, pid in enumerate(spec.players):
        entry: dict[str, Any] = {"seat": s, "player_id": pid}
        if spec.balances is not None:
            entry["balance"] = spec.balances[s]
        seats.append(entry)
    out: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": spec.game_id,
        "ruleset": {"preset": spec.preset, "overrides": dict(spec.overrides)},
        "match_id": spec.match_id or spec.game_id,
        "game_number": spec.game_number,
        "seats": seats,
        "deal": {
            "hands": [format_cards(h, compact=True) for h in hands],
            "stock": [format_card(c, compact=True) for c in stock],
        },
        "previous_winner": spec.previous_winner,
        "actions": [
            {"seat": a.seat, "action": "play", "cards": format_cards(a.cards, compact=True)}
            if a.cards
            else {"seat": a.seat, "action": "pass"}
            for a in actions
        ],
        "result": {"winner": list(spec.cards_left).index(0), "cards_left": list(spec.cards_left)},
    }
    if spec.tournament:
        out.update(spec.tournament)
    return out


def relabel(game: Mapping[str, Any], game_id: str, **overrides: Any) -> dict[str, Any]:
    """The same deal and play under other scoring overrides (they do not change legality)."""
    out = copy.deepcopy(dict(game))
    out["game_id"] = game_id
    out["match_id"] = game_id
    out["ruleset"]["overrides"] = {**out["ruleset"]["overrides"], **overrides}
    return out


FUNTOWN = [[8, 2], [11, 3], [13, 4]]


def example_games() -> dict[str, list[dict[str, Any]]]:
    """Every fixture file's games, by file stem."""
    out: dict[str, list[dict[str, Any]]] = {}
    ex1 = build(Spec(game_id="ex1", preset="hk", cards_left=[0, 1, 8, 12], overrides={"stake": 10}))
    out["ex1"] = [ex1, relabel(ex1, "ex1-wta", settlement="winner_takes_all")]
    ex2 = build(
        Spec(game_id="ex2", preset="mainland", cards_left=[5, 8, 0, 12], no_spade_two=True), seed=2
    )
    out["ex2"] = [ex2]
    ex3 = build(
        Spec(
            game_id="ex3",
            preset="hk",
            cards_left=[0, 5, 10, 13],
            overrides={"multiplier_tiers": FUNTOWN, "stake": 20},
        ),
        seed=3,
    )
    out["ex3"] = [ex3, relabel(ex3, "ex3-wta", settlement="winner_takes_all", stake=10)]
    ex4 = build(
        Spec(
            game_id="ex4",
            preset="hk",
            cards_left=[3, 0, 1, 4],
            overrides={"settlement": "winner_takes_all"},
            bao_seat=0,
        ),
        seed=4,
    )
    out["ex4"] = [ex4, relabel(ex4, "ex4-place", settlement="place")]
    ex5: list[dict[str, Any]] = []
    previous: int | None = None
    for number, left in enumerate(
        ([7, 0, 3, 7], [10, 9, 3, 0], [0, 11, 13, 8], [1, 1, 0, 2]), start=1
    ):
        game = build(
            Spec(
                game_id=f"ex5-g{number}",
                preset="hk-classic",
                cards_left=left,
                match_id="ex5",
                game_number=number,
                previous_winner=previous,
            ),
            seed=50 + number,
        )
        game["match_id"] = "ex5"
        previous = left.index(0)
        ex5.append(game)
    out["ex5"] = ex5
    ex6 = build(
        Spec(
            game_id="ex6",
            preset="hk",
            cards_left=[0, 13, 8, 11],
            overrides={"multiplier_tiers": FUNTOWN, "stake": 20, "bankroll": True},
            balances=[10000, 2100, 5000, 2500],
            no_spade_two=False,
        ),
        seed=6,
    )
    out["ex6"] = [ex6, relabel(ex6, "ex6-wta", settlement="winner_takes_all")]
    out["options"] = [
        build(
            Spec(game_id="spade2", preset="mainland", cards_left=[0, 9, 3, 12], spade_two_seat=1),
            seed=7,
        ),
        random_game(
            "huanle",
            {"bonus_multipliers": "huanle"},
            lambda g: (
                sum(r.kind is not None and r.kind.value == "straight" for r in g.history) >= 3
            ),
        ),
        random_game(
            "seven",
            {"first_leader_seven_doubles": True},
            lambda g: (
                g.result is not None
                and g.result.winner != g.first_leader
                and g.result.cards_left[g.first_leader or 0] == 7
            ),
        ),
        dragon_game(),
        redeal_game(),
    ]
    out["tournaments"] = tournament_games()
    out["six"] = six_player_games()
    return out


SIX_LEFT = [2, 0, 8, 5, 1, 7]


def six_player_games() -> list[dict[str, Any]]:
    """A 6-player hk game (spec 1.3: 8 cards each, the 4 leftover to the lowest-card holder)
    ending 2 / 0 / 8 / 5 / 1 / 7 cards left, under each settlement, and under place with a
    bankroll where seat 2 cannot pay all it owes."""
    six = build(
        Spec(
            game_id="six",
            preset="hk",
            cards_left=SIX_LEFT,
            overrides={"players": 6, "stake": 10},
            players=("ann", "bob", "cat", "dan", "eve", "fay"),
            no_spade_two=True,
        ),
        seed=66,
    )
    bank = relabel(six, "six-bank", bankroll=True)
    for seat, balance in zip(bank["seats"], (1000, 1000, 300, 1000, 1000, 1000), strict=True):
        seat["balance"] = balance
    return [
        six,
        relabel(six, "six-wta", settlement="winner_takes_all"),
        relabel(six, "six-points", settlement="penalty_points"),
        bank,
    ]


def random_game(game_id: str, overrides: Mapping[str, Any], want: EndCheck) -> dict[str, Any]:
    """The first uniformly random legal game (seeds 0, 1, ...) that ``want`` accepts."""
    rs = load_ruleset("hk", dict(overrides))
    for seed in range(5000):
        game, actions = random_playout(rs, random.Random(seed))
        if want(game):
            assert game.result is not None
            left = list(game.result.cards_left)
            spec = Spec(game_id=game_id, preset="hk", cards_left=left, overrides=overrides)
            hands = [
                h | sum(1 << a_c for a_c in _played(actions, s))
                for s, h in enumerate(game.hands or [])
            ]
            return _log(spec, hands, actions)
    raise RuntimeError(f"no random game for {game_id}")


def played_game(
    game_id: str, seed: int, players: Sequence[str], tournament: Mapping[str, Any]
) -> tuple[dict[str, Any], int, list[int]]:
    """A uniformly random legal hk game (deal and play from ``seed``) for ``players``:
    ``(log, winner seat, cards left)``."""
    rs = load_ruleset("hk")
    game, actions = random_playout(rs, random.Random(seed))
    assert game.result is not None
    left = list(game.result.cards_left)
    spec = Spec(
        game_id=game_id,
        preset="hk",
        cards_left=left,
        match_id=game_id,
        players=tuple(players),
        tournament=dict(tournament),
    )
    hands = [
        h | sum(1 << a_c for a_c in _played(actions, s)) for s, h in enumerate(game.hands or [])
    ]
    return _log(spec, hands, actions), left.index(0), left


def tournament_games() -> list[dict[str, Any]]:
    """Tournaments of spec 1.8 / seed 002 (docs/scoring.md):

    - ``ko-full``: 晉級賽 over five rounds, one table a round: the winner goes on and three
      new players enter (direct entry, seed 002's Fun幣 row); 16 players ``ka01`` …;
    - ``ko-short``: 晉級賽 whose log stops after round 2 (its round-2 winner cashes out);
    - ``pts-1``: 積分賽, five games of the same four players.
    """
    out: list[dict[str, Any]] = []
    for tid, rounds, prefix, seed0 in (("ko-full", 5, "ka", 700), ("ko-short", 2, "kb", 800)):
        fresh = iter(f"{prefix}{i:02d}" for i in range(1, 40))
        table = [next(fresh) for _ in range(4)]
        for r in range(1, rounds + 1):
            kind = {"tournament_id": tid, "tournament_kind": "knockout", "tournament_round": r}
            log, winner, _ = played_game(f"{tid}-r{r}", seed0 + r, table, kind)
            out.append(log)
            table = [table[winner], *(next(fresh) for _ in range(3))]
    for g in range(1, 6):
        kind = {"tournament_id": "pts-1", "tournament_kind": "points", "tournament_round": g}
        players = ("pa1", "pa2", "pa3", "pa4")
        log, _, _ = played_game(f"pts-1-g{g}", 900 + g, players, kind)
        out.append(log)
    return out


def _played(actions: Sequence[Action], seat: int) -> list[int]:
    return [c for a in actions if a.seat == seat for c in range(52) if a.cards >> c & 1]


def dragon_game() -> dict[str, Any]:
    """一條龍 under hk-classic: seat 2 holds all thirteen ranks and claims the instant win."""
    hands = [
        "3c 4d 5d 6d 7c 8d 9c Tc Jc Qd Kd Ac 2c",
        "3h 4c 5c 6c 7h 8c 9d Td Jh Qc Kc Ad 2h",
        "3d 4h 5h 6h 7d 8h 9h Th Jd Qh Kh Ah 2d",
        "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s",
    ]
    return {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": "dragon",
        "ruleset": {"preset": "hk-classic", "overrides": {}},
        "match_id": "dragon",
        "game_number": 1,
        "seats": [{"seat": s, "player_id": f"d{s}"} for s in range(4)],
        "deal": {"hands": hands, "stock": []},
        "actions": [{"seat": 2, "action": "claim", "claim": "dragon"}],
        "result": {"winner": 2, "cards_left": [13, 13, 13, 13]},
    }


def redeal_game() -> dict[str, Any]:
    """A redeal claim (scores nothing)."""
    game = sample.redeal_game()
    game["game_id"] = "redeal"
    game["match_id"] = "redeal"
    return game


def main(argv: Sequence[str] | None = None) -> int:
    """Write ``tests/data/scoring/<example>.jsonl`` (all, or only the stems given)."""
    DATA.mkdir(parents=True, exist_ok=True)
    only = set(argv or ())
    if only == {"tournaments"}:
        files = {"tournaments": tournament_games()}
    else:
        files = {k: v for k, v in example_games().items() if not only or k in only}
    for stem, games in files.items():
        path = DATA / f"{stem}.jsonl"
        path.write_text(
            "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games), encoding="utf-8"
        )
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
