"""Simulated Dou Dizhu games: deal through the engine, let the bots act, plant a feeding farmer.

Game ``index`` of a run with ``seed`` draws from its own generator,
``random.Random(f"ddz:{seed}:{index}")`` (the Big Two simulator's scheme with a ``ddz:``
prefix), so a game is the same whatever the order games are played in or the number of
processes. A game is one or more deals: the deal picks a face-up card (翻开的牌) whose holder
bids first; a void deal (荒牌, nobody bids or calls) is kept as its own record with outcome
``redeal`` and no score, and the cards are dealt again from the same generator (spec 2.2).

Each deal is a plain dict (JSON-ready; :func:`log_line` writes it as a Dou Dizhu log line):
the deal as card masks, the actions, the result and a ``truth`` object the analytics must not
read: the bots per seat and the planted feeding farmer.

**Planted: a farmer who feeds the landlord.** ``feeder`` names a seat. When that seat is a
farmer, follows a play of the landlord's, the landlord holds one or two cards and the seat can
beat, that is an *opportunity*; with probability ``feed_rate`` the seat passes (a *feed*),
otherwise its bot chooses as usual. ``truth.feed_opportunities`` lists every opportunity
(action index, seat, the landlord's cards, whether it fed); every fact it rests on is in the
engine's records too (``top_seat``, ``cards_left``, ``beating_play_existed``), so the marts can
find the rate without the truth.

>>> from pipeline.doudizhu.rules import load_ruleset
>>> deals = play_game(load_ruleset("ddz"), ["heuristic", "greedy", "random"], seed=3, index=0)
>>> deals[-1]["result"]["outcome"], deals[-1]["truth"]["bots"]
('played_out', ['heuristic', 'greedy', 'random'])
>>> replay(deals[-1]).result == replay(deals[-1]).result
True
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pipeline.doudizhu.cards import FULL_DECK, N_CARDS, format_cards
from pipeline.doudizhu.combos import Kind
from pipeline.doudizhu.rules import DdzRuleset, load_ruleset
from pipeline.doudizhu.state import Action, ActionType, Game, GameResult, Outcome, Phase, deal
from pipeline.sim.bots import SimError
from pipeline.sim.ddz_bots import DdzBot, DdzTurn, legal_bids, make_ddz_bot
from pipeline.wording import plural
from pipeline.workers import pool as worker_pool

GENERATOR = "pipeline.sim.ddz"
#: A game gives up after this many void deals in a row (never reached by the bots here).
MAX_DEALS = 100


def game_rng(seed: int, index: int) -> random.Random:
    """The generator of game ``index`` of a run (independent of every other game).

    >>> game_rng(1, 5).random() == game_rng(1, 5).random() != game_rng(1, 6).random()
    True
    """
    return random.Random(f"ddz:{seed}:{index}")


def action_dict(a: Action) -> dict[str, Any]:
    """An action as plain data (what a log line will carry)."""
    return {
        "seat": a.seat,
        "type": a.type.value,
        "cards": a.cards,
        "value": a.value,
        "kind": None if a.kind is None else a.kind.value,
    }


def action_of(d: dict[str, Any]) -> Action:
    """The inverse of :func:`action_dict`."""
    kind = d.get("kind")
    return Action(
        d["seat"],
        ActionType(d["type"]),
        d.get("cards", 0),
        d.get("value", 0),
        None if kind is None else Kind(kind),
    )


def result_dict(r: GameResult) -> dict[str, Any]:
    """A game result as plain data."""
    return {
        "outcome": r.outcome.value,
        "landlord": r.landlord,
        "base": r.base,
        "winner": r.winner,
        "landlord_won": r.landlord_won,
        "bombs": r.bombs,
        "rockets": r.rockets,
        "spring": None if r.spring is None else r.spring.value,
        "multiplier": r.multiplier,
        "amount": r.amount,
        "scores": list(r.scores),
    }


def _feed_opportunity(game: Game, seat: int, feeder: int | None, can_beat: bool) -> bool:
    landlord = game.landlord
    return (
        feeder == seat
        and landlord is not None
        and seat != landlord
        and game.top is not None
        and game.top_seat == landlord
        and game.counts[landlord] <= 2
        and can_beat
    )


def play_deal(
    rs: DdzRuleset,
    bots: Sequence[DdzBot],
    rng: random.Random,
    *,
    feeder: int | None = None,
    feed_rate: float = 0.0,
) -> tuple[Game, dict[str, Any]]:
    """Deal once and play to the end (or the void auction): the game and its deal record."""
    hands, kitty, aside = deal(rs, rng)
    dealt = 0
    for h in hands:
        dealt |= h
    cards = [c for c in range(N_CARDS) if dealt >> c & 1]
    face_up = cards[rng.randrange(len(cards))]
    game = Game(rs, hands=hands, kitty=kitty, set_aside=aside, face_up_card=face_up)
    actions: list[Action] = []
    opportunities: list[dict[str, Any]] = []
    while not game.finished:
        seat = game.turn
        assert seat is not None
        bot = bots[seat]
        if game.phase == Phase.AUCTION:
            action = bot.bid(game, legal_bids(game), rng)
        else:
            plays = list(game.legal_plays())
            can_pass = game.top is not None
            if _feed_opportunity(game, seat, feeder, bool(plays)):
                fed = rng.random() < feed_rate
                landlord = game.landlord
                assert landlord is not None
                opportunities.append(
                    {
                        "action_index": len(game.history),
                        "seat": seat,
                        "landlord_cards": game.counts[landlord],
                        "fed": fed,
                    }
                )
                if fed:
                    action = Action.pass_(seat)
                    game.do(action)
                    actions.append(action)
                    continue
            action = bot.choose(DdzTurn(game, seat, plays, can_pass), rng)
        game.do(action)
        actions.append(action)
    assert game.result is not None
    record: dict[str, Any] = {
        "game_kind": "doudizhu",
        "hands": list(hands),
        "kitty": kitty,
        "set_aside": aside,
        "face_up_card": face_up,
        "first_bidder": game.first_bidder,
        "actions": [action_dict(a) for a in actions],
        "result": result_dict(game.result),
        "truth": {
            "generator": GENERATOR,
            "bots": [b.name.value for b in bots],
            "feeder": feeder,
            "feed_rate": feed_rate,
            "feed_opportunities": opportunities,
        },
    }
    assert (dealt | kitty | aside) == FULL_DECK
    return game, record


def play_game(
    rs: DdzRuleset | str,
    bots: Sequence[str],
    *,
    seed: int,
    index: int,
    feeder: int | None = None,
    feed_rate: float = 0.0,
) -> list[dict[str, Any]]:
    """Game ``index`` of the run ``seed``: its void deals (outcome ``redeal``), then the deal
    played out, each a record with ``seed``, ``game_index`` and ``deal_number`` (1-based)."""
    if isinstance(rs, str):
        rs = load_ruleset(rs)
    if len(bots) != rs.players:
        raise SimError(
            "E_SIM_OPTION",
            f"{plural(len(bots), 'bot')} ({', '.join(bots)}) for {rs.players} players",
        )
    if not 0.0 <= feed_rate <= 1.0:
        raise SimError("E_SIM_OPTION", f"feed_rate = {feed_rate}: must be in [0, 1]")
    if feeder is not None and not 0 <= feeder < rs.players:
        raise SimError("E_SIM_OPTION", f"feeder {feeder}: a seat of 0..{rs.players - 1}")
    players = [make_ddz_bot(b) for b in bots]
    rng = game_rng(seed, index)
    out: list[dict[str, Any]] = []
    for number in range(1, MAX_DEALS + 1):
        game, record = play_deal(rs, players, rng, feeder=feeder, feed_rate=feed_rate)
        record.update(
            preset=rs.name,
            overrides=dict(rs.overrides),
            seed=seed,
            game_index=index,
            deal_number=number,
        )
        out.append(record)
        assert game.result is not None
        if game.result.outcome != Outcome.REDEAL:
            return out
    raise SimError("E_SIM_OPTION", f"game {index} of seed {seed}: {MAX_DEALS} void deals in a row")


#: Games a worker process plays per task (a chunk of consecutive game indexes).
CHUNK = 16


def _chunk(
    preset: str,
    overrides: tuple[tuple[str, Any], ...],
    bots: tuple[str, ...],
    seed: int,
    start: int,
    stop: int,
    rotate_seats: bool,
    feeder: int | None,
    feed_rate: float,
) -> list[list[dict[str, Any]]]:
    rs = load_ruleset(preset, dict(overrides))
    n = len(bots)
    out = []
    for index in range(start, stop):
        shift = index % n if rotate_seats else 0
        lineup = [bots[(s - shift) % n] for s in range(n)]
        out.append(
            play_game(rs, lineup, seed=seed, index=index, feeder=feeder, feed_rate=feed_rate)
        )
    return out


def simulate(
    preset: str,
    bots: Sequence[str],
    *,
    games: int,
    seed: int,
    first: int = 0,
    rotate_seats: bool = False,
    feeder: int | None = None,
    feed_rate: float = 0.0,
    workers: int = 1,
    overrides: Mapping[str, Any] | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Games ``first`` … ``first + games - 1`` of a run, in order, each as its list of deal
    records, under ``preset`` plus ``overrides``; ``rotate_seats``: game ``i`` seats the lineup
    rotated by ``i``. With ``workers`` > 1, chunks of :data:`CHUNK` games run in worker
    processes: the output is the same."""
    stops = list(range(first, first + games, CHUNK))
    settings = tuple(sorted((overrides or {}).items()))
    tasks = [
        (
            preset,
            settings,
            tuple(bots),
            seed,
            a,
            min(a + CHUNK, first + games),
            rotate_seats,
            feeder,
            feed_rate,
        )
        for a in stops
    ]
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            yield from _chunk(*t)
        return
    with worker_pool(workers, preload=["pipeline.sim.ddz_play"]) as pool:
        for chunk in pool.map(_chunk, *zip(*tasks, strict=True)):
            yield from chunk


def replay(record: dict[str, Any], rs: DdzRuleset | None = None) -> Game:
    """Replay a deal record through the engine with the full deal (every action verified,
    strict: any illegal action raises its named error); the finished game."""
    if rs is None:
        rs = load_ruleset(record["preset"], record.get("overrides"))
    game = Game(
        rs,
        hands=record["hands"],
        kitty=record["kitty"],
        set_aside=record["set_aside"],
        first_bidder=record["first_bidder"],
        face_up_card=record["face_up_card"],
    )
    for d in record["actions"]:
        game.do(action_of(d))
    return game


def log_line(
    record: dict[str, Any], *, game_id: str, player_ids: Sequence[str] | None = None
) -> dict[str, Any]:
    """A deal record of the simulator as a Dou Dizhu log line's object (docs/log-format.md,
    "Dou Dizhu"): the full deal with the face-up card (and, for 2 players, the set-aside
    cards), the auction and plays, the result.

    >>> line = log_line(play_game("ddz", ["greedy"] * 3, seed=1, index=0)[-1], game_id="s-1")
    >>> line["game_kind"], len(line["seats"]), sorted(line["deal"])
    ('doudizhu', 3, ['face_up_card', 'hands', 'kitty'])
    """
    n = len(record["hands"])
    ids = list(player_ids) if player_ids is not None else [f"p{s}" for s in range(n)]
    ruleset: dict[str, Any] = {"preset": record["preset"]}
    if record.get("overrides"):
        ruleset["overrides"] = dict(record["overrides"])
    deal_obj: dict[str, Any] = {
        "hands": [format_cards(h) for h in record["hands"]],
        "kitty": format_cards(record["kitty"]),
    }
    if record.get("set_aside"):
        deal_obj["set_aside"] = format_cards(record["set_aside"])
    if record.get("face_up_card") is not None:
        deal_obj["face_up_card"] = format_cards(1 << record["face_up_card"])
    actions: list[dict[str, Any]] = []
    for d in record["actions"]:
        entry: dict[str, Any] = {"seat": d["seat"], "action": d["type"]}
        if d["type"] == ActionType.BID:
            entry["value"] = d["value"]
        elif d["type"] == ActionType.PLAY:
            entry["cards"] = format_cards(d["cards"])
            if d.get("kind") is not None:
                entry["kind"] = d["kind"]
        actions.append(entry)
    line: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "doudizhu",
        "game_id": game_id,
        "ruleset": ruleset,
        "seats": [{"seat": s, "player_id": ids[s]} for s in range(n)],
        "deal": deal_obj,
        "first_bidder": record["first_bidder"],
        "actions": actions,
        "result": dict(record["result"]),
    }
    if "truth" in record:
        line["truth"] = dict(record["truth"])
    return line
