"""Is a provider run complete? A coverage check of the provider's own per-file inventory.

The exit status of the provider is never evidence. Completeness means: every census file the
pinned provider dispatches as code has an inventory row whose ``ast_hash`` is the MD5 of the
exact bytes the commit holds for it. The dispatch rules mirror the pinned release's file
classifier so the denominator is the provider's, not ours.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

import ijson

from ..base.errors import Oversized
from ..base.git import MAX_BLOB_BYTES, BlobReader, Census, CensusEntry
from . import scope

MAX_INVENTORY_BYTES = 16 * 1024 * 1024
_SNIFF_BYTES = 256 * 1024
_MD5 = re.compile(r"[0-9a-f]{32}")
_DISPATCHED_NAMES = frozenset({"apm.yml", "apm.yaml", "pyproject.toml", "cargo.toml", "go.mod", "pom.xml"})
_SHEBANG_DISPATCHED = frozenset({
    "python", "python3", "python2", "ruby", "perl", "node", "nodejs", "bash", "sh", "dash",
    "zsh", "fish", "ksh", "tcsh", "lua", "php", "julia", "Rscript",
})
_SHEBANG_SUPPORTED = frozenset({
    "python", "python2", "python3", "bash", "sh", "dash", "zsh", "ksh", "node", "nodejs",
    "ruby", "lua", "php", "julia",
})
CODE_EXTENSIONS = frozenset(
    ".py .ts .tsx .mts .cts .js .jsx .mjs .cjs .ejs .ets .go .rs .java .groovy .gradle .cpp .cc"
    " .cxx .c .h .hpp .cu .cuh .metal .rb .rake .swift .kt .kts .cs .scala .php .lua .luau .toc"
    " .zig .ps1 .psm1 .psd1 .ex .exs .m .mm .ml .mli .jl .vue .svelte .astro .dart .v .sv .svh"
    " .sql .r .f .F .f90 .F90 .f95 .F95 .f03 .F03 .f08 .F08 .pas .pp .dpr .dpk .lpr .inc .dfm"
    " .lfm .lpk .sh .bash .json .tf .tfvars .hcl .dm .dme .dmi .dmm .dmf .sln .slnx .csproj"
    " .fsproj .vbproj .xaml .razor .cshtml .cls .trigger .lisp .cl .lsp .asd .robot .resource".split()
)
_UNSUPPORTED_EXTENSIONS = frozenset({".ejs", ".ets", ".r"})
_ROW_KEYS = frozenset({"mtime", "seen", "ast_hash", "semantic_hash"})
_OBJC_MARKERS = (b"@interface", b"@protocol", b"@implementation", b"@import", b"#import")

NOT_CODE, DISPATCHED, UNSUPPORTED, UNCLASSIFIED = "not_code", "dispatched", "unsupported", "unclassified"
# Code in languages the pinned provider has no extractor for and never dispatches (msgpack's
# Cython sources, type stubs, Perl, Haskell, ...): not code to the provider, code to a reader, so
# it counts as unread code (``unsupported_language``), never as a file that is not code.
UNREAD_CODE_EXTENSIONS = frozenset(
    ".pyx .pxd .pxi .pyi .pl .pm .hs .lhs .erl .hrl .clj .cljs .cljc .elm .nim .cr .fs .fsi .fsx .vb"
    " .coffee .d .tcl .scm .rkt .sol .asm .s .adb .ads .cob .cbl .el .hx .gd .zsh .fish .ksh .awk"
    " .glsl .hlsl .wgsl .raku .pyw".split()
)

# Every tracked regular file (the census's entries and the files over its per-file budget) is in
# exactly one of these: read as code, code not read (uncovered: the build is partial), left out
# by a provider scope rule, code without an extractor, not code, left out with --exclude, or over
# the per-file budget and not code.
FILE_COUNTERS = ("code_read", "uncovered", "scope_excluded", "unsupported_language", "non_code",
                 "operator_excluded", "oversized")
# The code bytes behind the counters that hold code (``read`` is ``code_read``'s).
CODE_BYTE_COUNTERS = ("read", "uncovered", "scope_excluded", "unsupported_language", "operator_excluded")
# More than this share of the code bytes tracked unread by a scope rule or for want of an
# extractor is "most of the code": the build may be complete by the provider's inventory, but an
# answer about that code rests on text only, and the summary, status and doctor say so.
MOST_OF_THE_CODE = 0.5


def _shebang_interpreter(head: bytes) -> str | None:
    """The interpreter a ``#!`` line names; "" when ``env`` is given options (unclassifiable)."""
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    name = words[0].rsplit("/", 1)[-1]
    if name == "env":
        rest = [word for word in words[1:] if "=" not in word or word.startswith("-")]
        if not rest or rest[0].startswith("-"):
            return ""
        name = rest[0].rsplit("/", 1)[-1]
    return name


def classify(path: str, head: bytes | None) -> str:
    """How the pinned provider treats one tracked file; ``head`` is its first 256 KiB or None."""
    base = path.rsplit("/", 1)[-1]
    lowered = base.lower()
    if lowered in _DISPATCHED_NAMES or lowered.endswith(".blade.php"):
        return DISPATCHED
    suffix = PurePosixPath(base).suffix
    if not suffix:
        if head is None:
            return UNCLASSIFIED
        interpreter = _shebang_interpreter(head[:256])
        if interpreter is None:
            return NOT_CODE
        if interpreter == "":
            return UNCLASSIFIED
        if interpreter not in _SHEBANG_DISPATCHED:
            return NOT_CODE
        return DISPATCHED if interpreter in _SHEBANG_SUPPORTED else UNSUPPORTED
    if suffix in CODE_EXTENSIONS or suffix.lower() in CODE_EXTENSIONS:
        folded = suffix.lower()
        if folded in _UNSUPPORTED_EXTENSIONS:
            return UNSUPPORTED
        if suffix == ".m" or folded == ".m":
            if head is None:
                return UNCLASSIFIED
            return DISPATCHED if any(m in head for m in _OBJC_MARKERS) else UNSUPPORTED
        return DISPATCHED
    return NOT_CODE


MAX_LISTED = 50
MAX_LISTED_PATH = 1024

# What a next action can be, per reason. A refresh reruns the same provider on the same bytes,
# so it is offered only where the outcome was not the provider's deterministic verdict.
NEXT_ACTIONS = {
    "missing": "The provider read {path} and produced nothing for it (it failed on the file): fix "
    "the file, upgrade the provider, or leave it out with --exclude {path}.",
    # Without the provider's detection cache nothing says whether it read the file.
    "missing_unread": "The provider emitted nothing for {path}: fix the file, upgrade the provider, "
    "or leave it out with --exclude {path}.",
    # Without an inventory every input is missing; the run's output was incomplete.
    "missing_no_inventory": "The provider wrote no readable inventory, so {path} cannot be "
    "confirmed: refresh it (cm-graph refresh).",
    "not_admitted": "The provider never took {path} in (no scope rule of cm-graph explains it): "
    "leave it out with --exclude {path}, or upgrade the provider.",
    "unstamped": "The provider's inventory row for {path} has no content hash: refresh it "
    "(cm-graph refresh); if it persists, upgrade the provider or --exclude {path}.",
    "mismatched": "The provider hashed other bytes than the commit holds for {path}: refresh it "
    "(cm-graph refresh).",
    "unclassified": "The provider cannot tell what {path} is (its #! line passes options to env): "
    "fix the file's first line or leave it out with --exclude {path}.",
}


@dataclass
class Coverage:
    """The verdict, its tallies and the reasons per uncovered input (persisted in the build
    record by ``to_record``)."""

    completeness: str
    indexed_files: int
    unsupported_inputs: int
    notes: list[str] = field(default_factory=list)
    # The first uncovered inputs (repository-relative paths), so a user can see which files.
    uncovered: list[str] = field(default_factory=list)
    # The first uncovered inputs with reason and next action, and counts per reason.
    uncovered_inputs: list[dict[str, str]] = field(default_factory=list)
    uncovered_counts: dict[str, int] = field(default_factory=dict)
    # Inputs the provider by its own rules never dispatches (or the operator left out): counts
    # per rule and the first few by name; inputs it read and by its own rule yields nothing for.
    scope_exclusions: dict[str, int] = field(default_factory=dict)
    scope_excluded: list[dict[str, str]] = field(default_factory=list)
    empty_inputs: int = 0
    empty: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    # Every tracked file in one counter (FILE_COUNTERS), the code bytes per counter holding code
    # (``tracked`` their sum), the code bytes each scope rule left out, and the unread code
    # bytes per extension without an extractor.
    files: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FILE_COUNTERS, 0))
    code_bytes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(("tracked", *CODE_BYTE_COUNTERS), 0))
    scope_bytes: dict[str, int] = field(default_factory=dict)
    scope_dirs: dict[str, str] = field(default_factory=dict)  # a pruned directory per skipped_dir rule
    unread_languages: dict[str, int] = field(default_factory=dict)
    # The definitions the text holds and the graph lacks (index/definition_gaps.py), known once
    # the index is derived; None until then.
    definitions: dict[str, Any] | None = None

    @property
    def warning(self) -> tuple[str, str] | None:
        """(what, remedy) when most of the code bytes tracked were never read although the
        build may be complete: what left them out, and the remedy that works, or that none does."""
        return unread_code_warning(self.code_bytes, self.scope_bytes, self.scope_dirs, self.unread_languages)

    def count(self, counter: str, size: int, *, code: bool, bytes_as: str | None = None) -> None:
        """Put one tracked file of ``size`` bytes in ``counter`` (its code bytes, when it is
        code, in ``bytes_as``, by default the counter of the same name)."""
        self.files[counter] += 1
        if code:
            self.code_bytes["tracked"] += size
            self.code_bytes[bytes_as or counter] += size

    def to_record(self) -> dict[str, object]:
        """The coverage facts a build record keeps, bounded (at most 50 paths per list)."""
        record: dict[str, object] = {
            "files": dict(self.files),
            "code_bytes": dict(self.code_bytes),
            "scope_bytes": dict(sorted(self.scope_bytes.items())),
            "scope_dirs": dict(sorted(self.scope_dirs.items())),
            "unread_languages": dict(sorted(self.unread_languages.items())),
            "completeness": self.completeness,
            "exclude": list(self.exclude),
            "scope_exclusions": dict(sorted(self.scope_exclusions.items())),
            "scope_excluded": list(self.scope_excluded),
            "empty_inputs": self.empty_inputs,
            "empty": list(self.empty),
            "uncovered_counts": dict(sorted(self.uncovered_counts.items())),
            "uncovered_inputs": list(self.uncovered_inputs),
            "partial_because": list(self.notes),
        }
        if self.warning is not None:
            record["warning"], record["remedy"] = self.warning
        if self.definitions is not None:
            record["definitions"] = self.definitions
        return record

    @classmethod
    def carried_over(cls, record: dict[str, Any], indexed_files: int, unsupported_inputs: int) -> Coverage:
        """The coverage a build record kept, for a generation of the very same tree, provider
        and exclusions (a same-tree refresh): judging it again would need the provider's
        detection cache, which the artifact does not hold, and could only give the same answer."""
        return cls(
            completeness=str(record.get("completeness", "partial")),
            indexed_files=indexed_files,
            unsupported_inputs=unsupported_inputs,
            notes=[str(note) for note in record.get("partial_because", [])],
            uncovered=[str(item.get("path")) for item in record.get("uncovered_inputs", [])],
            uncovered_inputs=list(record.get("uncovered_inputs", [])),
            uncovered_counts=dict(record.get("uncovered_counts", {})),
            scope_exclusions=dict(record.get("scope_exclusions", {})),
            scope_excluded=list(record.get("scope_excluded", [])),
            empty_inputs=int(record.get("empty_inputs", 0)),
            empty=list(record.get("empty", [])),
            exclude=list(record.get("exclude", [])),
            files={**dict.fromkeys(FILE_COUNTERS, 0), **record.get("files", {})},
            code_bytes={**dict.fromkeys(("tracked", *CODE_BYTE_COUNTERS), 0), **record.get("code_bytes", {})},
            scope_bytes=dict(record.get("scope_bytes", {})),
            scope_dirs=dict(record.get("scope_dirs", {})),
            unread_languages=dict(record.get("unread_languages", {})),
            definitions=record.get("definitions"),
        )

    def exclude_input(self, path: str, rule: str) -> None:
        self.scope_exclusions[rule] = self.scope_exclusions.get(rule, 0) + 1
        if len(self.scope_excluded) < MAX_LISTED and len(path) <= MAX_LISTED_PATH:
            self.scope_excluded.append({"path": path, "rule": rule})

    def empty_input(self, path: str) -> None:
        self.empty_inputs += 1
        if len(self.empty) < MAX_LISTED and len(path) <= MAX_LISTED_PATH:
            self.empty.append(path)

    def uncover(self, path: str, why: str, action: str | None = None) -> None:
        """Count and (bounded) list one uncovered input; ``action`` picks a next action other
        than the reason's own (the same reason can have different remedies)."""
        self.uncovered_counts[why] = self.uncovered_counts.get(why, 0) + 1
        _note(self.uncovered, path, why)
        if len(self.uncovered_inputs) < MAX_LISTED and len(path) <= MAX_LISTED_PATH:
            said = NEXT_ACTIONS[action or why].format(path=path)
            self.uncovered_inputs.append({"path": path, "reason": why, "next_action": said})


# What a scope rule's remedy is, learnt from graphifyy 0.9.58's detection (detect.py: its walk
# prunes a noise directory before any ignore rule is asked, so a `!` negation cannot reach it;
# no option of `graphify extract` re-includes one, and .graphifyinclude was removed). Handing it
# the directory under another name would make it read the code, but its cross-file resolution
# binds calls by name across the whole tree, so the rest of the graph would change too: no
# spelling is provably harmless, and cm-graph uses none.
_CANNOT_READ_DIR = ("graphifyy 0.9.58 prunes every directory named {name} by its name before any ignore rule is "
                    "asked, and no option, .graphifyignore negation or other spelling of the directory makes it read "
                    "one without changing what it resolves in the rest of the tree (it binds calls across files by "
                    "name), so this tool cannot read the code under {where}; no answer covers it. If that code is "
                    "generated from sources tracked elsewhere, say so with --exclude {where}.")
_RULE_REMEDIES = {
    scope.GRAPHIFYIGNORE: "The tracked .graphifyignore leaves that code out: remove its rule to have it graphed.",
    scope.SENSITIVE: "The provider's secret-file heuristic leaves those files out and nothing but another file name "
                     "changes that: this tool cannot read them, so no answer covers them.",
    scope.SIZE_LIMIT: "The provider refuses project files that large: this tool cannot read them, so no answer "
                      "covers them.",
    scope.SKIPPED_FILE: "The provider never reads lock files: this tool cannot read them.",
}


def unread_code_warning(
    code_bytes: dict[str, int], scope_bytes: dict[str, int], scope_dirs: dict[str, str],
    unread_languages: dict[str, int],
) -> tuple[str, str] | None:
    """(what, remedy) when scope rules or the want of an extractor leave out most of the code
    bytes tracked (``MOST_OF_THE_CODE``); None otherwise. ``what`` names the largest causes by
    bytes; ``remedy`` is the one for the largest, or says plainly that this tool cannot read it."""
    tracked = code_bytes.get("tracked", 0)
    unread = code_bytes.get("scope_excluded", 0) + code_bytes.get("unsupported_language", 0)
    if not tracked or unread <= MOST_OF_THE_CODE * tracked:
        return None
    read = code_bytes.get("read", 0)
    causes = sorted([(size, rule, "rule") for rule, size in scope_bytes.items()]
                    + [(size, language, "language") for language, size in unread_languages.items()], reverse=True)
    named = ", ".join(f"{cause} {size:,} bytes" if kind == "rule" else f"{cause} files (no extractor) {size:,} bytes"
                      for size, cause, kind in causes[:3])
    what = (f"The provider read {100 * read // tracked}% of the code bytes tracked ({read:,} of {tracked:,}): "
            f"{100 * unread // tracked}% were never read ({named}).")
    _size, top, kind = causes[0]
    if kind == "language":
        remedy = (f"graphifyy 0.9.58 has no extractor for {top} files: this tool cannot read that code, so no "
                  "answer covers it.")
    elif top.startswith(scope.SKIPPED_DIR + ":"):
        name = top.split(":", 1)[1]
        remedy = _CANNOT_READ_DIR.format(name=name, where=scope_dirs.get(top) or f"{name}/")
    else:
        remedy = _RULE_REMEDIES.get(top, "The provider's own rule leaves that code out: this tool cannot read it.")
    return what, remedy


@dataclass
class Inventory:
    """The provider's per-file rows that matter here: NFC path -> ast_hash (None if not text)."""

    rows: dict[str, object]
    malformed: int


def open_inventory(path: Path, limit: int = MAX_INVENTORY_BYTES) -> BinaryIO | None:
    """Open the provider's ``manifest.json`` if it is a plain file within budget.

    Non-blocking and no-follow, so a FIFO or symlink the provider left behind cannot stall or
    redirect the build; anything but a regular file counts as no inventory.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def read_inventory(path: Path) -> Inventory | None:
    """Stream the inventory (one row at a time, with ijson) into the rows a coverage check
    needs; None when it is absent, not a plain file, over budget, or not one JSON object."""
    handle = open_inventory(path)
    if handle is None:
        return None
    rows: dict[str, object] = {}
    malformed = 0
    with handle:
        try:
            for key, row in ijson.kvitems(handle, "", use_float=True):
                if not isinstance(row, dict) or not _ROW_KEYS <= row.keys():
                    malformed += 1
                    continue
                name = unicodedata.normalize("NFC", key)
                if name in rows:
                    return None
                rows[name] = row["ast_hash"]
            handle.seek(0)
            if next(ijson.parse(handle), (None, None))[1] != "start_map":
                return None
        except (ijson.JSONError, ValueError, OSError):
            return None
    return Inventory(rows, malformed)


MAX_DETECTION_CACHE_BYTES = 64 * 1024 * 1024
DETECTION_CACHE = Path("cache") / "stat-index.json"


def read_admitted(output_dir: Path) -> frozenset[str] | None:
    """The inputs the provider's detection admitted and read, from its own detection cache
    (``graphify-out/cache/stat-index.json``: one row per file its scan classified, keyed by
    root-relative path); None when there is no readable cache."""
    handle = open_inventory(output_dir / DETECTION_CACHE, MAX_DETECTION_CACHE_BYTES)
    if handle is None:
        return None
    names: set[str] = set()
    with handle:
        try:
            for key, _row in ijson.kvitems(handle, "", use_float=True):
                names.add(unicodedata.normalize("NFC", key))
        except (ijson.JSONError, ValueError, OSError):
            return None
    return frozenset(names)


def judge_oversized(census: Census, blobs: BlobReader, exclude: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(path, rule) for every file of ``census.oversized`` the build may leave out: the operator's
    ``--exclude``, a provider scope rule that never dispatches it, or ``oversized`` when it is
    not code (or code without an extractor). A file the provider would read as code refuses:
    leaving it out would hide code, so the operator decides, with the flag the refusal names."""
    ignore_dirs = scope.ignore_file_dirs(entry.path for entry in census.entries)
    judged = []
    for entry in census.oversized:
        if scope.operator_excluded(entry.path, exclude) is not None:
            judged.append((entry.path, scope.OPERATOR_EXCLUDE))
            continue
        suffix = PurePosixPath(entry.path.rsplit("/", 1)[-1]).suffix
        sniffed = not suffix or suffix.lower() == ".m"
        head = _digest_and_head(blobs, entry.blob, entry.size, keep_head=True)[1] if sniffed else None
        verdict = classify(entry.path, head)
        rule = scope.scope_rule(entry.path, entry.size, admitted=None, ignore_dirs=ignore_dirs)
        if verdict in (NOT_CODE, UNSUPPORTED) or rule is not None:
            judged.append((entry.path, rule or scope.OVERSIZED))
            continue
        raise Oversized(
            f"The tracked file {shlex.quote(entry.path)} is {entry.size:,} bytes, over the per-file budget "
            f"of {MAX_BLOB_BYTES // 2**20} MiB, and the provider reads it as code; leave it out with "
            f"--exclude {shlex.quote(entry.path)}."
        )
    return judged


def assess(
    census: Census,
    inventory: Inventory | None,
    blobs: BlobReader,
    *,
    admitted: frozenset[str] | None = None,
    exclude: tuple[str, ...] = (),
) -> Coverage:
    """Decide complete/partial by checking every dispatched input against the inventory.

    An input without a row is a scope exclusion when a provider rule (``scope``) or an operator
    ``--exclude`` explains it, ``empty`` when the provider's detection cache shows it was read
    and its extractor's rule yields nothing for its bytes, else ``missing`` (read, failed) or
    ``not_admitted`` (never taken in): only the last two make the build partial. The files over
    the census's per-file budget are judged first (``judge_oversized``: left out, or refused).
    """
    coverage = Coverage("partial", 0, 0, exclude=list(exclude))
    sizes = {entry.path: entry.size for entry in census.oversized}
    for path, why in judge_oversized(census, blobs, exclude):
        coverage.exclude_input(path, why)
        # Over the per-file budget: never read, so never counted as code bytes (a code file the
        # provider would read refused the build above).
        coverage.count("operator_excluded" if why == scope.OPERATOR_EXCLUDE else "oversized", sizes[path], code=False)
    notes = coverage.notes
    unread = "missing_no_inventory" if inventory is None else "missing_unread" if admitted is None else None
    if inventory is None:
        notes.append("the provider's inventory is absent or unreadable")
        inventory = Inventory({}, 0)
    rows, malformed = inventory.rows, inventory.malformed
    ignore_dirs = scope.ignore_file_dirs(entry.path for entry in census.entries)
    indexed = unsupported = dispatched = 0
    for entry in census.entries:
        suffix = PurePosixPath(entry.path.rsplit("/", 1)[-1]).suffix
        if scope.operator_excluded(entry.path, exclude) is not None:
            coverage.exclude_input(entry.path, scope.OPERATOR_EXCLUDE)
            coverage.count("operator_excluded", entry.size, code=_is_code(entry, suffix, blobs))
            continue
        if not suffix or suffix.lower() == ".m":
            digest, head = _digest_and_head(blobs, entry.blob, entry.size, keep_head=True)
            verdict = classify(entry.path, head)
        else:
            verdict = classify(entry.path, None)
            if verdict == NOT_CODE:
                _count_not_dispatched(coverage, entry, suffix)
                continue
            whole = "whole" if _is_manifest(entry) else False
            digest, head = _digest_and_head(blobs, entry.blob, entry.size, keep_head=whole)
        if verdict == NOT_CODE:
            _count_not_dispatched(coverage, entry, suffix)
            continue
        name = unicodedata.normalize("NFC", entry.path)
        if name not in rows:
            was_admitted = None if admitted is None else name in admitted
            rule = scope.scope_rule(entry.path, entry.size, admitted=was_admitted, ignore_dirs=ignore_dirs)
            if rule is not None:
                coverage.exclude_input(entry.path, rule)
                coverage.count("scope_excluded", entry.size, code=True)
                coverage.scope_bytes[rule] = coverage.scope_bytes.get(rule, 0) + entry.size
                coverage.scope_dirs.setdefault(rule, _pruned_directory(entry.path, rule))
                continue
        if verdict == UNCLASSIFIED:
            coverage.uncover(entry.path, "unclassified")
            coverage.count("uncovered", entry.size, code=True)
            continue
        dispatched += 1
        ast_hash = rows.get(name)
        read = False
        if name not in rows:
            if admitted is not None and name not in admitted:
                coverage.uncover(entry.path, "not_admitted")
            elif admitted is not None and scope.yields_no_content(entry.path, head):
                coverage.empty_input(entry.path)
                read = True
            else:
                coverage.uncover(entry.path, "missing", unread)
        elif not isinstance(ast_hash, str) or not _MD5.fullmatch(ast_hash):
            coverage.uncover(entry.path, "unstamped")
        elif ast_hash != digest:
            coverage.uncover(entry.path, "mismatched")
        elif verdict == UNSUPPORTED:
            unsupported += 1
            _count_unread_language(coverage, entry, suffix)
            continue
        else:
            indexed += 1
            read = True
        coverage.count("code_read" if read else "uncovered", entry.size, code=True, bytes_as="read" if read else None)
    if malformed:
        notes.append(f"{malformed} inventory rows are malformed")
    notes.extend(
        f"{count} code inputs are {what.replace('_', ' ')}"
        for what, count in coverage.uncovered_counts.items() if count
    )
    if not census.entries:
        notes.append("the commit tracks no files")
    if dispatched == 0:
        notes.append("the provider was given no code inputs")
    coverage.completeness = "partial" if notes else "complete"
    coverage.indexed_files = min(indexed, len(census.entries))
    coverage.unsupported_inputs = unsupported
    return coverage


def _count_not_dispatched(coverage: Coverage, entry: CensusEntry, suffix: str) -> None:
    """A file the provider never dispatches: code in a language it has no extractor for, or not code."""
    if suffix.lower() in UNREAD_CODE_EXTENSIONS:
        _count_unread_language(coverage, entry, suffix)
    else:
        coverage.count("non_code", entry.size, code=False)


def _count_unread_language(coverage: Coverage, entry: CensusEntry, suffix: str) -> None:
    language = suffix.lower() or "(no extension)"
    coverage.count("unsupported_language", entry.size, code=True)
    coverage.unread_languages[language] = coverage.unread_languages.get(language, 0) + entry.size


def _is_code(entry: CensusEntry, suffix: str, blobs: BlobReader) -> bool:
    """Whether a file the operator left out is code (its bytes count as code tracked)."""
    if suffix.lower() in UNREAD_CODE_EXTENSIONS:
        return True
    head = _digest_and_head(blobs, entry.blob, entry.size, keep_head=True)[1] if not suffix else None
    return classify(entry.path, head) != NOT_CODE


def _pruned_directory(path: str, rule: str) -> str:
    """The directory a ``skipped_dir:<name>`` rule pruned, as a path ending in ``/`` (for a
    remedy's ``--exclude``); "" for every other rule."""
    if not rule.startswith(scope.SKIPPED_DIR + ":"):
        return ""
    name = rule.split(":", 1)[1]
    segments = path.split("/")[:-1]
    return "/".join(segments[: segments.index(name) + 1]) + "/" if name in segments else ""


def _is_manifest(entry: CensusEntry) -> bool:
    name = entry.path.rsplit("/", 1)[-1].lower()
    return name in scope.PACKAGE_MANIFESTS and entry.size <= scope.MAX_PACKAGE_MANIFEST_BYTES


MAX_UNCOVERED_LISTED = 10


def _note(uncovered: list[str], path: str, why: str) -> None:
    if len(uncovered) < MAX_UNCOVERED_LISTED:
        uncovered.append(f"{path} ({why})")


def _digest_and_head(
    blobs: BlobReader, blob: str, size: int, keep_head: bool | str
) -> tuple[str, bytes]:
    """The blob's MD5 and, when asked, its first bytes (a whole package manifest, which is at
    most 2 MB when the provider reads it, else the first 256 KiB)."""
    md5 = hashlib.md5(usedforsecurity=False)
    head = b""
    budget = scope.MAX_PACKAGE_MANIFEST_BYTES if keep_head == "whole" else _SNIFF_BYTES
    for chunk in blobs.chunks(blob, size):
        md5.update(chunk)
        if keep_head and len(head) < budget:
            head += chunk[: budget - len(head)]
    return md5.hexdigest(), head
