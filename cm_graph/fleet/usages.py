"""``cross_repo_usages``: where a symbol is defined and used across a fleet, grouped by repository.

A usage is anchored to a definition by the strongest evidence there is, and the kinds are never
merged:

1. ``package``: the using file imports the name from a module of a package a member declares
   (``from urllib3.poolmanager import PoolManager``, and urllib3's pyproject.toml names
   ``urllib3``); the definition in that module, else the package's one definition of the name.
2. ``receiver_type``: the provider parked a member call with its receiver's type, the type is
   declared exactly once in the fleet (in the caller's language family), and that class defines
   the method (the provider's own cross-repository rule, single-definition guard included).
3. ``name_match``: only the name agrees (a call or base class onto a name the using repository
   does not define, or an import from no declared package): listed apart, never attributed.

When the evidence fits several definitions the usage is ``ambiguous`` and lists its candidates;
no edge is made up. Every citation is ``path#L<line>`` checked against the counted lines of its
own repository's bound commit. The answer says which members it covered, which were stale or
missing, how many items each repository has against how many are shown, and keeps to a size
budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import InvalidInput
from ..base.jsonio import dumps_canonical
from ..base.printable import printable_prose
from ..base.rules import is_bounded_text
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..query.answerids import ID_PREFIX, capability_id, stamp_ids
from .build import FleetIndex, bare_name

USAGES_SCHEMA = "cm_graph.crossRepoUsages.v1"
USAGES_KIND = "cross_repo_usages"  # capability ids: cmg:cross_repo_usages:<fleet>:<symbol>
DEFAULT_ITEMS_PER_GROUP = 20   # per repository and per kind
MAX_ITEMS_PER_GROUP = 200
DEFAULT_MAX_CHARS = 24_000
MIN_CHARS = 2_000
MAX_CHARS = 200_000
MAX_CANDIDATES_PER_USAGE = 10  # per usage; a name every member defines would list the whole fleet


@dataclass(frozen=True)
class Definition:
    member: int
    repository: str
    import_root: str
    label: str
    owner: str
    module: str
    path: str
    line: int
    kind: str
    family: str
    verified: bool
    name: str = ""

    @property
    def citation(self) -> str:
        return f"{self.path}#L{self.line}"

    def to_json(self) -> dict[str, Any]:
        qualified = ".".join(part for part in (self.module, self.owner, self.name) if part) if self.module else ""
        return {
            "repository": self.repository, "label": self.label, "qualified_name": qualified,
            "owner": self.owner or None, "path": self.path, "line": self.line, "citation": self.citation,
            "kind": self.kind, "language": self.family,
        }

    def reference(self) -> str:
        return f"{self.repository}:{self.citation}"


def split_symbol(symbol: str) -> tuple[str, str]:
    """(qualifier, name): ``urllib3.poolmanager.PoolManager`` -> (``urllib3.poolmanager``,
    ``PoolManager``); a bare name has no qualifier. A trailing ``()`` is dropped."""
    if not is_bounded_text(symbol, 512) or not symbol.strip():
        raise InvalidInput("The symbol must be non-empty single-line text of at most 512 characters.")
    text = symbol.strip()
    text = text[:-2] if text.endswith("()") else text
    qualifier, _, name = text.rpartition(".")
    if not name:
        raise InvalidInput("The symbol must end in a name (e.g. PoolManager or urllib3.PoolManager).")
    return qualifier, name


def _matches(definition: Definition, qualifier: str) -> bool:
    if not qualifier:
        return True
    return qualifier in (definition.module, definition.owner, definition.repository, definition.import_root) or (
        bool(definition.module) and definition.module.startswith(qualifier + ".")
    )


def cross_repo_usages(
    fleet: FleetIndex, symbol: str, *, max_items: int = DEFAULT_ITEMS_PER_GROUP, max_chars: int = DEFAULT_MAX_CHARS,
    repository: str | None = None,
) -> dict[str, Any]:
    """The cross-repository answer for ``symbol`` (a bare or dotted name) over the fleet index;
    ``repository`` keeps only that member's definitions (code_context asks about its own)."""
    if isinstance(max_items, bool) or not 1 <= max_items <= MAX_ITEMS_PER_GROUP:
        raise InvalidInput(f"--max-items must be from 1 to {MAX_ITEMS_PER_GROUP}.")
    if isinstance(max_chars, bool) or not MIN_CHARS <= max_chars <= MAX_CHARS:
        raise InvalidInput(f"--max-chars must be from {MIN_CHARS} to {MAX_CHARS}.")
    qualifier, name = split_symbol(symbol)
    connection = fleet.connection
    every = [Definition(*row[:10], verified=0 < row[7] <= row[10], name=name) for row in fetch_rows(
        connection.execute(query_sql("fleet_definitions"), {"name": name}),
        tuple[int, str, str, str, str, str, str, int, str, str, int])]
    definitions = [d for d in every if d.verified and _matches(d, qualifier)
                   and repository in (None, d.repository)]
    declared = {row[8] for row in member_rows(fleet) if row[8]}
    lookup = _Lookup(definitions)
    usages: dict[str, list[dict[str, Any]]] = {}
    name_matches: dict[str, list[dict[str, Any]]] = {}
    unverified = 0
    for member, repository, kind, path, line, module, receiver, family, lines in fetch_rows(
            connection.execute(query_sql("fleet_references"), {"name": name}),
            tuple[int, str, str, str, int, str, str, str, int]):
        if not 0 < line <= lines:
            unverified += 1
            continue
        anchor, candidates = _anchor(connection, kind, module, receiver, family, member, lookup, declared)
        if anchor == "none":
            continue
        item: dict[str, Any] = {"path": path, "line": line, "citation": f"{path}#L{line}", "anchor": anchor}
        if kind == "import":
            item["via"] = f"import from {module}"
        elif kind == "member_call":
            item["via"] = f"call on {receiver}"
        else:
            item["via"] = "name"
        if anchor == "name_match":
            _list_candidates(item, candidates)
            name_matches.setdefault(repository, []).append(item)
            continue
        if len(candidates) == 1:
            item["definition"] = candidates[0].reference()
        else:
            item["anchor"] = "ambiguous"
            _list_candidates(item, candidates)
        usages.setdefault(repository, []).append(item)
    status = "not_found" if not definitions else "ok" if len(definitions) == 1 else "ambiguous"
    covered = coverage(fleet)
    answer = {
        "schema": USAGES_SCHEMA, "status": status, "answer": _prose(symbol, definitions, usages, name_matches),
        "fleet": fleet.name, "fleet_index": fleet.digest[:32], "symbol": symbol, "name": name,
        "definitions": [d.to_json() for d in definitions],
        "usages_by_repository": {},
        "name_matches_by_repository": {},
        "coverage": covered,
        "unverified_citations": unverified,
        "budget": {"max_items": max_items, "max_chars": max_chars, "truncated": False},
    }
    if status == "ambiguous":
        answer["next_action"] = (
            "Several definitions match; ask again with a qualified name, e.g. "
            + _qualified_hint(definitions[0]) + "."
        )
    elif status == "not_found":
        answer["next_action"] = not_found_action(fleet.name, covered)
    # The ids go in before the budget is filled (the placeholder is the id's own length), so the
    # stamped answer keeps to max_chars; the fleet index digest in the answer pins its generations.
    answer["capability_id"] = capability_id(USAGES_KIND, fleet.name, symbol)
    answer["answer_id"] = ID_PREFIX + "0" * 64
    printable_prose(answer)  # the prose names the symbol as asked: printed by hosts as it is
    _fill(answer, usages, name_matches, max_items, max_chars)
    return stamp_ids(answer, USAGES_KIND, fleet.name, symbol)


def _prose(
    symbol: str, definitions: list[Definition], usages: dict[str, list[dict[str, Any]]],
    name_matches: dict[str, list[dict[str, Any]]],
) -> str:
    """The answer in one paragraph (totals, not what the budget shows: those are per group)."""
    if not definitions:
        return f"No covered member of the fleet defines `{symbol}`."
    references = sorted({d.reference() for d in definitions})
    shown = references[:MAX_CANDIDATES_PER_USAGE]
    where = ", ".join(shown) + (", ..." if len(references) > len(shown) else "")
    used = sum(len(items) for items in usages.values())
    text = (f"`{symbol}` is defined {len(definitions)} time(s) ({where}); {used} usage(s) in "
            f"{len(usages)} other repositor(ies) anchored by package import or receiver type")
    matches = sum(len(items) for items in name_matches.values())
    if matches:
        text += f"; {matches} name-only match(es) listed apart, never attributed"
    return text + ". Each citation was checked against its repository's bound commit."


def not_found_action(fleet_name: str, cover: dict[str, Any]) -> str:
    """What to do when no searched member defines the name. A member with no usable graph was not
    searched, and a stale one only at its older bound commit: the name may be defined there, so
    "check the spelling" alone would send the reader the wrong way."""
    unsearched = [m["repository"] for m in cover["missing"]]
    if not unsearched and not cover["stale"]:
        return (f"No member of the fleet defines that name; check the spelling or "
                f"`cm-graph doctor --fleet {fleet_name}`.")
    places = []
    if unsearched:
        places.append(f"not searched (no usable graph): {', '.join(unsearched)}")
    if cover["stale"]:
        places.append(f"searched only at an older commit: {', '.join(cover['stale'])}")
    return (f"No searched member defines that name, but it may be defined in members the fleet could not "
            f"read ({'; '.join(places)}): restore or refresh them (`cm-graph doctor --fleet {fleet_name}` "
            "gives each one's command), then ask again.")


def _list_candidates(item: dict[str, Any], candidates: list[Definition]) -> None:
    """The first ``MAX_CANDIDATES_PER_USAGE`` candidates of a usage (``candidates_total`` says how many)."""
    item["candidates"] = [d.reference() for d in candidates[:MAX_CANDIDATES_PER_USAGE]]
    if len(candidates) > MAX_CANDIDATES_PER_USAGE:
        item["candidates_total"] = len(candidates)


def _qualified_hint(definition: Definition) -> str:
    qualified = definition.to_json()["qualified_name"]
    return qualified or f"{definition.repository}.{definition.name}"


class _Lookup:
    """The definitions by package import root and by owning class, so anchoring one reference
    costs the candidates it can mean, not every definition of the name."""

    def __init__(self, definitions: list[Definition]) -> None:
        self.definitions = definitions
        self.by_root: dict[str, list[Definition]] = {}
        self.by_owner: dict[str, list[Definition]] = {}
        for d in definitions:
            if d.import_root:
                self.by_root.setdefault(d.import_root, []).append(d)
            if d.owner:
                self.by_owner.setdefault(d.owner, []).append(d)

    def undeclared(self, member: int) -> list[Definition]:
        return [d for d in self.definitions if not d.import_root and d.member != member]

    def others(self, member: int) -> list[Definition]:
        return [d for d in self.definitions if d.member != member]


def _anchor(
    connection: Any, kind: str, module: str, receiver: str, family: str, member: int, lookup: _Lookup,
    declared: set[str],
) -> tuple[str, list[Definition]]:
    """The anchor kind of one reference from ``member`` and the definitions (in other members) it
    can mean ("none": nothing in the fleet defines what it names, or it names a declared package
    that does not define the name)."""
    if kind == "import":
        root = module.split(".")[0]
        in_package = [d for d in lookup.by_root.get(root, []) if d.member != member]
        if in_package:
            exact = [d for d in in_package if d.module == module]
            return "package", exact or in_package
        if root in declared:  # that member's package, which does not define the name
            return "none", []
        undeclared = lookup.undeclared(member)
        return ("name_match", undeclared) if undeclared else ("none", [])
    if kind == "member_call":
        methods = [d for d in lookup.by_owner.get(receiver, []) if d.family == family and d.member != member]
        if methods:
            types = fetch_rows(connection.execute(query_sql("fleet_types"), {"name": receiver, "family": family}),
                               tuple[int, str, int])
            if len(types) == 1:
                bound = [d for d in methods if d.member == types[0][0]]
                if bound:
                    return "receiver_type", bound
            elif len(types) > 1:
                return "receiver_type", methods  # several declarations of the type: ambiguous
    others = lookup.others(member)
    return ("name_match", others) if others else ("none", [])


def member_rows(fleet: FleetIndex) -> list[tuple[int, str, str | None, str, int, str | None, str | None, str, str]]:
    return fetch_rows(fleet.connection.execute(query_sql("fleet_members")),
                      tuple[int, str, str | None, str, int, str | None, str | None, str, str])


def coverage(fleet: FleetIndex) -> dict[str, Any]:
    members = member_rows(fleet)
    covered = [m for m in members if m[4]]
    return {
        "members_total": len(members),
        "members_covered": len(covered),
        "stale": [m[1] for m in covered if m[3] != "current"],
        "missing": [{"repository": m[1], "state": m[3]} for m in members if not m[4]],
        "complete": len(covered) == len(members) and all(m[3] == "current" for m in covered),
    }


def _fill(
    answer: dict[str, Any], usages: dict[str, list[dict[str, Any]]], name_matches: dict[str, list[dict[str, Any]]],
    max_items: int, max_chars: int,
) -> None:
    """Show at most ``max_items`` items per repository and kind and keep the whole answer within
    ``max_chars``: items are taken round-robin over the repositories (in name order, usages before
    name matches), so a budget cut keeps every repository represented; each repository says
    shown/total, and ``budget.truncated`` says whether anything was left out."""
    kinds = (("usages_by_repository", usages), ("name_matches_by_repository", name_matches))
    limit = max_items
    while True:
        for key, groups in kinds:
            answer[key] = {r: {"shown": 0, "total": len(items), "items": []} for r, items in sorted(groups.items())}
        left = max_chars - len(dumps_canonical(answer)) - 64  # 64: the shown counts' digits
        for rank in range(limit):
            for key, groups in kinds:
                for repository, items in sorted(groups.items()):
                    if rank < len(items) and left > 0:
                        cost = _size(items[rank])
                        if cost <= left:
                            answer[key][repository]["items"].append(items[rank])
                            left -= cost
                        else:
                            left = 0  # stop here: a later, smaller item must not jump the queue
        truncated = False
        for key, _groups in kinds:
            for group in answer[key].values():
                group["shown"] = len(group["items"])
                truncated |= group["shown"] < group["total"]
        answer["budget"]["truncated"] = truncated
        if len(dumps_canonical(answer)) <= max_chars or limit == 0:
            return
        limit //= 2  # the estimate was short (escaped text): fewer items per group


def _size(item: dict[str, Any]) -> int:
    """An item's JSON size for plain ASCII text (keys, quotes, separators included)."""
    size = 2
    for key, value in item.items():
        size += len(key) + 4
        size += sum(len(v) + 3 for v in value) + 2 if isinstance(value, list) else len(str(value)) + 2
    return size


SECTION_ITEMS = 5  # per repository, in code_context's cross_repo section
SECTION_CHARS = 4_000


def cross_repo_section(root: Path, checkout: Path, label: str) -> dict[str, Any] | None:
    """``code_context``'s ``cross_repo`` section for a definition labelled ``label`` in
    ``checkout``: the other repositories' usages of it, from the first fleet (by name) the
    checkout belongs to; None when it belongs to none (the section stays unavailable)."""
    from .build import open_fleet
    from .members import fleets_of

    fleets = fleets_of(root, checkout)
    if not fleets:
        return None
    name, member = fleets[0]
    fleet = open_fleet(root, name)
    try:
        answer = cross_repo_usages(fleet, bare_name(label) or label,
                                   max_items=SECTION_ITEMS, max_chars=SECTION_CHARS, repository=member.repository)
    finally:
        fleet.connection.close()
    groups = answer["usages_by_repository"]
    items = [{"repository": repository, **item} for repository, group in groups.items() for item in group["items"]]
    total = sum(group["total"] for group in groups.values())
    section: dict[str, Any] = {
        "status": "ok" if items and len(items) == total else "truncated" if items else "empty",
        "fleet": name, "shown": len(items), "total": total, "items": items,
        "name_matches": sum(group["total"] for group in answer["name_matches_by_repository"].values()),
        "coverage": answer["coverage"],
    }
    if not items:
        section.update(reason="no_cross_repo_usage", detail=(
            f"No other repository of the fleet {name} imports or calls it by an anchor stronger than its name."))
    return section
