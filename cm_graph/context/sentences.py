"""The sentences the prose says of a section that holds items: fixed templates, every name with
the citation id its table row shows.

Each section's row (``section_table.py``) names its sentence; the simple ones are written in the
row, the ones here are shared by several rows or say more than one line can.
"""

from __future__ import annotations

from typing import Any

from .sections import HOP_GROUPS
from .shape import listed, shown_cite, tag
from .textual import USE_KINDS, homonym_note


def names(section: dict[str, Any]) -> list[str]:
    """Each item's name with the id its table row shows (``shown_cite``), so prose and table agree."""
    return [tag(item["label"], shown_cite(item)) for item in section["items"]]


def count(section: dict[str, Any]) -> str:
    """The section's total as the prose may state it: a walk cut at its read bound counted only
    what it read, so its total is a lower bound."""
    return f"at least {section['total']}" if section.get("reason") == "read_limit" else str(section["total"])


def listing(section: dict[str, Any], parts: list[str] | None = None) -> str:
    """The section's items for the prose ("…and N more", "at least" at the read bound)."""
    return listed(names(section) if parts is None else parts, section["total"],
                  at_least=section.get("reason") == "read_limit")


def calls_made(section: dict[str, Any]) -> str:
    """What the anchor calls; for a class, what it and its methods call (``members``), each
    item named with the method it was called from."""
    members = section.get("members")
    if not members:
        return f"It calls {count(section)}: {listing(section)}."
    parts = [tag(item["label"], shown_cite(item)) + (f" (from {item['through']})" if item.get("through") else "")
             for item in section["items"]]
    return f"It and its {members} method(s) call {count(section)}: {listing(section, parts)}."


def by_hop(section: dict[str, Any]) -> str:
    groups = []
    for hop, group in HOP_GROUPS.items():
        members = [item for item in section["items"] if item["hop"] == hop]
        if members:
            named = [tag(i["label"], shown_cite(i)) for i in members]
            groups.append(f"{group.replace('_', ' ')} (hop {hop}): {listed(named, len(named))}")
    return f"Changing it reaches {count(section)} node(s) — " + "; ".join(groups) + "."


UNSEEN = "instance attributes, dynamic dispatch or registries"
UNSEEN_CALLS = f"The graph cannot see calls through {UNSEEN}."


def textual_uses(sections: dict[str, Any]) -> str | None:
    """The lines the answer's ``mentions`` section holds beside the graph's relationships, as a
    headline counts them ("3 more line(s) by name (textual)"); None when it holds none."""
    mentions = sections.get("mentions")
    if mentions is None or not mentions["total"]:
        return None
    if mentions["reason"] == "common_name":
        return f"more than {mentions['total'] - 1} line(s) by name (textual, common_name)"
    return f"{mentions['total']} more line(s) by name (textual)"


def dynamic_uses(sections: dict[str, Any], *, more: bool = True) -> str | None:
    """The lines the answer's ``dynamic_uses`` section holds (the name in strings, exports,
    registries, templates or config), as a headline counts them; None when it holds none."""
    found = sections.get("dynamic_uses")
    if found is None or not found["total"] or found["reason"] == "common_name":
        return None
    kinds = ", ".join(f"{found[kind]} {kind}" for kind in USE_KINDS if found[kind])
    return (f"{found['total']}{' more' if more else ''} line(s) name it without a call (textual; {kinds}, "
            "see dynamic_uses)")


def textual_tests(sections: dict[str, Any]) -> tuple[str, str] | None:
    """(how many tests use the name outside the graph, the section they are in), from
    ``test_mentions`` or the test lines among the shown ``mentions``; None when none does."""
    tests = sections.get("test_mentions")
    if tests is not None and tests["total"] and tests["reason"] != "common_name":
        return str(tests["total"]), "test_mentions"
    mentions = sections.get("mentions")
    shown = sum(1 for item in mentions["items"] if item.get("test")) if mentions is not None else 0
    if not shown:
        return None
    assert mentions is not None
    return (f"at least {shown}" if mentions["total"] > mentions["shown"] else str(shown)), "mentions"


def resolved_more(sections: dict[str, Any], name: str, what: str, *, more: bool = True) -> str | None:
    """What a resolved section adds, as a headline counts it ("4 more use(s) resolved from the
    code (resolved, see resolved_callers)"; without ``more``, beside a graph that has none);
    None when it is absent, unavailable or empty."""
    found = sections.get(name)
    if found is None or found["status"] == "unavailable" or not found["total"]:
        return None
    return f"{count(found)}{' more' if more else ''} {what} resolved from the code (resolved, see {name})"


def _joined(parts: list[str | None]) -> str:
    """The other evidence kinds beside the graph's, as one clause (", A and B")."""
    kept = [part for part in parts if part]
    if not kept:
        return ""
    return (", " + ", ".join(kept[:-1]) + " and " + kept[-1]) if len(kept) > 1 else " and " + kept[0]


def unseen(sections: dict[str, Any], what: str) -> str:
    """What the answer cannot see: the graph alone misses instance attributes too; with the
    resolved layer, what neither sees is calls on values whose type nothing states."""
    if any(name.startswith("resolved_") and section["status"] != "unavailable" for name, section in sections.items()):
        return f"Neither graph nor resolver sees {what} through values of unknown type, dynamic dispatch or registries."
    return f"The graph cannot see {what} through {UNSEEN}."


def used_by(section: dict[str, Any], sections: dict[str, Any]) -> str:
    """The callers headline: the graph's callers and every other kind of use, each labelled."""
    also = _joined([resolved_more(sections, "resolved_callers", "use(s)"), textual_uses(sections),
                    dynamic_uses(sections)])
    shown = f", {section['shown']} shown" if section["shown"] < section["total"] else ""
    return (f"Used by {count(section)} caller(s) in the graph (graph){also}{shown}: {listing(section)}. "
            f"{unseen(sections, 'calls')}")


def reaching_tests(section: dict[str, Any], sections: dict[str, Any]) -> str:
    """The tests headline: tests the graph reaches, those reached through resolved references, and
    those using the name by name (textual)."""
    beside = textual_tests(sections)
    also = _joined([resolved_more(sections, "resolved_tests", "test(s) reaching it"),
                    f"{beside[0]} more use it by name (textual, see {beside[1]})" if beside else None])
    return f"{count(section)} test(s) reach it in the graph (graph){also}: {listing(section)}. " + unseen(
        sections, "tests reaching it")


def affected(section: dict[str, Any], sections: dict[str, Any]) -> str:
    """The impact headline: the graph's reach, and the resolved and textual uses beside it."""
    beside = [part for part in (resolved_more(sections, "resolved_by_hop", "node(s)"), textual_uses(sections),
                                dynamic_uses(sections)) if part]
    text = by_hop(section)
    return (f"{text[:-1]}; beside the graph, {' and '.join(beside)}." if beside else text) + " " + unseen(
        sections, "calls")


def resolved_beyond(section: dict[str, Any], what: str) -> str:
    """A resolved section's sentence: what the resolver adds beyond the graph, by hop when it walks
    several, every item named with the node it was reached from."""
    parts = [tag(item["label"], shown_cite(item)) + f" ({item['relation']}"
             + (f", from {item['via']})" if item["hop"] > 1 else ")") for item in section["items"]]
    folded = section.get("imports_folded")
    tail = f" ({folded} import(s) of it in files already listed are not listed again)" if folded else ""
    return (f"Beyond the graph, the resolver finds {count(section)} more {what} (resolved): "
            f"{listing(section, parts)}{tail}.")


def resolved_callees(section: dict[str, Any]) -> str:
    """What the resolver finds it calls beyond the graph: the bound callees, then the calls on
    values of unknown type, named by the definitions that carry the name (never a binding)."""
    def part(item: dict[str, Any]) -> str:
        where = tag(item["label"], shown_cite(item))
        if item["evidence"] != "resolved":
            return f"{where} (by name: {item['candidates']} definition(s))"
        if item["relation"] != "call":  # an override the call of its base method may run
            return f"{where} (in {item['path'].rsplit('/', 1)[-1]}, may run: it overrides {item['via']})"
        return where

    parts = [part(item) for item in section["items"]]
    text = f"Beyond the graph, it calls {count(section)} more (resolved, then by name): {listing(section, parts)}."
    unknown = section.get("unknown_receivers")
    if unknown:
        text += (f" {unknown} of them are calls on values whose type the resolver cannot tell: matched by name "
                 "(textual), so which definition runs may differ.")
    return text


def resolved_tests_beyond(section: dict[str, Any]) -> str:
    parts = [tag(item["label"], shown_cite(item)) for item in section["items"]]
    return (f"Through resolved references, {count(section)} test(s) beyond the graph's reach it (resolved): "
            f"{listing(section, parts)}.")


def to_run(section: dict[str, Any]) -> str:
    parts = [tag(item["id"], shown_cite(item)) for item in section["items"]]
    observed = (section.get("observed") or {}).get("detail")
    far = " ".join(far_sentence(entry) for entry in section.get("far") or ())
    return (f"Tests to run, nearest first ({count(section)}, every evidence kind): {listing(section, parts)}; "
            + _how_to_run(section["items"]) + (f" {far}" if far else "") + (f" {observed}" if observed else ""))


def _how_to_run(items: list[dict[str, Any]]) -> str:
    """What runs the listed tests: pytest's node ids print for ``--format pytest-args``; a test
    file of another language (``runner: file``) is the project's own test runner's to run."""
    files = sum(1 for item in items if item.get("runner") == "file")
    if not files:
        return "`--format pytest-args` prints them."
    if files == len(items):
        return "each is a test file for the project's own test runner (`runner: file`; pytest runs none of them)."
    return (f"`--format pytest-args` prints the pytest ones; {files} are test files for the project's own test "
            "runner (`runner: file`).")


def far_sentence(far: dict[str, Any]) -> str:
    """What a far walk (``_far``) did for one anchor, in one sentence: how many tests it reached
    and how many it kept, so the tests left out are counted, never silent."""
    head = (f"No test reaches `{far['key']}` within {far['near']} hops; {far['reached']} reach it within "
            f"{far['depth']}, through the entry points tests call")
    if far["kept"] < far["reached"]:
        return (f"{head}: the {far['kept']} of the {far['reached']} tests whose names share a word with it are "
                "listed, the others left out.")
    if far["by_name"]:
        return f"{head}: all {far['reached']} share a word with it and are listed."
    return f"{head}: all {far['reached']} are listed (no test's name shares a word with it)."


def executed_it(section: dict[str, Any]) -> str:
    """The observed tests: those the recorded run of this generation's suite saw executing it."""
    parts = [tag(item["id"], shown_cite(item)) for item in section["items"]]
    return (f"In the recorded run of this generation's suite, {count(section)} test(s) executed it (observed): "
            f"{listing(section, parts)}.")


def quotes(section: dict[str, Any]) -> str:
    quoted = [f"“{item['text']}”" + (f" [{item['cite']}]" if item["cite"] else "") for item in section["items"]]
    return f"It says about itself ({count(section)}): {listing(section, quoted)}."


def marked_concepts(section: dict[str, Any]) -> str:
    return "Concept markers: " + listing(section, [f"“{i['text']}” [{i['cite']}]" for i in section["items"]]) + "."


def mentioned(section: dict[str, Any], tests: bool) -> str:
    """The textual uses, never worded as calls unless they are: ``calls`` counts the lines whose
    form is a call (``name(``, ``x.name(``); the rest (import lists, ``x.name``, a bare name)
    are other references."""
    if section["reason"] == "common_name":
        return section["detail"]
    if tests:
        text = f"{section['total']} test(s) use it by name, not in the graph (textual): {listing(section)}."
    else:
        calls, others = section["calls"], section["total"] - section["calls"]
        text = (f"{section['total']} more line(s) use it by name, not in the graph (textual; {calls} call(s), "
                f"{others} other reference(s)): {listing(section)}.")
    if section.get("sites"):
        text += f" {section['sites']} raise or catch line(s) are in raises and catches, not here."
    elsewhere = sum(1 for item in section["items"] if "linked_to" in item)
    if elsewhere:
        text += (f" The graph links {elsewhere} of those shown to another definition of the name (linked_to), "
                 "not to this one.")
    if section.get("bound_elsewhere"):
        text += (f" {section['bound_elsewhere']} other line(s) using the name are left out: the resolver binds them "
                 "to another definition of it.")
    note = homonym_note(section["homonyms"])
    return text if note is None else f"{text} {note}"


def named_dynamically(section: dict[str, Any]) -> str:
    """The dynamic uses: each line named with its kind of use and form ("`runtime.py` [c4]
    (export, in __all__)"), and that no call graph follows them."""
    if section["reason"] == "common_name":
        return section["detail"]
    parts = [tag(item["label"], shown_cite(item)) + f" ({item['use']}, {_DYNAMIC_HOW[item['form']]}"
             + (f" `{item['prefix']}`" if item.get("prefix") else "") + ")" for item in section["items"]]
    kinds = ", ".join(f"{section[kind]} {kind}" for kind in USE_KINDS)
    return (f"{count(section)} line(s) name it without calling it (textual; {kinds}): {listing(section, parts)}. "
            "Code reached this way runs by name at run time, which no call graph follows.")


_DYNAMIC_HOW = {"decorator": "as a decorator", "registry": "in a registry", "getattr": "by getattr",
                "dispatch": "by a getattr dispatch on the prefix", "export": "exported", "string": "in a string",
                "template": "in a template", "config": "in a config file"}


def coupled(section: dict[str, Any], hidden: bool) -> str:
    parts = [f"{tag(i['label'], i['cite'])} in {i['shared']} commits ({i['degree']}%)" for i in section["items"]]
    tail = ", with no graph path between them" if hidden else ""
    return f"Changed together with {listed(parts, section['total'])}{tail}."


def used_in_fleet(section: dict[str, Any]) -> str:
    parts = [f"{i['repository']} {i['citation']}" for i in section["items"]]
    return (f"Used from other repositories of the fleet {section['fleet']} ({section['total']}): "
            + listing(section, parts) + unsearched_note(section["coverage"]) + ".")


def unsearched_note(cover: dict[str, Any]) -> str:
    """``; not searched: a (unauthorized), b (absent)``, or nothing when every member was searched.
    Only a fleet's answer has a ``cover``, so the fleet is loaded here, not by every answer."""
    from ..fleet.usages import unsearched_members

    missing = unsearched_members(cover)
    return f"; not searched: {', '.join(missing)}" if missing else ""


RAISE_UNSEEN = ("Not seen: a bare `raise` re-raising it, a raise through a variable or a factory (`raise err`, "
                "`throw make()`), a class named at run time.")
CATCH_UNSEEN = ("Not seen: a catch through one of its bases (`except Exception`, a `catch (e)` that tests no "
                "`instanceof`), a promise's `.catch()`, a class named at run time.")


def raised(section: dict[str, Any]) -> str:
    return _sited(section, "Raised", RAISE_UNSEEN)


def caught(section: dict[str, Any]) -> str:
    return _sited(section, "Caught", CATCH_UNSEEN)


def _sited(section: dict[str, Any], verb: str, unseen: str) -> str:
    """Where the class is raised or caught by name, each site's evidence kind counted, and what a
    lexer cannot see."""
    if section["reason"] == "common_name":
        return f"{section['detail']} {unseen}"
    shown = listing(section) if section["items"] else "none shown within the character budget"
    text = (f"{verb} at {count(section)} site(s) by name ({section['resolved']} resolved, {section['textual']} "
            f"textual) in {section['definitions']} definition(s): {shown}.")
    if section["elsewhere"]:
        text += (f" {section['elsewhere']} more line(s) the resolver binds to another definition of the name are "
                 "not listed.")
    return f"{text} {unseen}"


OVERRIDE_UNSEEN = ("Not seen: overrides outside this repository, in classes made at run time, or under a base "
                   "neither the graph nor the resolver connects.")


def overridden(section: dict[str, Any]) -> str:
    return (f"Overridden by {count(section)} method(s) in subclasses ({section['graph']} in the graph, "
            f"{section['resolved']} resolved): {listing(section)}. {OVERRIDE_UNSEEN}")
