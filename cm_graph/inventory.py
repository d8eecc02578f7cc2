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
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO

import ijson

from .gitio import BlobReader, Census

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


@dataclass
class Coverage:
    """The verdict and its tallies; notes explain a partial verdict and are not persisted."""

    completeness: str
    indexed_files: int
    unsupported_inputs: int
    notes: list[str] = field(default_factory=list)
    # The first uncovered inputs (repository-relative paths), so a user can see which files.
    uncovered: list[str] = field(default_factory=list)


@dataclass
class Inventory:
    """The provider's per-file rows that matter here: NFC path -> ast_hash (None if not text)."""

    rows: dict[str, object]
    malformed: int


def open_inventory(path: Path) -> BinaryIO | None:
    """Open the provider's ``manifest.json`` if it is a plain file within budget.

    Non-blocking and no-follow, so a FIFO or symlink the provider left behind cannot stall or
    redirect the build; anything but a regular file counts as no inventory.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INVENTORY_BYTES:
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


def assess(census: Census, inventory: Inventory | None, blobs: BlobReader) -> Coverage:
    """Decide complete/partial by checking every dispatched input against the inventory."""
    notes: list[str] = []
    if inventory is None:
        notes.append("the provider's inventory is absent or unreadable")
        inventory = Inventory({}, 0)
    rows, malformed = inventory.rows, inventory.malformed
    tally = {"missing": 0, "unstamped": 0, "mismatched": 0, "unclassified": 0}
    uncovered: list[str] = []
    indexed = unsupported = dispatched = 0
    for entry in census.entries:
        suffix = PurePosixPath(entry.path.rsplit("/", 1)[-1]).suffix
        if not suffix or suffix.lower() == ".m":
            digest, head = _digest_and_head(blobs, entry.blob, entry.size, keep_head=True)
            verdict = classify(entry.path, head)
        else:
            verdict = classify(entry.path, None)
            if verdict == NOT_CODE:
                continue
            digest, _ = _digest_and_head(blobs, entry.blob, entry.size, keep_head=False)
        if verdict == NOT_CODE:
            continue
        if verdict == UNCLASSIFIED:
            tally["unclassified"] += 1
            _note(uncovered, entry.path, "unclassified")
            continue
        dispatched += 1
        name = unicodedata.normalize("NFC", entry.path)
        ast_hash = rows.get(name)
        if name not in rows:
            tally["missing"] += 1
            _note(uncovered, entry.path, "missing")
        elif not isinstance(ast_hash, str) or not _MD5.fullmatch(ast_hash):
            tally["unstamped"] += 1
            _note(uncovered, entry.path, "unstamped")
        elif ast_hash != digest:
            tally["mismatched"] += 1
            _note(uncovered, entry.path, "mismatched")
        elif verdict == UNSUPPORTED:
            unsupported += 1
        else:
            indexed += 1
    if malformed:
        notes.append(f"{malformed} inventory rows are malformed")
    notes.extend(f"{count} code inputs are {what}" for what, count in tally.items() if count)
    if not census.entries:
        notes.append("the commit tracks no files")
    if dispatched == 0:
        notes.append("the provider was given no code inputs")
    complete = not notes
    return Coverage(
        "complete" if complete else "partial",
        min(indexed, len(census.entries)),
        unsupported,
        notes,
        uncovered,
    )


MAX_UNCOVERED_LISTED = 10


def _note(uncovered: list[str], path: str, why: str) -> None:
    if len(uncovered) < MAX_UNCOVERED_LISTED:
        uncovered.append(f"{path} ({why})")


def _digest_and_head(
    blobs: BlobReader, blob: str, size: int, keep_head: bool
) -> tuple[str, bytes]:
    md5 = hashlib.md5(usedforsecurity=False)
    head = b""
    for chunk in blobs.chunks(blob, size):
        md5.update(chunk)
        if keep_head and len(head) < _SNIFF_BYTES:
            head += chunk[: _SNIFF_BYTES - len(head)]
    return md5.hexdigest(), head
