"""Where a checkout's graph state lives: state root, workspace id and the generation tree.

The layout is the established one (``graph/<workspace>/current``,
``generations/<32-hex>/{manifest.json,graph.bin}``) so a generation another compatible tool
published can be read by pointing ``--state-dir`` at its root; our derived index files sit beside
them in ``indexes/``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..base.errors import Unsafe
from ..base.git import checkout_root
from ..base.records import record
from ..base.rules import text_checkout

STATE_ENV = "CM_GRAPH_HOME"


def default_state_root() -> Path:
    if os.environ.get(STATE_ENV):
        return Path(os.environ[STATE_ENV])
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "cm-graph"


def state_root_origin(state_dir: Path | None) -> str:
    """Where a command's state root came from, as a refusal that names the root says it."""
    if state_dir is not None:
        return "--state-dir"
    if os.environ.get(STATE_ENV):
        return STATE_ENV
    return f"the default: neither --state-dir nor {STATE_ENV} was given"


def resolve_checkout(repo_path: Path | None) -> Path:
    """The checkout's resolved top level (or the resolved directory when Git has no answer)."""
    directory = Path(repo_path) if repo_path is not None else Path.cwd()
    top = checkout_root(directory)
    return top if top is not None else text_checkout(Path(os.path.realpath(directory)))


def workspace_id(checkout: Path) -> str:
    return hashlib.sha256(str(checkout).encode("utf-8")).hexdigest()[:32]


def refuse_state_in_git_work_tree(path: Path) -> None:
    """State kept inside a work tree could be committed or cleaned away with the code."""
    if any((ancestor / ".git").exists() for ancestor in (path, *path.parents)):
        raise Unsafe(
            "The state directory must stay outside Git repositories; set CM_GRAPH_HOME or "
            "--state-dir to a directory outside any work tree."
        )


def resolved_state_root(state_dir: Path) -> Path:
    """A state root as an absolute real path, refused inside a git work tree."""
    root = Path(os.path.realpath(os.path.abspath(state_dir)))
    refuse_state_in_git_work_tree(root)
    return root


@record
class Workspace:
    """The graph state of one checkout under one state root."""

    checkout: Path
    root: Path

    @classmethod
    def locate(cls, repo_path: Path | None, state_dir: Path | None) -> Workspace:
        root = Path(state_dir) if state_dir is not None else default_state_root()
        root = Path(os.path.realpath(os.path.abspath(root)))
        workspace = cls(resolve_checkout(repo_path), root)
        refuse_state_in_git_work_tree(workspace.directory)
        return workspace

    @property
    def graph_dir(self) -> Path:
        return self.root / "graph"

    @property
    def directory(self) -> Path:
        return self.graph_dir / workspace_id(self.checkout)

    @property
    def lock_path(self) -> Path:
        return self.graph_dir / f"{workspace_id(self.checkout)}.lock"

    @property
    def current_pointer(self) -> Path:
        return self.directory / "current"

    @property
    def generations_dir(self) -> Path:
        return self.directory / "generations"

    @property
    def indexes_dir(self) -> Path:
        return self.directory / "indexes"

    def generation_dir(self, generation: str) -> Path:
        return self.generations_dir / generation

    def index_path(self, generation: str) -> Path:
        return self.indexes_dir / f"{generation}.sqlite"
