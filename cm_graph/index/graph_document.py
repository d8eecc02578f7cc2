"""Stream the provider's ``graph.json`` and hold it to the pinned provider's own contract.

The document is never held in memory: it is read in chunks, a batch of node or edge records at a
time is decoded, validated and handed to a sink (see ``jsonstream``). The two document shapes (the raw ``--no-cluster``
extraction and a NetworkX node-link export) are told apart by node-link marker keys, never by the
name of the edge list. Validation errors are remembered and raised once the whole structure is
known, in the contract's order (format, presence, types and counts, direction, built_at_commit,
nodes, edges), so the same bad document always gets the same refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..base.errors import ReaderIncompatible, Refusal, Unreadable
from ..base.rules import (
    MAX_CITATION_LINE_DIGITS,
    bounded_text,
    citation_in_scope,
    is_bounded_text,
    location_line,
    parse_location,
    path_in_scope,
    path_refused,
)
from ..generation.manifest import ProviderPin
from . import graphmodel
from .jsonstream import ArrayStream, ByteStream, JsonStreamError, TopLevelReader, container_depth

MAX_NODES = 200_000
MAX_EDGES = 500_000
MAX_NESTING = 64
NODE_LINK_MARKERS = ("links", "directed", "multigraph", "graph")
_LIST_KEYS = ("nodes", "edges", "links")


# Records reach the sink as plain tuples, in the staging tables' column order (a tuple per record
# costs a fraction of an object with named fields, and hundreds of thousands are made):
#   code node: (provider_id, label, callable_base, path, line, kind)
#   edge:      (list_name, source, target, relation, kind, confidence, site_path, site_line, site_error,
#               site_uncitable)
# site_uncitable is 1 for an edge whose own call-site path is a legal file name no citation can
# carry (see _site): the edge is kept out of every traversal, never refused.
CodeNode = tuple[str, str, "str | None", str, "int | None", str]
EdgeRecord = tuple[str, str, str, str, str, str, str, "int | None", "str | None", int]
# Caches of the per-path and per-location answers stop growing here, so memory stays flat.
_CACHE_LIMIT = 1 << 16
# The largest line a citation can carry (rules.citation_in_scope's digit limit).
_MAX_CITED_LINE = 10**MAX_CITATION_LINE_DIGITS - 1


RATIONALE = "rationale"  # the provider's file_type for docstrings and NOTE/WHY/HACK comments
# The provider parks a member call it could not bind (the receiver's type is declared nowhere in
# the build) on the caller node: metadata.unresolved_calls = [{callee, receiver_type, lang, line}],
# at most 64 per node (graphify extract.py, _park_unresolved_member_call).
UNRESOLVED_CALLS = "unresolved_calls"
_MAX_PARKED_CALLS = 64


class GraphSink(Protocol):
    def add_code_node(self, node: CodeNode) -> None: ...

    def add_untraversable(self, provider_id: str) -> None: ...

    def add_exclusion(self, provider_id: str, file_type: str) -> None: ...

    def add_rationale(self, provider_id: str, path: str, line: int, text: str) -> None: ...

    def add_edge(self, list_name: str, edge: EdgeRecord) -> None: ...

    def add_member_call(self, provider_id: str, callee: str, receiver_type: str, language: str, line: int) -> None: ...


@dataclass(frozen=True)
class DocumentShape:
    format: str
    edge_list: str
    raw_nodes: int
    raw_edges: int


def _remediation(provider: ProviderPin) -> dict[str, Any]:
    from .. import __version__

    reviewed = ", ".join(
        f"{graphmodel.REVIEWED_DISTRIBUTION}=={v}" for v in graphmodel.REVIEWED_VERSIONS
    )
    return {
        "installed_cm_graph": __version__,
        "reader_provider_versions": list(graphmodel.REVIEWED_VERSIONS),
        "generation_provider": provider.requirement,
        "action": (
            f"Refresh the graph with a reviewed provider release ({reviewed}), or upgrade "
            f"cm-graph (installed {__version__}) to a release that reads this provider."
        ),
    }


class _RecordReader:
    """Validate node and edge records and forward them; remember the first error per list.

    ``accept`` is the contract, one record at a time. ``accept_batch`` gives the same answers
    faster for a clean, flat batch (see ``jsonstream``): a record that passes every check inline
    is forwarded directly, and any other record goes through ``accept``'s own validators, so
    every refusal keeps its reason, message and order.
    """

    def __init__(self, sink: GraphSink, provider: ProviderPin) -> None:
        self.sink = sink
        self.provider = provider
        self.reviewed = graphmodel.is_reviewed_provider(provider.distribution, provider.version)
        self.counts = {name: 0 for name in _LIST_KEYS}
        self.errors: dict[str, Refusal] = {}
        self._lines: dict[Any, int | None | Literal[False]] = {None: None, "": None}
        self._paths: dict[Any, str | Literal[False]] = {None: "", "": ""}
        self._path_facts: dict[str, tuple[bool, str]] = {}

    def accept(self, list_name: str, record: Any) -> None:
        self.counts[list_name] += 1
        cap = MAX_NODES if list_name == "nodes" else MAX_EDGES
        if self.counts[list_name] > cap:
            raise Unreadable(f"graph.json has more than {cap:,} records in its {list_name} list.")
        if list_name in self.errors:
            return
        self._checked(list_name, record)

    def accept_batch(self, list_name: str, records: list[Any]) -> None:
        """``accept`` for each record of a clean batch (no string in it holds a control character)."""
        cap = MAX_NODES if list_name == "nodes" else MAX_EDGES
        if list_name in self.errors or self.counts[list_name] + len(records) > cap:
            for record in records:
                self.accept(list_name, record)
            return
        self.counts[list_name] += len(records)
        if list_name == "nodes":
            self._clean_nodes(records)
        else:
            self._clean_edges(list_name, records)

    def _checked(self, list_name: str, record: Any) -> bool:
        """Validate one record the slow, exact way; False once it is refused."""
        try:
            if list_name == "nodes":
                self._node(record)
            else:
                self._edge(list_name, record)
        except Refusal as refusal:
            self.errors[list_name] = refusal
            return False
        return True

    def _line_of(self, location: Any) -> int | None | Literal[False]:
        """The line of a well-formed ``source_location``, None for none, False for anything else
        (remembered: a graph repeats few distinct locations)."""
        try:
            return self._lines[location]
        except (KeyError, TypeError):
            pass
        if type(location) is not str:
            return False
        line = location_line(location)
        answer = False if line is None else line
        if len(self._lines) < _CACHE_LIMIT:
            self._lines[location] = answer
        return answer

    def _path_of(self, source_file: Any) -> str | Literal[False]:
        """The citable path a ``source_file`` names ('' for none), False when it is not bounded
        text or not in the repository's scope (remembered, like ``_line_of``)."""
        try:
            return self._paths[source_file]
        except (KeyError, TypeError):
            pass
        if type(source_file) is not str:
            return False
        answer: str | Literal[False] = (
            source_file if is_bounded_text(source_file, 1024) and path_in_scope(source_file) else False
        )
        if len(self._paths) < _CACHE_LIMIT:
            self._paths[source_file] = answer
        return answer

    def _keep_rationale(self, provider_id: str, record: dict[str, Any]) -> None:
        """A rationale node stays an exclusion (no question walks it); when its text is bounded
        and its location citable, code_context also keeps its text. Anything else about it is
        not a refusal: the seed never reads a non-code corpus."""
        label = record.get("label")
        path = self._path_of(record.get("source_file"))
        line = self._line_of(record.get("source_location"))
        if (type(label) is str and 0 < len(label) <= 4096 and not label.isspace() and path
                and type(line) is int and citation_in_scope(path, line)):
            self.sink.add_rationale(provider_id, path, line, label)

    def _keep_parked_calls(self, provider_id: str, metadata: Any) -> None:
        """The member calls the provider parked on a code node, for the fleet. They are optional
        provider metadata, not part of the graph the seed validates: an entry that is not the
        provider's shape (bounded single-line names, a well-formed line) is skipped, never a
        refusal."""
        if not isinstance(metadata, dict):
            return
        parked = metadata.get(UNRESOLVED_CALLS)
        if not isinstance(parked, list):
            return
        for entry in parked[:_MAX_PARKED_CALLS]:
            if not isinstance(entry, dict):
                continue
            callee, receiver, language = entry.get("callee"), entry.get("receiver_type"), entry.get("lang")
            line = self._line_of(entry.get("line"))
            if (isinstance(callee, str) and isinstance(receiver, str) and isinstance(language, str)
                    and is_bounded_text(callee, 512) and is_bounded_text(receiver, 512)
                    and is_bounded_text(language, 64) and type(line) is int and 0 < line <= _MAX_CITED_LINE):
                self.sink.add_member_call(provider_id, callee, receiver, language, line)

    def _node_kind(self, path: str, label: str) -> str:
        """``graphmodel.node_kind`` with the per-path part remembered."""
        if not path:
            return "symbol"
        facts = self._path_facts.get(path)
        if facts is None:
            facts = (graphmodel.is_test_path(path), path.rsplit("/", 1)[-1])
            if len(self._path_facts) < _CACHE_LIMIT:
                self._path_facts[path] = facts
        if facts[0]:
            return "test"
        return "file" if facts[1] == label else "symbol"

    def _clean_nodes(self, records: list[Any]) -> None:
        add_node = self.sink.add_code_node
        add_exclusion = self.sink.add_exclusion
        lines, paths = self._lines, self._paths
        for record in records:
            try:
                file_type = record["file_type"]
                provider_id = record["id"]
                label = record["label"]
                source_file = record["source_file"]
            except (KeyError, TypeError):
                file_type = None
            if not (
                type(file_type) is str
                and type(provider_id) is str
                and 0 < len(provider_id) <= 512
                and not provider_id.isspace()
            ):
                if not self._checked("nodes", record):
                    return
                continue
            if file_type != graphmodel.CODE:
                if file_type in graphmodel.NON_CODE_FILE_TYPES:
                    add_exclusion(provider_id, file_type)
                    if file_type == RATIONALE:
                        self._keep_rationale(provider_id, record)
                elif not self._checked("nodes", record):
                    return
                continue
            location = record.get("source_location")
            try:
                line = lines[location]
            except (KeyError, TypeError):
                line = self._line_of(location)
            try:
                path = paths[source_file]
            except (KeyError, TypeError):
                path = self._path_of(source_file)
            if (
                line is False
                or path is False
                or type(label) is not str
                or not 0 < len(label) <= 512
                or label.isspace()
                or (path and line and line > _MAX_CITED_LINE)
            ):
                if not self._checked("nodes", record):
                    return
                continue
            add_node((
                provider_id,
                label,
                graphmodel.callable_base(label) if label[-1] == ")" else None,
                path,
                line if path else None,
                self._node_kind(path, label),
            ))
            if path and "metadata" in record:
                self._keep_parked_calls(provider_id, record["metadata"])

    def _clean_edges(self, list_name: str, records: list[Any]) -> None:
        add_edge = self.sink.add_edge
        confidences = graphmodel.CONFIDENCES
        relation_kinds = graphmodel.RELATION_KINDS
        unmapped = graphmodel.UNMAPPED_KIND
        lines, paths = self._lines, self._paths
        for record in records:
            try:
                confidence = confidences[record["confidence"]]
                relation = record["relation"]
                source = record["source"]
                target = record["target"]
                source_file = record["source_file"]
            except (KeyError, TypeError):
                if not self._checked(list_name, record):
                    return
                continue
            location = record.get("source_location")
            try:
                line = lines[location]
            except (KeyError, TypeError):
                line = self._line_of(location)
            try:
                site_path = paths[source_file]
            except (KeyError, TypeError):
                site_path = self._path_of(source_file)
            if (
                line is False
                or site_path is False
                or type(relation) is not str
                or not 0 < len(relation) <= 128
                or relation.isspace()
                or type(source) is not str
                or not 0 < len(source) <= 512
                or source.isspace()
                or type(target) is not str
                or not 0 < len(target) <= 512
                or target.isspace()
                or (site_path and line and line > _MAX_CITED_LINE)
            ):
                if not self._checked(list_name, record):
                    return
                continue
            add_edge(list_name, (
                list_name, source, target, relation, relation_kinds.get(relation, unmapped), confidence,
                site_path, line if site_path else None, None, 0,
            ))

    def _node(self, record: Any) -> None:
        if not isinstance(record, dict):
            raise Unreadable("A node of graph.json is not an object.")
        if not {"id", "label", "file_type", "source_file"} <= record.keys():
            raise Unreadable("A node of graph.json lacks a required field.")
        file_type = record["file_type"]
        if not is_bounded_text(file_type, 64):
            raise Unreadable("A node of graph.json has a file_type that is not text.")
        if file_type not in graphmodel.ACCEPTED_FILE_TYPES:
            if self.reviewed:
                raise Unreadable("A node of graph.json has a node type the provider does not define.")
            raise ReaderIncompatible(
                "The generation was built by a provider this reader was not reviewed against, "
                "and it holds a node type this reader does not know.",
                remediation=_remediation(self.provider),
            )
        if not is_bounded_text(record["id"], 512):
            raise Unreadable(_bad_node_id(record))
        provider_id: str = record["id"]
        if file_type != graphmodel.CODE:
            self.sink.add_exclusion(provider_id, file_type)
            if file_type == RATIONALE:
                self._keep_rationale(provider_id, record)
            return
        source_file = record["source_file"]
        path = "" if source_file in (None, "") else _record_path(source_file, "A node's source_file")
        if path and path_refused(path):
            raise Unreadable("A node of graph.json names a path outside the repository's scope.")
        label = record["label"]
        if not isinstance(label, str) or not 0 < len(label) <= 512:
            raise Unreadable("A node label must be non-empty text of at most 512 characters.")
        if (path and not path_in_scope(path)) or not is_bounded_text(label, 512):
            # A legal file name no citation can carry (a '#', a tab, ...), or a label no sentence
            # can state on one line (the provider labels a multi-line destructured JavaScript
            # import with its source text): the seed's "not traversable at all", for this record
            # only, never a reason to refuse the whole graph.
            parse_location(record.get("source_location"), "A node")
            self.sink.add_untraversable(provider_id)
            return
        line = parse_location(record.get("source_location"), "A node")
        if path and not citation_in_scope(path, line):
            raise Unreadable("A node of graph.json names a path outside the repository's scope.")
        self.sink.add_code_node((
            provider_id,
            label,
            graphmodel.callable_base(label),
            path,
            line if path else None,
            graphmodel.node_kind(path, label),
        ))
        if path:
            self._keep_parked_calls(provider_id, record.get("metadata"))

    def _edge(self, list_name: str, record: Any) -> None:
        if not isinstance(record, dict):
            raise Unreadable("An edge of graph.json is not an object.")
        if not {"source", "target", "relation", "confidence", "source_file"} <= record.keys():
            raise Unreadable("An edge of graph.json lacks a required field.")
        confidence = record["confidence"]
        if not is_bounded_text(confidence, 64) or confidence not in graphmodel.CONFIDENCES:
            raise Unreadable("An edge of graph.json has a confidence outside EXTRACTED/INFERRED/AMBIGUOUS.")
        relation = bounded_text(record["relation"], "An edge relation", 128, Unreadable)
        source = bounded_text(record["source"], "An edge source", 512, Unreadable)
        target = bounded_text(record["target"], "An edge target", 512, Unreadable)
        site_path, site_line, site_error, site_uncitable = "", None, None, 0
        try:
            source_file = record["source_file"]
            if source_file not in (None, ""):
                site_path = _record_path(source_file, "An edge's source_file")
            site_line = parse_location(record.get("source_location"), "An edge")
            if site_path and path_refused(site_path):
                raise Unreadable("An edge of graph.json names a call site outside the repository's scope.")
            if site_path and not path_in_scope(site_path):
                site_uncitable = 1  # a legal file name no citation can carry: never traversed
            elif site_path and not citation_in_scope(site_path, site_line):
                raise Unreadable("An edge of graph.json names a call site outside the repository's scope.")
        except Refusal as refusal:
            site_error = refusal.message
        kept_site = site_error is None and not site_uncitable
        self.sink.add_edge(list_name, (
            list_name,
            source,
            target,
            relation,
            graphmodel.relation_kind(relation),
            graphmodel.CONFIDENCES[confidence],
            site_path if kept_site else "",
            (site_line if site_path else None) if kept_site else None,
            site_error,
            site_uncitable,
        ))


def _bad_node_id(record: dict[str, Any]) -> str:
    """The sentence for a node id past the bound: the node's file and line when it names them (the
    provider can make an id of thousands of characters from a type it misreads) and the
    ``--exclude`` that builds without that file; never the id itself."""
    import shlex  # only a refusal needs it

    sentence = "A node id must be non-empty single-line text of at most 512 characters"
    value, path = record["id"], record.get("source_file")
    if not isinstance(path, str) or not 0 < len(path) <= 1024 or path_refused(path):
        return sentence + "."
    location = record.get("source_location")
    where = f"{path} {location}" if is_bounded_text(location, 32) else path
    size = f" has one of {len(value):,} characters" if isinstance(value, str) else " has none"
    return (f"{sentence}: the provider's node for {where}{size}; `cm-graph build --exclude "
            f"{shlex.quote(path)}` builds the rest without that file.")


def _record_path(value: Any, what: str) -> str:
    """A record's path as the provider wrote it: text of at most 1,024 characters.

    Unlike other text fields it may hold control characters, blanks and even lone surrogates (a
    file name that is not UTF-8): a tracked file may be named so, and whether it can be cited is
    the scope check's question (``path_refused``, ``path_in_scope``), not a reason to call the
    record malformed.
    """
    if not isinstance(value, str) or not 0 < len(value) <= 1024:
        raise Unreadable(f"{what} must be non-empty text of at most 1024 characters.")
    return value


def _nests(record: Any) -> bool:
    """Whether a record holds a container (most are flat objects of scalars)."""
    if isinstance(record, dict):
        for field in record.values():
            if isinstance(field, (dict, list)):
                return True
        return False
    return isinstance(record, list)


def _type_tag(value: Any) -> str:
    """The JSON type of a top-level value, in the words the structure checks use."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    return "start_map" if isinstance(value, dict) else "start_array"


def read_document(
    stream: ByteStream, *, commit: str, provider: ProviderPin, sink: GraphSink
) -> DocumentShape:
    """Read one ``graph.json`` from ``stream`` into ``sink`` and return its shape.

    Raises a refusal for anything the pinned provider's contract does not allow. A refusal can be
    raised after some records reached the sink; the caller discards the sink's work.
    """
    records = _RecordReader(sink, provider)
    top_keys: dict[str, str] = {}
    scalars: dict[str, Any] = {}
    reader = TopLevelReader(stream)
    try:
        for key, value in reader.members():
            if key in top_keys:
                raise Unreadable("graph.json repeats a top-level key.")
            if isinstance(value, ArrayStream):
                top_keys[key] = "start_array"
                listed = key in _LIST_KEYS
                for elements, clean, flat in value.batches():
                    if clean and flat:  # no element nests, so none is too deep
                        if listed:
                            records.accept_batch(key, elements)
                        continue
                    for element in elements:
                        if _nests(element) and 2 + container_depth(element) > MAX_NESTING:
                            raise Unreadable("graph.json is nested more deeply than any graph needs.")
                        if listed:
                            records.accept(key, element)
                continue
            top_keys[key] = _type_tag(value)
            if isinstance(value, (dict, list)):
                if 1 + container_depth(value) > MAX_NESTING:
                    raise Unreadable("graph.json is nested more deeply than any graph needs.")
            else:
                scalars[key] = value
    except JsonStreamError as error:
        raise Unreadable(str(error)) from None
    return _check_structure(top_keys, scalars, records, commit)


def _check_structure(
    top_keys: dict[str, str], scalars: dict[str, Any], records: _RecordReader, commit: str
) -> DocumentShape:
    if not top_keys and not records.counts["nodes"]:
        raise Unreadable("graph.json is not a JSON object with nodes and edges.")
    node_link = any(marker in top_keys for marker in NODE_LINK_MARKERS)
    edge_list = "links" if node_link and "links" in top_keys else "edges"
    for name in ("nodes", edge_list):
        if top_keys.get(name) in (None, "null"):
            raise Unreadable(f"graph.json has no {name} list.")
        if top_keys[name] != "start_array":
            raise Unreadable(f"graph.json's {name} is not a list.")
    if node_link:
        directed = scalars.get("directed")
        if top_keys.get("directed") != "boolean" or directed is not True:
            raise Unreadable(
                "A node-link graph.json must declare directed: true; an undirected graph cannot answer oriented "
                "questions."
            )
    if top_keys.get("built_at_commit") not in (None, "null"):
        stamp = scalars.get("built_at_commit")
        if not is_bounded_text(stamp, 64) or stamp != commit:
            raise Unreadable("graph.json's built_at_commit is not the commit the generation is bound to.")
    for name in ("nodes", edge_list):
        if name in records.errors:
            raise records.errors[name]
    return DocumentShape(
        format="node_link" if node_link else "raw_extraction",
        edge_list=edge_list,
        raw_nodes=records.counts["nodes"],
        raw_edges=records.counts[edge_list],
    )
