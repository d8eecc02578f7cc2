"""The MCP/REST and token categories of the issue-25 sweep (``adversarial2.py``).

``sweep_mcp_rest``: one real ``cm-graph mcp --http`` on its Unix socket and one stdio server over
G0, sent what a hostile or broken client sends: malformed JSON-RPC, arguments huge, deep, or of
odd text, bodies over the limit however they are framed, headers that smuggle, wrong content
types, repeated keys and parameters, clients that hang up mid-request, calls while the graph is
replaced. A trial *holds* when the reply is an answer or a refusal (never a 5xx, an ``internal``
reply or a hang), a valid call right after still answers, the limit is the documented one on
every route, and a parameter or key given twice is refused as a repeated header is; at the end the
servers' stderr holds no traceback.

``sweep_token``: the TCP bearer token when two servers are started at once with no token file
yet (both must be reachable with the token the file holds), when the file is replaced while a
server runs, and with every near-miss of the ``Authorization`` header.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

from cm_graph.index.ensure import ensure_index
from cm_graph.surfaces.bearer import bearer_token
from cm_graph.surfaces.tools import BY_NAME

from .adversarial import Tally
from .g0 import g0_graph
from .helpers import CM_GRAPH, publish
from .surfacekit import LineClient, Served, connected, free_port, http_server, raw_http, stop

ACCEPT = "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n"
GOOD_CALL = {"target": "parse_config", "intent": "usage"}
ODD_TEXT = ("\ud800", "a\u0000b", "\u202eparse_config", "parse_config\u200b", "e\u0301", "\U0001f600" * 100,
            "x" * 512, "x" * 513, "parse_config\n", " parse_config", "..", "/etc/passwd", "example_pkg/../../x",
            "example_pkg/config.py#L12", "\ufeffparse_config", "\u2028", "\x1b[31m", "parse_config()", "%s%n")


def request(method: str, route: str, body: bytes = b"", headers: str = "", *, length: bool = True) -> bytes:
    """One HTTP/1.1 request as bytes, Host localhost, closed after the reply."""
    head = f"{method} {route} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{headers}"
    if length and body:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode("latin-1") + b"\r\n" + body


def chunked(data: bytes, size: int = 8192) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size])
                    for i in range(0, len(data), size)) + b"0\r\n\r\n"


def status_and_body(reply: bytes) -> tuple[int, bytes]:
    head, _, body = reply.partition(b"\r\n\r\n")
    try:
        return int(head.split(b" ", 2)[1]), body
    except (IndexError, ValueError):
        return 0, reply


class Http:
    """The socket of a running ``cm-graph mcp --http`` and the checks every trial makes."""

    def __init__(self, socket_path: Path) -> None:
        self.path = socket_path

    def send(self, data: bytes, *, read: bool = True) -> tuple[int, bytes]:
        return status_and_body(raw_http(self.path, data, read=read))

    def still_answers(self) -> str | None:
        status, body = self.send(request("POST", "/graph/analyze/code-context", json.dumps(GOOD_CALL).encode()))
        if status != 200 or b'"status":"answered"' not in body:
            return f"a valid call right after answered {status}: {body[:160]!r}"
        return None

    def judged(self, data: bytes, *, expect: Callable[[int, bytes], str | None] | None = None) -> str | None:
        status, body = self.send(data)
        if status >= 500 or status == 0 or b'"reason":"internal"' in body:
            return f"answered {status}: {body[:200]!r}"
        if expect is not None and (problem := expect(status, body)):
            return problem
        return self.still_answers()


def too_large(status: int, body: bytes) -> str | None:
    return None if status == 413 else f"a body over 64 KiB was read and answered {status}: {body[:120]!r}"


def refused_as_repeated(status: int, body: bytes) -> str | None:
    return None if status == 400 else f"a repeated parameter or key was taken ({status}: {body[:160]!r})"


def valid_reply(tool: str) -> Callable[[int, bytes], str | None]:
    """The reply validates against the tool's own output schema (answer or refusal)."""
    validator = jsonschema.Draft202012Validator(BY_NAME[tool].output)

    def check(status: int, body: bytes) -> str | None:
        try:
            payload = json.loads(body)
        except ValueError:
            return f"{status}: not JSON: {body[:120]!r}"
        problems = [error.message for error in validator.iter_errors(payload)]
        return f"{status}: breaks {tool}'s output schema: {problems[0][:160]}" if problems else None

    return check


def rpc(body: Any) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return request("POST", "/mcp", data, ACCEPT + "Content-Type: application/json\r\n")


def tool_call(name: str, arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


MALFORMED_RPC: tuple[bytes, ...] = (
    b"not json", b"{", b"\xff\xfe", b"[" * 60000, b"null", b"[]", b'"x"', b"{}", b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', b'{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_context","arguments":"x"}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' + b"n" * 5000 + b'","arguments":{}}}',
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', b'{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_context","arguments":{"target":"\\ud800"}}}',
)

# (what, the bytes, how many of its requests may be answered with the graph's status: the
# legitimate ones; a request behind a bad Host, or smuggled in a body, never is)
HOST, CLOSE = b"Host: localhost\r\n", b"Connection: close\r\n\r\n"
ASK, STATUS = b"POST /graph/ask HTTP/1.1\r\n" + HOST, b"GET /graph/status HTTP/1.1\r\n"
SMUGGLED: tuple[tuple[str, bytes, int], ...] = (
    ("Content-Length and Transfer-Encoding", ASK + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n" + CLOSE
     + b"0\r\n\r\n" + STATUS + b"Host: evil\r\n\r\n", 0),
    ("two Content-Lengths", ASK + b"Content-Length: 2\r\nContent-Length: 40\r\n" + CLOSE + b"{}", 0),
    ("a bad chunk size", ASK + b"Transfer-Encoding: chunked\r\n" + CLOSE + b"zz\r\n{}\r\n0\r\n\r\n", 0),
    ("Transfer-Encoding not chunked", ASK + b"Transfer-Encoding: gzip\r\n" + CLOSE + b"{}", 0),
    ("a folded Host", STATUS + b"Host: evil.example\r\n localhost\r\n" + CLOSE, 0),
    ("a NUL in a header", STATUS + HOST + b"X-A: a\x00b\r\n" + CLOSE, 0),
    ("an absolute URI (Host is what the door reads)", b"GET http://evil.example/graph/status HTTP/1.1\r\n"
     + HOST + CLOSE, 1),
    ("HTTP/1.0 without Host", b"GET /graph/status HTTP/1.0\r\n\r\n", 0),
    ("Host with a space", STATUS + b"Host: local host\r\n" + CLOSE, 0),
    ("Host with a trailing dot", STATUS + b"Host: localhost.\r\n" + CLOSE, 0),
    ("Host in upper case", STATUS + b"Host: LOCALHOST\r\n" + CLOSE, 0),
    ("a pipelined second request to a bad Host", STATUS + HOST + b"\r\n" + STATUS + b"Host: evil.example\r\n" + CLOSE,
     1),
    ("Expect 100-continue over the limit", ASK + b"Expect: 100-continue\r\nContent-Length: 9000000\r\n" + CLOSE, 0),
    ("a negative Content-Length", ASK + b"Content-Length: -1\r\n" + CLOSE, 0),
    ("an unknown method", b"BREW /graph/status HTTP/1.1\r\n" + HOST + CLOSE, 0),
    ("a request line of 64 KiB", b"GET /" + b"a" * 65536 + b" HTTP/1.1\r\n" + HOST + CLOSE, 0),
)


def smuggled_ok(allowed: int) -> Callable[[int, bytes], str | None]:
    """No more of the requests answered with the graph's status than were legitimate."""
    def check(status: int, body: bytes) -> str | None:
        answered = body.count(b'"schema":"cm_graph.surfaceStatus')
        return f"{answered} requests answered, {allowed} legitimate: {body[:160]!r}" if answered > allowed else None

    return check


def sweep_mcp_rest(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    served = connected(base)
    path = served.state / "run" / "local-graph.sock"

    def ready() -> bool:
        try:
            return path.exists() and Http(path).send(request("GET", "/openapi.json"))[0] == 200
        except OSError:
            return False

    with http_server(served, ready=ready) as server:
        http = Http(path)
        _http_trials(http, served, count, rng, tally)
        _stdio_trials(served, count, rng, tally)
        _refresh_race(http, served, count, tally)
        code = stop(server)
    tally.judge(None if code == 0 else f"the HTTP server exited {code} when stopped", "the HTTP server stops cleanly")


def _http_trials(http: Http, served: Served, count: int, rng: random.Random, tally: Tally) -> None:
    big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x" * 70_000}}).encode()
    rest_big = json.dumps({**GOOD_CALL, "pad": "x" * 70_000}).encode()
    fixed: list[tuple[str, bytes, Callable[[int, bytes], str | None] | None]] = [
        ("chunked body over 64 KiB to /mcp", request("POST", "/mcp", chunked(big),
                                                     ACCEPT + "Content-Type: application/json\r\n"
                                                     "Transfer-Encoding: chunked\r\n", length=False), too_large),
        ("chunked body over 64 KiB to REST", request("POST", "/graph/analyze/code-context", chunked(rest_big),
                                                     "Transfer-Encoding: chunked\r\n", length=False), too_large),
        ("Content-Length over 64 KiB to /mcp", rpc(big), too_large),
        ("repeated query parameter", request("GET", "/graph/status?fleet=a&fleet=b"), refused_as_repeated),
        ("repeated key in a REST body", request("POST", "/graph/analyze/code-context",
                                                b'{"target":"parse_config","target":"nope"}'), refused_as_repeated),
        *((f"content type {kind}", request("POST", "/graph/ask", b'{"question":"impact","target":"parse_config"}',
                                           f"Content-Type: {kind}\r\n"), valid_reply("ask"))
          for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                       "application/json; charset=latin-1", "")),
        *((f"malformed JSON-RPC {raw[:40]!r}", rpc(raw), None) for raw in MALFORMED_RPC),
        *((f"smuggling: {name}", raw, smuggled_ok(allowed)) for name, raw, allowed in SMUGGLED),
        ("arguments nested 30000 deep", request("POST", "/graph/analyze/code-context",
                                                b'{"target":' + b"[" * 30000 + b"]" * 30000 + b"}"), None),
        ("a 60 KiB target", request("POST", "/graph/analyze/code-context",
                                    json.dumps({"target": "y" * 60_000}).encode()), valid_reply("code_context")),
    ]
    for case, data, expect in fixed:
        tally.judge(http.judged(data, expect=expect), case)
    # the lone surrogate, NUL and bidi override always; the rest by the seed
    for text in (*ODD_TEXT[:3], *rng.sample(ODD_TEXT[3:], min(len(ODD_TEXT) - 3, max(count, 2)))):
        for tool, arguments in (("code_context", {"target": text}), ("ask", {"question": "impact", "target": text}),
                                ("cross_repo_usages", {"symbol": text})):
            route = BY_NAME[tool].route
            body = json.dumps(arguments).encode()
            rest = http.judged(request("POST", route, body), expect=valid_reply(tool))
            tally.judge(rest, f"REST {tool} {text!r:.30}")
            tally.judge(http.judged(rpc(tool_call(tool, arguments))), f"MCP {tool} {text!r:.30}")
    tally.judge(http.judged(rpc(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_context",'
                                b'"arguments":{"target":"parse_config","target":"nope"}}}'),
                            expect=refused_as_repeated), "repeated key in MCP arguments")
    for number in range(max(count, 3)):  # hang up mid-request, mid-body and before reading the reply
        cut = rng.choice((10, 40, 70))
        data = request("POST", "/graph/analyze/code-context", json.dumps(GOOD_CALL).encode())
        http.send(data[:cut], read=False)
        http.send(data, read=False)
        tally.judge(http.still_answers(), f"client hung up #{number} (at byte {cut}, and before the reply)")


def _stdio_trials(served: Served, count: int, rng: random.Random, tally: Tally) -> None:
    client = LineClient(served)
    lines = [*MALFORMED_RPC, b"", b"   ", b'{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":'
             b'"code_context","arguments":{"target":"' + b"a" * 3_000_000 + b'"}}}']
    for line in lines:
        client.send(line)
        reply = client.call("code_context", GOOD_CALL)
        result = (reply or {}).get("result", {}).get("structuredContent", {})
        tally.judge(None if result.get("status") == "answered" else f"the next call got {str(reply)[:160]}",
                    f"stdio after {line[:40]!r}")
    reply = client.call("code_context", {"target": "parse_config", "target2": 1})
    tally.judge(None if reply and reply.get("result", {}).get("isError") else f"unknown key answered: {reply}",
                "stdio unknown argument")
    client.send(json.dumps(tool_call("code_context", {"target": "parse_config"})).replace(
        '"target"', '"target":"nope","target"', 1).encode())
    reply = client.receive()
    refused = (reply or {}).get("result", {}).get("isError") is True or "error" in (reply or {})
    tally.judge(None if refused else "a repeated key in MCP arguments was taken (the last one won)",
                "stdio repeated key in arguments")
    client.send(json.dumps(tool_call("code_context", GOOD_CALL)).encode())  # then hang up before the reply
    code, stderr = client.close()
    problem = f"exited {code}" if code != 0 else "a traceback on stderr" if "Traceback" in stderr else None
    tally.judge(problem, "stdio client hung up mid-call")


def _refresh_race(http: Http, served: Served, count: int, tally: Tally) -> None:
    """Calls on four threads while the graph is published again ``count`` times: each reply is
    the one answer the graph gives (generation and ids masked), or unavailable, never damage."""
    status, body = http.send(request("POST", "/graph/analyze/code-context", json.dumps(GOOD_CALL).encode()))
    baseline = _masked(json.loads(body))
    seen: list[str] = []
    stop_calls = threading.Event()

    def caller() -> None:
        while not stop_calls.is_set():
            status, body = http.send(request("POST", "/graph/analyze/code-context", json.dumps(GOOD_CALL).encode()))
            payload = json.loads(body) if body.startswith(b"{") else {"status": f"http {status}"}
            if payload.get("status") == "answered" and _masked(payload) != baseline:
                seen.append(f"an answer mixing generations: {_masked(payload)[:200]}")
            elif payload.get("status") not in ("answered", "unavailable") or payload.get("reason") in (
                    "corrupt", "invalid", "unreadable", "internal"):
                seen.append(f"{status} {payload.get('status')} {payload.get('reason')}")

    threads = [threading.Thread(target=caller) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(max(count, 3)):
            ensure_index(publish(served.repo, served.state, g0_graph()))
    finally:
        stop_calls.set()
        for thread in threads:
            thread.join(timeout=120)
    tally.judge(seen[0] if seen else None, f"calls on 4 threads across {max(count, 3)} refreshes")


def _masked(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True)
    for key in ("generation", "answer_id"):
        value = payload.get("graph", {}).get(key) if key == "generation" else payload.get(key)
        if value:
            text = text.replace(value, f"<{key}>")
    return text.replace(payload.get("freshness", {}).get("checked_at", "\0"), "<at>")


# --- the bearer token ----------------------------------------------------------------------------


def _made(run: str, queue: Any, barrier: Any) -> None:
    barrier.wait()
    try:
        queue.put(bearer_token(Path(run)))
    except Exception as error:  # noqa: BLE001 - reported as the trial's finding
        queue.put(f"raised {type(error).__name__}: {error}")


def token_race(base: Path, number: int, processes: int = 4) -> str | None:
    """``processes`` first starts at once in a run directory with no token yet: every one must
    use the token the file ends up holding (else a server serves a token nobody can read)."""
    run = base / f"run-{number}"
    run.mkdir(mode=0o700)
    context = multiprocessing.get_context("fork")
    queue, barrier = context.Queue(), context.Barrier(processes)
    workers = [context.Process(target=_made, args=(str(run), queue, barrier)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    tokens = [queue.get(timeout=10) for _ in workers]
    held = (run / "token").read_bytes().strip().decode()
    odd = [token for token in tokens if token != held]
    return f"{len(odd)} of {processes} starts use a token the file does not hold ({odd[0][:20]}...)" if odd else None


def tcp_call(port: int, token: str | None, route: str = "/graph/status") -> int:
    auth = f"Authorization: Bearer {token}\r\n" if token is not None else ""
    data = f"GET {route} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Connection: close\r\n\r\n".encode()
    return status_and_body(raw_http(("127.0.0.1", port), data))[0]


class TcpServer:
    """A real ``cm-graph mcp --http --port`` over a connected G0, up until ``stop``."""

    def __init__(self, base: Path) -> None:
        self.served = connected(base)
        self.port = free_port()
        self.process = subprocess.Popen(
            [str(CM_GRAPH), *self.served.args("claude:builder", "--http", "--port", str(self.port))],
            env=self.served.env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def token_file(self) -> Path:
        return self.served.state / "run" / "token"

    def wait(self) -> None:
        for _ in range(600):
            if self.process.poll() is not None or _up(self.port):
                return
            threading.Event().wait(0.1)

    def code(self, token: str | None, route: str = "/graph/status") -> int:
        return tcp_call(self.port, token, route)

    def stop(self) -> int:
        return stop(self.process)


def _up(port: int) -> bool:
    try:
        return tcp_call(port, None) == 401
    except OSError:
        return False


def two_servers_at_once(base: Path) -> str | None:
    """Two TCP servers started together over one state with no token file: both answer the
    token the file holds."""
    first = TcpServer(base)
    second = TcpServer.__new__(TcpServer)
    second.served, second.port = first.served, free_port()
    second.process = subprocess.Popen(
        [str(CM_GRAPH), *first.served.args("claude:builder", "--http", "--port", str(second.port))],
        env=first.served.env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        first.wait()
        second.wait()
        token = first.token_file.read_text().strip()
        codes = [first.code(token), second.code(token)]
    finally:
        first.stop()
        second.stop()
    return None if codes == [200, 200] else f"with the file's token the two servers answered {codes}"


def replaced_while_serving(server: TcpServer, started: str, how: str) -> str | None:
    """The token file replaced while the server runs: it still answers the token it started with
    (or the new file's), never an empty or malformed one, and does not fall over."""
    path = server.token_file
    if os.path.lexists(path):
        os.unlink(path)
    if how == "a new token":
        bearer_token(path.parent)
    elif how == "garbage":
        path.write_text("a\n")
        path.chmod(0o600)
    elif how == "symlink":
        path.symlink_to("/etc/hostname")
    codes = {"started": server.code(started), "empty": server.code(""), "a": server.code("a"),
             "none": server.code(None)}
    if how == "a new token":
        codes["new"] = server.code(path.read_text().strip())
    if codes["empty"] != 401 or codes["a"] != 401 or codes["none"] != 401:
        return f"a server whose token file became {how} let in {codes}"
    if 200 not in (codes["started"], codes.get("new")):
        return f"neither the start-up token nor the file's is answered after the file became {how} ({codes})"
    return None


# Near misses of ``Bearer <token>`` (whitespace around a field value is not part of it, RFC 9110,
# so ``Bearer <token> `` is the exact header and is not here).
AUTH_MISSES = ("bearer {t}", "Bearer  {t}", "Bearer {t}x", "Bearer {tt}", "Basic {t}", "{t}", "Bearer",
               "Bearer {t},Bearer {t}", "BEARER {t}", "Bearer {t}\\n", "Bearer\t{t}", "Bearer {t} x")


def header_misses(server: TcpServer, token: str) -> list[tuple[str, str | None]]:
    good = server.code(token)
    found = [("the exact header", None if good == 200 else f"the exact token answered {good}")]
    for miss in AUTH_MISSES:
        value = miss.format(t=token, tt=token[:-1])
        data = (f"GET /graph/status HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAuthorization: {value}\r\n"
                "Connection: close\r\n\r\n").encode()
        status = status_and_body(raw_http(("127.0.0.1", server.port), data))[0]
        found.append((f"Authorization {miss!r}", None if status in (400, 401) else f"let in with {status}"))
    query = server.code(None, f"/graph/status?token={token}")
    found.append(("token in the query string", None if query == 401 else f"let in with {query}"))
    return found


def sweep_token(base: Path, count: int, rng: random.Random, tally: Tally) -> None:
    for number in range(max(count, 3)):
        tally.judge(token_race(base, number), f"4 first starts at once #{number}")
    tally.judge(two_servers_at_once(base / "two"), "two TCP servers started at once")
    server = TcpServer(base / "one")
    try:
        server.wait()
        started = server.token_file.read_text().strip()
        for case, problem in header_misses(server, started):
            tally.judge(problem, case)
        for how in ("deleted", "a new token", "garbage", "symlink"):
            tally.judge(replaced_while_serving(server, started, how), f"token file {how} while serving")
    finally:
        code = server.stop()
    tally.judge(None if code == 0 else f"exited {code} when stopped", "the TCP server stops cleanly")
