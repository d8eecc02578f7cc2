"""What a command left on disk: a file's permission bits and its digest."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def mode(path: Path) -> int:
    """The permission bits of ``path`` itself (a link is not followed)."""
    return stat.S_IMODE(os.lstat(path).st_mode)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
