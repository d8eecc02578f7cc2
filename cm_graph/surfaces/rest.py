"""The REST twin: each tool of the table at its route, answering the same bytes MCP sends.

``POST`` routes take the tool's arguments as one JSON object (at most 64 KiB, no key repeated);
``GET`` routes take them as query parameters, none repeated. The body of every answer is
``dispatch.call_tool``'s compact JSON, byte for byte the MCP text content (and equal, parsed, to
its ``structuredContent``). Answers, including "the graph cannot answer" ones, are 200; refusals
carry a 4xx code and the refusal object, faults 500. ``/openapi.json`` is built from the same
table, so its schemas are the MCP schemas. A path that is a route, asked with another method, is
405 with ``Allow`` (``method_not_allowed``); any other path is 404.
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import __version__
from ..base.envelope import refusal
from ..base.errors import Refusal
from ..base.jsonio import loads_strict
from .authority import Caller
from .dispatch import Reply, call_tool, wire_bytes
from .guard import MAX_BODY_BYTES
from .tools import TOOLS, Tool

OPENAPI_ROUTE = "/openapi.json"
STATUS_OF_REASON = {"invalid": 400, "budget_too_small": 400, "unauthorized": 403, "no_connection": 403,
                    "not_found": 404, "too_large": 413, "not_reproduced": 409, "internal": 500}


def response(reply: Reply) -> Response:
    status = STATUS_OF_REASON.get(reply.payload.get("reason", ""), 400) if reply.is_error else 200
    return Response(reply.body, status_code=status, media_type="application/json")


async def read_arguments(request: Request) -> Any:
    """The JSON object of a POST body, read up to the limit (a chunked body too)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise Refusal("The request body exceeds 64 KiB.", reason="too_large")
    if not body:
        return {}
    return loads_strict(body, "The request body")


def tool_route(caller: Caller, tool: Tool) -> Route:
    async def endpoint(request: Request) -> Response:
        if tool.method == "GET":
            arguments: Any = dict(request.query_params)
            if len(arguments) != len(request.query_params.multi_items()):  # as a body may not repeat a key
                return response(Reply(refusal("A query parameter is repeated.", reason="invalid"), True))
        else:
            try:
                arguments = await read_arguments(request)
            except Refusal as refused:
                return response(Reply(refusal(refused.message, reason=refused.reason), True))
        return response(await anyio.to_thread.run_sync(call_tool, caller, tool, arguments))

    return Route(tool.route, endpoint, methods=[tool.method], name=tool.name)


def openapi_document(*, authenticated: bool) -> dict[str, Any]:
    """OpenAPI 3.1 of the tool table: each route with its request body (POST) or its query
    parameters (GET), every one the tool takes; on TCP (``authenticated``) the bearer scheme, which
    every route requires, and its 401."""
    paths: dict[str, Any] = {}
    for tool in TOOLS:
        responses: dict[str, Any] = {
            "200": {"description": "The whole answer (also when the graph cannot answer: see status).",
                    "content": {"application/json": {"schema": tool.output}}},
            "4XX": {"description": "A refusal: reason and one sentence."},
        }
        if authenticated:
            responses["401"] = {"description": "No or a wrong bearer token (unauthenticated)."}
        operation: dict[str, Any] = {"operationId": tool.name, "summary": tool.description, "responses": responses}
        if tool.method == "POST":
            operation["requestBody"] = {"required": True,
                                        "content": {"application/json": {"schema": tool.input_schema}}}
        else:
            operation["parameters"] = [
                {"name": name, "in": "query", "required": name in tool.required,
                 "description": spec.get("description", ""),
                 "schema": {key: value for key, value in spec.items() if key != "description"}}
                for name, spec in tool.arguments.items()]
        paths[tool.route] = {tool.method.lower(): operation}
    document: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": "cm-graph", "version": __version__},
                                "paths": paths}
    if authenticated:
        document["components"] = {"securitySchemes": {"bearer": {
            "type": "http", "scheme": "bearer",
            "description": "The token in <state>/run/token (made by cm-graph mcp --http --port)."}}}
        document["security"] = [{"bearer": []}]
    return document


def allowed_methods(route: str) -> str | None:
    """The ``Allow`` value of a path that is a route of this app (a GET route answers HEAD too)."""
    methods = {tool.route: tool.method for tool in TOOLS} | {OPENAPI_ROUTE: "GET"}
    method = methods.get(route)
    return None if method is None else ("GET, HEAD" if method == "GET" else method)


def rest_routes(caller: Caller, *, authenticated: bool) -> list[Route]:
    openapi = wire_bytes(openapi_document(authenticated=authenticated))

    async def openapi_endpoint(request: Request) -> Response:
        return Response(openapi, media_type="application/json")

    async def not_found(request: Request) -> Response:
        allow = allowed_methods(request.url.path)
        if allow is not None:  # the route exists, for another method: 405, naming the ones it takes
            refused = refusal(f"{request.url.path} takes {allow} only; see /openapi.json.", reason="method_not_allowed")
            return Response(wire_bytes(refused), status_code=405, media_type="application/json",
                            headers={"Allow": allow})
        return response(Reply(refusal("No such route; see /openapi.json.", reason="not_found"), True))

    # The catch-all comes last: the SDK's /mcp route and every tool route are matched first.
    return [*(tool_route(caller, tool) for tool in TOOLS),
            Route(OPENAPI_ROUTE, openapi_endpoint, methods=["GET"], name="openapi"),
            Route("/{path:path}", not_found, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])]
