"""Issue 19: the REST twin behind its door: a 0600 Unix socket by default, Host and Origin
checked on every route (the SDK guards only its own /mcp), answers equal to the MCP objects."""

from __future__ import annotations

import json
import re
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

httpx2 = pytest.importorskip("httpx2", reason="the optional extra mcp is not installed (pip install -e '.[mcp]')")

from ..support.helpers import CM_GRAPH  # noqa: E402
from ..support.surfacekit import Served, connected, http_server  # noqa: E402

ROUTES = [("POST", "/graph/analyze/code-context", {"target": "parse_config"}),
          ("POST", "/graph/analyze/prime", {"task": "rename parse_config and update its callers"}),
          ("POST", "/graph/ask", {"question": "impact", "target": "parse_config"}),
          ("POST", "/graph/analyze/cross-repo-usages", {"symbol": "parse_config"}),
          ("POST", "/graph/analyze/changes", {"diff": "commit", "ref": "HEAD"}),
          ("GET", "/graph/status", None), ("GET", "/openapi.json", None),
          ("POST", "/graph/feedback", {"capability_id": "cmg:question:impact:parse_config",
                                       "answer_id": "sha256:" + "0" * 64, "reads_avoided": 1, "files_read": 0,
                                       "correct": True}),
          ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
          ("GET", "/no/such/route", None)]
REBINDING = [{"Host": "evil.example"}, {"Host": "127.0.0.1.evil.example"}, {"Host": "localhost:8080"},
             {"Host": "localhost", "Origin": "http://evil.example"},
             {"Host": "localhost", "Origin": "http://localhost.evil.example"},
             {"Host": "localhost", "Origin": "null"}]


def uds_client(path: Path) -> httpx2.Client:
    return httpx2.Client(transport=httpx2.HTTPTransport(uds=str(path)), base_url="http://localhost", timeout=30)


def serving(served: Served) -> tuple[Path, Any]:
    path = served.state / "run" / "local-graph.sock"

    def ready() -> bool:
        if not path.exists():
            return False
        try:
            with uds_client(path) as client:
                return client.get("/openapi.json").status_code == 200
        except httpx2.HTTPError:
            return False

    return path, ready


def test_the_socket_is_private_and_every_route_refuses_rebinding(tmp_path: Path) -> None:
    served = connected(tmp_path)
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as client:
        mode = path.stat().st_mode
        assert stat.S_ISSOCK(mode) and mode & 0o777 == 0o600
        assert (served.state / "run").stat().st_mode & 0o777 == 0o700
        for method, route, body in ROUTES:
            for headers in REBINDING:
                done = client.request(method, route, headers=headers, json=body)
                expected = 403 if "Origin" in headers else 421
                assert done.status_code == expected, (route, headers, done.status_code)
                assert done.json()["reason"] in ("forbidden_host", "forbidden_origin")
        allowed = client.get("/graph/status", headers={"Origin": "http://127.0.0.1:3000"})
        assert allowed.status_code == 200 and allowed.json()["status"] == "ready"
        assert client.get("/no/such/route").json()["reason"] == "not_found"
        assert client.post("/graph/ask", content=b"{").status_code == 400
        assert client.post("/graph/ask", content=b"x" * 70_000).json()["reason"] == "too_large"


def raw_get(path: Path, route: str, headers: list[tuple[str, str]]) -> tuple[int, bytes]:
    """A GET written byte by byte on the Unix socket: HTTP clients refuse to send a repeated Host."""
    lines = [f"GET {route} HTTP/1.1", *(f"{name}: {value}" for name, value in headers), "Connection: close"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(30)
        connection.connect(str(path))
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def test_a_chunked_body_over_the_limit_and_repeated_door_headers_are_refused(tmp_path: Path) -> None:
    """A body without Content-Length (chunked) is counted as it is read, not trusted to be small;
    a second Host, Origin or Authorization header is refused whichever of the two is the good
    one (a door that read only the first, or the last, could be passed with the other)."""
    served = connected(tmp_path)
    path, ready = serving(served)
    big = json.dumps({"target": "parse_config", "pad": "x" * 70_000}).encode()

    def chunks(data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), 8192):
            yield data[start:start + 8192]

    with http_server(served, ready=ready), uds_client(path) as client:
        chunked = client.post("/graph/analyze/code-context", content=chunks(big))
        assert "content-length" not in chunked.request.headers, chunked.request.headers
        assert chunked.status_code == 413 and chunked.json()["reason"] == "too_large", chunked.text
        small = client.post("/graph/analyze/code-context", content=chunks(b'{"target": "parse_config"}'))
        assert small.status_code == 200 and small.json()["status"] == "answered", small.text
        good = {"Host": "localhost", "Origin": "http://localhost", "Authorization": "Bearer " + "0" * 43}
        bad = {"Host": "evil.example", "Origin": "http://evil.example", "Authorization": "Bearer x"}
        for name in good:
            for pair in ([good[name], bad[name]], [bad[name], good[name]], [good[name], good[name]]):
                headers = [(name, value) for value in pair] + [(key, good[key]) for key in ("Host",) if key != name]
                status, body = raw_get(path, "/graph/status", headers)
                assert status == 400, (name, pair, status, body)
                assert b"#L" not in body and b'"status":"ready"' not in body, (name, pair)
                if name != "Host":  # h11 refuses a second Host itself, before the app sees it
                    assert json.loads(body)["reason"] == "invalid", (name, pair, body)
        assert raw_get(path, "/graph/status", [("Host", "localhost"), ("Origin", "http://localhost")])[0] == 200


def test_rest_answers_are_the_mcp_objects_and_openapi_holds_the_mcp_schemas(tmp_path: Path) -> None:
    served = connected(tmp_path)
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as client:
        listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             headers={"Accept": "application/json, text/event-stream",
                                      "MCP-Protocol-Version": "2025-11-25"})
        assert listed.status_code == 200, listed.text
        tools = {tool["name"]: tool for tool in listed.json()["result"]["tools"]}
        openapi = client.get("/openapi.json").json()
        for method, route, body in ROUTES[:6]:
            operation = openapi["paths"][route][method.lower()]
            tool = tools[operation["operationId"]]
            assert operation["responses"]["200"]["content"]["application/json"]["schema"] == tool["outputSchema"]
            if method == "POST":
                assert operation["requestBody"]["content"]["application/json"]["schema"] == tool["inputSchema"]
            rest = client.request(method, route, json=body)
            call = client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                             "params": {"name": tool["name"], "arguments": body or {}}},
                               headers={"Accept": "application/json, text/event-stream",
                                        "MCP-Protocol-Version": "2025-11-25"})
            result = call.json()["result"]
            assert rest.status_code == 200 and result["isError"] is False
            assert rest.content == result["content"][0]["text"].encode("utf-8")
            assert json.loads(rest.content) == result["structuredContent"]
        refused = client.post("/graph/ask", json={"question": "impact"})
        assert refused.status_code == 400 and refused.json()["reason"] == "invalid"
        unreproduced = client.post("/graph/feedback", json=ROUTES[-3][2])
        assert unreproduced.status_code == 409 and unreproduced.json()["reason"] == "not_reproduced"
        assert set(openapi["paths"]) == {route for _, route, _ in ROUTES[:8] if route != "/openapi.json"}


def test_a_live_socket_is_never_taken_over_and_a_stopped_server_removes_its_own(tmp_path: Path) -> None:
    served = connected(tmp_path)
    path, ready = serving(served)
    with http_server(served, ready=ready) as first:
        second = subprocess.run([str(CM_GRAPH), *served.args("claude:builder", "--http")], env=served.env(),
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and "cm-graph: busy:" in second.stderr and "Traceback" not in second.stderr
        with uds_client(path) as client:
            assert client.get("/graph/status").status_code == 200  # the first still answers
        first.terminate()
        assert first.wait(timeout=30) == 0
    assert not path.exists()


@pytest.mark.timeout(120)  # the helper this holds once read a live server's stderr pipe and hung
def test_a_server_that_never_answers_is_stopped_before_its_log_is_read(tmp_path: Path) -> None:
    """``http_server`` gives up on a server that does not answer: it stops it (no orphan is left)
    and only then shows its stderr, and a server that refused to start shows its refusal."""
    served = connected(tmp_path)
    with pytest.raises(AssertionError, match=r"pid \d+") as never:
        with http_server(served, ready=lambda: False, wait_seconds=0):
            pass
    pid = int(re.search(r"pid (\d+)", str(never.value)).group(1))  # type: ignore[union-attr]
    assert not Path(f"/proc/{pid}").exists(), f"the server {pid} was left running"
    (served.state / "run").mkdir(mode=0o700, exist_ok=True)
    (served.state / "run" / "local-graph.sock").write_text("")  # not a socket: the server refuses to start
    with pytest.raises(AssertionError, match="The socket path exists and is not a socket"):
        with http_server(served, ready=lambda: False):
            pass


def test_bad_flags_are_refused_before_anything_is_served(tmp_path: Path) -> None:
    served = connected(tmp_path)
    cases = {
        ("--connection", "Bad Name!", "--recipient", "claude:builder", "--http"): (1, "cm-graph: invalid:"),
        ("--connection", "local-graph", "--recipient", "claude:builder", "--http", "--port", "1",
         "--host", "0.0.0.0"): (1, "only a loopback address"),
        ("--connection", "local-graph", "--recipient", "claude:builder", "--socket", "s.sock"): (2, "--http"),
    }
    for flags, (code, said) in cases.items():
        done = subprocess.run([str(CM_GRAPH), "mcp", *flags, "--state-dir", str(served.state)],
                              env=served.env(), capture_output=True, text=True, timeout=60)
        assert done.returncode == code and said in done.stderr, (flags, done.stderr)
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert not (served.state / "run" / "token").exists()


def test_the_body_limit_holds_on_mcp_however_the_body_is_framed(tmp_path: Path) -> None:
    """64 KiB is the limit on every route: a chunked body to the SDK's own /mcp (no
    Content-Length for the door to read) is refused as too_large like one that declares its
    length, and one under the limit still answers."""
    served = connected(tmp_path)
    path, ready = serving(served)
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
               "Content-Type": "application/json"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

    def chunks(data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), 8192):
            yield data[start:start + 8192]

    with http_server(served, ready=ready), uds_client(path) as client:
        big = json.dumps({**listing, "params": {"pad": "x" * 70_000}}).encode()
        for content in (chunks(big), big):
            refused = client.post("/mcp", content=content, headers=headers)
            assert refused.status_code == 413 and refused.json()["reason"] == "too_large", refused.text[:200]
        small = client.post("/mcp", content=chunks(json.dumps(listing).encode()), headers=headers)
        assert small.status_code == 200 and "tools" in small.json()["result"], small.text[:200]


def test_a_repeated_query_parameter_is_refused_as_a_repeated_body_key_is(tmp_path: Path) -> None:
    """``GET /graph/status?fleet=a&fleet=b`` names two fleets; taking the last (or the first)
    would let a proxy that checked the other one pass a different request: refused, as a body
    repeating a key is."""
    served = connected(tmp_path)
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as client:
        for query in ("fleet=a&fleet=b", "fleet=a&fleet=a"):
            refused = client.get(f"/graph/status?{query}")
            assert refused.status_code == 400 and refused.json()["reason"] == "invalid", refused.text[:200]
        assert client.post("/graph/ask", content=b'{"question":"impact","question":"impact"}').status_code == 400
        assert client.get("/graph/status?fleet=nosuch").json()["reason"] == "not_configured"


def test_a_lone_surrogate_in_any_argument_is_refused_never_a_fault(tmp_path: Path) -> None:
    r"""JSON may spell a lone surrogate (``"\ud800"``), which no UTF-8 text holds: every POST
    route refuses it as invalid, the fleet tool too when the checkout is in no fleet (its answer
    would echo the symbol and could not be written)."""
    served = connected(tmp_path)
    path, ready = serving(served)
    bodies = {"/graph/analyze/code-context": b'{"target": "\\ud800"}',
              "/graph/ask": b'{"question": "impact", "target": "a\\udfffb"}',
              "/graph/analyze/cross-repo-usages": b'{"symbol": "\\ud800"}'}
    with http_server(served, ready=ready), uds_client(path) as client:
        for route, body in bodies.items():
            refused = client.post(route, content=body)
            assert refused.status_code == 400 and refused.json()["reason"] == "invalid", (route, refused.text[:200])


def test_a_route_asked_with_another_method_is_405_naming_the_one_it_takes(tmp_path: Path) -> None:
    """Issue 30 item 5: a path that is a route, asked with a method it does not take, is 405 with
    ``Allow`` (not 404: the route exists); a path that is no route stays 404; OpenAPI lists every
    parameter of a GET route, and over the Unix socket asks for no token."""
    served = connected(tmp_path)
    path, ready = serving(served)
    with http_server(served, ready=ready), uds_client(path) as client:
        for method, route, allow in (("GET", "/graph/ask", "POST"), ("PUT", "/graph/analyze/code-context", "POST"),
                                     ("POST", "/graph/status", "GET, HEAD"), ("DELETE", "/openapi.json", "GET, HEAD")):
            done = client.request(method, route)
            assert done.status_code == 405, (method, route, done.status_code, done.text)
            assert done.headers["allow"] == allow, (method, route, done.headers)
            assert done.json()["reason"] == "method_not_allowed" and allow in done.json()["answer"], done.text
        assert client.get("/no/such/route").status_code == 404
        assert client.post("/graph/analyze/nothing").status_code == 404
        openapi = client.get("/openapi.json").json()
    status = openapi["paths"]["/graph/status"]["get"]
    assert [(p["name"], p["in"], p["required"]) for p in status["parameters"]] == [("fleet", "query", False)]
    assert status["parameters"][0]["schema"]["pattern"] and status["parameters"][0]["description"]
    assert "security" not in openapi and "securitySchemes" not in openapi.get("components", {})


def test_the_server_says_where_it_listens_in_one_line(tmp_path: Path) -> None:
    """One start-up line on stderr, once the socket is bound: the Unix socket's path, or the TCP
    address with the port actually bound (``--port 0`` picks one) and where the token is."""
    from ..support.surfacekit import stop

    served = connected(tmp_path)
    path, ready = serving(served)
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([str(CM_GRAPH), *served.args("claude:builder", "--http")], env=served.env(),
                                   stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + 60
            while not ready():
                assert process.poll() is None and time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        finally:
            stop(process)
        log.seek(0)
        lines = log.read().decode().splitlines()
    assert lines == [f"cm-graph: serving MCP at /mcp and the REST routes on the Unix socket {path}"], lines
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([str(CM_GRAPH), *served.args("claude:builder", "--http", "--port", "0")],
                                   env=served.env(), stdout=subprocess.DEVNULL, stderr=log)
        try:
            said = b""
            deadline = time.monotonic() + 60
            while b"\n" not in said:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not say where"
                time.sleep(0.1)
                log.seek(0)
                said = log.read()
            line = said.decode().splitlines()[0]
            found = re.fullmatch(r"cm-graph: serving MCP at /mcp and the REST routes on http://127\.0\.0\.1:(\d+) "
                                 r"\(bearer token in (.+)\)", line)
            assert found is not None, line
            token_file = Path(found.group(2))
            assert token_file == served.state / "run" / "token"
            headers = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
            answered = httpx2.get(f"http://127.0.0.1:{found.group(1)}/openapi.json", headers=headers, timeout=30)
            assert answered.status_code == 200
            assert answered.json()["security"] == [{"bearer": []}]
            assert answered.json()["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
            denied = httpx2.get(f"http://127.0.0.1:{found.group(1)}/graph/status", timeout=30)
            assert denied.status_code == 401 and denied.headers["www-authenticate"] == 'Bearer realm="cm-graph"'
        finally:
            stop(process)
        log.seek(0)
        assert len(log.read().decode().splitlines()) == 1


def test_a_socket_path_too_long_for_the_platform_is_refused_in_one_sentence(tmp_path: Path) -> None:
    """A Unix socket path longer than the platform takes (107 bytes on Linux) is refused before
    anything is bound, with its reason and one sentence naming the limit, never an I/O error."""
    served = connected(tmp_path)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    for flags in (("--socket", str(deep / "s.sock")), ("--state-dir", str(deep))):
        done = subprocess.run([str(CM_GRAPH), *served.args("claude:builder", "--http"), *flags], env=served.env(),
                              capture_output=True, text=True, timeout=60)
        lines = done.stderr.splitlines()
        assert done.returncode == 1 and len(lines) == 1, (flags, done.stderr)
        assert lines[0].startswith("cm-graph: socket_path_too_long: ") and "107" in lines[0], lines
        assert "Traceback" not in done.stderr and done.stdout == ""
    assert not deep.exists()
