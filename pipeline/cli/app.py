"""The ``big2`` Typer app and what every command shares: exit codes, errors → exit codes
(:func:`domain_errors`, :func:`writer_errors`, the parser's :func:`usage_errors`), the check
of an output file (:func:`check_output_file`, :func:`output_file_errors`), the shared options
(``--warehouse``, ``--set``), :func:`flag`, :func:`plural`; help without type placeholders,
the commands listed in workflow order (:data:`COMMAND_ORDER`).

>>> plural(2, "mart"), EXIT_USAGE
('2 marts', 2)
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup, TyperOption

from pipeline import __version__, native
from pipeline.big2.rules import parse_override
from pipeline.errors import Big2Error, RulesetError
from pipeline.wording import plural as plural  # the commands' import

if TYPE_CHECKING:  # the warehouse (pyarrow, duckdb) loads when a command needs it
    from pipeline.warehouse import Warehouse

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
#: A run that could not finish (disk full, a worker died, out of memory, marts not rebuilt after
#: a commit).
EXIT_FAILED = 3
#: The codes that exit with EXIT_FAILED: the environment failed, not the input.
FAILURE_CODES = frozenset({"E_DISK_FULL", "E_WORKER_DIED", "E_BUILD_FAILED", "E_SQL_MEMORY"})

#: ``big2 --help`` lists the commands in the order of a first session: try the demo, import
#: logs and check them, build and query the marts, report and export, what-if, the house
#: rules, the simulator, then the dashboards and the benchmarks.
COMMAND_ORDER = (
    "demo",
    "ingest",
    "verify",
    "build",
    "sql",
    "report",
    "export",
    "rescore",
    "rules",
    "simulate",
    "dashboard",
    "bench",
)

#: How ``--help`` names a value whose option gives no metavar of its own.
_VALUE_LABELS = {"int": "INTEGER", "float": "NUMBER", "str": "TEXT", "path": "PATH"}


def _value_label(param: Any, ctx: Any) -> str | None:
    """What ``--help`` shows after an option: its metavar, a click-style name for its type
    (``INTEGER``, ``choice|choice``), nothing for a flag, ``--help`` or an argument (its
    name is shown already); never typer's ``<bool>`` / ``<list[str]>`` placeholders."""
    if not isinstance(param, TyperOption) or param.is_flag or param.count:
        return None
    if param.metavar is not None:
        return str(param.metavar) or None
    label = str(param.display_type(ctx)).strip("<>")
    label = label.removeprefix("list[").removesuffix("]").removesuffix(" range")
    return _VALUE_LABELS.get(label, label if "|" in label else label.upper())


def _no_type_placeholders(params: list[Any]) -> list[Any]:
    for param in params:
        param.display_type_rich = lambda ctx, p=param: _value_label(p, ctx)
    return params


def _path_of(info_name: str | None, parent: Any) -> str:
    """The command path of a context still being made: its parent's, then its name."""
    return " ".join(filter(None, (parent.command_path if parent else None, info_name)))


class _UsageErrors:
    """A command or group whose parser's usage errors are one ``E_USAGE`` line
    (:func:`usage_errors`), and whose ``--help`` shows no type placeholders
    (:func:`_value_label`); mixed in before typer's class."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _no_type_placeholders(super().get_params(ctx))  # type: ignore[misc]

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        with usage_errors(_path_of(info_name, parent)):
            return super().make_context(info_name, args, parent, **extra)  # type: ignore[misc]

    def invoke(self, ctx: Any) -> Any:
        with usage_errors(ctx.command_path):
            return super().invoke(ctx)  # type: ignore[misc]


class Big2Command(_UsageErrors, TyperCommand):
    """A ``big2`` command (:class:`_UsageErrors`)."""


class Big2Group(_UsageErrors, TyperGroup):
    """The ``big2`` group: its commands in :data:`COMMAND_ORDER` (:class:`_UsageErrors`: an
    unknown command is an ``E_USAGE`` line too)."""

    def list_commands(self, ctx: Any) -> list[str]:
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(super().list_commands(ctx), key=lambda n: rank.get(n, len(rank)))


app = typer.Typer(
    name="big2",
    help="big2-replay: replay analytics for Big Two (鋤大D / 大老二 / 锄大地) and Dou Dizhu (斗地主).",
    no_args_is_help=True,
    add_completion=False,
    cls=Big2Group,
    rich_markup_mode="markdown",
)


def command(name: str | None = None, *, on: typer.Typer = app) -> Callable[[Any], Any]:
    """Register a command on ``on`` (default the ``big2`` app) with :class:`Big2Command`."""
    return on.command(name, cls=Big2Command)


console = Console()
err_console = Console(stderr=True)


def flag(*decls: str, **options: Any) -> Any:
    """A yes/no option, shown in ``--help`` without a type placeholder (no ``<bool>``)."""
    return typer.Option(*decls, metavar="", **options)


def shell_word(text: str) -> str:
    """``text`` as one word for a POSIX shell: as it is when it needs no quoting, in double
    quotes when nothing in it is special there (a SQL query's single quotes read best so), else
    in :func:`shlex.quote`'s single quotes.

    >>> print(shell_word("/tmp/wh"), shell_word("select 'b1'"), shell_word("it's $HOME"))
    /tmp/wh "select 'b1'" 'it'"'"'s $HOME'
    """
    if shlex.quote(text) == text:
        return text
    if not set(text) & set('$`\\"!'):
        return f'"{text}"'
    return shlex.quote(text)


def runnable_big2(argv0: str | None = None) -> str:
    """How to type this ``big2`` in the shell that ran it: a bare ``big2`` when that name on
    ``PATH`` is this very script, else its path (relative to the current folder when inside,
    e.g. ``.venv/bin/big2`` after ``make demo``).

    >>> runnable_big2("/nowhere/bin/big2")
    '/nowhere/bin/big2'
    """
    script = Path(argv0 if argv0 is not None else sys.argv[0]).absolute()
    if script.name != "big2":  # `python -m pipeline.cli`
        return f"{Path(sys.executable).name} -m pipeline.cli"
    found = shutil.which("big2")
    if found is not None and Path(found).absolute() == script:
        return "big2"
    with contextlib.suppress(ValueError):
        return shell_word(script.relative_to(Path.cwd()).as_posix())
    return shell_word(script.as_posix())


# --- errors → exit codes -----------------------------------------------------------------


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn a :class:`Big2Error` into its message on stderr and exit code 2 (no traceback)."""
    try:
        yield
    except Big2Error as err:
        typer.echo(f"big2: error: {err}", err=True)
        raise typer.Exit(code=EXIT_USAGE) from None


#: The code of a usage error the command line's parser finds (click's, inside typer): an
#: unknown option or command, a bad or missing value.
E_USAGE = "E_USAGE"


@contextmanager
def usage_errors(command_path: str) -> Iterator[None]:
    """The parser's own usage errors as ``E_USAGE`` through :func:`domain_errors`: one line,
    :func:`usage_message`, and exit 2, not click's usage and boxed panel; ``command_path``
    names the command when the error does not. The help that ``no_args_is_help`` prints
    passes through as it is. Around the ``make_context`` and ``invoke`` of :class:`Big2Group`
    and :class:`Big2Command`, not ``main``: typer's ``main`` (its ``_main``) catches and prints
    the error itself, so catching it there would mean redoing its standalone mode."""
    try:
        yield
    # typer carries its own copy of click (typer._click, not public API): its usage errors are
    # the typer exceptions with exit code 2 (UsageError and its kinds; a ClickException's is 1).
    except typer.TyperException as err:
        if err.exit_code != EXIT_USAGE or type(err).__name__ == "NoArgsIsHelpError":
            raise
        with domain_errors():
            raise Big2Error(E_USAGE, usage_message(err, command_path)) from None


def usage_message(err: typer.TyperException, command_path: str) -> str:
    """click's message of a usage error on one line, then the ``--help`` that tells more: of
    the command the error names (``err.ctx``), else of ``command_path``; its options, its
    arguments or a group's commands.

    >>> err = typer.BadParameter("'yaml' is not\\none of 'table', 'json'.")  # on two lines
    >>> usage_message(err, "big2 rules show")
    "Invalid value: 'yaml' is not one of 'table', 'json'. (big2 rules show --help shows the usage)"
    """
    ctx = getattr(err, "ctx", None)
    param = getattr(err, "param", None)
    if hasattr(err, "option_name") or getattr(param, "param_type_name", None) == "option":
        what = "lists the options"
    elif param is not None:
        what = "lists the arguments"
    elif ctx is not None and isinstance(ctx.command, TyperGroup):
        what = "lists the commands"
    else:
        what = "shows the usage"
    path = ctx.command_path if ctx is not None else command_path
    message = " ".join(line.strip() for line in err.format_message().splitlines() if line.strip())
    return f"{message} ({path} --help {what})"


@contextmanager
def writer_errors() -> Iterator[None]:
    """For the commands that write (ingest, build, simulate, demo), inside
    :func:`domain_errors`: a run that could not finish (:data:`FAILURE_CODES`, or an OS error
    no layer named) is one line on stderr and exit 3; SIGINT / SIGTERM is ``E_INTERRUPTED``
    and exit 128 + the signal. No traceback; the layers below have left the warehouse
    consistent."""
    from pipeline.ingest import pool_was_stopped

    pool_was_stopped(reset=True)
    _RECEIVED[0] = 0
    try:
        with _terminate_as_interrupt():
            yield
    except Big2Error as err:
        if err.code not in FAILURE_CODES:
            raise
        typer.echo(f"big2: error: {err}", err=True)
        _exit_now_if_a_pool_died(EXIT_FAILED)
        raise typer.Exit(code=EXIT_FAILED) from None
    except (KeyboardInterrupt, RuntimeError) as err:
        if isinstance(err, RuntimeError):  # a DuckDB statement stopped by a signal's handler
            from pipeline.sqlbuild import QUERY_INTERRUPTED

            if str(err) != QUERY_INTERRUPTED:
                raise
        signum = int(getattr(err, "signum", _RECEIVED[0] or signal.SIGINT))
        if getattr(err, "committed", False):
            what = "the import had committed; the marts are not rebuilt: run `big2 build`"
        else:
            what = "nothing of the interrupted work was committed"
        name = signal.Signals(signum).name
        typer.echo(f"big2: error: E_INTERRUPTED: stopped by {name}: {what}", err=True)
        _exit_now_if_a_pool_died(128 + signum)
        raise typer.Exit(code=128 + signum) from None
    except OSError as err:
        from pipeline.warehouse import is_disk_full

        if err.errno == errno.EPIPE:  # the reader of stdout left (`| head`): Click ends it
            raise  # quietly (exit 1), as for every other command
        code = "E_DISK_FULL" if is_disk_full(err) else "E_IO"
        typer.echo(f"big2: error: {code}: {err}", err=True)
        raise typer.Exit(code=EXIT_FAILED) from None


#: The signal :func:`_terminate_as_interrupt` last turned into an exception (0: none), for an
#: interrupt that reaches :func:`writer_errors` without its number (DuckDB's, in a build).
_RECEIVED = [0]


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, ``timeout``, a service manager's stop) raises
    :class:`pipeline.ingest.Interrupted` as Ctrl-C raises ``KeyboardInterrupt``, so that a
    writing command unwinds the same way (a simulation's hidden file removed, a build's new
    file deleted) and ends with ``E_INTERRUPTED``, exit 143, instead of dying where it stood.
    Only in the main thread (where Python runs signal handlers); an import sets its own
    handlers meanwhile (:class:`pipeline.ingest._Signals`) and puts this one back.

    >>> before = signal.getsignal(signal.SIGTERM)
    >>> with _terminate_as_interrupt():
    ...     signal.getsignal(signal.SIGTERM) is before
    False
    >>> signal.getsignal(signal.SIGTERM) is before
    True
    """
    from pipeline.ingest import Interrupted

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        _RECEIVED[0] = signum  # DuckDB drops the exception raised inside its query
        raise Interrupted(signum)

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _exit_now_if_a_pool_died(code: int) -> None:
    """End the process at once after a worker pool was stopped part-way (the batch has
    aborted, the message is out): a normal exit can hang there on Python < 3.11.5
    (:func:`pipeline.ingest.pool_was_stopped`)."""
    from pipeline.ingest import pool_was_stopped

    if pool_was_stopped():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def given_option(ctx: typer.Context, name: str) -> object:
    """The value of the option ``name`` when the command line gave it, else None (its
    default, or an environment variable's value, such as ``BIG2_BUILD_MEMORY``, that other
    commands read too). By the source's name: typer has a click of its own, whose enum is
    not ``click.core.ParameterSource``."""
    source = ctx.get_parameter_source(name)
    return ctx.params.get(name) if source is not None and source.name == "COMMANDLINE" else None


def refuse_memory_limit(ctx: typer.Context, code: str, why: str) -> None:
    """Refuse, before any work, a ``--memory-limit`` the command line gave where no build runs
    (``why``: ``simulate`` without ``--ingest``, ``ingest --no-build``): it would be ignored,
    even a value DuckDB cannot read. ``BIG2_BUILD_MEMORY`` is not refused (other commands
    read it too: :func:`given_option`)."""
    if (limit := given_option(ctx, "memory_limit")) is not None:
        raise Big2Error(code, f"--memory-limit {limit} {why}")


def terminal_width() -> int:
    """The screen's width in columns (``$COLUMNS`` first; 80 when stdout is no terminal): what
    the tables and reports printed there fold to."""
    return shutil.get_terminal_size((80, 24)).columns


# --- output files --------------------------------------------------------------------------

#: The code of an output file the user named (``--out``, ``--html``) that cannot be written.
E_OUTPUT_FILE = "E_OUTPUT_FILE"


#: What a warehouse's folder holds of its own (``pipeline.warehouse.store``'s ``MANIFEST``,
#: ``LEDGER``, ``DB_FILE``, ``KNOWN_FILE``, ``KNOWN_STAMP``, ``LOCK_FILE``, ``BUILD_LOCK_FILE``;
#: ``tests/test_cli.py`` holds them equal): not imported from there, since a command checks its
#: output file before it loads the warehouse libraries. The manifest marks a warehouse.
WAREHOUSE_FILES = (
    "manifest.jsonl",
    "ledger.jsonl",
    "warehouse.duckdb",
    "known-games.npy",
    "known-games.json",
    ".lock",
    ".build.lock",
)


def warehouse_owning(path: Path) -> Path | None:
    """The warehouse whose own file ``path`` would be: one of :data:`WAREHOUSE_FILES` (or
    ``warehouse.duckdb.*``) in a warehouse's folder, or any file in a folder below it (its
    tables, ``quarantine/``); else None (a report or an export beside the warehouse's files is
    fine: docs/report.md writes them there).

    >>> import tempfile
    >>> wh = Path(tempfile.mkdtemp())
    >>> _ = (wh / "manifest.jsonl").write_bytes(b"")
    >>> [warehouse_owning(p) == wh for p in (wh / "r.html", wh / "ledger.jsonl", wh / "games/x.jsonl")]
    [False, True, True]
    """
    resolved = path.resolve()
    folder = resolved.parent
    name = resolved.name
    if (folder / WAREHOUSE_FILES[0]).is_file() and (
        name in WAREHOUSE_FILES or name.startswith(f"{WAREHOUSE_FILES[2]}.")
    ):
        return folder
    return next((f for f in folder.parents if (f / WAREHOUSE_FILES[0]).is_file()), None)


def check_output_file(path: Path, option: str = "--out") -> None:
    """Refuse, before any work, an output file that cannot be written: its folder does not
    exist (no command creates the folder of an output file: docs/cli.md), is not a folder, or
    the path is a folder itself; or it is a warehouse's own file (:func:`warehouse_owning`:
    ``--out wh/manifest.jsonl`` wrote over the warehouse's manifest). ``E_OUTPUT_FILE``,
    naming ``path`` as given.

    >>> check_output_file(Path("/no/such/folder/out.csv"))
    Traceback (most recent call last):
    ...
    pipeline.errors.Big2Error: E_OUTPUT_FILE: --out /no/such/folder/out.csv: cannot write it: the folder /no/such/folder does not exist (big2 creates no folder for an output file)
    >>> check_output_file(Path("/"), "--html")
    Traceback (most recent call last):
    ...
    pipeline.errors.Big2Error: E_OUTPUT_FILE: --html /: cannot write it: it is a folder
    >>> import tempfile
    >>> wh = Path(tempfile.mkdtemp())
    >>> _ = (wh / "manifest.jsonl").write_bytes(b"")
    >>> check_output_file(wh / "r.csv")
    >>> check_output_file(wh / "manifest.jsonl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pipeline.errors.Big2Error: E_OUTPUT_FILE: --out .../manifest.jsonl: cannot write it: it is a file of the warehouse ... (big2 writes no output file there)
    """
    folder = path.parent
    if path.is_dir():
        why = "it is a folder"
    elif not folder.exists():
        why = f"the folder {folder} does not exist (big2 creates no folder for an output file)"
    elif not folder.is_dir():
        why = f"{folder} is not a folder"
    elif warehouse := warehouse_owning(path):
        why = f"it is a file of the warehouse {warehouse} (big2 writes no output file there)"
    else:
        return
    raise Big2Error(E_OUTPUT_FILE, f"{option} {path}: cannot write it: {why}")


@contextmanager
def output_file_errors(path: Path, option: str = "--out") -> Iterator[None]:
    """An operating-system error while writing the output file ``path`` (or the temporary
    file renamed over it) as ``E_OUTPUT_FILE``, naming ``path`` as given: what
    :func:`check_output_file` could not foresee (no permission, the disk full)."""
    try:
        yield
    except OSError as err:  # the system's words for its errno: pyarrow's name the .part file
        why = os.strerror(err.errno) if err.errno else str(err)
        raise Big2Error(E_OUTPUT_FILE, f"{option} {path}: cannot write it: {why}") from err


# --- shared options ----------------------------------------------------------------------

WarehouseOption = Annotated[
    Path | None,
    typer.Option(
        "--warehouse",
        "-w",
        envvar="BIG2_WAREHOUSE",
        help="Warehouse folder (default data/warehouse/; env BIG2_WAREHOUSE).",
    ),
]

BuildMemoryOption = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        envvar="BIG2_BUILD_MEMORY",
        metavar="SIZE",
        help="DuckDB's memory limit for the mart build, e.g. 2GB, 1.5GiB or 50% (default: "
        "80 % of the machine's; env BIG2_BUILD_MEMORY). Past it the build spills to disk "
        "beside the warehouse.duckdb: slower, not failing (1M games build in 1GB).",
    ),
]

SqlMemoryOption = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        envvar="BIG2_SQL_MEMORY",
        metavar="SIZE",
        help="DuckDB's memory limit for this read, e.g. 2GB or 25% (default: 80 % of the "
        "machine's; env BIG2_SQL_MEMORY). Past it `big2 sql` stops (E_SQL_MEMORY_LIMIT: an "
        "ad-hoc query never spills to disk); `big2 rescore` spills to $TMPDIR.",
    ),
]

OverridesOption = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a rule; repeatable."),
]


def parse_overrides(texts: Sequence[str] | None) -> dict[str, Any]:
    """``--set key=value`` options as a mapping; a key given twice is refused.

    >>> parse_overrides(["bombs=true", "players=3"])
    {'bombs': True, 'players': 3}
    """
    out: dict[str, Any] = {}
    for text in texts or ():
        key, value = parse_override(text)
        if key in out:
            raise RulesetError(
                "E_RULESET_OVERRIDE", f"--set {key} is given twice ({text!r})", key=key
            )
        out[key] = value
    return out


def say_waiting(wh: Warehouse) -> None:
    """The line a writer prints while another build or import holds the warehouse."""
    typer.echo(f"big2: waiting for the build or import running on {wh.root} …", err=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"big2-replay {__version__} (replay and simulation core: {native.status()})")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        flag("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """big2-replay: replay analytics for Big Two (鋤大D / 大老二 / 锄大地) and Dou Dizhu (斗地主)."""
