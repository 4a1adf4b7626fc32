"""The workload a profile-guided build of the native core learns from (``native/build.sh``):
what the core runs at scale, on a few thousand games. Big Two and Dou Dizhu games are played by
the core's bots and written as logs (the simulators), then imported as JSON Lines and as a CSV
pair, with one worker and no mart build (the line scanner, the replay, the rows, the content
hash, the Parquet writer).

``python -m bench.pgo DIR``: the workload in the scratch folder ``DIR`` (made if missing, left
for the caller to delete), on whichever core is installed: the build script runs it on the
instrumented one, whose counts are written when this process ends.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.aims import write_csv_pair
from pipeline.ingest import ingest
from pipeline.sim.config import lineup
from pipeline.sim.ddz_simulate import DdzSimConfig
from pipeline.sim.ddz_simulate import simulate_to_file as simulate_ddz
from pipeline.sim.simulate import SimConfig, simulate_to_file
from pipeline.warehouse import Warehouse

#: Games of each kind: enough for every path to run many times over (the counts settle), few
#: enough for the build (a few seconds on the instrumented core).
BIG2_GAMES = 4_000
DDZ_GAMES = 1_500


def run(folder: Path, *, big2_games: int = BIG2_GAMES, ddz_games: int = DDZ_GAMES) -> int:
    """Play, write and import the workload's games in ``folder``: how many games were stored
    (every one: a reject would mean the workload trains a path it should not).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     run(Path(tmp), big2_games=8, ddz_games=3)
    19
    """
    folder.mkdir(parents=True, exist_ok=True)
    big2 = folder / "big2.jsonl"
    bots = tuple(b.value for b in lineup(4))
    simulate_to_file(SimConfig(games=big2_games, seed=11, bots=bots), big2, workers=1)
    ddz = folder / "ddz.jsonl"
    simulate_ddz(
        DdzSimConfig(games=ddz_games, seed=11, bots=("heuristic", "greedy", "random")), ddz
    )
    pair = folder / "big2.csv"
    write_csv_pair(big2, pair)
    stored = 0
    for n, log in enumerate((big2, ddz, pair)):
        total = ingest([str(log)], Warehouse(folder / f"wh-{n}"), workers=1).total()
        if total.rejected or total.stored != total.read:
            raise RuntimeError(f"{log}: {total.rejected} of {total.read} games rejected")
        stored += total.stored
    return stored


def main(argv: list[str]) -> int:
    """``python -m bench.pgo DIR``."""
    if len(argv) != 1:
        print("usage: python -m bench.pgo DIR", file=sys.stderr)
        return 2
    print(f"profile workload: {run(Path(argv[0])):,} games imported")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
