"""Turning what each strategy cited into units, scoring them, and the honesty rule (tasks.py).

**Claims.** For cm-graph, a task kind reads the sections that answer it (``CLAIM_SECTIONS``), at
three levels of evidence: ``graph`` (the provider's relationships), ``graph+textual`` (plus the
text index's mentions, as code_context shows them today) and ``all`` (every evidence kind the
answer labels, so a future ``resolved`` kind counts the day it appears; ``evidence_of`` in
strategies.py reads an item's own ``evidence`` label first). The resolved sections
(``resolved_callers``, ``resolved_by_hop``, ``resolved_tests``) answer the task beside their graph
twins; sections that issue 27 adds (``overrides``, ``raises``, ``catches``, ``dynamic_uses``: the
exports, registries and strings naming it) are read when present; an override task asks ``impact``, the
intent whose answer holds ``overrides``. For raise/catch and override tasks both strategies apply the same
reader's filter to the lines they read (the line is a ``raise``/``except``/``throw``/
``instanceof``, or a definition, of the name), and for a signature change to the mentions
(the line calls or decorates with the name, or defines it): reading the line shows its form.

**The honesty rule** (``said_incomplete``): an answer says it may be incomplete when a section
that answers the task is ``truncated`` or ``unavailable``, or the prose names an untraversable
border, or such a section's ``detail`` says its items may
not be all (``INCOMPLETE_WORDING``: "at least N", "…and N more", "may miss", "cannot see" and its
resolved-era wording "neither graph nor resolver sees", ...),
or — when the agent was given nothing for the task — that an empty result is not evidence of
none (``HEDGED_NONE``). An answer with recall < 1 that does none of these **reads as complete**:
the failure issue 27 is about.
"""

from __future__ import annotations

import re
from typing import Any

from expected import Expected, Task
from strategies import CmGraphAnswer, Grep, GrepAnswer, Item

from cm_graph.context.wire import cited, location

# Per task kind: the sections whose items are claims, and what a claim is there.
#   site: the cited use (a call site, a mention's line); def: the item's definition; credited: the
#   definition a mention's label names; test: the test(s) it stands for.
CLAIM_SECTIONS: dict[str, dict[str, str]] = {
    # (references: a decorator `@curry` and a use the provider infers, `uses`, apply the anchor too)
    "signature_change": {"callers": "site", "resolved_callers": "site", "references": "site", "mentions": "site",
                         "overrides": "def"},
    "rename": {"callers": "site", "resolved_callers": "site", "references": "site", "mentions": "site",
               "tests": "site", "resolved_tests": "site", "test_mentions": "site", "overrides": "def",
               "raises": "site", "catches": "site", "dynamic_uses": "site"},
    "raise_catch": {"callers": "site", "resolved_callers": "site", "references": "site", "mentions": "site",
                    "raises": "site", "catches": "site", "tests": "site", "resolved_tests": "site",
                    "test_mentions": "site"},
    "dead_code": {"callers": "site", "resolved_callers": "site", "references": "site", "mentions": "site",
                  "tests": "site", "resolved_tests": "site", "test_mentions": "site", "dynamic_uses": "site"},
    "overrides": {"overrides": "def", "mentions": "site"},
    "impact": {"callers_by_hop": "def", "resolved_by_hop": "def", "mentions": "credited"},
    "how": {"calls": "def", "resolved_calls": "def"},
    "tests": {"tests": "test", "resolved_tests": "test", "test_mentions": "test"},
}
# Wording that says the items shown may not be all of them.
INCOMPLETE_WORDING = re.compile(
    r"\bat least \d|may be incomplete|\bincomplete\b|may miss|cannot see|can't see|neither graph nor resolver sees|"
    r"lower bound|this list misses|not listed as items|"
    r"…and \d+ more|\band \d+ more\b|not searched", re.IGNORECASE)
# Wording that says an empty answer is not evidence of none (it counts when nothing was claimed).
HEDGED_NONE = re.compile(r"not evidence of none|not proof of", re.IGNORECASE)
LEVELS = ("graph", "graph+textual", "all")
NOT_THIS_KIND = ("not_a_class", "not_a_method")  # unavailable because the target is another kind


def _level_admits(level: str, evidence: str) -> bool:
    return level == "all" or evidence == "graph" or (level == "graph+textual" and evidence == "textual")


def calls_on(names: list[str], text: str) -> bool:
    """Reading the line shows a call of one of ``names``: ``name(``, ``x.name(``, a decorator
    ``@name`` / ``@x.name``, or ``raise name`` (an exception class raised uninstantiated)."""
    spelled = "|".join(re.escape(n) for n in names)
    return bool(re.search(rf"\b({spelled})\s*\(|@\s*([\w.]+\.)?({spelled})\b|\braise\s+([\w.]+\.)?({spelled})\b",
                          text))


def reader_keeps(kind: str, name: str, text: str) -> bool:
    """What reading a line tells the agent, the same for both strategies."""
    escaped = re.escape(name)
    code = text.split("#", 1)[0] if not text.lstrip().startswith("//") else ""
    if kind == "signature_change":
        return calls_on([name], code) or reader_keeps("overrides", name, text)  # a call, or a definition
    if kind == "raise_catch":
        return bool(re.search(rf"\b(raise|except|throw)\b.*\b{escaped}\b|instanceof\s+{escaped}\b", code))
    if kind == "overrides":
        # A Python or JS function definition, or a class method's head (`name(params) {`, no call inside).
        return bool(re.search(rf"\b(def|function)\s+{escaped}\s*\(|^\s*(async\s+|static\s+|get\s+|set\s+)*"
                              rf"{escaped}\s*\([^()]*\)\s*(:\s*[^{{;=]+)?\{{\s*$", code))
    return True


def cm_claims(task: Task, answer: CmGraphAnswer, adapter: Any, grep: Grep, level: str) -> set[Any]:
    sections = CLAIM_SECTIONS[task.kind]
    name = adapter.name(task)
    claims: set[Any] = set()
    for item in answer.items:
        how = sections.get(item.section)
        if how is None or not _level_admits(level, item.evidence):
            continue
        claims |= _units(task, item, how, adapter)
    if task.kind in ("rename",):
        citations = cited(answer.final)
        for anchor in answer.final.get("anchors", []):
            if anchor.get("path") and anchor.get("line"):
                claims.add((anchor["path"], int(anchor["line"])))
            for cid in anchor.get("also") or []:  # the lines it uses itself on
                if cid in citations:
                    path, line = location(citations[cid])
                    claims.add((path, int(line or 1)))
    if task.kind in ("raise_catch", "overrides"):
        claims = {c for c in claims if reader_keeps(task.kind, name, grep.text(*c))}
    if task.kind == "signature_change":  # a mention is read: a call (or decorator) of the name is kept
        graph = {i.site for i in answer.items if i.section == "callers"}
        claims = {c for c in claims if c in graph or reader_keeps("signature_change", name, grep.text(*c))}
    if task.kind == "dead_code":
        path, start, _ = adapter.range_of(task)
        claims -= {(path, start)}
    return claims


def _units(task: Task, item: Item, how: str, adapter: Any) -> set[Any]:
    if how == "site":
        return {item.site}
    if how == "def":
        if task.kind == "how" and item.hop not in (None, 1):
            return set()  # "how": its own callees; hop 2 is context
        if task.kind in ("signature_change", "overrides"):
            return {(item.path, item.line)}
        return {adapter.definition_unit(item.path, item.line, item.kind)}
    if how == "credited":
        return {adapter.credited_unit(item.path, item.label, item.site[1])}
    if how == "test":
        return set(adapter.test_units(item.path, item.line, item.kind))
    raise ValueError(how)


def grep_claims(task: Task, found: GrepAnswer, adapter: Any, grep: Grep) -> tuple[set[Any], set[tuple[str, int]]]:
    """grep-and-read's claims and the lines it read."""
    name = adapter.name(task)
    path, start, end = adapter.range_of(task)
    read = set(found.read)
    lines = {(p, n) for p, n, _ in found.hits}
    if task.kind == "signature_change":
        calls = {(p, n) for p, n, t in found.hits if calls_on(found.searched, t.split("#", 1)[0])}
        definitions = {(p, n) for p, n, t in found.hits if reader_keeps("overrides", name, t)}
        # A method's same-named definitions elsewhere are read as the overrides to change too.
        keep_defs = definitions - {(path, start)} if "." in task.definition[1] or task.kind == "overrides" else set()
        return (calls - definitions) | keep_defs, read
    if task.kind == "rename":
        return lines, read
    if task.kind in ("raise_catch", "overrides"):
        kept = {(p, n) for p, n, t in found.hits if reader_keeps(task.kind, name, t)}
        return kept - {(path, start)}, read
    if task.kind == "dead_code":
        return lines - {(path, start)}, read
    if task.kind == "tests":
        from cm_graph.index.graphmodel import is_test_path

        claims: set[Any] = set()
        for p, n, _ in found.hits:
            if is_test_path(p):
                claims |= adapter.test_units_of_hit(p, n)
        return claims, read
    if task.kind == "impact":
        return _grep_impact(task, found, adapter, grep, read)
    if task.kind == "how":
        read |= {(path, n) for n in range(start, end + 1)}
        claims = set()
        for called in sorted(adapter.called_names(task)):
            for unit, at, line in adapter.definitions_named(called):
                claims.add(unit)
                read |= grep.windows([(at, line)])
        return claims, read
    raise ValueError(task.kind)


def _grep_impact(task: Task, found: GrepAnswer, adapter: Any, grep: Grep, read: set[tuple[str, int]]
                 ) -> tuple[set[Any], set[tuple[str, int]]]:
    """Callers to depth 3 by grep: the definitions holding a call of the name, then of theirs."""
    claims: set[Any] = set()
    seen_names = set(found.searched)
    hits = found.hits
    names = found.searched
    for _hop in (1, 2, 3):
        layer = set()
        for p, n, t in hits:
            if calls_on(names, t) and not any(reader_keeps("overrides", name, t) for name in names):
                unit = adapter.enclosing_unit(p, n)
                if unit not in claims:
                    claims.add(unit)
                    layer.add(unit)
        names = sorted({str(u[1]).rsplit(".", 1)[-1] for u in layer if u[1] != "<module>"} - seen_names)
        if not names:
            break
        seen_names |= set(names)
        more = grep.search(names)
        hits = more.hits
        read |= more.read
    claims.discard(tuple(task.definition))
    return claims, read


def score(expected: Expected, claims: set[Any]) -> dict[str, Any]:
    judged = claims - expected.neutral
    right = claims & expected.truth
    return {"claims": len(claims), "judged": len(judged), "right": len(right), "truth": len(expected.truth),
            "recall": round(len(right) / len(expected.truth), 3) if expected.truth else None,
            "precision": round(len(right) / len(judged), 3) if judged else None}


# The sections whose page an agent follows for a task kind, in the order it prefers them: the ones
# the task is about (a raise/catch task pages raises and catches, not the callers).
PAGED_SECTIONS: dict[str, tuple[str, ...]] = {
    "signature_change": ("callers", "resolved_callers", "mentions", "references", "overrides"),
    # (a rename edits every line naming it: the exports, strings and tests' lines too; not the tests
    # that reach it through callers, which name it nowhere)
    "rename": ("mentions", "callers", "resolved_callers", "references", "overrides", "dynamic_uses",
               "test_mentions", "raises", "catches"),
    "raise_catch": ("raises", "catches"),
    "dead_code": ("mentions", "callers", "resolved_callers", "references", "dynamic_uses", "test_mentions"),
    "overrides": ("overrides",),
    "impact": ("callers_by_hop", "resolved_by_hop"),
    "how": ("calls", "resolved_calls"),
    "tests": ("tests", "resolved_tests", "test_mentions"),
}


def relevant_sections(kind: str) -> set[str]:
    return set(CLAIM_SECTIONS[kind])


def said_incomplete(task: Task, answer: CmGraphAnswer, claimed_nothing: bool) -> tuple[bool, list[str]]:
    """The machine check of issue 27: did the answer (any the agent read) say it may miss some?

    Only what speaks about the sections that answer the task counts: such a section
    ``truncated`` or ``unavailable``; an untraversable border the prose names; its
    ``detail`` saying the items may not be all (``INCOMPLETE_WORDING``); and, when the agent was
    given nothing for the task, its ``detail`` saying that an empty result is not evidence of
    none (``HEDGED_NONE``). A hedge on another section ("no test reaches it ... not proof of no
    use" on a rename) is not the answer saying this task's list may be short. An answer that is
    not ``answered`` (unresolved, ambiguous, refused) counts by its prose alone.
    """
    relevant = relevant_sections(task.kind)
    signals = []
    for document in answer.documents:
        if document.get("status") != "answered":
            prose = str(document.get("answer", ""))
            if INCOMPLETE_WORDING.search(prose) or (claimed_nothing and HEDGED_NONE.search(prose)):
                signals.append(f"{document.get('status')}: wording")
            continue
        for name, section in (document.get("sections") or {}).items():
            if name not in relevant:
                continue
            # (a section for another kind of target, raises of a function, says nothing about this one)
            if section.get("status") in ("truncated", "unavailable") and section.get("reason") not in NOT_THIS_KIND:
                signals.append(f"{name}: {section.get('status')} ({section.get('reason')})")
            detail = str(section.get("detail") or "")
            match = INCOMPLETE_WORDING.search(detail) or (HEDGED_NONE.search(detail) if claimed_nothing else None)
            if match:
                signals.append(f"{name}: “{match.group(0)}”")
        if "(untraversable)" in str(document.get("answer", "")):  # records next to what it walked were left out
            signals.append("untraversable border")
    return bool(signals), sorted(set(signals))


def caller_metrics(task: Task, answer: CmGraphAnswer, adapter: Any, level: str) -> dict[str, Any]:
    """Issue 28's figures for one target: callers (test and non-test), the caller credited and
    the definition bound, from the ``callers``/``mentions`` sections at one evidence level."""
    from cm_graph.index.graphmodel import is_test_path

    callers, verdicts = adapter.caller_truth(task)
    true_sites = {(p, line): owner for (p, owner), lines in callers.items() for line in lines}
    claimed: set[tuple[str, str]] = set()
    credited_right = credited = bound_right = bound = 0
    for item in answer.items:
        if item.section not in ("callers", "mentions") or not _level_admits(level, item.evidence):
            continue
        if item.section == "mentions" and item.form not in (None, "call", "qualified_call"):
            continue
        name = _base(item.label) if item.kind != "file" else "<module>"
        claimed.add((item.path, name))
        owner = true_sites.get(item.site)
        if owner is not None:
            credited += 1
            credited_right += int(owner.rsplit(".", 1)[-1] == name)
        verdict = verdicts.get(item.site)
        if verdict in ("bound", "elsewhere"):
            bound += 1
            bound_right += int(verdict == "bound")
    truth = {(p, owner.rsplit(".", 1)[-1]) for p, owner in callers}
    result: dict[str, Any] = {}
    for side, wanted in (("test", True), ("code", False)):
        part = {t for t in truth if is_test_path(t[0]) == wanted}
        mine = {c for c in claimed if is_test_path(c[0]) == wanted}
        result[f"{side}_truth"] = len(part)
        result[f"{side}_claims"] = len(mine)
        result[f"{side}_right"] = len(mine & part)
    result.update(credited=credited, credited_right=credited_right, bound=bound, bound_right=bound_right)
    return result


def _base(label: str) -> str:
    return label.lstrip(".").split("(")[0]
