"""The two ways an agent answers a task (benchmarks/tasks.py), run for real.

**cm-graph-first**: one ``cm-graph context INTENT TARGET --json`` (the installed CLI, on the
generation ``cm-graph build`` made with the pinned provider), and at most one of the answer's own
``next_actions`` followed: when the answer is ``ambiguous``, the action naming the candidate the
task means (an agent knows which one it means); when it is answered, an action asking the same
intent about the same target again (a bigger budget, a page), the page of the cut section that
answers its task first (``scoring.PAGED_SECTIONS``: it reads ``pages``). The agent reads each cited line
(±0) of the answers it got, and has the items of both (a page adds to the answer it continues).

**grep-and-read**: ``git grep -n -w NAME`` over the language's code files (``*.py``; ``*.js``,
``*.ts``, ...), plus the agent's usual refinement: a hit that imports the name under another
name (``import x as y``, ``{ x as y }``, ``const { x: y } = ...``) is followed by a grep for that
alias too. The agent reads ±5 lines around every hit (windows merged per file; never the whole
enclosing definition), and names the enclosing definition of a hit as a reader of that file
would (the innermost definition holding the line, from the truth's ranges: the most generous
reading, so grep-and-read is not handicapped here).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from expected import Task

from cm_graph.context.wire import cited, location, section_items

INTENTS = {"signature_change": "usage", "rename": "usage", "raise_catch": "usage", "dead_code": "usage",
           "overrides": "impact", "impact": "impact", "how": "how", "tests": "tests"}
CODE_GLOBS = {"Python": ("*.py",),
              "JavaScript/TypeScript": ("*.js", "*.cjs", "*.mjs", "*.ts", "*.tsx", "*.mts", "*.cts")}
WINDOW = 5


@dataclass(frozen=True)
class Item:
    """One cited item of a code_context answer."""

    section: str
    evidence: str  # "graph", "textual", or what the item says (a future "resolved")
    path: str  # where the item's definition (or mention) is
    line: int
    site: tuple[str, int]  # the cited use (a call site, a mention's line), else the item's own line
    label: str
    kind: str
    form: str | None
    hop: int | None


@dataclass
class CmGraphAnswer:
    documents: list[dict[str, Any]]
    followed: str | None
    items: list[Item] = field(default_factory=list)
    cited: set[tuple[str, int]] = field(default_factory=set)

    @property
    def final(self) -> dict[str, Any]:
        return self.documents[-1]


def evidence_of(section: str, item: dict[str, Any]) -> str:
    """The evidence kind of an item: its own ``evidence`` label when it has one (the slot a
    ``resolved`` kind fills), else ``textual`` for the text index's mentions, else ``graph``."""
    if isinstance(item.get("evidence"), str):
        return str(item["evidence"])
    if item.get("confidence") == "textual" or section in ("mentions", "test_mentions"):
        return "textual"
    return "graph"


def _items(document: dict[str, Any]) -> list[Item]:
    found = []
    citations = cited(document)
    for name, section in (document.get("sections") or {}).items():
        for item in section_items(section, citations):
            if not item.get("path"):
                continue
            site = item.get("site") or {}
            where = ((site["path"], int(site["line"])) if site.get("path") and site.get("line")
                     else (item["path"], int(item.get("line") or 1)))
            head = Item(name, evidence_of(name, item), item["path"], int(item.get("line") or where[1]), where,
                        str(item.get("label", "")), str(item.get("kind", "")), item.get("form"), item.get("hop"))
            found.append(head)
            # the other lines this user uses the anchor on: each a site the agent was shown
            found.extend(replace(head, site=(more["path"], int(more["line"]))) for more in item.get("also") or [])
        # the imports a resolved section folds are named by file and line in its detail: the agent reads them
        folded = FOLDED.search(str(section.get("detail") or ""))
        for path, line in FOLDED_PLACE.findall(folded.group(1) if folded else ""):
            found.append(Item(name, "resolved", path, int(line), (path, int(line)), "import", "import", None, None))
    return found


FOLDED = re.compile(r"not listed as items: (.*?)\.(?: |$)")
FOLDED_PLACE = re.compile(r"([^\s,]+) L(\d+)")


def _cited(document: dict[str, Any]) -> set[tuple[str, int]]:
    found = set()
    for cite in cited(document).values():
        path, line = location(cite)
        if line is not None:
            found.add((path, line))
    return found


MAX_PAGES = 40  # a thorough agent's calls on one task, at most


class CmGraph:
    """``thorough``: the agent pages every cut section its task is about to the end (a careful
    agent changing a hub's signature must see every call), instead of following one call."""

    def __init__(self, command: list[str], repo: Path, state: Path, thorough: bool = False) -> None:
        self.command, self.repo, self.state, self.thorough = command, repo, state, thorough

    def ask(self, arguments: list[str]) -> dict[str, Any]:
        done = subprocess.run([*self.command, *arguments, "--json", "--repo-path", str(self.repo), "--state-dir",
                               str(self.state)], capture_output=True, text=True)
        if not done.stdout.strip():
            return {"status": "refused", "answer": done.stderr.strip(), "sections": {}, "citations": [],
                    "next_actions": [], "bounds": {}}
        document: dict[str, Any] = json.loads(done.stdout)
        return document

    def answer(self, task: Task, path: str, line: int, max_chars: int | None = None,
               paged: tuple[str, ...] = ()) -> CmGraphAnswer:
        intent = INTENTS[task.kind]
        extra = ["--max-chars", str(max_chars)] if max_chars else []
        first = self.ask(["context", intent, task.target, *extra])
        documents, followed = [first], None
        follow = None if max_chars else self._follow(first, intent, task.target, path, line, paged)
        if self.thorough and not max_chars and first.get("status") == "answered" and any(
                name in (first.get("pages") or {}) for name in paged):
            documents += self._every_page(first, intent, task.target, paged)
            followed = f"{len(documents) - 1} page(s) of {', '.join(n for n in paged if n in first['pages'])}"
            follow = None
        if follow is not None:
            followed = " ".join(shlex.quote(a) for a in follow)
            documents.append(self.ask(follow[1:]))
        answer = CmGraphAnswer(documents, followed)
        for document in documents:  # what the agent read: the first answer and the page or re-ask it followed
            answer.cited |= _cited(document)
            answer.items += [item for item in _items(document) if item not in answer.items]
        return answer

    def _every_page(self, first: dict[str, Any], intent: str, target: str,
                    paged: tuple[str, ...]) -> list[dict[str, Any]]:
        """Each page of each cut section of ``paged``, in order, to its end (at most ``MAX_PAGES``)."""
        queue = [(name, first["pages"][name]) for name in paged if name in first["pages"]]
        pages: list[dict[str, Any]] = []
        while queue and len(pages) < MAX_PAGES:
            name, cursor = queue.pop(0)
            page = self.ask(["context", intent, target, "--cursor", cursor])
            pages.append(page)
            following = (page.get("pages") or {}).get(name)
            if following:
                queue.insert(0, (name, following))
        return pages

    @staticmethod
    def _follow(document: dict[str, Any], intent: str, target: str, path: str, line: int,
                paged: tuple[str, ...]) -> list[str] | None:
        """The one call the agent makes next: the candidate it means of an ambiguous answer; of an
        answered one, the page of the first cut section of ``paged`` (the ones its task is about,
        in its order: an agent reads ``pages``), else the answer's own re-ask of the same target."""
        pages = document.get("pages") or {}
        cut = [name for name in paged if name in pages]
        if document.get("status") == "answered" and cut:
            return ["cm-graph", "context", intent, target, "--cursor", pages[cut[0]]]
        actions = [a for a in document.get("next_actions", []) if isinstance(a, dict) and a.get("command")]
        parsed = []
        for action in actions:
            try:
                argv = shlex.split(action["command"])
            except ValueError:
                continue
            if argv[:3] == ["cm-graph", "context", intent] and len(argv) > 3:
                parsed.append(argv)
        if document.get("status") == "ambiguous":
            anchors = [a for a in document.get("anchors", []) if a.get("path") == path]
            anchors.sort(key=lambda a: abs(int(a.get("line") or 0) - line))
            if anchors:
                wanted = anchors[0].get("resolve_as")
                for argv in parsed:
                    if argv[3] == wanted:
                        return argv
            return None
        for argv in parsed:
            if argv[3] == target and len(argv) > 4:
                return argv
        return None


@dataclass
class GrepAnswer:
    hits: list[tuple[str, int, str]]  # (path, line, text), deduplicated by line
    searched: list[str]
    read: set[tuple[str, int]]


class Grep:
    def __init__(self, repo: Path, language: str) -> None:
        self.repo = repo
        self.globs = CODE_GLOBS[language]
        self.language = language
        self._lines: dict[str, list[str]] = {}

    def _read(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = (self.repo / path).read_text(encoding="utf-8", errors="replace").split("\n")
        return self._lines[path]

    def length(self, path: str) -> int:
        return len(self._read(path))

    def text(self, path: str, line: int) -> str:
        lines = self._read(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def grep(self, names: list[str]) -> list[tuple[str, int, str]]:
        patterns = [arg for name in names for arg in ("-e", name)]
        done = subprocess.run(["git", "-C", str(self.repo), "grep", "-n", "-w", "-I", "--no-color", *patterns, "--",
                               *self.globs], capture_output=True, text=True)
        hits = []
        for row in done.stdout.splitlines():
            path, line, text = row.split(":", 2)
            hits.append((path, int(line), text))
        return hits

    def aliases(self, name: str, hits: list[tuple[str, int, str]]) -> set[str]:
        found = set()
        escaped = re.escape(name)
        for _, _, text in hits:
            for pattern in (rf"\b{escaped}\s+as\s+(\w+)", rf"\b{escaped}\s*:\s*(\w+)\s*[,}}]"):
                if "import" in text or "require" in text:
                    found.update(re.findall(pattern, text))
        return found - {name}

    def search(self, names: list[str]) -> GrepAnswer:
        searched = list(names)
        hits = self.grep(searched)
        for name in names:
            for alias in sorted(self.aliases(name, hits)):
                if alias not in searched:
                    searched.append(alias)
        if len(searched) > len(names):
            hits = self.grep(searched)
        answer = GrepAnswer(sorted(set(hits)), searched, set())
        answer.read = self.windows([(p, n) for p, n, _ in answer.hits])
        return answer

    def windows(self, lines: list[tuple[str, int]]) -> set[tuple[str, int]]:
        read: set[tuple[str, int]] = set()
        for path, line in lines:
            last = self.length(path)
            read.update((path, n) for n in range(max(1, line - WINDOW), min(last, line + WINDOW) + 1))
        return read
