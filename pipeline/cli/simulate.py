"""``big2 simulate``: seeded bot games written as logs, Big Two or Dou Dizhu (a ``--ruleset``
of ``big2 rules list``'s Dou Dizhu presets: ``ddz``, ``ddz-2p``). The lineup and the planted
behaviour default to :mod:`pipeline.sim.config`; the options of one game's plant are refused
with the other game (``E_SIM_OPTION``)."""

from __future__ import annotations

import contextlib
import errno
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from pipeline.big2.rules import DEFAULT_PRESET, load_ruleset
from pipeline.cli import grid
from pipeline.cli.app import (
    BuildMemoryOption,
    OverridesOption,
    WarehouseOption,
    check_output_file,
    command,
    domain_errors,
    err_console,
    flag,
    parse_overrides,
    plural,
    refuse_memory_limit,
    say_waiting,
    terminal_width,
    writer_errors,
)
from pipeline.cli.ingest import (
    build_after_ingest,
    build_memory,
    ingest_with_progress,
    print_ingest_summary,
)
from pipeline.cli.rules import load_any
from pipeline.doudizhu import rules as ddz_rules
from pipeline.errors import Big2Error
from pipeline.games import check_preset
from pipeline.sim import config
from pipeline.sim.bots import BotName, SimError

if TYPE_CHECKING:  # the simulator loads when the command runs
    from pipeline.sim.ddz_simulate import DdzSimConfig, DdzSimSummary
    from pipeline.sim.simulate import SimConfig, SimSummary
    from pipeline.sim.tally import RunTally
    from pipeline.warehouse import Warehouse


def parse_seats_pair(text: str | None) -> tuple[int, int] | None:
    """``--colluders A,B`` as two seat numbers (checked against the table by the simulator).

    >>> parse_seats_pair("0,1"), parse_seats_pair(None)
    ((0, 1), None)
    """
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise Big2Error("E_SIM_OPTION", f"--colluders {text!r}: expected two seats, like 0,1")
    return int(parts[0]), int(parts[1])


@command("simulate")
def simulate_command(
    ctx: typer.Context,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output log: .jsonl or .jsonl.gz (overwritten).")
    ],
    games: Annotated[
        int, typer.Option("--games", "-n", min=1, help="Games to play.")
    ] = config.DEFAULT_GAMES,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same file.")] = 0,
    ruleset: Annotated[
        str,
        typer.Option(
            "--ruleset",
            "-r",
            help="Preset (see `big2 rules list`): a Big Two one, or ddz / ddz-2p for Dou Dizhu.",
        ),
    ] = DEFAULT_PRESET,
    overrides: OverridesOption = None,
    players: Annotated[
        int | None, typer.Option(min=2, max=52, help="Players (default: the ruleset's).")
    ] = None,
    bots: Annotated[
        list[BotName] | None,
        typer.Option(
            case_sensitive=False,
            metavar="BOT",
            help="The bot of the next seat (random, greedy or heuristic; the Dou Dizhu bots "
            "under ddz / ddz-2p), once per seat (default "
            + ", ".join(b.value for b in config.DEFAULT_LINEUP)
            + ", round the table).",
        ),
    ] = None,
    must_block_discipline: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Big Two: probability a bot honours 頂大 when obliged (default "
            f"{config.HONEST.must_block_discipline}).",
        ),
    ] = None,
    colluders: Annotated[
        str | None,
        typer.Option(
            metavar="A,B", help="Big Two: seat A never blocks seat B and feeds it low singles."
        ),
    ] = None,
    feeder: Annotated[
        int | None,
        typer.Option(
            min=0,
            metavar="SEAT",
            help="Dou Dizhu: this seat, as a farmer, feeds the landlord (passes though it can "
            "beat a landlord on one or two cards).",
        ),
    ] = None,
    feed_rate: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help=f"Dou Dizhu: the share of its chances the --feeder feeds (default "
            f"{config.DEFAULT_FEED_RATE}).",
        ),
    ] = None,
    match_games: Annotated[
        int, typer.Option(min=1, help="Games per match (same seats).")
    ] = config.DEFAULT_MATCH_GAMES,
    id_prefix: Annotated[
        str | None,
        typer.Option(
            metavar="TEXT",
            help="What game, match, table and player ids start with (letters, digits, - _ .; "
            "default sim, sim-ddz for Dou Dizhu): runs of the same seed under other rules of "
            "one game need their own to be imported together.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Workers (default: one per core): threads of this process on the native core, "
            "processes in pure Python. The file is the same whatever their number.",
        ),
    ] = None,
    ingest_after: Annotated[
        bool, flag("--ingest", help="Import the file into the warehouse afterwards.")
    ] = False,
    warehouse: WarehouseOption = None,
    memory_limit: BuildMemoryOption = None,
) -> None:
    """Play seeded matches with bots and write them as logs (full information, with the planted
    ground truth in each game's `truth`); optionally import them.

    Dou Dizhu (--ruleset ddz or ddz-2p): one bot per seat (3 or 2), the auction included; a
    void deal is a log line of its own (outcome redeal) and the game is dealt again."""
    from pipeline.sim.simulate import ID_PREFIX as SIM_PREFIX
    from pipeline.sim.simulate import SimConfig

    with domain_errors(), writer_errors():
        check_output_file(out)
        if not ingest_after:
            why = "without --ingest: it only limits the build after the import"
            refuse_memory_limit(ctx, "E_SIM_OPTION", why)
        memory = build_memory(memory_limit, not ingest_after)
        wh: Warehouse | None = None
        if ingest_after:  # a -w that cannot be a warehouse: said now, not after the run
            from pipeline.warehouse import Warehouse

            wh = Warehouse(warehouse)
            wh.make_folder()
        if id_prefix is not None:
            check_id_prefix(id_prefix)
        settings = parse_overrides(overrides)
        check_preset(ruleset)
        if players is not None:
            _add_players(ruleset, settings, players)
        if ruleset in ddz_rules.preset_names():
            check_options_of(
                "Dou Dizhu", must_block_discipline=must_block_discipline, colluders=colluders
            )
            n = ddz_rules.load_ruleset(ruleset, settings).players
            ddz = ddz_config(
                games=games,
                seed=seed,
                bots=tuple(b.value for b in config.lineup(n, bots)),
                preset=ruleset,
                overrides=settings,
                feeder=feeder,
                feed_rate=feed_rate,
                match_games=match_games,
                id_prefix=id_prefix,
            )
            with disk_full_names(out):
                done = simulate_ddz_with_progress(ddz, out, workers=workers)
            rate = done.games / done.seconds if done.seconds else 0.0
            typer.echo(
                f"{plural(done.games, 'Dou Dizhu game')} in {plural(done.lines, 'log line')} "
                f"(void deals dealt again; {plural(done.matches, 'match')} of up to {match_games}) "
                f"written to {done.path} in {done.seconds:.1f} s ({rate:,.0f} games/s, "
                f"{plural(done.workers, 'worker')})"
            )
            print_tally(done.tally)
        else:
            check_options_of("Big Two", feeder=feeder, feed_rate=feed_rate)
            n = load_ruleset(ruleset, settings).players
            cfg = SimConfig(
                games=games,
                seed=seed,
                bots=tuple(b.value for b in config.lineup(n, bots)),
                preset=ruleset,
                overrides=settings,
                must_block_discipline=(
                    config.HONEST.must_block_discipline
                    if must_block_discipline is None
                    else must_block_discipline
                ),
                colluders=parse_seats_pair(colluders),
                match_games=match_games,
                id_prefix=id_prefix or SIM_PREFIX,
            )
            with disk_full_names(out):
                summary = simulate_with_progress(cfg, out, workers=workers)
            rate = summary.games / summary.seconds if summary.seconds else 0.0
            typer.echo(
                f"{plural(summary.games, 'game')} ({plural(summary.matches, 'match')} of up to "
                f"{match_games}) written to {summary.path} in {summary.seconds:.1f} s "
                f"({rate:,.0f} games/s, {plural(summary.workers, 'worker')})"
            )
            print_tally(summary.tally)
        if wh is not None:
            # import + build: one writer, queued behind a running import as `big2 ingest` is
            with wh.building(on_wait=lambda: say_waiting(wh)):
                print_ingest_summary(ingest_with_progress([str(out)], wh, workers=workers), wh)
                build_after_ingest(wh, memory=memory)


def print_tally(tally: RunTally) -> None:
    """The run player by player (:mod:`pipeline.sim.tally`), whole at any terminal width."""
    headers, rows = tally.rows()
    typer.echo("\n".join(grid.render(headers, rows, terminal_width())))
    if tally.voids:
        void = "void deal" if tally.dou_dizhu else "redeal"
        typer.echo(
            f"and {plural(tally.voids, void)}{' (荒牌)' if tally.dou_dizhu else ''}, dealt again"
        )


@contextlib.contextmanager
def disk_full_names(out: Path) -> Iterator[None]:
    """A full disk while the run is written is ``E_DISK_FULL`` naming ``out`` and saying that
    it is as it was (the run is written beside it: :class:`pipeline.logs.writer.LogWriter`),
    not the bare ``[Errno 28]`` of :func:`pipeline.cli.app.writer_errors`; exit 3.

    >>> import errno
    >>> with disk_full_names(Path("/mnt/x/sim.jsonl")):
    ...     raise OSError(errno.ENOSPC, "No space left on device")
    Traceback (most recent call last):
    ...
    pipeline.sim.bots.SimError: E_DISK_FULL: no space left on the device of /mnt/x/sim.jsonl (No space left on device): the file is as it was before this run, which wrote nothing else; free some space and run it again
    """
    try:
        yield
    except OSError as err:
        if err.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise SimError(
            "E_DISK_FULL",
            f"no space left on the device of {out} ({err.strerror or err}): the file is as it "
            "was before this run, which wrote nothing else; free some space and run it again",
        ) from None


#: Which game each plant option belongs to (``check_options_of`` refuses it with the other).
_OPTION_GAME = {
    "must_block_discipline": "Big Two",
    "colluders": "Big Two",
    "feeder": "Dou Dizhu",
    "feed_rate": "Dou Dizhu",
}


def check_options_of(game: str, **given: object) -> None:
    """Refuse the plant options of the other game (``E_SIM_OPTION``).

    >>> check_options_of("Dou Dizhu", colluders=None)
    >>> check_options_of("Dou Dizhu", colluders="0,1")
    Traceback (most recent call last):
    ...
    pipeline.sim.bots.SimError: E_SIM_OPTION: --colluders is a Big Two option; this is a Dou Dizhu run (use --feeder / --feed-rate)
    """
    for name, value in given.items():
        if value is not None:
            hint = (
                "--feeder / --feed-rate"
                if game == "Dou Dizhu"
                else "--must-block-discipline / --colluders"
            )
            raise SimError(
                "E_SIM_OPTION",
                f"--{name.replace('_', '-')} is a {_OPTION_GAME[name]} option; "
                f"this is a {game} run (use {hint})",
            )


def ddz_config(
    *,
    games: int,
    seed: int,
    bots: tuple[str, ...],
    preset: str,
    overrides: dict[str, object],
    feeder: int | None,
    feed_rate: float | None,
    match_games: int,
    id_prefix: str | None = None,
) -> DdzSimConfig:
    """The Dou Dizhu run of the options: ``--feed-rate`` needs a ``--feeder``, and without one
    defaults to :data:`pipeline.sim.config.DEFAULT_FEED_RATE`."""
    from pipeline.sim.ddz_simulate import ID_PREFIX, DdzSimConfig

    if feed_rate is not None and feeder is None:
        raise SimError("E_SIM_OPTION", f"--feed-rate {feed_rate} without --feeder SEAT")
    plant = config.DDZ_HONEST
    if feeder is not None:
        plant = config.DdzPlanted(
            feeder=feeder, feed_rate=config.DEFAULT_FEED_RATE if feed_rate is None else feed_rate
        )
    return DdzSimConfig(
        games=games,
        seed=seed,
        bots=bots,
        preset=preset,
        overrides=overrides,
        feeder=plant.feeder,
        feed_rate=plant.feed_rate,
        match_games=match_games,
        id_prefix=id_prefix or ID_PREFIX,
    )


#: What ``--id-prefix`` may hold: the ids stay plain words in logs, SQL and file names.
_ID_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def check_id_prefix(prefix: str) -> None:
    """``E_SIM_OPTION`` unless ``prefix`` is 1-40 letters, digits, ``-``, ``_`` or ``.``,
    starting with a letter or digit.

    >>> check_id_prefix("hk-2024")
    >>> check_id_prefix("a b")
    Traceback (most recent call last):
    pipeline.sim.bots.SimError: E_SIM_OPTION: --id-prefix 'a b': 1-40 letters, digits, - _ or ., starting with a letter or digit
    """
    if not _ID_PREFIX.fullmatch(prefix):
        raise SimError(
            "E_SIM_OPTION",
            f"--id-prefix {prefix!r}: 1-40 letters, digits, - _ or ., "
            "starting with a letter or digit",
        )


def _add_players(ruleset: str, settings: dict[str, Any], players: int) -> None:
    """``--players`` into the overrides ``settings``, unless the preset (with the other
    overrides) seats that many already: an override equal to the rules' own value would make
    the same rules a second ruleset of the warehouse (``hk`` and ``hk {"players": 4}``).
    ``E_SIM_OPTION`` when ``--set players=`` says another number.

    >>> settings = {"bombs": True}
    >>> _add_players("hk", settings, 4), settings
    (None, {'bombs': True})
    >>> _add_players("hk", settings, 3), settings
    (None, {'bombs': True, 'players': 3})
    >>> _add_players("hk", {"players": 4}, 3)
    Traceback (most recent call last):
    ...
    pipeline.errors.Big2Error: E_SIM_OPTION: --players 3 and --set players=4 disagree
    """
    given = settings.get("players", players)
    if given != players:
        raise Big2Error("E_SIM_OPTION", f"--players {players} and --set players={given} disagree")
    others = {k: v for k, v in settings.items() if k != "players"}
    if load_any(ruleset, others).players != players:
        settings["players"] = players


def _progress_bar() -> RichProgress:
    return RichProgress(
        TextColumn("[bold]simulate"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} games"),
        TextColumn("{task.fields[rate]:,.0f} games/s"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,  # off a terminal it left only a blank line
    )


def simulate_ddz_with_progress(
    cfg: DdzSimConfig, out: Path, *, workers: int | None
) -> DdzSimSummary:
    """The Dou Dizhu run into ``out`` with the same progress bar."""
    from pipeline.sim.ddz_simulate import simulate_to_file
    from pipeline.sim.simulate import default_workers

    with _progress_bar() as bar:
        task = bar.add_task("simulate", total=cfg.games, rate=0.0)
        started = time.perf_counter()

        def show(done: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, rate=rate)

        return simulate_to_file(
            cfg, out, workers=default_workers() if workers is None else workers, on_progress=show
        )


def simulate_with_progress(cfg: SimConfig, out: Path, *, workers: int | None) -> SimSummary:
    """Run the simulation into ``out`` with a rich progress bar on stderr (games, games/s)."""
    from pipeline.sim.simulate import simulate_to_file

    with _progress_bar() as bar:
        task = bar.add_task("simulate", total=cfg.games, rate=0.0)
        started = time.perf_counter()

        def show(done: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=done, rate=rate)

        return simulate_to_file(cfg, out, workers=workers, on_progress=show)
