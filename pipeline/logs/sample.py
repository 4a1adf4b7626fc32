"""Seeded random legal games as log objects, and the sample files in ``data/samples/``.

Every game here is played by the engine itself (each move chosen at random among the
legal ones), so the samples replay cleanly by construction. ``python -m
pipeline.logs.sample data/samples`` rewrites the sample files; the output depends only on
the seeds.

>>> game = sample_game(seed=7, game_id="s7")
>>> game["game_id"], game["game_kind"], len(game["deal"]["hands"])
('s7', 'big2', 4)
>>> sum(game["result"]["cards_left"]) > 0 and game["result"]["cards_left"][game["result"]["winner"]]
0
"""

from __future__ import annotations

import copy
import csv
import gzip
import json
import random
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pipeline.big2.rules import load_ruleset
from pipeline.big2.state import Action, Game
from pipeline.cards import cards_of, format_card, format_cards, mask_of

_BASE_TIME = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _cards_text(mask: int, notation: str) -> str | list[str]:
    if notation == "pretty":
        return format_cards(mask)
    if notation == "list":
        return [format_card(c, compact=True) for c in cards_of(mask)]
    return format_cards(mask, compact=True)


def sample_game(
    *,
    seed: int,
    game_id: str,
    preset: str = "hk",
    overrides: Mapping[str, Any] | None = None,
    match_id: str | None = None,
    game_number: int = 1,
    previous_winner: int | None = None,
    pass_rate: float = 0.35,
    notation: str = "compact",
) -> dict[str, Any]:
    """One complete legal game as a log object (docs/log-format.md), from a seed."""
    rng = random.Random(seed)
    rs = load_ruleset(preset, dict(overrides or {}))
    deck = list(range(52))
    rng.shuffle(deck)
    size = rs.hand_size
    hands = [mask_of(deck[s * size : (s + 1) * size]) for s in range(rs.players)]
    stock = deck[size * rs.players :]
    game = Game(
        rs, hands=hands, stock=stock, game_number=game_number, previous_winner=previous_winner
    )
    started = _BASE_TIME + timedelta(minutes=seed % 10_000)
    clock = started.timestamp()
    actions: list[dict[str, Any]] = []
    while not game.finished:
        assert game.turn is not None
        seat = game.turn
        plays = list(game.legal_plays())
        clock += round(rng.uniform(0.5, 9.0), 1)
        if plays and (game.leading or not game.can_pass() or rng.random() > pass_rate):
            sizes = sorted({p.size for p in plays})
            want = rng.choice(sizes)
            play = rng.choice([p for p in plays if p.size == want])
            game.do(Action.play(seat, play.mask))
            actions.append(
                {
                    "seat": seat,
                    "action": "play",
                    "cards": _cards_text(play.mask, notation),
                    "ts": clock,
                }
            )
        else:
            record = game.do(Action.pass_(seat))
            entry: dict[str, Any] = {"seat": seat, "action": "pass", "ts": clock}
            if record.drawn is not None:
                entry["drawn"] = format_card(record.drawn, compact=True)
            actions.append(entry)
    result = game.result
    assert result is not None
    obj: dict[str, Any] = {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": game_id,
        "ruleset": {"preset": preset, "overrides": dict(overrides or {})},
        "match_id": match_id,
        "game_number": game_number,
        "table_id": f"table-{seed % 7}",
        "started_at": started.isoformat(),
        "seats": [
            {"seat": s, "player_id": f"p{(seed + s) % 9}", "name": f"Player {(seed + s) % 9}"}
            for s in range(rs.players)
        ],
        "deal": {
            "hands": [_cards_text(h, notation) for h in hands],
            "stock": [format_card(c, compact=True) for c in stock],
        },
        "previous_winner": previous_winner,
        "actions": actions,
        "result": {"winner": result.winner, "cards_left": list(result.cards_left)},
        "truth": {"generator": "pipeline.logs.sample", "seed": seed},
    }
    return obj


def sample_match(
    *, seed: int, match_id: str, n_games: int, preset: str = "hk", **kwargs: Any
) -> list[dict[str, Any]]:
    """A match: ``n_games`` games at one table, each led by the previous winner when the rules say."""
    games: list[dict[str, Any]] = []
    previous: int | None = None
    for number in range(1, n_games + 1):
        game = sample_game(
            seed=seed * 1000 + number,
            game_id=f"{match_id}-g{number}",
            preset=preset,
            match_id=match_id,
            game_number=number,
            previous_winner=previous,
            **kwargs,
        )
        previous = game["result"]["winner"]
        games.append(game)
    return games


def to_partial(game: Mapping[str, Any]) -> dict[str, Any]:
    """The same game as partial information: no deal, only what was played."""
    out = copy.deepcopy(dict(game))
    deal = out.pop("deal", None)
    if deal is not None:  # what a simulator knows and the log does not
        out["truth"] = {**(out.get("truth") or {}), "deal": deal}
    out["first_leader"] = out["actions"][0]["seat"]
    out["game_id"] = f"{game['game_id']}-partial"
    return out


def dumps(game: Mapping[str, Any]) -> str:
    """One game as one JSON line (no newline)."""
    return json.dumps(game, ensure_ascii=False, separators=(", ", ": "))


def redeal_game() -> dict[str, Any]:
    """A hand-written game that ends before play: seat 0 holds no J, Q or K and asks for a redeal."""
    return {
        "format_version": 1,
        "game_kind": "big2",
        "game_id": "redeal-1",
        "ruleset": {"preset": "hk", "overrides": {"redeal_if": ["no_jqk"]}},
        "match_id": "m-redeal",
        "game_number": 1,
        "seats": [{"seat": s, "player_id": f"p{s}"} for s in range(4)],
        "deal": {
            "hands": [
                "3d 4d 5d 6d 7d 8d 9d Td Ad 2d 3c 4c 5c",
                "Jd Qd Kd 6c 7c 8c 9c Tc Jc Qc Kc Ac 2c",
                "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 2h",
                "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s",
            ],
            "stock": [],
        },
        "actions": [{"seat": 0, "action": "claim", "claim": "no_jqk"}],
        "result": {"winner": None, "cards_left": [13, 13, 13, 13]},
    }


def good_games() -> list[dict[str, Any]]:
    """The complete games of ``data/samples/games.jsonl``."""
    games = sample_match(seed=1, match_id="m-hk-1", n_games=3)
    games.append(sample_game(seed=21, game_id="taiwan-1", preset="taiwan", notation="pretty"))
    games.append(sample_game(seed=22, game_id="mainland-1", preset="mainland", notation="list"))
    three = {"players": 3, "three_player_mode": "stock_13"}
    games.append(sample_game(seed=23, game_id="hk3-stock-1", overrides=three))
    games.append(sample_game(seed=24, game_id="hk2-1", overrides={"players": 2}))
    games.append(redeal_game())
    return games


def _first_single(game: Mapping[str, Any], start: int) -> int:
    for i, a in enumerate(game["actions"]):
        if i >= start and a["action"] == "play" and len(a["cards"].split()) == 1:
            return i
    raise AssertionError("no single play")  # pragma: no cover - seeds chosen to have one


def bad_lines() -> list[tuple[str, bytes]]:
    """``(expected code, line bytes)`` for each bad input, good games in between."""
    base = {f"good-{k}": sample_game(seed=100 + k, game_id=f"good-{k}") for k in range(3)}

    def variant(game_id: str) -> dict[str, Any]:
        game = copy.deepcopy(base["good-0"])
        game["game_id"] = game_id
        return game

    lines: list[tuple[str, bytes]] = [("", dumps(base["good-0"]).encode())]
    truncated = dumps(variant("bad-truncated")).encode()
    lines.append(("E_JSON", truncated[: len(truncated) // 2]))
    lines.append(("E_JSON", dumps(variant("bad-json")).encode()[:-1] + b",}"))
    wrong = variant("bad-types")
    wrong["actions"][3]["seat"] = "two"
    lines.append(("E_SCHEMA", dumps(wrong).encode()))
    unknown = variant("bad-card")
    unknown["actions"][2] = {**unknown["actions"][2], "action": "play", "cards": "11d"}
    lines.append(("E_BAD_CARD", dumps(unknown).encode()))
    lines.append(("", dumps(base["good-1"]).encode()))
    twice = variant("bad-dealt-twice")
    hands = twice["deal"]["hands"]
    hands[1] = " ".join([hands[0].split()[0], *hands[1].split()[1:]])
    lines.append(("E_DEAL_DUPLICATE", dumps(twice).encode()))
    not_held = variant("bad-not-held")
    i = _first_single(not_held, 3)
    other = (not_held["actions"][i]["seat"] + 1) % 4
    not_held["actions"][i]["cards"] = not_held["deal"]["hands"][other].split()[-1]
    lines.append(("E_NOT_IN_HAND", dumps(not_held).encode()))
    out_of_turn = variant("bad-out-of-turn")
    out_of_turn["actions"][1]["seat"] = (out_of_turn["actions"][1]["seat"] + 2) % 4
    lines.append(("E_OUT_OF_TURN", dumps(out_of_turn).encode()))
    winner = variant("bad-winner")
    winner["result"]["winner"] = (winner["result"]["winner"] + 1) % 4
    lines.append(("E_RESULT_MISMATCH", dumps(winner).encode()))
    huge = variant("bad-huge")
    huge["truth"]["padding"] = "x" * (1 << 20)
    lines.append(("E_LINE_TOO_LONG", dumps(huge).encode()))
    encoding = dumps(variant("bad-encoding")).encode().replace(b'"Player ', b'"Pl\xff\xfeayer ', 1)
    lines.append(("E_ENCODING", encoding))
    lines.append(("", dumps(base["good-2"]).encode()))
    return lines


def _csv_rows(games: Sequence[Mapping[str, Any]]) -> tuple[list[list[str]], list[list[str]]]:
    game_rows = [
        [
            "game_id", "ruleset", "overrides", "match_id", "game_number", "table_id",
            "players", "hands", "stock", "winner", "cards_left",
        ]
    ]  # fmt: skip
    action_rows = [["game_id", "seq", "seat", "action", "cards", "ts"]]
    for game in games:
        deal = game.get("deal")
        result = game["result"]
        game_rows.append(
            [
                game["game_id"],
                game["ruleset"]["preset"],
                json.dumps(game["ruleset"]["overrides"]),
                game.get("match_id") or "",
                str(game["game_number"]),
                game.get("table_id") or "",
                "|".join(s["player_id"] for s in game["seats"]),
                "|".join(deal["hands"]) if deal else "",
                " ".join(deal["stock"]) if deal else "",
                str(result["winner"]),
                "|".join(map(str, result["cards_left"])),
            ]
        )
        for seq, a in enumerate(game["actions"], start=1):
            action_rows.append(
                [
                    game["game_id"],
                    str(seq),
                    str(a["seat"]),
                    a["action"],
                    a.get("cards", ""),
                    str(a["ts"]),
                ]
            )
    return game_rows, action_rows


def write_samples(directory: Path) -> list[Path]:
    """Write every sample file into ``directory``; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, data: bytes) -> None:
        path = directory / name
        path.write_bytes(data)
        written.append(path)

    good = good_games()
    put("games.jsonl", "".join(dumps(g) + "\n" for g in good).encode())
    partial = to_partial(sample_game(seed=31, game_id="hk-31"))
    put("partial.jsonl", (dumps(partial) + "\n").encode())
    csv_games = [
        sample_game(seed=41, game_id="csv-1"),
        to_partial(sample_game(seed=42, game_id="csv-2")),
    ]
    for csv_game in csv_games:
        csv_game.pop("truth")
    game_rows, action_rows = _csv_rows(csv_games)
    for name, rows in (("actions.games.csv", game_rows), ("actions.csv", action_rows)):
        path = directory / name
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh, lineterminator="\n").writerows(rows)
        written.append(path)
    put("bad.jsonl", b"".join(line + b"\n" for _, line in bad_lines()))
    whole = gzip.compress("".join(dumps(g) + "\n" for g in good[:3]).encode(), mtime=0)
    put("truncated.jsonl.gz", whole[: len(whole) * 3 // 4])
    put("empty.jsonl", b"")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pipeline.logs.sample DIR``: write the sample files."""
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0]) if args else Path("data/samples")
    for path in write_samples(directory):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
