"""The MCP prompts: ``prime``, the graph's view of a task's code area as a host's first message.

A prompt is one row of ``PROMPTS``: its name, the description a host shows a person who picks it,
its arguments (MCP gives a prompt's arguments as text only) and the function that answers them.
``prime`` is the ``prime`` tool's answer (``context/prime.py``) put after the task itself, so a
host that starts a session from the prompt hands the model the task and the cited code area in
one turn. A refusal (bad arguments, an unnamed recipient) is a JSON-RPC error whose data is the
refusal reply, as a resource read's is; a graph that cannot answer is an ordinary answer inside
the message, with its reason and next actions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .answers import prime_answer
from .authority import Caller
from .dispatch import Reply, answered

Answer = Callable[[Caller, dict[str, str]], dict[str, Any]]


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class Prompt:
    name: str
    description: str
    arguments: tuple[PromptArgument, ...]
    answer: Answer
    lead: str  # what the message says between the task and the answer


def _prime(caller: Caller, arguments: dict[str, str]) -> dict[str, Any]:
    files = (arguments.get("files") or "").split()
    changes = (arguments.get("changes") or "").strip().lower() in ("yes", "true", "1")
    return prime_answer(caller, {"task": arguments.get("task", ""), **({"files": files} if files else {}),
                                 **({"changes": True} if changes else {})})


PROMPTS: tuple[Prompt, ...] = (
    Prompt("prime", "Start a task with the code it names: each anchor, its callers, callees and tests, cited.",
           (PromptArgument("task", "The task as you would write it; `backticked` names are taken as code.", True),
            PromptArgument("files", "Paths to anchor on too, separated by spaces.", False),
            PromptArgument("changes", "yes: also what the worktree diff touches.", False)),
           _prime,
           "The code graph's view of the code this task names (cm-graph prime; every citation checked at the "
           "commit in `graph.commit`; read only the cited lines you must edit; `next_actions` return the rest):"),
)
BY_NAME = {prompt.name: prompt for prompt in PROMPTS}


def prompt_reply(caller: Caller, name: str, arguments: dict[str, str] | None) -> tuple[Reply, str]:
    """The answer of prompt ``name`` (or its refusal) and the message text it makes."""
    from ..base.envelope import refusal

    prompt = BY_NAME.get(name)
    if prompt is None:
        return Reply(refusal(f"No prompt named {name[:64]!r}.", reason="not_found"), True), ""
    given = dict(arguments or {})
    reply = answered(caller, lambda: prompt.answer(caller, given), f"prompt {name}")
    if reply.is_error:
        return reply, ""
    return reply, f"{given.get('task', '')}\n\n{prompt.lead}\n{reply.body.decode('utf-8')}"
