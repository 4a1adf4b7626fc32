"""What ``big2 dashboard`` serves: the app of ``app.py`` behind a guard on Host and Origin.

``streamlit run dashboards/server.py`` finds ``app`` (a ``st.App``) and serves it with uvicorn;
every HTTP request and WebSocket handshake first passes :class:`HostGuard`, which refuses
(HTTP 403, or the handshake refused) a request whose ``Host`` is not one of this server's names
at its port (DNS rebinding: ``evil.example`` resolving to 127.0.0.1) or whose ``Origin``, when
sent, is not exactly ``http[s]://<one of those names>:<port>`` (another site, or another
server on ``localhost``, opening the dashboards' WebSocket). Streamlit's own checks cannot do
this: ``server.allowedHosts`` is empty by default and covers only the WebSocket, and its
origin check accepts ``localhost`` on any port.

The names come from ``$BIG2_DASHBOARD_HOSTS`` (comma-separated; ``big2 dashboard`` sets it to
the loopback names, plus the ``--host`` address, plus this machine's names when it binds every
interface), else the loopback names.

>>> refusal("127.0.0.1:8501", "http://127.0.0.1:8501", {"127.0.0.1"}, 8501) is None
True
>>> refusal("evil.example:8501", None, {"127.0.0.1"}, 8501)
"Host 'evil.example:8501' is not this server"
>>> refusal("localhost:8501", "http://localhost:3000", {"localhost"}, 8501)
"Origin 'http://localhost:3000' is not this server"
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import streamlit as st
from starlette.middleware import Middleware

#: The names of this machine's loopback interface.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: The environment variable with the allowed host names (set by ``big2 dashboard``).
HOSTS_ENV = "BIG2_DASHBOARD_HOSTS"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _host_port(netloc: str) -> tuple[str, int | None] | None:
    """``(hostname, port)`` of ``host[:port]`` (IPv6 in brackets), None when malformed."""
    try:
        parts = urlsplit(f"//{netloc}")
        hostname, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not hostname or parts.username is not None or parts.password is not None or parts.path:
        return None
    return hostname.lower().rstrip("."), port


def refusal(host: str | None, origin: str | None, names: Iterable[str], port: int) -> str | None:
    """Why a request with these ``Host`` and ``Origin`` headers is refused (None: allowed)."""
    allowed = {n.lower() for n in names}
    parsed = _host_port(host or "")
    default = 443 if port == 443 else 80
    if parsed is None or parsed[0] not in allowed or (parsed[1] or default) != port:
        return f"Host {host!r} is not this server"
    if origin is None:  # not a browser (a browser always sends it on a WebSocket)
        return None
    parts = urlsplit(origin)
    where = _host_port(parts.netloc)
    if (
        parts.scheme not in ("http", "https")
        or where is None
        or where[0] not in allowed
        or (where[1] or (443 if parts.scheme == "https" else 80)) != port
        or parts.path not in ("", "/")
    ):
        return f"Origin {origin!r} is not this server"
    return None


def allowed_names() -> frozenset[str]:
    """The host names this server answers to (``$BIG2_DASHBOARD_HOSTS``, else loopback)."""
    names = {n.strip() for n in os.environ.get(HOSTS_ENV, "").split(",") if n.strip()}
    return frozenset(names) or LOOPBACK


class HostGuard:
    """ASGI middleware: refuse a request whose Host or Origin is not this server (:func:`refusal`)."""

    def __init__(self, app: ASGIApp, names: Iterable[str] | None = None) -> None:
        self.app = app
        self.names = frozenset(names) if names is not None else allowed_names()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        server = scope.get("server") or ("", 0)
        why = refusal(headers.get("host"), headers.get("origin"), self.names, int(server[1] or 0))
        if why is None:
            await self.app(scope, receive, send)
            return
        print(f"big2 dashboard: refused {scope.get('path', '')}: {why}", file=sys.stderr)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # the handshake gets 403
            return
        body = f"refused: {why}\n".encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": body})


ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # as in app.py: `streamlit run` puts only dashboards/ on the path
    sys.path.insert(0, str(ROOT))

app = st.App(Path(__file__).with_name("app.py"), middleware=[Middleware(HostGuard)])
