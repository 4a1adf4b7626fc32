"""Many small files: ``ingest.small_files`` imports ``BIG2_BENCH_FILES_GAMES`` distinct games
(default 20,000, as ``big2 simulate`` writes them) as one JSON Lines file and as a folder of
files of ``BIG2_BENCH_FILE_GAMES`` games each (default 20: 1,000 files, a day's file per table
of a club, say), plain, gzip and as CSV pairs, with one worker and with two, alternating
(``BIG2_BENCH_AIMS_ROUNDS`` rounds, medians), each a fresh process into a new warehouse
(:func:`bench.aims.import_rate`), and counts the Parquet files each import wrote.

An import reads the small files one after the other as one chunk (``pipeline.ingest.
process_files``): one part of four Parquet files for up to ``GROUP_BYTES`` of them, not a
part for each file.
"""

from __future__ import annotations

import gzip
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from bench import Figure, benchmark


def split_log(log: Path, folder: Path, per_file: int, *, packed: bool = False) -> int:
    """The lines of ``log`` as files of ``per_file`` lines in ``folder`` (``0000.jsonl`` …;
    ``packed``: gzip, ``0000.jsonl.gz`` …); how many files.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     log = Path(tmp) / "a.jsonl"
    ...     _ = log.write_text("1\\n2\\n3\\n")
    ...     n = split_log(log, Path(tmp) / "parts", 2)
    ...     n, (Path(tmp) / "parts" / "0001.jsonl").read_text()
    (2, '3\\n')
    """
    folder.mkdir()
    with log.open("rb") as fh:
        lines = fh.readlines()
    files = 0
    for start in range(0, len(lines), per_file):
        data = b"".join(lines[start : start + per_file])
        name = f"{files:04d}.jsonl" + (".gz" if packed else "")
        (folder / name).write_bytes(gzip.compress(data, compresslevel=1) if packed else data)
        files += 1
    return files


@benchmark("ingest.small_files")
def small_files() -> list[Figure]:
    """The same games as one file and as many small files, one worker and two, side by side."""
    from bench.aims import import_rate, write_csv_pair
    from bench.ingest import write_distinct_log

    n = int(os.environ.get("BIG2_BENCH_FILES_GAMES", "20000"))
    per_file = int(os.environ.get("BIG2_BENCH_FILE_GAMES", "20"))
    rounds = int(os.environ.get("BIG2_BENCH_AIMS_ROUNDS", "3"))
    rate: dict[tuple[str, int], list[float]] = {}
    parquet: dict[str, int] = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        log, folder, packed = Path(tmp) / "all.jsonl", Path(tmp) / "files", Path(tmp) / "gz"
        write_distinct_log(log, n)
        files = split_log(log, folder, per_file)
        split_log(log, packed, per_file, packed=True)
        pairs = Path(tmp) / "csv"
        pairs.mkdir()
        for part in sorted(folder.iterdir()):
            write_csv_pair(part, pairs / f"{part.stem}.csv")
        os.sync()
        inputs = {
            "one file": log,
            f"{files:,} files": folder,
            f"{files:,} .gz files": packed,
            f"{files:,} CSV pairs": pairs,
        }
        for _ in range(rounds):
            for shape, path in inputs.items():
                for workers in (1, 2):
                    wh = Path(tmp) / "wh"
                    rate.setdefault((shape, workers), []).append(
                        import_rate(path, wh, n, workers)[0]
                    )
                    parquet[shape] = sum(1 for _ in wh.rglob("*.parquet"))
                    shutil.rmtree(wh)
    one, *many = inputs
    figures: list[Figure] = [(f"input: {n:,} games, {per_file} a file in the folders", n, "games")]
    for workers in (1, 2):
        s = "s" if workers > 1 else ""
        for shape in inputs:
            got = statistics.median(rate[shape, workers])
            figures.append((f"ingest --no-build, {shape}, {workers} worker{s}", got, "games/s"))
        for shape in many:
            ratio = statistics.median(
                a / b for a, b in zip(rate[shape, workers], rate[one, workers], strict=True)
            )
            figures.append((f"{shape} ÷ one file, {workers} worker{s}, same round", ratio, "×"))
    for shape in inputs:
        figures.append((f"Parquet files written, {shape}", parquet[shape], "files"))
    figures.append(("load average (1 min) before the runs", load_before, ""))
    figures.append(("load average (1 min) after the runs", os.getloadavg()[0], ""))
    return figures
