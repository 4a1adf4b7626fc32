"""Seeded random legal games as log objects, and the sample files in ``data/samples/``.

Every game here is played by the simulator (:mod:`pipeline.sim.play`) with ``random`` bots (each
move uniform among the legal ones) and turned into a log object by
:func:`pipeline.big2.logwriter.game_log`, the one way a played game becomes a log, so the
samples replay cleanly by construction. ``python -m pipeline.sim.sample data/samples``
rewrites the sample files; the output depends only on the seeds.

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
import io
import json
import random
import sys
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pipeline.big2.logwriter import GameMeta, Notation, game_log
from pipeline.big2.rules import load_ruleset
from pipeline.logs.writer import dumps, seats_of
from pipeline.sim.bots import RandomBot
from pipeline.sim.play import play_game

_BASE_TIME = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
#: ``truth.generator`` of a sample game: the module's name before it moved from
#: ``pipeline.logs`` to ``pipeline.sim``, kept so that the samples stay byte for byte the same.
GENERATOR = "pipeline.logs.sample"


def sample_game(
    *,
    seed: int,
    game_id: str,
    preset: str = "hk",
    overrides: Mapping[str, Any] | None = None,
    match_id: str | None = None,
    game_number: int = 1,
    previous_winner: int | None = None,
    notation: str = "compact",
) -> dict[str, Any]:
    """One complete legal game as a log object (docs/log-format.md), from a seed."""
    rng = random.Random(seed)
    rs = load_ruleset(preset, dict(overrides or {}))
    started = _BASE_TIME + timedelta(minutes=seed % 10_000)
    played = play_game(
        rs,
        [RandomBot() for _ in range(rs.players)],
        rng,
        game_number=game_number,
        previous_winner=previous_winner,
        clock=started.timestamp(),
    )
    players = [(seed + s) % 9 for s in range(rs.players)]
    meta = GameMeta(
        game_id=game_id,
        preset=preset,
        overrides=dict(overrides or {}),
        seats=seats_of([f"p{p}" for p in players], [f"Player {p}" for p in players]),
        match_id=match_id,
        game_number=game_number,
        table_id=f"table-{seed % 7}",
        started_at=started,
        previous_winner=previous_winner,
    )
    return game_log(
        played.game,
        meta=meta,
        hands=played.hands,
        stock=played.stock,
        times=played.times,
        notation=Notation(notation),
        truth={"generator": GENERATOR, "seed": seed},
    )


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


#: The optional games-CSV columns :func:`_csv_rows` writes when a game has a value for them.
_CSV_OPTIONAL = ("previous_winner", "first_leader")


def _csv_rows(games: Sequence[Mapping[str, Any]]) -> tuple[list[list[str]], list[list[str]]]:
    """Big Two games (JSON Lines objects) as a games CSV's and an actions CSV's rows, headers
    first: ``previous_winner`` and ``first_leader`` as columns when a game has one (a match's
    later games: who leads depends on them)."""
    optional = [c for c in _CSV_OPTIONAL if any(g.get(c) is not None for g in games)]
    game_rows = [
        [
            "game_id", "ruleset", "overrides", "match_id", "game_number", "table_id",
            "players", "hands", "stock", "winner", "cards_left", *optional,
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
                *("" if game.get(c) is None else str(game[c]) for c in optional),
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


#: A Dou Dizhu games CSV's and actions CSV's columns as :func:`ddz_csv_text` writes them
#: (docs/log-format.md, "Dou Dizhu in CSV").
DDZ_GAMES_HEADER = (
    "game_id", "game_kind", "ruleset", "overrides", "players", "hands", "kitty", "set_aside",
    "face_up_card", "first_bidder", "outcome", "landlord", "base", "winner", "landlord_won",
    "bombs", "rockets", "spring", "multiplier", "amount", "scores",
)  # fmt: skip
DDZ_ACTIONS_HEADER = ("game_id", "seq", "seat", "action", "cards", "value", "kind", "ts")


def _ddz_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "|".join(map(str, value))
    return str(value)


def ddz_csv_text(lines: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """Dou Dizhu log lines (objects) as a games CSV and an actions CSV, as an export writes
    them: (games text, actions text).

    >>> games, actions = ddz_csv_text([])
    >>> games.startswith("game_id,game_kind,ruleset,"), actions
    (True, 'game_id,seq,seat,action,cards,value,kind,ts\\n')
    """
    games, actions = io.StringIO(), io.StringIO()
    g, a = csv.writer(games, lineterminator="\n"), csv.writer(actions, lineterminator="\n")
    g.writerow(DDZ_GAMES_HEADER)
    a.writerow(DDZ_ACTIONS_HEADER)
    for line in lines:
        deal, result = line["deal"], line["result"]
        g.writerow(
            [
                line["game_id"],
                "doudizhu",
                line["ruleset"]["preset"],
                json.dumps(line["ruleset"].get("overrides", {})),
                "|".join(s["player_id"] for s in line["seats"]),
                "|".join(deal["hands"]),
                deal["kitty"],
                deal.get("set_aside", ""),
                deal.get("face_up_card", ""),
                line["first_bidder"],
                *(_ddz_cell(result.get(k)) for k in DDZ_GAMES_HEADER[10:]),
            ]
        )
        for i, act in enumerate(line["actions"], 1):
            a.writerow(
                [
                    *(line["game_id"], i, act["seat"], act["action"], act.get("cards", "")),
                    *(_ddz_cell(act.get("value")), act.get("kind", ""), _ddz_cell(act.get("ts"))),
                ]
            )
    return games.getvalue(), actions.getvalue()


def _cut_after_first_line(whole: bytes, first: int, second: int) -> int:
    """A cut of a gzip stream midway between where its first line and its second line end."""
    sizes = []
    for cut in range(0, len(whole), 16):
        sizes.append((cut, len(zlib.decompressobj(wbits=31).decompress(whole[:cut]))))
    lo = next(c for c, n in sizes if n > first + 1)
    hi = max(c for c, n in sizes if n < first + second)
    return (lo + max(lo, hi)) // 2


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
    texts = [(dumps(g) + "\n").encode() for g in good[:3]]
    whole = gzip.compress(b"".join(texts), mtime=0)
    put("truncated.jsonl.gz", whole[: _cut_after_first_line(whole, len(texts[0]), len(texts[1]))])
    put("empty.jsonl", b"")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pipeline.sim.sample DIR``: write the sample files."""
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0]) if args else Path("data/samples")
    for path in write_samples(directory):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
