"""``cm-graph mcp``: the tool table served over MCP with the official Python SDK's low-level server.

Beside the tools, the resources of ``resources.py`` (a file's definitions, the graph's status):
a read answers the object as JSON text, or a refusal as a JSON-RPC error whose data is the
refusal reply a tool would give.

The low-level server (not ``MCPServer``'s decorators) because the table already holds each
tool's JSON Schema, and the same schema must check REST arguments and describe OpenAPI; the
SDK's function introspection would make a second, different one. Each result carries the whole
answer as ``structuredContent`` and the same compact JSON as its one text block (hosts forward
one or the other, never both). Nothing is loaded or opened at start-up: the first call does the
first read of local state, and every call does its own.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from .. import __version__
from ..base.envelope import refusal
from .authority import Caller
from .dispatch import answered, call_tool, wire_bytes
from .prompts import PROMPTS, prompt_reply
from .resources import JSON, RESOURCES, read
from .stdio_wire import INVALID_REQUEST, REPEATED_REQUEST_KEY, JudgedLines, claimed_stdin, claimed_stdout
from .tools import BY_NAME, TOOLS, Tool

SERVER_NAME = "cm-graph"
INSTRUCTIONS = (
    "Call `code_context` before grep or reading files to learn an area. Read only the cited lines you must "
    "edit. Answers describe the commit in `graph.commit`; check `freshness`. After a task, report whether "
    "an answer saved reads with `graph_feedback` (its capability_id and answer_id)."
)


def tool_listing(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name, description=tool.description, input_schema=tool.input_schema,
        output_schema=tool.output,
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only, destructive_hint=False if not tool.read_only else None,
            # Only a tool that writes says it (the hint means nothing for one that only reads):
            # graph_feedback's repeated report is already_recorded, never a second row.
            idempotent_hint=True if not tool.read_only else None, open_world_hint=False,
        ),
    )


def call_result(payload: dict[str, Any], is_error: bool) -> types.CallToolResult:
    text = wire_bytes(payload).decode("utf-8")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=payload, is_error=is_error,
    )


def read_result(caller: Caller, uri: str) -> types.ReadResourceResult:
    """The resource ``uri`` read now, or the refusal as a JSON-RPC error (Invalid Params)."""
    from mcp import MCPError

    reply = answered(caller, lambda: read(caller, uri), f"resource {uri[:80]!r}")
    if reply.is_error:
        raise MCPError(types.INVALID_PARAMS, reply.payload["answer"], reply.payload)
    return types.ReadResourceResult(contents=[
        types.TextResourceContents(uri=uri, mime_type=JSON, text=reply.body.decode("utf-8"))])


def prompt_result(caller: Caller, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
    """Prompt ``name`` answered now as one user message, or its refusal as a JSON-RPC error."""
    from mcp import MCPError

    reply, text = prompt_reply(caller, name, arguments)
    if reply.is_error:
        raise MCPError(types.INVALID_PARAMS, reply.payload["answer"], reply.payload)
    description = next(prompt.description for prompt in PROMPTS if prompt.name == name)
    return types.GetPromptResult(description=description, messages=[
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])


def build_server(caller: Caller) -> Server[Any]:
    listing = [tool_listing(tool) for tool in TOOLS]
    resources = [types.Resource(name=r.name, uri=r.uri, description=r.description, mime_type=JSON)
                 for r in RESOURCES if not r.is_template]
    templates = [types.ResourceTemplate(name=r.name, uri_template=r.uri, description=r.description, mime_type=JSON)
                 for r in RESOURCES if r.is_template]

    prompts = [types.Prompt(name=p.name, description=p.description, arguments=[
        types.PromptArgument(name=a.name, description=a.description, required=a.required) for a in p.arguments])
        for p in PROMPTS]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def run_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = BY_NAME.get(params.name)
        if tool is None:
            return call_result(refusal(f"No tool named {params.name[:64]!r}.", reason="not_found"), True)
        arguments = params.arguments if params.arguments is not None else {}
        # The adapters read files and SQLite: a worker thread keeps the event loop serving.
        reply = await anyio.to_thread.run_sync(call_tool, caller, tool, arguments)
        return call_result(reply.payload, reply.is_error)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await anyio.to_thread.run_sync(read_result, caller, params.uri)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await anyio.to_thread.run_sync(prompt_result, caller, params.name, params.arguments)

    server: Server[Any] = Server(
        SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=run_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_templates, on_read_resource=read_resource,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt,
        get_tool_input_schema=lambda name: BY_NAME[name].input_schema if name in BY_NAME else None,
    )
    # The SDK's one default middleware opens an OpenTelemetry span per message, a no-op without an
    # exporter, which this offline server never installs; dropping it is the SDK's documented
    # opt-out (``Server.middleware``), and saves its per-request work.
    server.middleware = []
    return server


def serve_stdio(caller: Caller) -> None:
    """Serve one client on stdin/stdout until it closes the stream: the SDK reads stdin's lines
    after ``stdio_wire`` has judged them, and writes its replies to stdout (``stdio_wire`` claims
    both, on the event loop when they are pipes or sockets)."""
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    server = build_server(caller)

    async def main() -> None:
        replies: list[Any] = []
        ready = anyio.Event()

        async def refuse(request: int | str | None) -> None:
            await ready.wait()
            error = types.ErrorData(code=INVALID_REQUEST, message=REPEATED_REQUEST_KEY, data={"reason": "invalid"})
            await replies[0].send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request, error=error)))

        with claimed_stdin() as wire:
            async with (
                claimed_stdout() as out,
                stdio_server(stdin=JudgedLines(wire, refuse), stdout=out) as (read_stream, write_stream),  # type: ignore[arg-type]
            ):
                replies.append(write_stream)
                ready.set()
                await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
