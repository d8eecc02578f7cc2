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

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.envelope import next_action, remedy_actions, reply
from ..base.errors import InvalidInput
from ..base.jsonio import dumps_canonical
from ..base.printable import printable_prose
from ..base.rules import is_bounded_text
from ..base.sqlfiles import query_sql
from ..base.sqlrows import fetch_rows
from ..query.answerids import ID_PREFIX, capability_id, stamp_ids
from .build import FleetIndex, bare_name, open_fleet
from .members import MemberAccess, fleets_of

USAGES_SCHEMA = "cm_graph.crossRepoUsages.v1"
USAGES_KIND = "cross_repo_usages"  # capability ids: cmg:cross_repo_usages:<fleet>:<symbol>
DEFAULT_ITEMS_PER_GROUP = 20   # per repository and per kind
MAX_ITEMS_PER_GROUP = 200
DEFAULT_MAX_CHARS = 24_000
MIN_CHARS = 2_000
MAX_CHARS = 200_000
MAX_SYMBOL_CHARS = 512
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
    if not is_bounded_text(symbol, MAX_SYMBOL_CHARS) or not symbol.strip():
        raise InvalidInput(f"The symbol must be non-empty single-line text of at most {MAX_SYMBOL_CHARS} characters.")
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
    repository: str | None = None, access: MemberAccess | None = None,
) -> dict[str, Any]:
    """The cross-repository answer for ``symbol`` (a bare or dotted name) over the fleet index;
    ``repository`` keeps only that member's definitions (code_context asks about its own).
    ``access`` says whose evidence the answer may carry (``members.member_authorizes`` for an
    agent surface's recipient; None: the local operator, every member): a member it refuses is
    not read at all and is listed ``missing`` as ``unauthorized``, with no path, line or label."""
    if isinstance(max_items, bool) or not 1 <= max_items <= MAX_ITEMS_PER_GROUP:
        raise InvalidInput(f"--max-items must be from 1 to {MAX_ITEMS_PER_GROUP}.")
    if isinstance(max_chars, bool) or not MIN_CHARS <= max_chars <= MAX_CHARS:
        raise InvalidInput(f"--max-chars must be from {MIN_CHARS} to {MAX_CHARS}.")
    qualifier, name = split_symbol(symbol)
    connection = fleet.connection
    refused = unauthorized(fleet, access)
    unverified = 0
    definitions = []
    for row in fetch_rows(connection.execute(query_sql("fleet_definitions"), {"name": name}),
                          tuple[int, str, str, str, str, str, str, int, str, str]):
        found = Definition(*row, name=name)
        if found.repository in refused or not _matches(found, qualifier) or repository not in (None, found.repository):
            continue
        if fleet.confirms(found.repository, found.path, found.line):
            definitions.append(found)
        else:
            unverified += 1
    # A refused member is not read at all: neither its package nor its types shape an anchor.
    seen = [row for row in member_rows(fleet) if row[1] not in refused]
    declared, readable = {row[8] for row in seen if row[8]}, {row[0] for row in seen}
    lookup = _Lookup(definitions)
    usages: dict[str, list[dict[str, Any]]] = {}
    name_matches: dict[str, list[dict[str, Any]]] = {}
    for member, repository, kind, path, line, module, receiver, family in fetch_rows(
            connection.execute(query_sql("fleet_references"), {"name": name}),
            tuple[int, str, str, str, int, str, str, str]):
        if repository in refused:
            continue
        if not fleet.confirms(repository, path, line):
            unverified += 1
            continue
        anchor, candidates = _anchor(connection, kind, module, receiver, family, member, lookup, declared, readable)
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
    _resolved_items(fleet, name, definitions, refused, usages)
    covered = coverage(fleet, refused)
    stale = stale_members(fleet, refused)
    status = ("unavailable" if not covered["members_total"] else "not_found" if not definitions
              else "ok" if len(definitions) == 1 else "ambiguous")
    reason = {"reason": "no_members"} if status == "unavailable" else {}
    # The ids go in before the budget is filled (the placeholder is the id's own length), so the
    # stamped answer keeps to max_chars; the fleet index digest in the answer pins its generations.
    # `freshness` and `next_actions` describe the members' checkouts now, not the answer: the id
    # leaves them out (query/answerids.py), so a commit in a member does not change it.
    answer = reply(
        USAGES_SCHEMA, status,
        _prose(symbol, definitions, usages, name_matches) if covered["members_total"] else
        f"The fleet {fleet.name} has no members, so nothing was searched for `{symbol}`.",
        **reason, fleet=fleet.name, fleet_index=fleet.digest[:32], symbol=symbol, name=name,
        definitions=[d.to_json() for d in definitions], usages_by_repository={}, name_matches_by_repository={},
        coverage=covered, unverified_citations=unverified,
        freshness={"state": "stale" if stale else "current", "stale": stale},
        bounds={"max_items": max_items, "max_chars": max_chars, "truncated": False},
        capability_id=capability_id(USAGES_KIND, fleet.name, symbol), answer_id=ID_PREFIX + "0" * 64,
        next_actions=_next_actions(status, fleet.name, definitions, covered, stale),
    )
    printable_prose(answer)  # the prose names the symbol as asked: printed by hosts as it is
    _fill(answer, usages, name_matches, max_items, max_chars)
    return stamp_ids(answer, USAGES_KIND, fleet.name, symbol)


def _resolved_items(
    fleet: FleetIndex, name: str, definitions: list[Definition], refused: set[str],
    usages: dict[str, list[dict[str, Any]]],
) -> None:
    """The ``resolved`` usages of ``definitions`` (the fleet's ``uses`` rows: each use site,
    bound by resolving the members together) into ``usages``, each repository's items then in
    site order. A site bound to several members' copies of one module is ``ambiguous`` with
    its candidates. A file whose import of a definition the resolver bound no longer carries
    the weaker ``package`` item for it (cited at the statement's first line, where the resolved
    one cites the name's own): the resolver saw that statement."""
    wanted = {(d.repository, d.path, d.line): d for d in definitions}
    sites: dict[tuple[str, str, int, int, str], tuple[dict[str, Any], list[Definition]]] = {}
    for (_member, repository, path, line, column, role, form, written, through, target_repository, target_path,
         target_line, _qualname, symbol) in fetch_rows(
            fleet.connection.execute(query_sql("fleet_uses"), {"name": name}),
            tuple[int, str, str, int, int, str, str, str, str, str, str, int, str, str]):
        target = wanted.get((target_repository, target_path, target_line))
        if repository in refused or target is None:
            continue  # a refused member, or a definition the question does not ask about
        key = (repository, path, line, column, role)
        if key not in sites:
            item: dict[str, Any] = {"path": path, "line": line, "citation": f"{path}#L{line}", "anchor": "resolved",
                                    "column": column, "role": role, "use_form": form, "via": written,
                                    "symbol": symbol}
            if through:
                item["through"] = through
            sites[key] = (item, [])
        sites[key][1].append(target)
    cited: set[tuple[str, str, str]] = set()  # (repository, path, definition) of a resolved import
    for (repository, path, line, _column, _role), (item, targets) in sites.items():
        if not fleet.confirms(repository, path, line):
            continue
        if len(targets) == 1:
            item["definition"] = targets[0].reference()
        else:
            item["anchor"] = "ambiguous"
            del item["symbol"]
            _list_candidates(item, targets)
        usages.setdefault(repository, []).append(item)
        if item["role"] == "import":
            cited.update((repository, path, target.reference()) for target in targets)
    for repository, items in usages.items():
        kept = [i for i in items if "role" in i or not i["via"].startswith("import from ") or not any(
            (repository, i["path"], d) in cited for d in [i.get("definition"), *i.get("candidates", [])])]
        items[:] = sorted(kept, key=lambda i: (i["path"], i["line"], i.get("column", 0), i.get("role", "")))


def unauthorized(fleet: FleetIndex, access: MemberAccess | None) -> set[str]:
    """The repositories whose evidence ``access`` refuses (none without an ``access``)."""
    if access is None:
        return set()
    return {j.member.repository for j in fleet.judged if not access(j.member)}


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
            f"{len(usages)} other repositor(ies) anchored by resolution, package import or receiver type")
    matches = sum(len(items) for items in name_matches.values())
    if matches:
        text += f"; {matches} name-only match(es) listed apart, never attributed"
    return text + ". Each citation was checked against its repository's bound commit."


def _next_actions(
    status: str, fleet_name: str, definitions: list[Definition], cover: dict[str, Any], stale: list[str],
) -> list[dict[str, Any]]:
    """What to do after an answer that found no one definition (none after one that did)."""
    if status == "unavailable":
        return remedy_actions("no_members", fleet=fleet_name)
    if status == "ambiguous":
        qualified = _qualified_hint(definitions[0])
        return [next_action("several definitions match; ask again with a qualified name",
                            f"cm-graph fleet usages {fleet_name} {shlex.quote(qualified)}", USAGES_KIND,
                            {"symbol": qualified, "fleet": fleet_name})]
    if status == "not_found":
        return [next_action(not_found_why(cover, stale), f"cm-graph doctor --fleet {fleet_name}", "graph_status",
                            {"fleet": fleet_name})]
    return []


def not_found_why(cover: dict[str, Any], stale: list[str]) -> str:
    """Why no searched member defines the name. A member with no usable graph was not searched,
    and a stale one only at its older bound commit: the name may be defined there, so "check the
    spelling" alone would send the reader the wrong way (the doctor gives each one's command)."""
    unsearched = unsearched_members(cover)
    if not unsearched and not stale:
        return "no member of the fleet defines that name; check the spelling"
    places = []
    if unsearched:
        places.append(f"not searched: {', '.join(unsearched)}")
    if stale:
        places.append(f"searched only at an older commit: {', '.join(stale)}")
    return (f"no searched member defines that name, but it may be defined in members the fleet could not read "
            f"({'; '.join(places)}): restore or refresh them, then ask again")


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
    declared: set[str], readable: set[int],
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
            types = [t for t in fetch_rows(connection.execute(query_sql("fleet_types"), {
                "name": receiver, "family": family}), tuple[int, str, int]) if t[0] in readable]
            if len(types) == 1:
                bound = [d for d in methods if d.member == types[0][0]]
                if bound:
                    return "receiver_type", bound
            elif len(types) > 1:
                return "receiver_type", methods  # several declarations of the type: ambiguous
    others = lookup.others(member)
    return ("name_match", others) if others else ("none", [])


def member_rows(
    fleet: FleetIndex,
) -> list[tuple[int, str, str | None, str, int, str | None, str | None, str, str, str]]:
    return fetch_rows(fleet.connection.execute(query_sql("fleet_members")),
                      tuple[int, str, str | None, str, int, str | None, str | None, str, str, str])


def coverage(fleet: FleetIndex, refused: set[str]) -> dict[str, Any]:
    """Which members the answer searched: every covered one whose evidence this caller may see;
    ``missing`` names the rest with why (the member's judgement, ``unreadable``, ``unauthorized``)."""
    members = member_rows(fleet)
    missing = [{"repository": m[1], "state": "unauthorized" if m[1] in refused else m[3]}
               for m in members if m[1] in refused or not m[4]]
    return {
        "members_total": len(members),
        "members_covered": len(members) - len(missing),
        "missing": missing,
        "complete": bool(members) and not missing,  # an empty fleet searched nothing
    }


def stale_members(fleet: FleetIndex, refused: set[str]) -> list[str]:
    """The searched members whose graph is not current for their HEAD now (answered from their
    bound commit): a fact about the checkouts at this moment, carried under ``freshness``."""
    searched = {m[1] for m in member_rows(fleet) if m[4] and m[1] not in refused}
    return sorted(j.member.repository for j in fleet.judged
                  if j.member.repository in searched and j.state != "current")


def _fill(
    answer: dict[str, Any], usages: dict[str, list[dict[str, Any]]], name_matches: dict[str, list[dict[str, Any]]],
    max_items: int, max_chars: int,
) -> None:
    """Show at most ``max_items`` items per repository and kind and keep the whole answer within
    ``max_chars``: items are taken round-robin over the repositories (in name order, usages before
    name matches), so a budget cut keeps every repository represented; each repository says
    shown/total, and ``bounds.truncated`` says whether anything was left out."""
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
        answer["bounds"]["truncated"] = truncated
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


def own_definition_usages(
    root: Path, checkout: Path, label: str, access: MemberAccess | None, max_items: int, max_chars: int,
) -> dict[str, Any] | None:
    """The other members' usages of ``checkout``'s own definitions labelled ``label``: the
    ``cross_repo_usages`` answer (``max_items`` per repository and kind, within ``max_chars``)
    from the first fleet (by name) the checkout belongs to, carrying only what ``access`` lets
    the caller see; None when it belongs to none. ``code_context`` makes its ``cross_repo``
    section of it."""
    fleets = fleets_of(root, checkout)
    if not fleets:
        return None
    name, member = fleets[0]
    fleet = open_fleet(root, name)
    try:
        return cross_repo_usages(fleet, bare_name(label) or label, max_items=max_items, max_chars=max_chars,
                                 repository=member.repository, access=access)
    finally:
        fleet.close()


def unsearched_members(cover: dict[str, Any]) -> list[str]:
    """``a (unauthorized)``, ``b (absent)``: each member an answer could not search, with why."""
    return [f"{m['repository']} ({m['state']})" for m in cover["missing"]]

