"""``big2 dashboard``: the Streamlit dashboards on the warehouse, on loopback by default,
behind the Host/Origin guard of ``dashboards/server.py``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.app import WarehouseOption, command, domain_errors
from pipeline.errors import Big2Error

DASHBOARD_HOST = "127.0.0.1"
DASHBOARD_PORT = 8501
#: The source checkout (the dashboards are not installed with the package).
ROOT = Path(__file__).resolve().parents[2]


def dashboard_hosts(host: str) -> list[str]:
    """The host names the dashboards answer to (the guard of ``dashboards/server.py`` refuses
    any other ``Host`` or ``Origin``): loopback, the ``--host`` address, and this machine's
    names and addresses when it binds every interface.

    >>> dashboard_hosts("127.0.0.1")
    ['127.0.0.1', '::1', 'localhost']
    >>> dashboard_hosts("192.0.2.7")
    ['127.0.0.1', '192.0.2.7', '::1', 'localhost']
    """
    names = {"127.0.0.1", "localhost", "::1", host.strip("[]").lower()}
    if is_wildcard(host):
        names.discard(host.strip("[]").lower())
        import socket

        try:
            machine = socket.gethostname()
            names.update({machine.lower(), socket.getfqdn().lower()})
            names.update(socket.gethostbyname_ex(machine)[2])
        except OSError:
            pass
    return sorted(n for n in names if n)


def is_wildcard(host: str) -> bool:
    """Whether ``host`` binds every interface (``0.0.0.0``, ``::``)."""
    return host.strip("[]") in ("", "0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def dashboard_command(
    warehouse: Path | None,
    *,
    port: int = DASHBOARD_PORT,
    host: str = DASHBOARD_HOST,
    sql_memory: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The ``streamlit run dashboards/server.py`` command line and its environment (the warehouse
    reaches the app as ``$BIG2_WAREHOUSE``, an absolute path; the host names the server
    answers to as ``$BIG2_DASHBOARD_HOSTS``; the SQL explorer's memory limit, when given, as
    ``$BIG2_SQL_MEMORY``).

    >>> argv, env = dashboard_command(Path("/tmp/wh"), port=8600, sql_memory="2GB")
    >>> argv[1:4], argv[argv.index("--server.port") + 1], env["BIG2_WAREHOUSE"]
    (['-m', 'streamlit', 'run'], '8600', '/tmp/wh')
    >>> env["BIG2_DASHBOARD_HOSTS"], env["BIG2_SQL_MEMORY"]
    ('127.0.0.1,::1,localhost', '1.8 GiB')
    """
    server_file = ROOT / "dashboards" / "server.py"
    if not server_file.is_file():
        raise Big2Error(
            "E_NO_DASHBOARDS", f"the dashboards live in a source checkout; no {server_file}"
        )
    from pipeline.warehouse import resolve_dir

    argv = [
        sys.executable,
        *("-m", "streamlit", "run", str(server_file)),
        *("--server.address", host, "--server.port", str(port)),
        *("--server.headless", "true", "--browser.gatherUsageStats", "false"),
        *("--server.enableCORS", "true", "--server.enableXsrfProtection", "true"),
        *("--client.toolbarMode", "minimal"),
    ]
    env = {
        **os.environ,
        "BIG2_WAREHOUSE": resolve_dir(warehouse).resolve().as_posix(),
        "BIG2_DASHBOARD_HOSTS": ",".join(dashboard_hosts(host)),
    }
    if sql_memory is not None:
        from pipeline import sqlbuild

        env["BIG2_SQL_MEMORY"] = sqlbuild.memory_limit(sql_memory)
    return argv, env


@command()
def dashboard(
    warehouse: WarehouseOption = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = DASHBOARD_PORT,
    host: Annotated[
        str,
        typer.Option(help="Address to bind (default: this machine only; others get a warning)."),
    ] = DASHBOARD_HOST,
    sql_memory: Annotated[
        str | None,
        typer.Option(
            "--sql-memory-limit",
            envvar="BIG2_SQL_MEMORY",
            metavar="SIZE",
            help="The SQL explorer's memory limit per query, e.g. 2GB or 10% (default 25% of the "
            "machine's; env BIG2_SQL_MEMORY). A query past it stops (E_SQL_MEMORY_LIMIT).",
        ),
    ] = None,
) -> None:
    """Open the Streamlit dashboards on the warehouse (read-only), at http://HOST:PORT/."""
    with domain_errors():
        argv, env = dashboard_command(warehouse, port=port, host=host, sql_memory=sql_memory)
    if not is_loopback(host):
        typer.echo(
            f"big2: warning: --host {host} is not loopback: anyone who can reach this machine "
            "can read the warehouse through the dashboards (no login)",
            err=True,
        )
    typer.echo(f"big2 dashboard: http://{host}:{port}/ on warehouse {env['BIG2_WAREHOUSE']}")
    sys.stdout.flush()
    os.execve(argv[0], argv, env)  # streamlit takes over this process (Ctrl-C stops it)
