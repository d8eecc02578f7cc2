"""The door every HTTP route passes, the SDK's ``/mcp`` included: Host, Origin, bearer token.

The SDK's DNS-rebinding check covers only its own endpoint; a REST route mounted beside it
answers a rebound page unless something checks every request. This is a pure ASGI middleware
(Starlette's ``BaseHTTPMiddleware`` buffers responses and would break MCP's event stream).
A request is refused unless its Host names a loopback address (with the bound port on TCP),
its Origin is absent or loopback, and, on TCP, it carries the server's bearer token (a 401 says
``WWW-Authenticate: Bearer realm="cm-graph"``); and its body
is at most 64 KiB however it is framed: a declared ``Content-Length`` is judged first, and the
body itself is read here, counted, before any route sees it (a chunked body declares no length,
and the SDK's ``/mcp`` would otherwise read up to its own, far larger, limit). A JSON body in which
an object repeats a key is refused here for every route: the SDK's reader keeps the last of the
repeated keys where another reader may have read the first. A body that passes is handed to the
route as it was received.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..base.envelope import refusal
from ..base.jsonio import repeats_a_key
from .dispatch import wire_bytes
from .stdio_wire import REPEATED_REQUEST_KEY

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY_BYTES = 65_536
CHALLENGE = b'Bearer realm="cm-graph"'


def allowed_hosts(port: int | None) -> frozenset[str]:
    """Host header values a loopback client sends: with the TCP port, or bare over a Unix socket."""
    if port is None:
        return frozenset(LOOPBACK_NAMES)
    return frozenset(f"{name}:{port}" for name in LOOPBACK_NAMES)


def origin_allowed(origin: str) -> bool:
    for name in LOOPBACK_NAMES:
        for scheme in ("http://", "https://"):
            prefix = scheme + name
            if origin == prefix or (origin.startswith(prefix + ":") and origin[len(prefix) + 1:].isdigit()):
                return True
    return False


class Guard:
    def __init__(self, app: ASGIApp, *, port: int | None, token: str | None) -> None:
        self.app = app
        self.hosts = allowed_hosts(port)
        self.token = token

    def verdict(self, scope: Scope) -> tuple[int, dict[str, Any]] | None:
        headers: dict[str, str] = {}
        for key, value in scope.get("headers", []):
            name = key.decode("latin-1").lower()
            if name in headers and name in ("host", "origin", "authorization"):
                return 400, refusal("The request repeats a Host, Origin or Authorization header.", reason="invalid")
            headers[name] = value.decode("latin-1")
        if headers.get("host") not in self.hosts:
            return 421, refusal("The Host header is not this loopback server's.", reason="forbidden_host")
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin):
            return 403, refusal("Requests from that Origin are refused.", reason="forbidden_origin")
        if self.token is not None:
            given = headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
                return 401, refusal("A valid bearer token is required (see the server's token file).",
                                    reason="unauthenticated")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return 413, refusal("The request body exceeds 64 KiB.", reason="too_large")
        return None

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                      send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)  # start-up and shut-down: nothing to check
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})  # no route speaks anything else
            return
        verdict = self.verdict(scope)
        if verdict is None:
            received = await _body_within_limit(receive)
            if received is None:
                verdict = 413, refusal("The request body exceeds 64 KiB.", reason="too_large")
            elif repeats_a_key(b"".join(m.get("body", b"") for m in received if m["type"] == "http.request")):
                verdict = 400, refusal(REPEATED_REQUEST_KEY, reason="invalid")
            else:
                await self.app(scope, _replay(received, receive), send)
                return
        status, payload = verdict
        body = wire_bytes(payload)
        # RFC 9110: a 401 names the scheme that would be accepted (the token file is the server's).
        challenge = [(b"www-authenticate", CHALLENGE)] if status == 401 else []
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *challenge,
        ]})
        await send({"type": "http.response.body", "body": body})


async def _body_within_limit(receive: Callable[[], Awaitable[Any]]) -> list[Any] | None:
    """Every message of the request body (and a disconnect, if one came), or None as soon as the
    body passes ``MAX_BODY_BYTES``."""
    messages, size = [], 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[Any], receive: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    """The ``receive`` a route is given: the messages already read, then the connection's own."""
    pending = list(messages)

    async def replayed() -> Any:
        return pending.pop(0) if pending else await receive()

    return replayed
