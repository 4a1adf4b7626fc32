"""The dashboards' types and pure table helpers (no query, no Streamlit): the filters, the
warehouse's state, the sidebar's and the what-if's choices, missing values, rows as dicts, the
replayer's hands after each step, the leak finder's rates and z-scores."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from enum import StrEnum
from typing import Any

import pandas as pd


class State(StrEnum):
    """What the warehouse holds."""

    MISSING = "missing"  # no warehouse folder or no manifest: nothing was ever imported
    EMPTY = "empty"  # imports happened but no game is stored
    READY = "ready"
    BROKEN = "broken"  # the warehouse cannot be opened (message says why)


@dataclass(frozen=True)
class Filters:
    """The sidebar filters shared by every page; ``None`` means *all*."""

    ruleset: str | None = None
    match_id: str | None = None
    player_id: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    seat: int | None = None  # the player's seat (with player_id only)
    opponent: str | None = None  # games where this player sat too
    n_players: int | None = None  # players at the table
    outcome: str | None = None  # games.outcome
    chao_tier: int | None = None  # a loser's 炒 multiplier (4 = 4 or more)

    def params(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def variant(self) -> bool:
        """Whether the ruleset filter is a variant (:func:`is_variant`): the marts and rollups
        keyed by the preset do not answer it."""
        return is_variant(self.ruleset)


def is_variant(ruleset: str | None) -> bool:
    """Whether a ruleset filter's value is a variant, a ruleset id (the preset, a space, the
    overrides JSON: exactly those games), not a preset name (every game of the preset,
    whatever overrides it; ``sql/macros/ruleset_chosen.sql``).

    >>> is_variant("hk"), is_variant('hk {"settlement": "chao"}'), is_variant("hk {}")
    (False, True, True)
    >>> is_variant(None)
    False
    """
    return ruleset is not None and " " in ruleset


NO_FILTERS = Filters()
#: How a game ends (``games.outcome``, docs/warehouse.md).
OUTCOMES = ("played_out", "instant_win", "redeal")


@dataclass(frozen=True)
class FilterOptions:
    """The sidebar's choices: at most :data:`OPTION_LIMIT` matches and players (the most
    recent, the most active), sorted; ``n_matches`` and ``n_players`` count them all."""

    rulesets: list[str]
    matches: list[str]
    players: list[str]
    first: date | None
    last: date | None
    n_matches: int = 0
    n_players: int = 0


@dataclass(frozen=True)
class SqlResult:
    frame: pd.DataFrame
    truncated: bool
    seconds: float


@dataclass(frozen=True)
class RescoreOptions:
    presets: list[str]
    settlements: list[str]


#: Leak-finder stats: (label, actions column, opportunities column) of stats_player_games;
#: each is a rate = Σ actions ÷ Σ opportunities (docs/stats.md).
LEAK_STATS: tuple[tuple[str, str, str], ...] = (
    ("win rate", "n_wins", "n_games"),
    ("voluntary pass rate", "n_voluntary_passes", "n_could_beat"),
    ("forced-pass share", "n_forced_passes", "n_passes"),
    ("雙炒 rate (×2, of losses)", "n_chao_2", "n_losses"),
    ("三炒 rate (×3, of losses)", "n_chao_3", "n_losses"),
    ("四炒 rate (×4+, of losses)", "n_chao_4", "n_losses"),
    ("13 cards left (of losses)", "n_left_13", "n_losses"),
    ("lead singles (of leads)", "n_lead_single", "n_leads"),
    ("lead pairs (of leads)", "n_lead_pair", "n_leads"),
    ("lead triples (of leads)", "n_lead_triple", "n_leads"),
    ("lead five-card plays (of leads)", "n_lead_five", "n_leads"),
    ("wasted 2 rate", "n_two_wasted", "n_two_single_follows"),
    ("trick win rate", "n_tricks_won", "n_tricks"),
    ("control regained", "n_control_regained", "n_tricks_led_by_others"),
    ("2s left at the end", "n_twos_left", "n_twos_dealt"),
)


#: The leak finder gives no z-score to a player with fewer games than this (the rates of a
#: handful of games are noise; docs/dashboards.md#leak-finder).
MIN_GAMES = 20

#: Per stat label: +1 higher is better, -1 lower is better, 0 a matter of style (neither), and
#: one sentence of advice for when the player is on the bad side.
LEAK_POLARITY: dict[str, tuple[int, str]] = {
    "win rate": (1, "Fewer wins than the winners: start with the losses the 炒 history lists."),
    "voluntary pass rate": (0, "Style: passing when you could beat keeps cards for later."),
    "forced-pass share": (0, "Style: the share of passes with nothing that beats the table."),
    "雙炒 rate (×2, of losses)": (-1, "Caught with 10+ cards too often: shed cards sooner when "
                                  "someone is close to going out."),
    "三炒 rate (×3, of losses)": (-1, "Caught with 11+ cards too often: lead your long "
                                  "combinations early instead of holding them."),
    "四炒 rate (×4+, of losses)": (-1, "Caught near a full hand: play something each trick "
                                   "rather than passing it all away."),
    "13 cards left (of losses)": (-1, "Losing without playing a card: get into the game early, "
                                  "even with a low single."),
    "lead singles (of leads)": (0, "Style: how often you lead a single."),
    "lead pairs (of leads)": (0, "Style: how often you lead a pair."),
    "lead triples (of leads)": (0, "Style: how often you lead a triple."),
    "lead five-card plays (of leads)": (0, "Style: how often you lead a five-card hand."),
    "wasted 2 rate": (-1, "A 2 spent on a low single wastes your control: keep 2s to take back "
                      "the lead when it matters."),
    "trick win rate": (1, "Winning fewer tricks: keep a high card or combination to regain "
                       "control."),
    "control regained": (1, "Rarely taking back the lead: hold a stopper (a 2, an ace, a "
                         "five-card hand) for when others lead."),
    "2s left at the end": (-1, "2s kept to the end are wasted: use them to take control before "
                           "someone goes out."),
}  # fmt: skip


def hands_after(seats: pd.DataFrame, actions: pd.DataFrame) -> list[list[int | None]]:
    """Every seat's hand (a card mask, ``None`` when unknown) at each step of a game.

    Step 0 is the deal (before the first action); step ``k`` is after action ``k - 1``. A
    seat's hand after an action is its ``hand_before_mask`` at its next action, else its
    ``final_hand_mask``: read from the facts the engine stored, so draws and swaps need no rule
    here.
    """
    n_seats = len(seats)
    n = len(actions)
    final = [_mask(v) for v in seats.sort_values("seat")["final_hand_mask"]]
    by_seat: list[list[tuple[int, int | None]]] = [[] for _ in range(n_seats)]
    for idx, seat, before in zip(
        actions["action_index"], actions["seat"], actions["hand_before_mask"], strict=True
    ):
        by_seat[int(seat)].append((int(idx), _mask(before)))
    steps: list[list[int | None]] = []
    pointers = [0] * n_seats
    for step in range(n + 1):
        row: list[int | None] = []
        for s in range(n_seats):
            lst = by_seat[s]
            while pointers[s] < len(lst) and lst[pointers[s]][0] < step:
                pointers[s] += 1
            row.append(lst[pointers[s]][1] if pointers[s] < len(lst) else final[s])
        steps.append(row)
    return steps


def missing(value: Any) -> bool:
    """``None``, NaN, NA or NaT (pandas 3 spells a missing string NaN)."""
    return value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value)))


def record(row: pd.Series) -> dict[str, Any]:
    """One row as a dict with missing values as ``None``."""
    return {k: (None if missing(v) else v) for k, v in row.to_dict().items()}


def _mask(value: Any) -> int | None:
    return None if missing(value) else int(value)


def leak_table(counts: pd.DataFrame, min_games: int | None = None) -> pd.DataFrame:
    """The leak finder from the summed counts (rows ``who`` = ``player`` / ``winners``).

    ``verdict``: ``better`` / ``worse`` by the stat's polarity (:data:`LEAK_POLARITY`: a higher
    win rate is better, more 2s left at the end worse), ``style`` when neither, ``same``;
    ``advice``: one sentence when worse (or for style). No z-score (NaN) when the player has
    fewer than ``min_games`` games (:data:`MIN_GAMES`).

    >>> c = pd.DataFrame({"who": ["player", "winners"], "n_players": [1, 2],
    ...                   "n_wins": [10.0, 60.0], "n_games": [100.0, 200.0]})
    >>> t = leak_table(c)
    >>> t["stat"].iloc[0], float(t["player_rate"].iloc[0]), float(t["winners_rate"].iloc[0])
    ('win rate', 0.1, 0.3)
    >>> round(float(t["z"].iloc[0]), 2)
    -3.86
    >>> t["verdict"].iloc[0]
    'worse'
    >>> bool(leak_table(c, min_games=101)["z"].isna().all())
    True
    """
    min_games = MIN_GAMES if min_games is None else min_games
    columns = ["stat", "player_rate", "winners_rate", "difference", "z", "verdict", "advice",
               "player_opportunities", "winners_opportunities"]  # fmt: skip
    by = {str(r["who"]): r for _, r in counts.iterrows()}
    if "player" not in by or "winners" not in by:
        return pd.DataFrame(columns=columns)
    me, them = by["player"], by["winners"]
    few = "n_games" in me and (missing(me["n_games"]) or float(me["n_games"]) < min_games)
    rows = []
    for label, a, o in LEAK_STATS:
        if a not in me or o not in me:
            continue
        a1, n1, a2, n2 = (
            float(x) if not missing(x) else 0.0 for x in (me[a], me[o], them[a], them[o])
        )
        if n1 <= 0 or n2 <= 0:
            continue
        p1, p2 = a1 / n1, a2 / n2
        pooled = (a1 + a2) / (n1 + n2)
        se = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)) ** 0.5
        z = float("nan") if few else (p1 - p2) / se if se > 0 else 0.0
        polarity, advice = LEAK_POLARITY.get(label, (0, ""))
        side = polarity * (p1 - p2)
        verdict = (
            "style" if polarity == 0 else "better" if side > 0 else "worse" if side < 0 else "same"
        )
        tip = advice if verdict in ("worse", "style") else ""
        rows.append((label, p1, p2, p1 - p2, z, verdict, tip, int(n1), int(n2)))
    out = pd.DataFrame(rows, columns=columns)
    key = (out["difference"] if few else out["z"]).abs()
    return out.reindex(key.sort_values(ascending=False).index).reset_index(drop=True)


#: The winnings graph's x axes: by game number, by date (each game's start), by match.
WINNINGS_BY = {"game": "games played", "date": "date", "match": "matches played"}


def winnings_by(lines: pd.DataFrame, by: str, zone: str = "UTC") -> pd.DataFrame:
    """The winnings graph's points with their ``x``: the game number (``game``); the game's
    start in ``zone`` (``date``: games without a start time are left out); or the match's number
    in start order (``match``: the player's last point in each match, a game without a match
    being its own).

    >>> lines = pd.DataFrame({"player": ["a", "a", "a"], "game_no": [1, 2, 3],
    ...     "started_at": ["2024-03-01T12:00Z", "2024-03-01T12:10Z", None],
    ...     "match": ["m1", "m1", "m2"], "cumulative_score": [5, 8, 2]})
    >>> winnings_by(lines, "match")[["x", "cumulative_score"]].values.tolist()
    [[1, 8], [2, 2]]
    >>> [str(x) for x in winnings_by(lines, "date", "Asia/Hong_Kong")["x"]]
    ['2024-03-01 20:00:00+08:00', '2024-03-01 20:10:00+08:00']
    """
    if by == "game":
        return lines.assign(x=lines["game_no"])
    t = pd.to_datetime(lines["started_at"], utc=True, errors="coerce", format="ISO8601")
    if by == "date":
        return lines.assign(x=t.dt.tz_convert(zone)).dropna(subset=["x"])
    starts = lines.assign(t=t).groupby("match")["t"].min().reset_index()
    starts = starts.sort_values(["t", "match"], na_position="last").reset_index(drop=True)
    number = {m: i + 1 for i, m in enumerate(starts["match"])}
    last = lines.sort_values("game_no").groupby(["player", "match"], as_index=False).last()
    last["x"] = last["match"].map(number).astype(int)
    return last.sort_values(["player", "x"]).reset_index(drop=True)
